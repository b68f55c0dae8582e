//! The Windows part of `cargo xtask test`: crypto-sys's build pipeline for
//! x86_64-pc-windows-gnu and i686-pc-windows-gnu (run without cargo, as this machine has no
//! Windows Rust std) with each toolchain row that runs under wine and its sets, every prefix
//! checked by the C driver under wine (win64 or win32) on every code path, and crypto-sys's
//! prefixed copy beside the plain one in one program (`mix.rs`).

use crate::matrix::{How, Row, MINGW_GCC};
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::triples::X86_64_WINDOWS_GNU;
use crypto_build::data::AsmSet;
use crypto_build::data::Feature::{self, Avx512, Avx512Ifma, Vaes512, Vpclmul512};
use crypto_build::facts::Downgrade;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// A nasm that says 2.16 but rejects zmm registers.
const NASM_WITHOUT_ZMM: &str = "xtask/tests/fixtures/nasm-without-zmm";

/// Each wine row of the matrix for `triple` with its sets (`full`: the sets only `--full`
/// adds), every prefix checked by the C driver under wine; then, in x86_64's default run, the
/// downgrade and bad-input cases.
pub fn run(sh: &Shell, triple: &str, full: bool) -> Result<()> {
    let rows: Vec<&Row> = crate::matrix::rows(How::Wine).filter(|r| r.target == triple).collect();
    for row in &rows {
        for tool in [row.cc, "nasm"] {
            let package = if tool == "nasm" { "nasm" } else { row.package };
            ensure!(
                which::which(tool).is_ok(),
                "{tool} is not installed; .ci/run installs it (apt install {package})"
            );
        }
    }
    for row in rows {
        let name = row.name();
        let tc = row.driver()?;
        for set in if full { row.full_sets } else { row.sets } {
            let prefix = prefix_dir(&format!("{name}-{set}"));
            let started = std::time::Instant::now();
            let apps = row.apps && *set == "auto";
            let args = [&["--asm-set", set][..], if apps { &["--apps"] } else { &[] }].concat();
            let out = build(sh, row, &args, &prefix)
                .with_context(|| format!("Windows build with {name}, set {set}"))?;
            let built = started.elapsed();
            let want = usize::from(*set == "auto" && !row.downgraded.is_empty());
            let w = crate::cargo::warnings(&out);
            ensure!(w.len() == want, "{name}, set {set}: expected {want} warning(s), got {w:?}");
            if *set == "auto" {
                row.check_prefix_plan(&prefix)?;
            }
            links_whole(sh, row.cc, &prefix).with_context(|| format!("{name}, set {set}"))?;
            super::driver_paths::check_prefix(sh, &tc, &prefix)
                .with_context(|| format!("{name}, set {set}, under wine"))?;
            if apps {
                super::apps::version(tc.runner, &prefix)
                    .with_context(|| format!("{name}: bin/openssl.exe under wine"))?;
            }
            if *set == "auto" {
                super::mix::two_copies(sh, &tc, triple, &prefix)
                    .with_context(|| format!("{name}: two copies under wine"))?;
            }
            let checked = started.elapsed() - built;
            println!(
                "windows: {name}, set {set}: built in {:.0} s, checked under wine in {:.0} s",
                built.as_secs_f64(),
                checked.as_secs_f64()
            );
        }
    }
    if full || triple != X86_64_WINDOWS_GNU {
        return Ok(());
    }
    nasm_without_zmm(sh).context("a nasm that cannot assemble zmm")?;
    bad_input(sh)
}

fn prefix_dir(name: &str) -> PathBuf {
    super::line_target_dir("windows", super::line()).join(name)
}

/// Links every object of the prefix's archives into one DLL. A program links only the
/// objects it needs, so an object calling what nothing defines (an intrinsic whose header
/// `Target::speed_cflags` skipped) would otherwise go unseen.
fn links_whole(sh: &Shell, cc: &str, prefix: &Path) -> Result<()> {
    let (_, libs) = crate::driver::pkg_config(sh, prefix, "libssl")?;
    let lib = prefix.join("lib");
    let archives = [lib.join("libssl.a"), lib.join("libcrypto.a")];
    let dll = prefix.with_extension("dll");
    cmd!(
        sh,
        "{cc} -shared -o {dll} -Wl,--whole-archive {archives...} -Wl,--no-whole-archive {libs...}"
    )
    .quiet()
    .run()
    .context("linking every object of libssl.a and libcrypto.a into a DLL")?;
    println!("windows: every object of {} links", prefix.display());
    Ok(())
}

/// `cargo xtask build --target <the row's triple> --prefix …` with the row's compiler and
/// assembler, of the OpenSSL line the run tests, as a user runs it.
fn build(sh: &Shell, row: &Row, args: &[&str], prefix: &Path) -> Result<String> {
    build_with(sh, (row.target, row.cc, row.assembler), args, prefix)
}

/// The same with a triple, compiler and assembler of the caller's.
fn build_with(
    sh: &Shell,
    (triple, cc, assembler): (&str, &str, Option<&str>),
    args: &[&str],
    prefix: &Path,
) -> Result<String> {
    let asm = assembler.map(|a| ["--assembler", a]).into_iter().flatten();
    let args: Vec<&str> = asm.chain(args.iter().copied()).chain(super::line_args()).collect();
    crate::cargo::for_target(sh, triple, cc, &args, prefix)
}

/// Exactly one warning, the asm_avx2 nasm rendering for every file that needs AVX-512, a
/// passing driver; `--strict` refuses.
fn nasm_without_zmm(sh: &Shell) -> Result<()> {
    let nasm = crate::cargo::project_root().join(NASM_WITHOUT_ZMM);
    let _nasm = sh.push_env("NASM", &nasm);
    let row = Row::find(X86_64_WINDOWS_GNU, MINGW_GCC, Some("nasm"))?;
    let prefix = prefix_dir("nasm-without-zmm");
    let stderr = build(sh, row, &[], &prefix)?;
    let w = crate::cargo::warnings(&stderr);
    ensure!(w.len() == 1, "expected one warning line, got {w:?}");
    println!("{}", w[0]);
    links_whole(sh, MINGW_GCC, &prefix)?;
    let facts = crate::prefix::facts(&prefix)?;
    let zmm = [Avx512, Vaes512, Vpclmul512, Avx512Ifma].map(Feature::name);
    let wide = |d: &Downgrade| {
        let for_zmm = d.missing.iter().all(|m| zmm.contains(&m.as_str()));
        d.to == AsmSet::avx2().name && !d.missing.is_empty() && for_zmm
    };
    ensure!(
        !facts.downgrades.is_empty() && facts.downgrades.iter().all(wide),
        "expected downgrades to asm_avx2 for want of AVX-512 only, got {:?}",
        facts.downgrades
    );
    let downgraded = facts.files_from(AsmSet::avx2().name);
    for file in ["crypto/modes/aes-gcm-avx512.asm", "crypto/bn/rsaz-2k-avx512.asm"] {
        ensure!(downgraded.contains(&file), "{file} should come from asm_avx2: {downgraded:?}");
    }
    ensure!(
        !downgraded.contains(&"crypto/bn/rsaz-2k-avxifma.asm"),
        "the AVX-IFMA file needs no zmm and must stay in asm"
    );
    super::driver_paths::check_prefix(sh, &row.driver()?, &prefix)?;
    let strict = build(sh, row, &["--strict"], &prefix_dir("strict"));
    match strict {
        Err(e) if format!("{e:#}").contains("strict mode") => Ok(()),
        other => bail!("--strict must refuse the downgrade, got {other:?}"),
    }
}

/// A missing nasm or C compiler is one line naming it and how to get it, and installs no
/// prefix.
fn bad_input(sh: &Shell) -> Result<()> {
    let missing_gcc = format!("/nonexistent/{MINGW_GCC}");
    let package = Row::find(X86_64_WINDOWS_GNU, MINGW_GCC, None)?.package;
    let cases = [
        ("NASM=/nonexistent/nasm", MINGW_GCC, Some("nasm"), "nasm not found"),
        ("a missing mingw gcc", missing_gcc.as_str(), None, package),
    ];
    for (case, cc, assembler, want) in cases {
        let _nasm = sh.push_env("NASM", "/nonexistent/nasm");
        let prefix = prefix_dir("bad-input");
        // Whatever an earlier run left there would read as a prefix this build installed.
        if prefix.exists() {
            std::fs::remove_dir_all(&prefix)
                .with_context(|| format!("removing {}", prefix.display()))?;
        }
        match build_with(sh, (X86_64_WINDOWS_GNU, cc, assembler), &[], &prefix) {
            Err(e) if format!("{e:#}").contains(want) && !prefix.exists() => {
                println!("{case}: refused, naming `{want}`");
            }
            other => bail!("{case} must fail naming `{want}`, got {other:?}"),
        }
    }
    Ok(())
}
