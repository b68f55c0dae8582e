//! `cargo xtask detect` with fake toolchains: small scripts whose banners lie in the ways real
//! ones have. The probes must win over every banner, and any downgrade must show as exactly
//! one warning line, or an error under --strict.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

/// A tool `.ci/install` installs: a test that needs one fails, naming its package, rather
/// than passing without it.
fn installed(tool: &str, package: &str) -> PathBuf {
    which::which(tool).unwrap_or_else(|e| {
        panic!("{tool}: {e}; install it with `apt-get install {package}` (.ci/install does)")
    })
}

/// A driver that prints `driver_banner` for -v, `as_banner` for -Wa,-v, and otherwise runs gcc,
/// refusing any input that contains `reject` (when not empty); in a directory removed with
/// the returned guard.
fn fake_cc(name: &str, driver_banner: &str, as_banner: &str, reject: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    let script = format!(
        r#"#!/bin/sh
for a in "$@"; do
  case "$a" in
    -v) echo '{driver_banner}' >&2; exit 0 ;;
    -Wa,-v) echo '{as_banner}' >&2; exit 0 ;;
  esac
done
if [ -n '{reject}' ] && [ "$*" != "${{*%-x assembler - -o*}}" ]; then
  input=$(cat)
  case "$input" in *'{reject}'*) echo "fake: unknown register" >&2; exit 1 ;; esac
  printf '%s\n' "$input" | exec gcc "$@"
fi
exec gcc "$@"
"#
    );
    fs::write(&path, script).unwrap();
    Command::new("chmod").arg("755").arg(&path).status().unwrap();
    (dir, path)
}

fn detect(cc: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("detect")
        .args(extra)
        .env("CC", cc)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn warning_lines(o: &Output) -> usize {
    text(o).lines().filter(|l| l.starts_with("warning:")).count()
}

const GAS_240: &str = "GNU assembler version 2.40 (x86_64-linux-gnu) using BFD version 2.40";

fn assert_full_asm(o: &Output) {
    let t = text(o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("plan: C from asm (C variant ec_nistp_64_gcc_128), 40 asm files"), "{t}");
    assert!(t.contains("probe ec_nistp_64_gcc_128  compiles"), "{t}");
    assert!(!t.contains("REJECTED") && !t.contains("asm_avx2"), "{t}");
    assert_eq!(warning_lines(o), 0, "{t}");
}

#[test]
fn an_old_gas_banner_does_not_hide_a_capable_assembler() {
    let (_dir, cc) = fake_cc("old-gas", "gcc version 4.8.5", "GNU assembler version 2.23.52", "");
    let o = detect(&cc, &[]);
    assert_full_asm(&o);
    assert!(
        text(&o).contains(
            "note: GNU as 2.23.52 lacks avx512 by its version, but the probe assembled it"
        ),
        "{}",
        text(&o)
    );
}

/// The driver's banner names the assembler (clang answers `-Wa,-v` with an error), and
/// what its version says is only reported: clang 10's lack of AVX-IFMA as a note.
#[test]
fn clang_10_and_apple_clang_15_banners_are_only_reported() {
    for (name, banner, reported, note) in [
        (
            "clang10",
            "clang version 10.0.0",
            "(clang integrated assembler 10.0.0)",
            Some("note: clang integrated assembler 10.0.0 lacks avx-ifma by its version, but the probe assembled it"),
        ),
        (
            "apple15",
            "Apple clang version 15.0.0 (clang-1500.3.9.4)",
            "(Apple clang integrated assembler 15.0.0 (clang-1500.3.9.4, ≈ LLVM 16, Xcode 15.x))",
            None,
        ),
    ] {
        let (_dir, cc) =
            fake_cc(name, banner, "clang: error: unsupported argument '-v' to option '-Wa,'", "");
        let o = detect(&cc, &[]);
        assert_full_asm(&o);
        let t = text(&o);
        assert!(t.contains(&format!("toolchain: {} {reported}\n", cc.display())), "{t}");
        let notes: Vec<&str> = t.lines().filter(|l| l.starts_with("note:")).collect();
        assert_eq!(notes, Vec::from_iter(note), "{t}");
    }
}

#[test]
fn a_localised_banner_still_gets_the_full_set() {
    let (_dir, cc) = fake_cc(
        "french",
        "gcc version 12.2.0",
        "GNU assembleur version 2.40 (x86_64-linux-gnu)",
        "",
    );
    let o = detect(&cc, &[]);
    assert_full_asm(&o);
    assert!(text(&o).contains("unknown assembler"), "{}", text(&o));
}

#[test]
fn an_assembler_that_rejects_zmm_downgrades_with_one_warning_or_fails_strict() {
    let (_dir, cc) = fake_cc("nozmm", "gcc version 12.2.0", GAS_240, "zmm");
    let o = detect(&cc, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("probe avx512           REJECTED"), "{t}");
    assert!(t.contains("crypto/modes/aes-gcm-avx512.s            asm_avx2"), "{t}");
    assert!(t.contains("crypto/aes/aesni-x86_64.s                asm\n"), "{t}");
    assert_eq!(warning_lines(&o), 1, "{t}");
    assert!(t.contains("(missing avx512"), "{t}");
    let strict = detect(&cc, &["--strict"]);
    assert!(!strict.status.success());
    assert!(text(&strict).contains("strict mode"), "{}", text(&strict));
    let explicit = detect(&cc, &["--asm-set", "asm"]);
    assert!(!explicit.status.success());
    assert!(
        text(&explicit).contains("crypto/modes/aes-gcm-avx512.s -> asm_avx2 (missing avx512"),
        "{}",
        text(&explicit)
    );
}

/// gcc whose C variant probes fail, as on a compiler without `__uint128_t`.
fn cc_without_int128() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cc-without-int128")
}

#[test]
fn a_c_compiler_without_int128_gets_the_default_c_configuration_with_one_warning() {
    let cc = cc_without_int128();
    let o = detect(&cc, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("probe ec_nistp_64_gcc_128  REJECTED"), "{t}");
    assert!(t.contains("plan: C from asm (C variant none), 40 asm files"), "{t}");
    assert_eq!(warning_lines(&o), 1, "{t}");
    assert!(t.contains("warning: C variant `ec_nistp_64_gcc_128` off"), "{t}");
    let strict = detect(&cc, &["--strict"]);
    assert!(!strict.status.success());
    assert!(text(&strict).contains("strict mode: C variant"), "{}", text(&strict));
    let explicit = detect(&cc, &["--c-variant", "ec_nistp_64_gcc_128"]);
    assert!(!explicit.status.success());
    assert!(text(&explicit).contains("CRYPTO_SYS_C_VARIANT=none"), "{}", text(&explicit));
    let none = detect(&cc, &["--c-variant", "none", "--strict"]);
    assert!(none.status.success(), "asking for no variant is not a downgrade");
    assert_eq!(warning_lines(&none), 0, "{}", text(&none));
    let json = text(&detect(&cc, &["--json"]));
    assert!(json.contains("\"c_probes\":{\"ec_nistp_64_gcc_128\":false}"), "{json}");
    assert!(json.contains("\"c_variant_refused\":\"ec_nistp_64_gcc_128\""), "{json}");
}

/// Windows with nasm: a nasm that rejects zmm takes the asm_avx2 nasm rendering of exactly
/// the files that need AVX-512; one that is missing, or too old for even asm_avx2, is one line
/// saying how to install a usable one.
#[test]
fn windows_nasm_is_probed_file_by_file() {
    installed("nasm", "nasm");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = root.join("tests/fixtures/nasm-without-zmm");
    let run = |nasm: &Path| {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["detect", "--target", "x86_64-pc-windows-gnu", "--assembler", "nasm"])
            .env("NASM", nasm)
            .output()
            .unwrap()
    };
    let o = run(&fake);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("toolchain: ") && t.contains("(nasm 2.16"), "{t}");
    assert!(t.contains("probe avx512           REJECTED"), "{t}");
    assert!(t.contains("probe avx-ifma         assembles"), "{t}");
    let line =
        |f: &str| t.lines().find(|l| l.trim_start().starts_with(f)).unwrap_or("").to_string();
    assert!(line("crypto/modes/aes-gcm-avx512.asm").ends_with("asm_avx2"), "{t}");
    assert!(line("crypto/bn/rsaz-2k-avxifma.asm").ends_with(" asm"), "{t}");
    assert!(line("crypto/aes/aesni-x86_64.asm").ends_with(" asm"), "{t}");
    let o = run(Path::new("/nonexistent/nasm"));
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("nasm not found") && t.contains("apt install nasm"), "{t}");
    // Too old for even asm_avx2: an error, like a missing nasm, not a fall-back to no_asm.
    let o = run(&root.join("tests/fixtures/nasm-without-avx2"));
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("(nasm 2.07)") || t.contains("too old"), "{t}");
    let errors: Vec<&str> = t.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{t}");
    for want in ["too old", "lacks avx2", "apt install nasm", "CRYPTO_SYS_ASM_SET=no_asm"] {
        assert!(errors[0].contains(want), "{t}");
    }
    assert!(!t.contains("warning:"), "no downgrade warning besides the error: {t}");
}

/// x86_64-pc-windows-msvc (VC-WIN64A) has only the nasm rendering: nasm is its assembler
/// with no option given, and a missing one fails the build in one line naming how to install
/// it and the explicit way to build without asm, which then works without nasm.
#[test]
fn msvc_takes_nasm_and_a_missing_one_is_one_line() {
    installed("nasm", "nasm");
    let run = |nasm: Option<&str>, extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
        cmd.args(["detect", "--target", "x86_64-pc-windows-msvc"]).args(extra);
        match nasm {
            Some(n) => cmd.env("NASM", n),
            None => cmd.env_remove("NASM"),
        };
        cmd.output().unwrap()
    };
    let o = run(None, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("toolchain: ") && t.contains("(nasm 2.16"), "{t}");
    assert!(!t.contains("REJECTED") && !t.contains("asm_avx2"), "{t}");
    // No C compiler named: clang as clang-cl, which has __uint128_t, as its probe shows.
    assert!(t.contains("plan: C from asm (C variant ec_nistp_64_gcc_128), 40 asm files"), "{t}");
    assert!(t.contains("probe ec_nistp_64_gcc_128  compiles"), "{t}");
    let line =
        |f: &str| t.lines().find(|l| l.trim_start().starts_with(f)).unwrap_or("").to_string();
    assert!(line("crypto/modes/aes-gcm-avx512.asm").ends_with(" asm"), "{t}");
    assert_eq!(warning_lines(&o), 0, "{t}");

    let o = run(Some("/nonexistent/nasm"), &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!o.status.success(), "{stderr}");
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    for want in ["nasm not found", "install nasm", "CRYPTO_SYS_ASM_SET=no_asm"] {
        assert!(lines[0].contains(want), "missing `{want}`: {stderr}");
    }

    let o = run(Some("/nonexistent/nasm"), &["--asm-set", "no_asm"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("plan: C from no_asm"), "{t}");

    let o = run(None, &["--assembler", "gas"]);
    assert!(!o.status.success() && text(&o).contains("accepted here: nasm"), "{}", text(&o));
    let o = run(None, &["--c-variant", "ec_nistp_64_gcc_128"]);
    assert!(o.status.success(), "{}", text(&o));
}

/// cl.exe has no __uint128_t: with it, MSVC builds as it always did, the nistp variant left
/// out without a probe or a warning, and refused by name; a C compiler that is not MSVC-mode
/// is refused in one line naming the row's compilers.
#[test]
fn cl_exe_leaves_the_variant_out_quietly_and_a_gnu_compiler_is_refused() {
    let cl = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cl.exe");
    let run = |cc: &Path, extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_xtask"));
        cmd.args(["detect", "--target", "x86_64-pc-windows-msvc"]).args(extra);
        cmd.env("CC_x86_64_pc_windows_msvc", cc).output().unwrap()
    };
    let o = run(&cl, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("plan: C from asm (C variant none), 40 asm files"), "{t}");
    assert!(!t.contains("probe ec_nistp"), "no probe is asked of cl.exe: {t}");
    assert_eq!(warning_lines(&o), 0, "{t}");
    let strict = run(&cl, &["--strict"]);
    assert!(strict.status.success(), "nothing fell back: {}", text(&strict));
    let o = run(&cl, &["--c-variant", "ec_nistp_64_gcc_128"]);
    let t = text(&o);
    assert!(
        !o.status.success()
            && t.contains("not built by this C compiler: cl.exe has no __uint128_t"),
        "{t}"
    );
    let gcc = installed("gcc", "gcc");
    let o = run(&gcc, &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(!o.status.success() && lines.len() == 1, "{stderr}");
    for want in
        ["CC_x86_64_pc_windows_msvc=", "is not an MSVC-mode C compiler", "cl.exe", "clang-cl"]
    {
        assert!(lines[0].contains(want), "missing `{want}`: {stderr}");
    }
}

/// aarch64: `asm` and `no_asm` differ in their C configuration, so an assembler that fails a
/// class takes `no_asm` as a whole, in one warning line; --strict refuses.
#[test]
fn an_arm_assembler_without_the_crypto_extension_takes_no_asm_as_a_whole() {
    const TRIPLE: &str = "aarch64-unknown-linux-gnu";
    let gcc = installed("aarch64-linux-gnu-gcc", "gcc-aarch64-linux-gnu");
    let run = |cc: &Path, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_xtask"))
            .args(["detect", "--target", TRIPLE])
            .args(extra)
            .env("CC_aarch64_unknown_linux_gnu", cc)
            .output()
            .unwrap()
    };
    let real = run(&gcc, &["--strict"]);
    let t = text(&real);
    assert!(real.status.success(), "{t}");
    assert!(t.contains("probe neon             assembles"), "{t}");
    assert!(t.contains("probe armv8-crypto     assembles"), "{t}");
    assert!(t.contains("plan: C from asm (C variant ec_nistp_64_gcc_128), 26 asm files"), "{t}");
    assert_eq!(warning_lines(&real), 0, "{t}");

    let cc =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/aarch64-gcc-without-crypto");
    let o = run(&cc, &[]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("probe armv8-crypto     REJECTED"), "{t}");
    assert!(t.contains("plan: C from no_asm (C variant ec_nistp_64_gcc_128), 0 asm files"), "{t}");
    assert_eq!(warning_lines(&o), 1, "{t}");
    assert!(
        t.contains(
            "warning: asm set `auto` downgraded: all files -> no_asm (missing armv8-crypto)"
        ),
        "{t}"
    );
    let strict = run(&cc, &["--strict"]);
    assert!(!strict.status.success());
    assert!(text(&strict).contains("strict mode: asm set `auto` downgraded"), "{}", text(&strict));
}
