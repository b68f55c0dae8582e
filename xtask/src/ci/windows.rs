//! The Windows part of `cargo xtask test`: crypto-sys's build pipeline for
//! x86_64-pc-windows-gnu (run without cargo, as this machine has no Windows Rust std) with
//! each toolchain row that runs under wine and its sets, every prefix checked by the C driver
//! under wine on every code path.

use crate::driver;
use crate::matrix::{Row, ROWS};
use anyhow::{bail, ensure, Context, Result};
use std::path::{Path, PathBuf};
use xshell::Shell;

const TRIPLE: &str = "x86_64-pc-windows-gnu";
/// A nasm that says 2.16 but rejects zmm registers.
const NASM_WITHOUT_ZMM: &str = "xtask/tests/fixtures/nasm-without-zmm";

const SETS: &[&str] = &["auto", "asm_avx2", "no_asm"];

/// How much of the matrix to run. no_asm has no asm, so the assembler does not matter, and
/// its C configuration takes a full compile of its own (mingw's headers make that about
/// 500 s here, an eighth of CI): only the full matrix builds it, with the first row.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Matrix {
    /// `cargo xtask test`: `auto` and `asm_avx2`, which share their C objects.
    Ci,
    /// `cargo test -p xtask -- --ignored windows_matrix`: also no_asm, by mingw gcc.
    Full,
}

fn sets_of(row_index: usize, matrix: Matrix) -> &'static [&'static str] {
    if row_index == 0 && matrix == Matrix::Full {
        SETS
    } else {
        &SETS[..2]
    }
}

pub fn run(sh: &Shell, cargo: &str, matrix: Matrix) -> Result<()> {
    for tool in ["x86_64-w64-mingw32-gcc", "nasm"] {
        ensure!(which::which(tool).is_ok(), "{tool} is not installed; .ci/run installs it");
    }
    let rows = ROWS.iter().filter(|r| r.target == Some(TRIPLE) && r.runs_under_wine());
    for (i, tc) in rows.enumerate() {
        let name = toolchain_name(tc);
        for set in sets_of(i, matrix) {
            let prefix = prefix_dir(&format!("{name}-{set}"));
            let started = std::time::Instant::now();
            // One build links bin/openssl.exe too: its C is compiled here anyway.
            let apps = i == 0 && *set == "auto";
            let args = [&["--asm-set", set][..], if apps { &["--apps"] } else { &[] }].concat();
            let out = build(sh, cargo, tc, &args, &prefix)
                .with_context(|| format!("Windows build with {name}, set {set}"))?;
            let built = started.elapsed();
            let want = usize::from(*set == "auto" && !tc.downgraded.is_empty());
            let w = crate::cargo::warnings(&out);
            ensure!(w.len() == want, "{name}, set {set}: expected {want} warning(s), got {w:?}");
            if *set == "auto" {
                tc.check_prefix_plan(&prefix)?;
            }
            super::driver_paths::check_prefix(sh, &driver::MINGW_X86_64, &prefix)
                .with_context(|| format!("{name}, set {set}, under wine"))?;
            if apps {
                super::apps::version(driver::Runner::Wine, &prefix)
                    .with_context(|| format!("{name}: bin/openssl.exe under wine"))?;
            }
            let checked = started.elapsed() - built;
            println!(
                "windows: {name}, set {set}: built in {:.0} s, checked under wine in {:.0} s",
                built.as_secs_f64(),
                checked.as_secs_f64()
            );
        }
    }
    nasm_without_zmm(sh, cargo).context("a nasm that cannot assemble zmm")?;
    bad_input(sh, cargo)
}

fn toolchain_name(tc: &Row) -> String {
    format!("{}+{}", tc.cc, tc.assembler.unwrap_or("its-as"))
}

fn prefix_dir(name: &str) -> PathBuf {
    crate::cargo::project_root().join("target/windows").join(name)
}

/// `cargo xtask build --target x86_64-pc-windows-gnu --prefix …` with the row's compiler and
/// assembler, as a user runs it.
fn build(sh: &Shell, cargo: &str, tc: &Row, args: &[&str], prefix: &Path) -> Result<String> {
    let asm = tc.assembler.map(|a| ["--assembler", a]).into_iter().flatten();
    let args: Vec<&str> = asm.chain(args.iter().copied()).collect();
    crate::cargo::for_target(sh, cargo, TRIPLE, tc.cc, &args, prefix)
}

/// Exactly one warning, the asm_avx2 nasm rendering for every file that needs AVX-512, a
/// passing driver; `--strict` refuses.
fn nasm_without_zmm(sh: &Shell, cargo: &str) -> Result<()> {
    let nasm = crate::cargo::project_root().join(NASM_WITHOUT_ZMM);
    let _nasm = sh.push_env("NASM", &nasm);
    let tc = windows_row(Some("nasm"));
    let prefix = prefix_dir("nasm-without-zmm");
    let stderr = build(sh, cargo, &tc, &[], &prefix)?;
    let w = crate::cargo::warnings(&stderr);
    ensure!(
        w.len() == 1 && w[0].contains("downgraded") && w[0].contains("asm_avx2"),
        "expected one warning line downgrading files to asm_avx2, got {w:?}"
    );
    println!("{}", w[0]);
    let plan = std::fs::read_to_string(prefix.join(crate::prefix::PLAN))?;
    let downgraded: Vec<&str> = plan
        .lines()
        .filter(|l| l.ends_with("\tasm_avx2"))
        .map(|l| l.split('\t').next().unwrap_or(""))
        .collect();
    for file in ["crypto/modes/aes-gcm-avx512.asm", "crypto/bn/rsaz-2k-avx512.asm"] {
        ensure!(downgraded.contains(&file), "{file} should come from asm_avx2: {downgraded:?}");
    }
    ensure!(
        !downgraded.contains(&"crypto/bn/rsaz-2k-avxifma.asm"),
        "the AVX-IFMA file needs no zmm and must stay in asm"
    );
    super::driver_paths::check_prefix(sh, &driver::MINGW_X86_64, &prefix)?;
    let strict = build(sh, cargo, &tc, &["--strict"], &prefix_dir("strict"));
    match strict {
        Err(e) if format!("{e:#}").contains("strict mode") => Ok(()),
        other => bail!("--strict must refuse the downgrade, got {other:?}"),
    }
}

/// mingw gcc for this target, with the C compiler's assembler or the one named.
fn windows_row(assembler: Option<&'static str>) -> Row {
    Row {
        cc: "x86_64-w64-mingw32-gcc",
        target: Some(TRIPLE),
        assembler,
        tested: "",
        downgraded: &[],
        c_variant: "",
    }
}

/// A missing nasm or C compiler is one line naming it and how to get it, and installs no
/// prefix.
fn bad_input(sh: &Shell, cargo: &str) -> Result<()> {
    let no_cc = Row { cc: "/nonexistent/x86_64-w64-mingw32-gcc", ..windows_row(None) };
    let cases = [
        ("NASM=/nonexistent/nasm", windows_row(Some("nasm")), "nasm not found"),
        ("a missing mingw gcc", no_cc, "gcc-mingw-w64-x86-64"),
    ];
    for (case, tc, want) in &cases {
        let _nasm = sh.push_env("NASM", "/nonexistent/nasm");
        let prefix = prefix_dir("bad-input");
        // Whatever an earlier run left there would read as a prefix this build installed.
        if prefix.exists() {
            std::fs::remove_dir_all(&prefix)
                .with_context(|| format!("removing {}", prefix.display()))?;
        }
        match build(sh, cargo, tc, &[], &prefix) {
            Err(e) if format!("{e:#}").contains(want) && !prefix.exists() => {
                println!("{case}: refused, naming `{want}`");
            }
            other => bail!("{case} must fail naming `{want}`, got {other:?}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The whole Windows matrix on its own, no_asm included (CI's step leaves it out):
    /// `cargo test -p xtask -- --ignored windows_matrix`.
    #[test]
    #[ignore = "builds OpenSSL for Windows with each row and set, about 20 minutes"]
    fn windows_matrix() {
        let (sh, cargo) = crate::ci::step_shell();
        super::run(&sh, &cargo, super::Matrix::Full).unwrap();
    }
}
