//! `cargo xtask generate` end to end, on scratch copies of the sets: reproducibility, the
//! lock catching one changed byte, atomicity, and a missing perl.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str], path: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.args(args);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().expect("running xtask")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A directory removed when the test ends, failed or not.
fn scratch_root(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("xtask-{name}-")).tempdir().unwrap()
}

/// Every file under `dir` with its contents, to prove nothing changed.
/// Every output under `dir`, but the write lock (`.gen-lock`), which holds the last writer's pid.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name().is_some_and(|n| n == ".gen-lock") {
            continue;
        }
        if p.is_dir() {
            out.extend(snapshot(&p));
        } else {
            out.push((p.clone(), fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

fn flip_byte(path: &Path) {
    let mut data = fs::read(path).unwrap();
    let i = data.len() / 2;
    data[i] ^= 0x01;
    fs::write(path, data).unwrap();
}

#[test]
fn check_catches_one_changed_byte_and_failures_change_nothing() {
    let scratch = scratch_root("check");
    let root = scratch.path();
    let r = root.to_str().unwrap();
    // One configuration, without perlasm: `cargo xtask test` itself generates every
    // configuration and compares it with the lock; this is about what --check and a failed
    // run do.
    let one = ["--set", "no_asm", "--target", "linux-x86_64", "--c-variant", "none", "--root", r];
    let o = xtask(&[&["generate"][..], &one].concat(), None);
    assert!(o.status.success(), "{}", text(&o));

    // The fresh generation matches the lock and so does every other file on disk: the one
    // changed byte is the only difference found (a run without it would cost another perl run).
    let generated = "no_asm/linux-x86_64/gen/providers/common/der/der_ec_gen.c";
    let file = root.join(generated);
    let original = fs::read(&file).unwrap();
    flip_byte(&file);
    let o = xtask(&[&["generate", "--check"][..], &one].concat(), None);
    assert!(!o.status.success(), "a changed byte must fail the check");
    let t = text(&o);
    assert!(t.contains("generate --check: 1 difference(s)"), "{t}");
    assert!(t.contains(&format!("  on disk {generated}")), "{t}");
    fs::write(&file, original).unwrap();

    // A make that fails halfway through leaves the previous outputs and lock as they were.
    let before = snapshot(root);
    let fake = root.join("fake-make");
    fs::create_dir_all(&fake).unwrap();
    let make = fake.join("make");
    fs::write(&make, "#!/bin/sh\necho 'make: simulated failure' >&2\nexit 2\n").unwrap();
    Command::new("chmod").arg("755").arg(&make).status().unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    let o = xtask(&[&["generate"][..], &one].concat(), Some(&path));
    assert!(!o.status.success());
    assert!(text(&o).contains("simulated failure"), "{}", text(&o));
    fs::remove_dir_all(&fake).unwrap();
    assert_eq!(snapshot(root), before, "a failed generation must leave the outputs untouched");
}

#[test]
fn missing_perl_is_one_clear_error() {
    let scratch = scratch_root("noperl");
    let root = scratch.path();
    let empty = root.join("empty-bin");
    fs::create_dir_all(&empty).unwrap();
    let o =
        xtask(&["generate", "--set", "no_asm", "--root", root.to_str().unwrap()], empty.to_str());
    assert!(!o.status.success());
    let t = text(&o);
    assert!(t.contains("perl not found on PATH") && t.contains("cargo xtask generate"), "{t}");
    assert_eq!(t.trim().lines().count(), 1, "one line: {t}");
    assert!(!root.join("no_asm").exists());
}

#[test]
fn bad_options_name_the_accepted_values() {
    let o = xtask(&["build", "--asm-set", "fast"], None);
    assert!(!o.status.success());
    assert!(text(&o).contains("accepted: auto, asm, asm_avx2, no_asm"), "{}", text(&o));
    let o = xtask(&["build", "--target", "loongarch64-unknown-linux-gnu"], None);
    assert!(!o.status.success());
    let nearest = "the nearest is `linux-x86_64` (x86_64-unknown-linux-gnu)";
    assert!(text(&o).contains(nearest), "{}", text(&o));
    let o = xtask(&["generate", "--set", "fast"], None);
    assert!(!o.status.success());
    assert!(text(&o).contains("unknown asm set `fast`"), "{}", text(&o));
    let o = xtask(&["generate", "--c-variant", "fast"], None);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("unknown C variant `fast`; accepted: none, ec_nistp_64_gcc_128"),
        "{}",
        text(&o)
    );
}

/// `no_asm` for linux-x86_64, OpenSSL's default C configuration only (the C variant's adds
/// nothing to what these tests prove, and would double their time).
const NO_ASM_PLAIN: [&str; 8] =
    ["generate", "--set", "no_asm", "--target", "linux-x86_64", "--c-variant", "none", "--root"];

/// An xtask generate of `no_asm` for linux-x86_64 into `root`, started in its own process
/// group so that a kill reaches its perl and make too.
fn spawn_generate(root: &Path) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(NO_ASM_PLAIN)
        .arg(root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("starting xtask generate")
}

/// Waits until `pid`'s staging directory has appeared under `root`: that run holds the lock.
fn wait_for_staging(root: &Path, pid: u32) -> PathBuf {
    let staging = root.join(format!(".gen-staging-{pid}"));
    for _ in 0..600 {
        if staging.join("work").exists() {
            return staging;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{} never appeared", staging.display());
}

/// The no_asm configuration under `root` matches the repository's generate.lock, on disk and
/// in `root`'s own lock.
fn assert_intact(root: &Path) {
    use crypto_build::lock::{of_disk, Lock};
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let committed = Lock::load(&crypto_build::data::DEFAULT_LINE.root(workspace)).unwrap();
    let written = Lock::load(root).unwrap();
    let key = "no_asm/linux-x86_64";
    let expected = committed.of_key(key);
    assert!(!expected.entries.is_empty(), "{key} is not in the repository's lock");
    assert_eq!(Lock::diff(&expected, &of_disk(&root.join(key)).unwrap()), Vec::<String>::new());
    assert_eq!(Lock::diff(&expected, &written.of_key(key)), Vec::<String>::new());
    assert!(!root.join("no_asm/linux-x86_64+ec_nistp_64_gcc_128").exists(), "--c-variant none");
}

#[test]
fn a_second_generate_refuses_while_one_runs_and_a_killed_one_is_recovered() {
    let scratch = scratch_root("concurrent");
    let root = scratch.path();
    let first = spawn_generate(root);
    wait_for_staging(root, first.id());
    let second =
        Command::new(env!("CARGO_BIN_EXE_xtask")).args(NO_ASM_PLAIN).arg(root).output().unwrap();
    let t = text(&second);
    assert!(!second.status.success(), "{t}");
    assert_eq!(t.trim().lines().count(), 1, "one line: {t}");
    assert!(t.contains(&format!("pid {}", first.id())) && t.contains("wait for it"), "{t}");
    let o = first.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_intact(root);

    // SIGKILL part-way, to the whole process group: the outputs stay as they were, and the
    // rerun removes the dead run's staging and takes the lock it held.
    let killed = spawn_generate(root);
    let staging = wait_for_staging(root, killed.id());
    let group = format!("-{}", killed.id());
    assert!(Command::new("kill").args(["-KILL", "--", &group]).status().unwrap().success());
    let o = killed.wait_with_output().unwrap();
    assert!(!o.status.success(), "the run should have been killed: {}", text(&o));
    assert!(staging.exists(), "a killed run leaves its staging behind");
    assert_intact(root);
    let rerun = spawn_generate(root).wait_with_output().unwrap();
    assert!(rerun.status.success(), "{}", text(&rerun));
    assert!(!staging.exists(), "the rerun removes the dead run's staging");
    assert_intact(root);
}
