//! The Windows part of `cargo xtask test`: crypto-sys's build pipeline for
//! x86_64-pc-windows-gnu (run without cargo, as this machine has no Windows Rust std) with
//! each assembler and set, every prefix checked by the C driver under wine on every code path.

use crate::driver;
use anyhow::{bail, ensure, Context, Result};
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

const TRIPLE: &str = "x86_64-pc-windows-gnu";
/// cc's variable for the Windows C compiler (cc finds x86_64-w64-mingw32-gcc without it).
const CC_VAR: &str = "CC_x86_64_pc_windows_gnu";
/// A nasm that says 2.16 but rejects zmm registers.
const NASM_WITHOUT_ZMM: &str = "xtask/tests/fixtures/nasm-without-zmm";

/// One way to build OpenSSL for Windows here.
struct Toolchain {
    name: &'static str,
    /// The C compiler, when not mingw's gcc.
    cc: Option<&'static str>,
    /// `--assembler`, when not the C compiler's own.
    assembler: Option<&'static str>,
}

#[rustfmt::skip]
const TOOLCHAINS: &[Toolchain] = &[
    Toolchain { name: "mingw-gcc+gas", cc: None, assembler: None },
    Toolchain { name: "mingw-gcc+nasm", cc: None, assembler: Some("nasm") },
    Toolchain { name: "clang-19", cc: Some("clang-19"), assembler: None },
];

const SETS: &[&str] = &["auto", "asm_avx2", "no_asm"];

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    for tool in ["x86_64-w64-mingw32-gcc", "nasm", "clang-19"] {
        ensure!(which::which(tool).is_ok(), "{tool} is not installed; .ci/run installs it");
    }
    for tc in TOOLCHAINS {
        for set in SETS {
            let prefix = prefix_dir(&format!("{}-{set}", tc.name));
            let out = build(sh, cargo, tc, &["--asm-set", set], &prefix)
                .with_context(|| format!("Windows build with {}, set {set}", tc.name))?;
            ensure!(
                warnings(&out).is_empty(),
                "{}, set {set}: expected no downgrade, got {:?}",
                tc.name,
                warnings(&out)
            );
            driver::check_prefix(sh, &driver::MINGW_X86_64, &prefix)
                .with_context(|| format!("{}, set {set}, under wine", tc.name))?;
        }
    }
    nasm_without_zmm(sh, cargo).context("a nasm that cannot assemble zmm")?;
    bad_input(sh, cargo)
}

fn prefix_dir(name: &str) -> PathBuf {
    crate::project_root().join("target/windows").join(name)
}

/// `cargo xtask build --target x86_64-pc-windows-gnu --prefix …`, as a user runs it; its
/// standard error, or an error carrying it.
fn build(sh: &Shell, cargo: &str, tc: &Toolchain, args: &[&str], prefix: &Path) -> Result<String> {
    let _cc = tc.cc.map(|c| sh.push_env(CC_VAR, c));
    let asm = tc.assembler.map(|a| ["--assembler", a]).into_iter().flatten();
    let out =
        cmd!(sh, "{cargo} xtask build --target {TRIPLE} {asm...} {args...} --prefix {prefix}")
            .ignore_status()
            .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        bail!("build failed:\n{stderr}");
    }
    print!("{}", String::from_utf8_lossy(&out.stdout));
    Ok(stderr)
}

fn warnings(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("warning: crypto-sys")).collect()
}

/// Exactly one warning, the asm_avx2 nasm rendering for every file that needs AVX-512, a
/// passing driver; `--strict` refuses.
fn nasm_without_zmm(sh: &Shell, cargo: &str) -> Result<()> {
    let nasm = crate::project_root().join(NASM_WITHOUT_ZMM);
    let _nasm = sh.push_env("NASM", &nasm);
    let tc = Toolchain { name: "mingw-gcc+nasm-without-zmm", cc: None, assembler: Some("nasm") };
    let prefix = prefix_dir(tc.name);
    let stderr = build(sh, cargo, &tc, &[], &prefix)?;
    let w = warnings(&stderr);
    ensure!(
        w.len() == 1 && w[0].contains("downgraded") && w[0].contains("asm_avx2"),
        "expected one warning line downgrading files to asm_avx2, got {w:?}"
    );
    println!("{}", w[0]);
    let plan = std::fs::read_to_string(prefix.join(crate::build::PREFIX_PLAN))?;
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
    driver::check_prefix(sh, &driver::MINGW_X86_64, &prefix)?;
    let strict = build(sh, cargo, &tc, &["--strict"], &prefix_dir("strict"));
    match strict {
        Err(e) if format!("{e:#}").contains("strict mode") => Ok(()),
        other => bail!("--strict must refuse the downgrade, got {other:?}"),
    }
}

/// A missing nasm or C compiler is one line naming it and how to get it.
fn bad_input(sh: &Shell, cargo: &str) -> Result<()> {
    let nasm = Toolchain { name: "no-nasm", cc: None, assembler: Some("nasm") };
    let cases: [(&str, &str, &Toolchain, &str); 2] = [
        ("NASM", "/nonexistent/nasm", &nasm, "nasm not found"),
        (CC_VAR, "/nonexistent/x86_64-w64-mingw32-gcc", &TOOLCHAINS[0], "gcc-mingw-w64-x86-64"),
    ];
    for (var, value, tc, want) in cases {
        let _env = sh.push_env(var, value);
        let prefix = prefix_dir("bad-input");
        match build(sh, cargo, tc, &[], &prefix) {
            Err(e) if format!("{e:#}").contains(want) && !prefix.exists() => {
                println!("{var}={value}: refused, naming `{want}`");
            }
            other => bail!("{var}={value} must fail naming `{want}`, got {other:?}"),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The whole Windows matrix on its own: `cargo test -p xtask -- --ignored windows_matrix`.
    #[test]
    #[ignore = "builds OpenSSL for Windows nine times; cargo xtask test runs it"]
    fn windows_matrix() {
        let sh = xshell::Shell::new().unwrap();
        sh.change_dir(crate::project_root());
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        super::run(&sh, &cargo).unwrap();
    }
}
