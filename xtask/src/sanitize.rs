//! The sanitizer step of `cargo xtask test` (alone: `--sanitize`): OpenSSL's C built by
//! clang-19 with AddressSanitizer and UndefinedBehaviorSanitizer, asm left in place as in
//! OpenSSL's own `enable-asan enable-ubsan` builds, then checked by the C driver built with
//! the same flags on every code path this CPU can run. Through the C driver because Rust's
//! sanitizer support needs a nightly toolchain.

use crate::driver::{self, Invocation, Runner, Toolchain};
use anyhow::{bail, ensure, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};
use xshell::{cmd, Shell};

/// PEDANTIC turns off OpenSSL's deliberate unaligned and type-punned loads, which UBSan
/// would report (OpenSSL's CI builds its UBSan configurations with it too).
const FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-DPEDANTIC",
];

/// The first finding ends the run with a status no driver outcome uses, leaks included.
const ENV: &[(&str, &str)] = &[
    ("ASAN_OPTIONS", "halt_on_error=1:detect_leaks=1:exitcode=86"),
    ("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1:exitcode=87"),
];

pub const DRIVER: Toolchain = Toolchain {
    name: "clang-19-asan-ubsan",
    cc: "clang-19",
    package: "clang-19",
    libs: &["-ldl", "-pthread"],
    flags: FLAGS,
    env: ENV,
    exe: "driver",
    x86_64: cfg!(target_arch = "x86_64"),
    runner: Runner::Native,
};

const PREFIX: &str = "target/prefix-san";
/// Its own cargo target directory: with CC and CFLAGS unlike any other step's, sharing one
/// would rerun crypto-sys's build script in every step after this one.
const TARGET_DIR: &str = "target/san";
/// Where the controls are built.
const SCRATCH: &str = "target/driver/sanitizer-controls";

pub fn run(sh: &Shell) -> Result<()> {
    let started = Instant::now();
    let root = crate::project_root();
    let prefix = root.join(PREFIX);
    runtimes_link(sh)?;
    build_prefix(sh, &prefix)?;
    every_c_object_instrumented(sh, &prefix)?;
    findings_fail(sh, &prefix).context("the sanitizer controls")?;
    driver::check_prefix(sh, &DRIVER, &prefix)?;
    println!("sanitizers: the driver passed under ASan and UBSan in {:.0?}", started.elapsed());
    Ok(())
}

/// clang-19 ships its sanitizer runtimes apart (Debian's libclang-rt-19-dev): without them
/// every link fails, which is one line here rather than a linker's screenful.
fn runtimes_link(sh: &Shell) -> Result<()> {
    which::which(DRIVER.cc).map_err(|_| anyhow::anyhow!("clang-19 not found: install clang-19"))?;
    let dir = crate::project_root().join(SCRATCH);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let (src, exe) = (dir.join("empty.c"), dir.join("empty"));
    fs::write(&src, "int main(void) { return 0; }\n")?;
    let out = cmd!(sh, "clang-19 {FLAGS...} {src} -o {exe}").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("libclang_rt") {
        bail!("clang-19's sanitizer runtimes not found: install libclang-rt-19-dev");
    }
    ensure!(out.status.success(), "clang-19 cannot link a sanitized program:\n{stderr}");
    Ok(())
}

/// `CC=clang-19 CFLAGS=<FLAGS> cargo xtask build --prefix target/prefix-san`, the default
/// (fastest) plan.
fn build_prefix(sh: &Shell, prefix: &Path) -> Result<()> {
    let _cc = sh.push_env("CC", DRIVER.cc);
    let _cflags = sh.push_env("CFLAGS", FLAGS.join(" "));
    let _target = sh.push_env("CARGO_TARGET_DIR", crate::project_root().join(TARGET_DIR));
    let build = crate::flags::Build { prefix: Some(prefix.to_path_buf()), ..Default::default() };
    build.run(sh).context("building OpenSSL with the sanitizers")
}

/// CFLAGS reach every C compile: each object of libcrypto.a but the asm ones calls ASan's
/// module constructor, and UBSan's checks call only the handlers that abort (the flags come
/// as one variable, so one of them arriving means all did).
fn every_c_object_instrumented(sh: &Shell, prefix: &Path) -> Result<()> {
    which::which("nm").map_err(|_| anyhow::anyhow!("nm not found: install binutils"))?;
    let lib = prefix.join("lib/libcrypto.a");
    let symbols = cmd!(sh, "nm -A -u {lib}").quiet().read().context("nm on libcrypto.a")?;
    // `<archive>:<member>: U <symbol>` per line; every member shows up in `ar t`.
    let mut members: BTreeMap<String, bool> = BTreeMap::new();
    for m in cmd!(sh, "ar t {lib}").quiet().read()?.lines() {
        members.insert(m.to_string(), false);
    }
    let mut recoverable = Vec::new();
    for line in symbols.lines() {
        let Some((member, symbol)) = line.split(':').nth(1).zip(line.split_whitespace().last())
        else {
            continue;
        };
        if symbol == "__asan_init" {
            members.insert(member.to_string(), true);
        }
        let ubsan = symbol.starts_with("__ubsan_handle_") && !UBSAN_FATAL_ONLY.contains(&symbol);
        if ubsan && !symbol.ends_with("_abort") {
            recoverable.push(format!("{member}: {symbol}"));
        }
    }
    ensure!(recoverable.is_empty(), "UBSan checks that do not abort: {recoverable:?}");
    let plain = members.values().filter(|&&asan| !asan).count();
    let asm = asm_units(prefix)?;
    ensure!(
        plain == asm,
        "{plain} of libcrypto.a's {} objects lack ASan, but the plan has {asm} asm files: \
         CFLAGS did not reach every C compile",
        members.len()
    );
    println!("sanitizers: {} C objects instrumented, {asm} asm objects", members.len() - asm);
    Ok(())
}

/// Handlers that have no `_abort` twin: they never return anyway.
const UBSAN_FATAL_ONLY: &[&str] =
    &["__ubsan_handle_builtin_unreachable", "__ubsan_handle_missing_return"];

/// How many asm files the prefix's plan lists (each is one object of libcrypto.a).
fn asm_units(prefix: &Path) -> Result<usize> {
    let path = prefix.join(crate::build::PREFIX_PLAN);
    let plan = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(plan.lines().filter(|l| !l.starts_with('#') && l.contains('\t')).count())
}

/// A program built and run exactly as the driver is, whose every mode is a finding.
const CONTROL_C: &str = r#"#include <limits.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    unsigned char md[EVP_MAX_MD_SIZE], *p = malloc(16);
    unsigned int n = 0;
    volatile int big = INT_MAX;
    if (argc != 2 || p == NULL)
        return 2;
    memset(p, 0, 16);
    if (strcmp(argv[1], "heap") == 0) /* OpenSSL's SHA-256 reads one byte past the buffer */
        EVP_Digest(p, 17, md, &n, EVP_sha256(), NULL);
    else if (strcmp(argv[1], "ub") == 0)
        n = (unsigned int)(big + argc);
    else if (strcmp(argv[1], "leak") == 0)
        p = NULL;
    free(p);
    return (int)(n % 2); /* 0 unless a sanitizer stepped in */
}
"#;

/// Each sanitizer must end a run that has a finding, with its report: otherwise a clean
/// driver run would prove nothing.
fn findings_fail(sh: &Shell, prefix: &Path) -> Result<()> {
    let dir = crate::project_root().join(SCRATCH);
    let (src, exe) = (dir.join("control.c"), dir.join("control"));
    fs::write(&src, CONTROL_C)?;
    let (include, libcrypto) = (prefix.join("include"), prefix.join("lib/libcrypto.a"));
    let libs = DRIVER.libs;
    cmd!(sh, "clang-19 -std=c99 {FLAGS...} -I{include} {src} {libcrypto} {libs...} -o {exe}")
        .run()
        .context("building the sanitizer control")?;
    let cases = [
        ("heap", 86, "ERROR: AddressSanitizer: heap-buffer-overflow"),
        ("ub", 87, "runtime error: signed integer overflow"),
        ("leak", 86, "ERROR: LeakSanitizer: detected memory leaks"),
    ];
    for (mode, status, want) in cases {
        let log = dir.join(format!("control-{mode}"));
        let timeout = Duration::from_secs(60);
        let inv = Invocation { exe: &exe, args: &[mode], cwd: &dir, env: ENV, log: &log, timeout };
        let out = DRIVER.runner.run(&inv)?;
        ensure!(
            out.status.code() == Some(status) && out.stderr.contains(want),
            "a control with a finding ({mode}) must exit with {status} reporting `{want}`; it \
             exited with {}:\n{}",
            out.status,
            driver::diagnostics(&out.stderr)
        );
        println!("sanitizers: control `{mode}` caught: {want}");
    }
    Ok(())
}
