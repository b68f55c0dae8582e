//! Each OPENSSL_ia32cap mask of the code-path table selects the path it names, as OpenSSL
//! itself sees it (OPENSSL_ia32cap_P) and as the asm's eligibility functions answer; and the
//! parser reads masks the way the table's comment says.
//!
//! The table is `crypto_build::data::X86_64_CODE_PATHS` (`X86_CODE_PATHS` on 32-bit x86),
//! reached through a dev-dependency: it is plain `const` data, so the test reads the very
//! rows `cargo xtask test` runs.

use crypto_build::data::{code_path_by_name, Arch, CodePath, Eligibility, IA32CAP};
use crypto_sys::{asm_eligibility, asm_set_of, build_info, openssl_ia32cap};
use std::io::Write as _;
use std::process::Command;

/// Set by `cargo xtask test` to the name of the path whose mask OPENSSL_ia32cap holds.
const EXPECT_PATH: &str = "CRYPTO_SYS_EXPECT_PATH";
const IA32CAP_ENV: &str = IA32CAP.env;
/// Marks a child process of `the_parser_reads_masks_as_the_table_says`.
const CHILD: &str = "CRYPTO_SYS_PATHS_CHILD";
/// Whose code paths this build has: the same OPENSSL_ia32cap, other bits read.
const ARCH: Arch = if cfg!(target_arch = "x86") { Arch::X86 } else { Arch::X86_64 };

/// One line on the terminal even when the test harness captures output.
fn loud(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// The row this run must prove: the one `cargo xtask test` names, else the one whose mask
/// the environment holds (no mask: the AVX-512 row).
fn path_under_test() -> Option<&'static CodePath> {
    let mask = std::env::var(IA32CAP_ENV).ok();
    let Ok(name) = std::env::var(EXPECT_PATH) else {
        return ARCH.code_paths().iter().find(|p| p.cap == mask.as_deref());
    };
    let path = code_path_by_name(ARCH, &name).unwrap();
    assert_eq!(mask.as_deref(), path.cap, "{EXPECT_PATH}={name}, but {IA32CAP_ENV} is {mask:?}");
    Some(path)
}

/// What differs from the row's expectations, one line each; the other sets' copies of an
/// eligibility function are stubs answering 0. A function crypto-sys does not declare is one
/// whose file the build lacks (its release has none), nothing to observe.
fn mismatches(path: &CodePath, cap: &[u32; 10], eligible: &[(&str, bool)]) -> Vec<String> {
    let answer = |e: &Eligibility, want: bool| {
        let Some(&(_, got)) = eligible.iter().find(|(s, _)| *s == e.symbol) else {
            assert_eq!(
                asm_set_of(e.file),
                None,
                "{} is linked, {} is not declared",
                e.file,
                e.symbol
            );
            return None;
        };
        Some((want && asm_set_of(e.file) == Some("asm"), Some(got)))
    };
    path.mismatches(&IA32CAP, cap, &answer).unwrap()
}

#[test]
fn the_mask_selects_the_path_it_names() {
    let Some(path) = path_under_test() else {
        let mask = std::env::var(IA32CAP_ENV).unwrap_or_default();
        loud(&format!("skipped: {IA32CAP_ENV}={mask} is none of the code-path table's masks"));
        return;
    };
    if let Some(feature) = path.missing_cpu_feature() {
        loud(&format!("skipped: {}: this CPU lacks {feature}", path.name));
        return;
    }
    let Some(cap) = openssl_ia32cap() else {
        // Plain C reads no OPENSSL_ia32cap: every path is the same code.
        assert_eq!(build_info().effective_set, "no_asm");
        assert!(asm_eligibility().is_empty());
        return;
    };
    let wrong = mismatches(path, &cap, &asm_eligibility());
    let mask = path.cap.unwrap_or("(unset)");
    assert!(
        wrong.is_empty(),
        "OPENSSL_ia32cap={mask} does not select the {} path; OpenSSL saw:\n  {}\n\
         OPENSSL_ia32cap_P = {cap:08x?}",
        path.name,
        wrong.join("\n  "),
    );
}

/// OPENSSL_ia32cap_P in a fresh process with OPENSSL_ia32cap set to `mask` (None: unset);
/// OpenSSL reads the variable once per process.
fn ia32cap_with(mask: Option<&str>) -> [u32; 10] {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "the_parser_reads_masks_as_the_table_says", "--nocapture"]);
    cmd.env(CHILD, "1").env_remove(EXPECT_PATH);
    match mask {
        Some(m) => cmd.env(IA32CAP_ENV, m),
        None => cmd.env_remove(IA32CAP_ENV),
    };
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child with {mask:?}: {stdout}");
    let line = stdout.lines().find_map(|l| l.strip_prefix("ia32cap_P:"));
    let words: Vec<u32> = line
        .unwrap_or_else(|| panic!("child with {mask:?} printed no words: {stdout}"))
        .split_whitespace()
        .map(|w| u32::from_str_radix(w, 16).unwrap())
        .collect();
    words.try_into().unwrap()
}

#[test]
fn the_parser_reads_masks_as_the_table_says() {
    if std::env::var_os(CHILD).is_some() {
        let cap = openssl_ia32cap().expect("the parent checked for asm");
        let words: Vec<String> = cap.iter().map(|w| format!("{w:x}")).collect();
        println!("ia32cap_P:{}", words.join(" "));
        return;
    }
    if openssl_ia32cap().is_none() {
        assert_eq!(build_info().effective_set, "no_asm");
        return;
    }
    let cpu = ia32cap_with(None);
    // OpenSSL sets word 0 bit 10 after parsing, to mark the words as initialised.
    const INITIALISED: u32 = 1 << 10;
    assert_eq!(ia32cap_with(Some("")), [INITIALISED, 0, 0, 0, 0, 0, 0, 0, 0, 0], "\"\" is no CPU");
    let first_only = ia32cap_with(Some("~0x0"));
    assert_eq!(first_only[..2], cpu[..2], "~0x0 keeps words 0-1");
    assert_eq!(first_only[2..], [0; 8], "fields after the end of the string zero their words");
    let keep_two = ia32cap_with(Some("~0x0::"));
    assert_eq!(keep_two[..4], cpu[..4], "an empty field between colons keeps its words");
    assert_eq!(keep_two[4..], [0; 6]);
    assert_eq!(ia32cap_with(Some("~0x0:~0x0:~0x0:~0x0:~0x0")), cpu, "five ~0x0 fields keep all");
    // The mask of every row keeps what it does not name: words 6-9 as the CPU has them (a
    // value without `~` is the words themselves).
    for p in ARCH.code_paths().iter().filter(|p| p.name != "plain") {
        if let Some(mask) = p.cap.filter(|m| m.starts_with('~')) {
            assert_eq!(ia32cap_with(Some(mask))[6..], cpu[6..], "{}: {mask}", p.name);
        }
    }
}
