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

fn scratch_root(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("xtask-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file under `dir` with its contents, to prove nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
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
fn check_passes_twice_on_the_repository() {
    for run in 0..2 {
        let o = xtask(&["generate", "--check"], None);
        assert!(o.status.success(), "run {run}: {}", text(&o));
        assert!(text(&o).contains("reproducible and intact"), "{}", text(&o));
    }
}

#[test]
fn check_catches_one_changed_byte_and_failures_change_nothing() {
    let root = scratch_root("check");
    let r = root.to_str().unwrap();
    let o = xtask(&["generate", "--set", "asm_avx2", "--root", r], None);
    assert!(o.status.success(), "{}", text(&o));
    let o = xtask(&["generate", "--check", "--set", "asm_avx2", "--root", r], None);
    assert!(o.status.success(), "{}", text(&o));

    let asm = root.join("asm_avx2/linux-x86_64/gen/crypto/aes/aesni-x86_64.s");
    let original = fs::read(&asm).unwrap();
    flip_byte(&asm);
    let o = xtask(&["generate", "--check", "--set", "asm_avx2", "--root", r], None);
    assert!(!o.status.success(), "a changed byte must fail the check");
    assert!(
        text(&o).contains("on disk asm_avx2/linux-x86_64/gen/crypto/aes/aesni-x86_64.s"),
        "{}",
        text(&o)
    );
    fs::write(&asm, original).unwrap();

    // A make that fails halfway through leaves the previous outputs and lock as they were.
    let before = snapshot(&root);
    let fake = root.join("fake-make");
    fs::create_dir_all(&fake).unwrap();
    let make = fake.join("make");
    fs::write(&make, "#!/bin/sh\necho 'make: simulated failure' >&2\nexit 2\n").unwrap();
    Command::new("chmod").arg("755").arg(&make).status().unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap());
    let o = xtask(&["generate", "--set", "asm_avx2", "--root", r], Some(&path));
    assert!(!o.status.success());
    assert!(text(&o).contains("simulated failure"), "{}", text(&o));
    fs::remove_dir_all(&fake).unwrap();
    assert_eq!(snapshot(&root), before, "a failed generation must leave the outputs untouched");
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn missing_perl_is_one_clear_error() {
    let root = scratch_root("noperl");
    let empty = root.join("empty-bin");
    fs::create_dir_all(&empty).unwrap();
    let o =
        xtask(&["generate", "--set", "no_asm", "--root", root.to_str().unwrap()], empty.to_str());
    assert!(!o.status.success());
    let t = text(&o);
    assert!(t.contains("perl not found on PATH") && t.contains("cargo xtask generate"), "{t}");
    assert_eq!(t.trim().lines().count(), 1, "one line: {t}");
    assert!(!root.join("no_asm").exists());
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn bad_options_name_the_accepted_values() {
    let o = xtask(&["build", "--asm-set", "fast"], None);
    assert!(!o.status.success());
    assert!(text(&o).contains("accepted: auto, asm, asm_avx2, no_asm"), "{}", text(&o));
    let o = xtask(&["build", "--target", "riscv64gc-unknown-linux-gnu"], None);
    assert!(!o.status.success());
    assert!(text(&o).contains("supported: linux-x86_64, x86_64-unknown-linux-gnu"), "{}", text(&o));
    let o = xtask(&["generate", "--set", "fast"], None);
    assert!(!o.status.success());
    assert!(text(&o).contains("unknown asm set `fast`"), "{}", text(&o));
}
