//! The sanitizer step of `cargo xtask test` (alone: `--sanitize`): OpenSSL's C built by
//! clang-19 with AddressSanitizer and UndefinedBehaviorSanitizer, asm left in place as in
//! OpenSSL's own `enable-asan enable-ubsan` builds, then checked by the C driver built with
//! the same flags on every code path this CPU can run. Through the C driver because Rust's
//! sanitizer support needs a nightly toolchain. One step per OpenSSL line
//! (`data::OPENSSL_LINES`), each in directories of its own.

use crate::driver::{self, Invocation, Toolchain};
use crate::matrix::{How, Row};
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::OpensslLine;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use xshell::{cmd, Shell};

/// PEDANTIC turns off OpenSSL's deliberate unaligned and type-punned loads, which UBSan
/// would report (OpenSSL's CI builds its UBSan configurations with it too). clang 17+ adds
/// `-fsanitize=function` to `undefined`; OpenSSL 3.6.3's providers call every digest through
/// `void (*)(void)` casts (SHA256_Update first, from digestcommon.h), which it reports, so
/// it is off here as OpenSSL's own master now turns it off in `enable-ubsan`.
const FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize=function",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-DPEDANTIC",
];

/// The first finding ends the run with a status no driver outcome uses, leaks included.
/// `exitcode` is one setting shared by the runtimes (the last one read wins), so both say it.
const FINDING_STATUS: i32 = 86;
const ENV: &[(&str, &str)] = &[
    ("ASAN_OPTIONS", "halt_on_error=1:detect_leaks=1:exitcode=86"),
    ("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1:exitcode=86"),
];

/// The matrix's sanitizer row, its driver built with the sanitizers' flags and options (named
/// for the line, so that two lines' drivers build apart).
fn row(line: &OpensslLine) -> Result<(&'static Row, Toolchain)> {
    let row = crate::matrix::rows(How::Sanitizer).next().context("a sanitizer row")?;
    let plain = row.driver()?;
    let flags = plain.flags.iter().cloned().chain(FLAGS.iter().map(|f| f.to_string())).collect();
    let name = format!("{}-asan-ubsan{}", plain.name, line.dir_suffix());
    Ok((row, Toolchain { name, flags, env: ENV, ..plain }))
}

/// One line's directories.
struct Dirs {
    prefix: PathBuf,
    /// Its own cargo target directory: with CC and CFLAGS unlike any other step's, sharing
    /// one would rerun crypto-sys's build script in every step after this one.
    target: PathBuf,
    /// Where the controls are built.
    scratch: PathBuf,
}

impl Dirs {
    fn of(line: &OpensslLine) -> Dirs {
        let (root, suffix) = (crate::cargo::project_root(), line.dir_suffix());
        Dirs {
            prefix: root.join(format!("target/prefix-san{suffix}")),
            target: root.join(format!("target/san{suffix}")),
            scratch: root.join(format!("target/driver/sanitizer-controls{suffix}")),
        }
    }
}

pub fn run(sh: &Shell, line: &OpensslLine) -> Result<()> {
    let started = Instant::now();
    let dirs = Dirs::of(line);
    let (row, driver) = row(line)?;
    runtimes_link(sh, &driver, &dirs.scratch)?;
    build_prefix(sh, &driver, line, &dirs)?;
    let prefix = &dirs.prefix;
    row.check_prefix_plan(prefix)?;
    every_c_object_instrumented(sh, prefix)?;
    findings_fail(sh, &driver, prefix, &dirs.scratch).context("the sanitizer controls")?;
    super::driver_paths::check_prefix(sh, &driver, prefix)?;
    let (version, took) = (line.version, started.elapsed());
    println!(
        "sanitizers: the driver passed under ASan and UBSan on OpenSSL {version} in {took:.0?}"
    );
    Ok(())
}

/// clang-19 ships its sanitizer runtimes apart (Debian's libclang-rt-19-dev): without them
/// every link fails, which is one line here rather than a linker's screenful.
fn runtimes_link(sh: &Shell, driver: &Toolchain, dir: &Path) -> Result<()> {
    crate::driver::require_cc(driver)?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (src, exe) = (dir.join("empty.c"), dir.join("empty"));
    fs::write(&src, "int main(void) { return 0; }\n")?;
    let cc = driver.cc;
    let out = cmd!(sh, "{cc} {FLAGS...} {src} -o {exe}").ignore_status().output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("libclang_rt") {
        bail!("clang-19's sanitizer runtimes not found: install libclang-rt-19-dev");
    }
    ensure!(out.status.success(), "clang-19 cannot link a sanitized program:\n{stderr}");
    Ok(())
}

/// `CC=clang-19 CFLAGS=<FLAGS> cargo xtask build [--openssl LINE] --prefix target/prefix-san…`,
/// the default (fastest) plan; through the run's xtask binary, which `cargo xtask` would
/// build again in the step's target directory (with the sanitizers' CC and CFLAGS) first.
fn build_prefix(sh: &Shell, driver: &Toolchain, line: &OpensslLine, dirs: &Dirs) -> Result<()> {
    let _cc = sh.push_env("CC", driver.cc);
    let _cflags = sh.push_env("CFLAGS", FLAGS.join(" "));
    let _target = sh.push_env("CARGO_TARGET_DIR", &dirs.target);
    let xtask = crate::cargo::xtask_binary()?;
    let prefix = &dirs.prefix;
    // The default line as every other step builds it: no --openssl.
    let openssl = line.feature().map(|_| ["--openssl", line.name()]).into_iter().flatten();
    cmd!(sh, "{xtask} build {openssl...} --prefix {prefix}")
        .run()
        .with_context(|| format!("building OpenSSL {} with the sanitizers", line.version))
}

/// CFLAGS reach every C compile: each object of libcrypto.a the compiler made (it names its
/// `.c` file and carries clang's `.comment`; the assembler's objects carry neither) calls
/// ASan's module constructor, and UBSan's checks call only handlers that abort. The flags
/// come as one variable, so one of them arriving means all did.
fn every_c_object_instrumented(sh: &Shell, prefix: &Path) -> Result<()> {
    which::which("readelf").map_err(|_| anyhow::anyhow!("readelf not found: install binutils"))?;
    let lib = prefix.join("lib/libcrypto.a");
    let symbols = cmd!(sh, "readelf -sW {lib}").quiet().read().context("readelf -s libcrypto.a")?;
    let comments = cmd!(sh, "readelf -p .comment {lib}").quiet().ignore_stderr().read()?;
    let mut members: BTreeMap<&str, Member> = BTreeMap::new();
    for (member, line) in per_member(&symbols) {
        let m = members.entry(member).or_default();
        let name = line.split_whitespace().nth(7).unwrap_or("");
        if line.contains(" FILE ") {
            m.source = Some(name);
        } else if line.contains(" UND ") && name == "__asan_init" {
            m.asan = true;
        } else if line.contains(" UND ") && recoverable_ubsan_handler(name) {
            m.recoverable.push(name);
        }
    }
    for (member, line) in per_member(&comments) {
        members.entry(member).or_default().compiled |= line.contains("clang version");
    }
    let mut wrong = Vec::new();
    let compiled =
        members.values().filter(|m| m.compiled || m.source.is_some_and(|s| s.ends_with(".c")));
    let mut count = 0;
    for m in compiled {
        count += 1;
        let source = m.source.unwrap_or("(unnamed)");
        if !m.asan {
            wrong.push(format!("{source}: no ASan"));
        }
        if !m.recoverable.is_empty() {
            wrong.push(format!("{source}: UBSan checks that do not abort: {:?}", m.recoverable));
        }
    }
    ensure!(wrong.is_empty(), "CFLAGS did not reach every C compile: {}", wrong.join("; "));
    ensure!(count > 0, "readelf showed no compiled object in {}", lib.display());
    let asm = members.len() - count;
    println!("sanitizers: all {count} C objects of libcrypto.a instrumented ({asm} asm objects)");
    Ok(())
}

/// What readelf showed of one archive member.
#[derive(Default)]
struct Member<'a> {
    /// Its STT_FILE symbol: the C file it was compiled from.
    source: Option<&'a str>,
    /// Its `.comment` names clang.
    compiled: bool,
    asan: bool,
    recoverable: Vec<&'a str>,
}

/// Each line of readelf's output over an archive, with the member it is about
/// (`File: <archive>(<member>)` starts each member's part).
fn per_member(out: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut member = "";
    out.lines().filter_map(move |line| {
        if let Some(rest) = line.strip_prefix("File: ") {
            member = rest.rsplit_once('(').map_or(rest, |(_, m)| m.trim_end_matches(')'));
            return None;
        }
        Some((member, line))
    })
}

/// A UBSan handler that returns (`-fno-sanitize-recover` makes clang call the `_abort` ones);
/// two handlers have no `_abort` twin because they never return.
fn recoverable_ubsan_handler(name: &str) -> bool {
    const FATAL_ONLY: &[&str] =
        &["__ubsan_handle_builtin_unreachable", "__ubsan_handle_missing_return"];
    name.starts_with("__ubsan_handle_") && !name.ends_with("_abort") && !FATAL_ONLY.contains(&name)
}

/// A program built, linked and run as the driver is, each of whose modes is a finding in its
/// own code (that OpenSSL's objects are instrumented is `every_c_object_instrumented`'s
/// proof, and a finding inside OpenSSL would stop it before its own).
const CONTROL_C: &str = r#"#include <limits.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    /* A size the compiler cannot see, so that UBSan's object-size check (which clang applies
       at some optimization levels, -O1 among them) leaves the overflow to ASan. */
    volatile size_t size = 16;
    unsigned char *p = malloc(size);
    volatile int big = INT_MAX;
    int n = 0;
    if (argc != 2 || p == NULL)
        return 2;
    memset(p, 0, 16);
    if (strcmp(argv[1], "heap") == 0)
        n = p[14 + argc]; /* p[16]: one byte past the allocation */
    else if (strcmp(argv[1], "ub") == 0)
        n = big + argc;
    else if (strcmp(argv[1], "leak") == 0)
        p = NULL;
    free(p);
    return n == 1; /* 0 unless a sanitizer stepped in */
}
"#;

/// Each sanitizer must end a run that has a finding, with its report: otherwise a clean
/// driver run would prove nothing.
fn findings_fail(sh: &Shell, driver: &Toolchain, prefix: &Path, dir: &Path) -> Result<()> {
    let (src, exe) = (dir.join("control.c"), dir.join("control"));
    fs::write(&src, CONTROL_C)?;
    let (cflags, libs) = driver::pkg_config(sh, prefix, "libcrypto")?;
    let cc = driver.cc;
    cmd!(sh, "{cc} -std=c99 {FLAGS...} {cflags...} {src} {libs...} -o {exe}")
        .run()
        .context("building the sanitizer control")?;
    let cases = [
        ("heap", "ERROR: AddressSanitizer: heap-buffer-overflow"),
        ("ub", "runtime error: signed integer overflow"),
        ("leak", "ERROR: LeakSanitizer: detected memory leaks"),
    ];
    let status = FINDING_STATUS;
    for (mode, want) in cases {
        let log = dir.join(format!("control-{mode}"));
        let timeout = Duration::from_secs(60);
        let inv = Invocation { exe: &exe, args: &[mode], cwd: dir, env: ENV, log: &log, timeout };
        let out = driver.runner.run(&inv)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readelf_lines_are_told_apart_by_member() {
        let out = "\nFile: lib/libcrypto.a(a.o)\n     1: 0 0 FILE LOCAL DEFAULT ABS p_lib.c\n\
                   \nFile: lib/libcrypto.a(b.o)\n     2: 0 0 NOTYPE GLOBAL DEFAULT UND __asan_init\n";
        let lines: Vec<(&str, &str)> = per_member(out).filter(|(_, l)| !l.is_empty()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].0, "a.o");
        assert!(lines[0].1.ends_with("p_lib.c"));
        assert_eq!(lines[1].0, "b.o");
    }

    #[test]
    fn only_returning_ubsan_handlers_count_as_recoverable() {
        assert!(recoverable_ubsan_handler("__ubsan_handle_add_overflow"));
        assert!(!recoverable_ubsan_handler("__ubsan_handle_add_overflow_abort"));
        assert!(!recoverable_ubsan_handler("__ubsan_handle_builtin_unreachable"));
        assert!(!recoverable_ubsan_handler("__asan_init"));
    }

    /// The report line comes first even when the stack trace fills the tail.
    #[test]
    fn diagnostics_lead_with_the_sanitizer_report() {
        let mut stderr = String::from("==1==ERROR: AddressSanitizer: heap-buffer-overflow on x\n");
        stderr.push_str(&"    #0 0x1 (driver+0x2)\n".repeat(40));
        let d = driver::diagnostics(&stderr);
        assert!(d.starts_with("==1==ERROR: AddressSanitizer: heap-buffer-overflow"), "{d}");
    }
}
