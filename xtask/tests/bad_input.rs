//! Bad input through a real `cargo build -p crypto-sys`: each must fail fast, before OpenSSL
//! is compiled, with one `error: crypto-sys:` line naming the cause and the fix, and leave
//! nothing half-built (no libraries, no half-written sets).

use crypto_build::data::DEFAULT_LINE;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Once;

const TRIPLE: &str = "x86_64-unknown-linux-gnu";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Its own target directory, so these builds never disturb the main one.
fn target_dir() -> PathBuf {
    root().join("target/bad-input")
}

/// `cargo build -p crypto-sys` with `vars` set, and every variable the build reads cleared.
fn cargo_build(vars: &[(&str, &str)]) -> Output {
    build_outputs();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root()).args(["build", "-p", "crypto-sys", "--target-dir"]);
    cmd.arg(target_dir());
    for (name, _) in std::env::vars() {
        if name.starts_with("CRYPTO_SYS_") || name == "CC" || name.starts_with("CC_") {
            cmd.env_remove(name);
        }
    }
    cmd.envs(vars.iter().copied());
    cmd.output().expect("running cargo")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The build failed with exactly one error line from the build script, containing every
/// `expected` piece; returns that line.
fn one_error_line(o: &Output, expected: &[&str]) -> String {
    let t = text(o);
    assert!(!o.status.success(), "the build should have failed:\n{t}");
    let lines: Vec<&str> = t.lines().filter(|l| l.contains("error: crypto-sys:")).collect();
    assert_eq!(lines.len(), 1, "exactly one error line:\n{t}");
    assert!(!t.contains("warning: crypto-sys"), "no warning beside the error:\n{t}");
    for piece in expected {
        assert!(lines[0].contains(piece), "`{piece}` missing from `{}`", lines[0]);
    }
    println!("{}", lines[0]);
    lines[0].to_string()
}

/// crypto-sys's build-script output directories in this target directory. Cargo reuses one
/// across variable changes, so they are emptied once, before the first case runs: every case
/// fails before compiling, so none may fill them again.
fn build_outputs() -> Vec<PathBuf> {
    static EMPTIED: Once = Once::new();
    let build = target_dir().join("debug/build");
    let outs: Vec<PathBuf> = fs::read_dir(&build)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("crypto-sys-"))
        .map(|e| e.path().join("out"))
        .collect();
    EMPTIED.call_once(|| {
        for out in &outs {
            let _ = fs::remove_dir_all(out);
        }
    });
    outs
}

/// No crypto-sys build script run left libraries, headers or a summary behind, and no
/// generation was left staged in the workspace.
fn nothing_half_built() {
    for out in build_outputs() {
        for left in ["lib", "include", "crypto-sys-summary.txt"] {
            assert!(!out.join(left).exists(), "{} was left behind", out.join(left).display());
        }
    }
    // A live process's staging is a generation running beside these tests (the `lock` step).
    for e in fs::read_dir(root()).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix(".gen-staging-") {
            let running = Path::new("/proc").join(pid).exists();
            assert!(running, "{name} was left in the workspace");
        }
    }
}

#[test]
fn an_unknown_asm_set_lists_the_accepted_ones() {
    let per_target = format!("CRYPTO_SYS_ASM_SET_{}", TRIPLE.replace('-', "_"));
    for var in ["CRYPTO_SYS_ASM_SET", per_target.as_str()] {
        let o = cargo_build(&[(var, "bogus")]);
        one_error_line(&o, &[&format!("{var}=bogus"), "auto, asm, asm_avx2, no_asm"]);
        nothing_half_built();
    }
}

#[test]
fn an_unknown_assembler_lists_the_accepted_ones() {
    let o = cargo_build(&[("CRYPTO_SYS_ASSEMBLER", "bogus")]);
    one_error_line(&o, &["CRYPTO_SYS_ASSEMBLER=bogus", "gas, clang, nasm"]);
    nothing_half_built();
}

#[test]
fn an_unknown_c_variant_lists_the_accepted_ones() {
    let o = cargo_build(&[("CRYPTO_SYS_C_VARIANT", "bogus")]);
    one_error_line(&o, &["CRYPTO_SYS_C_VARIANT=bogus", "auto, none, ec_nistp_64_gcc_128"]);
    nothing_half_built();
}

#[test]
fn a_missing_c_compiler_is_named_and_nothing_else() {
    let o = cargo_build(&[("CC", "/nonexistent/cc")]);
    let line = one_error_line(&o, &["/nonexistent/cc", "not found", "set CC to"]);
    assert!(!line.contains("probe") && !line.contains("downgrade"), "{line}");
    nothing_half_built();
}

#[test]
fn a_relative_openssldir_is_refused_naming_the_prefix_form() {
    let o = cargo_build(&[("CRYPTO_SYS_OPENSSLDIR", "ssl")]);
    one_error_line(&o, &["CRYPTO_SYS_OPENSSLDIR", "`ssl` is not an absolute path", "--prefix"]);
    nothing_half_built();
}

#[test]
fn a_sets_dir_that_does_not_exist_is_refused_not_created() {
    let missing = target_dir().join("no-such-sets");
    let _ = fs::remove_dir_all(&missing);
    let o = cargo_build(&[("CRYPTO_SYS_SETS_DIR", missing.to_str().unwrap())]);
    one_error_line(&o, &["no such directory", "create it", "unset CRYPTO_SYS_SETS_DIR"]);
    assert!(!missing.exists(), "{} was created", missing.display());
    nothing_half_built();
}

/// A scratch sets directory holding a copy of `asm/linux-x86_64`, changed by `edit`, and the
/// variables that build from it alone (OpenSSL's default C configuration). `cargo xtask build`
/// and crypto-sys's own build for these tests have made that set; the test command's `lock`
/// step, which makes the others, may still be running beside them.
fn scratch_sets(name: &str, edit: impl FnOnce(&Path)) -> PathBuf {
    let dir = target_dir().join(name);
    let _ = fs::remove_dir_all(&dir);
    // The default line's sets under the directory, as a workspace holds them.
    let line = crypto_build::data::DEFAULT_LINE;
    let sets = line.root(&dir);
    fs::create_dir_all(sets.join("asm")).unwrap();
    let copied = Command::new("cp")
        .arg("-a")
        .arg(line.root(&root()).join("asm/linux-x86_64"))
        .arg(sets.join("asm"))
        .status()
        .unwrap();
    assert!(copied.success(), "copying asm/linux-x86_64 (run `cargo xtask generate`)");
    edit(&sets.join("asm/linux-x86_64"));
    dir
}

fn build_from(sets: &Path) -> Output {
    cargo_build(&[
        ("CRYPTO_SYS_SETS_DIR", sets.to_str().unwrap()),
        ("CRYPTO_SYS_ASM_SET", "asm"),
        ("CRYPTO_SYS_C_VARIANT", "none"),
    ])
}

/// Every file under `dir` with its contents, to prove the build changed nothing there.
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

#[test]
fn a_sets_dir_of_another_openssl_version_is_refused() {
    let sets = scratch_sets("sets-of-3.5.4", |set| {
        let m = set.join("manifest.tsv");
        let text = fs::read_to_string(&m).unwrap();
        let ours = format!("\nopenssl\t{}\n", DEFAULT_LINE.version);
        assert!(text.contains(&ours), "the copied manifest is not the default line's");
        fs::write(&m, text.replace(&ours, "\nopenssl\t3.5.4\n")).unwrap();
    });
    let before = snapshot(&sets);
    let o = build_from(&sets);
    let builds = format!("builds OpenSSL {}", DEFAULT_LINE.version);
    one_error_line(&o, &["OpenSSL 3.5.4", &builds, "--root", "unset"]);
    assert!(before == snapshot(&sets), "the build changed {}", sets.display());
    nothing_half_built();
}

#[test]
fn a_file_changed_with_its_manifest_entry_is_caught_by_the_lock() {
    let sets = scratch_sets("sets-tampered", |set| {
        let m = set.join("manifest.tsv");
        let text = fs::read_to_string(&m).unwrap();
        let rel = "crypto/buildinf.h";
        let file = set.join("gen").join(rel);
        let old = crypto_build::sha256::hex(&fs::read(&file).unwrap());
        let new = b"/* not what OpenSSL generated */\n";
        fs::write(&file, new).unwrap();
        let line = format!("file\t{old}\t{rel}\n");
        assert!(text.contains(&line), "{rel} is not in the manifest as expected");
        let fixed = format!("file\t{}\t{rel}\n", crypto_build::sha256::hex(new));
        fs::write(&m, text.replace(&line, &fixed)).unwrap();
    });
    let before = snapshot(&sets);
    let o = build_from(&sets);
    one_error_line(&o, &["manifest.tsv does not match generate.lock", "changed after generation"]);
    assert!(before == snapshot(&sets), "the build changed {}", sets.display());
    nothing_half_built();
}

#[test]
fn xtask_build_for_an_unsupported_target_names_the_nearest_row_and_no_asm() {
    let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["build", "--target", "loongarch64-unknown-linux-gnu"])
        .output()
        .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 1, "one line:\n{t}");
    let nearest = format!("the nearest is `linux-x86_64` ({TRIPLE})");
    for piece in ["loongarch64-unknown-linux-gnu", "unsupported", &nearest, "no_asm"] {
        assert!(lines[0].contains(piece), "`{piece}` missing from `{}`", lines[0]);
    }
    println!("{}", lines[0]);
    assert!(!root().join("target/loongarch64-unknown-linux-gnu").exists(), "{t}");
}

/// `--prefix` onto a file, or onto a directory that is not ours: one line, before anything is
/// built, and the file or directory as it was.
#[test]
fn xtask_build_refuses_a_prefix_it_cannot_use_before_building() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::create_dir_all(dir.join("not-ours")).unwrap();
    std::fs::write(dir.join("a-file"), "keep").unwrap();
    std::fs::write(dir.join("not-ours/keep.txt"), "keep").unwrap();
    for (prefix, want) in [
        (dir.join("a-file"), "is a file, not a directory"),
        (dir.join("not-ours"), "is not a prefix installed by"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("build")
            .arg("--prefix")
            .arg(&prefix)
            .output()
            .unwrap();
        let t = text(&o);
        assert!(!o.status.success(), "{t}");
        // One line, so refused up front: a cargo build would have printed its own.
        assert_eq!(t.trim().lines().count(), 1, "one line:\n{t}");
        assert!(t.contains(want), "{t}");
        println!("{}", t.trim());
    }
    assert_eq!(std::fs::read_to_string(dir.join("a-file")).unwrap(), "keep");
    assert_eq!(std::fs::read_to_string(dir.join("not-ours/keep.txt")).unwrap(), "keep");
}

/// An `--openssldir` that cannot be placed: one line, before anything is built, and no
/// prefix installed.
#[test]
fn xtask_build_refuses_an_openssldir_it_cannot_place_before_building() {
    let scratch = tempfile::tempdir().unwrap();
    let prefix = scratch.path().join("prefix");
    for (args, want) in [
        (&["--openssldir", "ssl"][..], "is relative, so it lies under the prefix"),
        (&["--openssldir", "../ssl", "--prefix"], "without `..`"),
        (&["--openssldir", ".", "--prefix"], "is the prefix itself"),
        (&["--openssldir", "/etc/ss\nl", "--prefix"], "only printable ASCII"),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
        cmd.arg("build").args(args);
        if args.last() == Some(&"--prefix") {
            cmd.arg(&prefix);
        }
        let o = cmd.output().unwrap();
        let t = text(&o);
        assert!(!o.status.success(), "{t}");
        assert_eq!(t.trim().lines().count(), 1, "one line:\n{t}");
        assert!(t.contains(want), "{t}");
        assert!(!prefix.exists(), "{} was created:\n{t}", prefix.display());
        println!("{}", t.trim());
    }
}

/// A cross compiler that does not exist: `xtask build --target` (the pipeline without cargo)
/// fails at its probe with one error line naming the compiler and the package to install,
/// and installs no prefix; for each target run under qemu.
#[test]
fn xtask_build_for_a_cross_target_with_a_missing_compiler_names_the_package() {
    let cases = [
        ("aarch64-unknown-linux-gnu", "gcc-aarch64-linux-gnu libc6-dev-arm64-cross"),
        ("powerpc64le-unknown-linux-gnu", "gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross"),
        ("s390x-unknown-linux-gnu", "gcc-s390x-linux-gnu libc6-dev-s390x-cross"),
        ("riscv64gc-unknown-linux-gnu", "gcc-riscv64-linux-gnu libc6-dev-riscv64-cross"),
        ("armv7-unknown-linux-gnueabihf", "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"),
        ("mips64el-unknown-linux-gnuabi64", "gcc-mips64el-linux-gnuabi64 libc6-dev-mips64el-cross"),
    ];
    for (triple, packages) in cases {
        let var = format!("CC_{}", triple.replace('-', "_"));
        let missing = format!("`/nonexistent/cross-gcc` not found for {triple}");
        let pieces = [missing.as_str(), &format!("apt install {packages}"), &var];
        xtask_build_refused(triple, &[(&var, "/nonexistent/cross-gcc")], None, &pieces);
    }
}

/// `xtask build --target triple --prefix` with `vars` (every variable the build reads cleared
/// first) and `path` for PATH: one error line holding each of `pieces`, no warning, no prefix.
fn xtask_build_refused(triple: &str, vars: &[(&str, &str)], path: Option<&Path>, pieces: &[&str]) {
    xtask_build_refused_with(&["--target", triple], vars, path, pieces)
}

/// [`xtask_build_refused`] with `args` before `--prefix`.
fn xtask_build_refused_with(
    args: &[&str],
    vars: &[(&str, &str)],
    path: Option<&Path>,
    pieces: &[&str],
) {
    let scratch = tempfile::tempdir().unwrap();
    let prefix = scratch.path().join("prefix");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.arg("build").args(args).arg("--prefix").arg(&prefix);
    for (name, _) in std::env::vars() {
        if name.starts_with("CRYPTO_SYS_") || name == "CC" || name.starts_with("CC_") {
            cmd.env_remove(name);
        }
    }
    if let Some(path) = path {
        cmd.env("PATH", path);
    }
    let o = cmd.envs(vars.iter().copied()).output().unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    let errors: Vec<&str> = t.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line:\n{t}");
    for piece in pieces {
        assert!(errors[0].contains(piece), "`{piece}` missing from `{}`", errors[0]);
    }
    assert!(!t.contains("warning"), "no warning beside the error:\n{t}");
    assert!(!prefix.exists(), "{} was created:\n{t}", prefix.display());
    println!("{}", errors[0]);
}

/// An armv7 C compiler whose C library is not installed (gcc-arm-linux-gnueabihf without
/// libc6-dev-armhf-cross): the host's cc, told to look in no system include directory,
/// stands in for it. One line names the package, before anything is compiled.
#[test]
fn a_32_bit_target_without_its_cross_libc_names_the_package() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let cc = dir.join("arm-linux-gnueabihf-gcc");
    fs::write(&cc, "#!/bin/sh\nexec cc -nostdinc \"$@\"\n").unwrap();
    fs::set_permissions(&cc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let cc = cc.to_str().unwrap();
    let triple = "armv7-unknown-linux-gnueabihf";
    let pieces = [
        "cannot compile against its C library (<stdio.h>)",
        triple,
        "apt install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross",
    ];
    xtask_build_refused(triple, &[("CC_armv7_unknown_linux_gnueabihf", cc)], None, &pieces);
}

/// x86_64's musl triple built by a glibc compiler, or with no musl-gcc on PATH: one line names
/// musl-tools, before anything is compiled.
#[test]
fn a_musl_target_without_musl_gcc_names_the_package() {
    let triple = "x86_64-unknown-linux-musl";
    let pieces = ["cannot compile against musl's C library", triple, "apt install musl-tools"];
    xtask_build_refused(triple, &[("CC_x86_64_unknown_linux_musl", "cc")], None, &pieces);
    // No musl-gcc on PATH: only rustc's directory and the host's cc and as.
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    for tool in ["cc", "as"] {
        let real = which(tool);
        std::os::unix::fs::symlink(real, dir.join(tool)).unwrap();
    }
    let rustc_dir = which("rustc").parent().unwrap().to_path_buf();
    let path = std::env::join_paths([dir.to_path_buf(), rustc_dir]).unwrap();
    // cc then names musl's cross compiler, which is not installed either.
    let pieces = ["`x86_64-linux-musl-gcc` not found for", triple, "apt install musl-tools"];
    xtask_build_refused(triple, &[], Some(Path::new(&path)), &pieces);
}

/// The nistp C variant on a 32-bit row: refused as data, in one line with the row's reason.
#[test]
fn a_nistp_variant_on_a_32_bit_row_is_refused_with_its_reason() {
    let args = ["--target", "armv7-unknown-linux-gnueabihf", "--c-variant", "ec_nistp_64_gcc_128"];
    let pieces = [
        "C variant `ec_nistp_64_gcc_128` is not built for linux-armv4",
        "a 32-bit target's C compiler has no __uint128_t",
    ];
    let cc = [("CC_armv7_unknown_linux_gnueabihf", "arm-linux-gnueabihf-gcc")];
    if which("arm-linux-gnueabihf-gcc").as_os_str().is_empty() {
        panic!("arm-linux-gnueabihf-gcc is not installed; .ci/install installs it (apt install gcc-arm-linux-gnueabihf)");
    }
    xtask_build_refused_with(&args, &cc, None, &pieces);
}

fn which(tool: &str) -> PathBuf {
    let out = Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().unwrap();
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// A gzip'd tar of `(path, contents)` under `dir`, and its SHA-256.
fn tarball(dir: &Path, name: &str, entries: &[(&str, &str)]) -> (PathBuf, String) {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    for (path, text) in entries {
        let mut h = tar::Header::new_gnu();
        h.set_mode(0o644);
        h.set_size(text.len() as u64);
        tar.append_data(&mut h, path, text.as_bytes()).unwrap();
    }
    let bytes = tar.into_inner().unwrap().finish().unwrap();
    let path = dir.join(name);
    fs::write(&path, &bytes).unwrap();
    (path, crypto_build::sha256::hex(&bytes))
}

/// `update-openssl --source` with a tarball that is not what it claims: one line, before
/// anything is written (no progress line, nothing unpacked in scratch space, no tarball kept in
/// lines/tarballs/).
#[test]
fn update_openssl_refuses_a_bad_tarball_before_touching_anything() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A release that does not exist, so that nothing of it can be left by another run.
    let dat = "MAJOR=3\nMINOR=9\nPATCH=7\nPRE_RELEASE_TAG=\n";
    let old_dat = "MAJOR=3\nMINOR=4\nPATCH=7\nPRE_RELEASE_TAG=\n";
    let (good, sha) = tarball(
        dir,
        "good.tar.gz",
        &[("openssl-3.9.7/Configure", ""), ("openssl-3.9.7/VERSION.dat", dat)],
    );
    let (no_configure, no_configure_sha) =
        tarball(dir, "a.tar.gz", &[("openssl-3.9.7/VERSION.dat", dat)]);
    let (no_dat, no_dat_sha) = tarball(dir, "b.tar.gz", &[("openssl-3.9.7/Configure", "")]);
    let (old, old_sha) = tarball(
        dir,
        "c.tar.gz",
        &[("openssl-3.4.7/Configure", ""), ("openssl-3.4.7/VERSION.dat", old_dat)],
    );
    let tampered = sha.replace(&sha[..2], if sha.starts_with("00") { "11" } else { "00" });
    let cases = [
        (&good, tampered.as_str(), format!("SHA-256 is {sha}, not {tampered}")),
        (&no_configure, no_configure_sha.as_str(), "has no openssl-3.9.7/Configure".to_string()),
        (&no_dat, no_dat_sha.as_str(), "has no openssl-3.9.7/VERSION.dat".to_string()),
        (
            &old,
            old_sha.as_str(),
            "OpenSSL 3.4 is older than the oldest series OpenSSL supports".to_string(),
        ),
    ];
    for (file, sha256, want) in cases {
        let o = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("update-openssl")
            .arg("--source")
            .arg(file)
            .args(["--sha256", sha256])
            .output()
            .unwrap();
        let t = text(&o);
        assert!(!o.status.success(), "{t}");
        assert_eq!(t.trim().lines().count(), 1, "one line:\n{t}");
        assert!(t.starts_with("error: ") && t.contains(&want), "`{want}` missing from {t}");
        println!("{}", t.trim());
    }
    for unpacked in
        ["target/update-openssl/tarball/openssl-3.9.7", "lines/tarballs/openssl-3.9.7.tar.gz"]
    {
        assert!(!root().join(unpacked).exists(), "{unpacked} was written");
    }
}
