//! The aarch64 Linux part of `cargo xtask test`: crypto-sys's build pipeline for
//! aarch64-unknown-linux-gnu (run without cargo, as this machine has no aarch64 Rust std) with
//! gcc and clang-19, every prefix checked by the C driver under qemu-aarch64, an asm prefix on
//! each code path of `data::AARCH64_CODE_PATHS`.

use crate::driver::{self, Toolchain};
use anyhow::{ensure, Context, Result};
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::Shell;

const TRIPLE: &str = "aarch64-unknown-linux-gnu";
/// The cross C library qemu-aarch64 runs the driver with (`-L /usr/aarch64-linux-gnu`).
const CROSS_LIBC: &str = "/usr/aarch64-linux-gnu/lib/libc.so.6";

/// How much of the matrix to run. Each aarch64 C compile is about 150 s of both cores here.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Matrix {
    /// `cargo xtask test`: gcc and clang-19 with `auto` (asm, on every code path). no_asm,
    /// OpenSSL's plain C, is left to the full matrix: each aarch64 compile is ~150 s of CI.
    Ci,
    /// `cargo test -p xtask -- --ignored aarch64_matrix`: both compilers with both sets.
    // Built only by the ignored `aarch64_matrix` test.
    #[cfg_attr(not(test), allow(dead_code))]
    Full,
}

/// One prefix to build and check: the driver's toolchain (whose `cc` builds OpenSSL too), the
/// set asked for, and the assembler the summary must name.
struct Build {
    tc: Toolchain,
    set: &'static str,
    assembler: &'static str,
}

fn builds(matrix: Matrix) -> Vec<Build> {
    let gcc = |set| Build { tc: driver::AARCH64_LINUX, set, assembler: "GNU as" };
    let clang = |set| Build {
        tc: driver::AARCH64_LINUX_CLANG,
        set,
        assembler: "clang integrated assembler",
    };
    match matrix {
        Matrix::Ci => vec![gcc("auto"), clang("auto")],
        Matrix::Full => vec![gcc("auto"), gcc("no_asm"), clang("auto"), clang("no_asm")],
    }
}

/// The tools every build needs, as one line each: none is optional where this step runs.
fn require_tools(matrix: Matrix) -> Result<()> {
    ensure!(
        which::which("qemu-aarch64").is_ok(),
        "qemu-aarch64 is not installed; .ci/run installs it (apt install qemu-user)"
    );
    for b in builds(matrix) {
        let (cc, package) = (b.tc.cc, b.tc.package);
        ensure!(
            which::which(cc).is_ok(),
            "{cc} is not installed; .ci/run installs it (apt install {package})"
        );
    }
    ensure!(
        Path::new(CROSS_LIBC).exists(),
        "the aarch64 C library is not installed; .ci/run installs it \
         (apt install libc6-dev-arm64-cross)"
    );
    Ok(())
}

pub fn run(sh: &Shell, matrix: Matrix) -> Result<()> {
    require_tools(matrix)?;
    let cargo = crate::cargo::cargo();
    for b in builds(matrix) {
        let (cc, set) = (b.tc.cc, b.set);
        let prefix = prefix_dir(&format!("{cc}-{set}"));
        let started = Instant::now();
        let out = crate::cargo::for_target(sh, &cargo, TRIPLE, cc, &["--asm-set", set], &prefix)
            .with_context(|| format!("aarch64 build with {cc}, set {set}"))?;
        let built = started.elapsed();
        let w = crate::cargo::warnings(&out);
        ensure!(w.is_empty(), "{cc}, set {set}: expected no warning, got {w:?}");
        check_summary(&b, &prefix)?;
        super::driver_paths::check_prefix(sh, &b.tc, &prefix)
            .with_context(|| format!("{cc}, set {set}, under qemu-aarch64"))?;
        let checked = started.elapsed() - built;
        println!(
            "aarch64: {cc}, set {set}: built in {:.0} s, checked under qemu in {:.0} s",
            built.as_secs_f64(),
            checked.as_secs_f64()
        );
    }
    Ok(())
}

fn prefix_dir(name: &str) -> PathBuf {
    crate::cargo::project_root().join("target/aarch64-prefix").join(name)
}

/// The summary the prefix carries: the set asked for taken whole (asm: 0 downgraded), with the
/// nistp C variant (aarch64 has __uint128_t) and the compiler's own assembler.
fn check_summary(b: &Build, prefix: &Path) -> Result<()> {
    let path = prefix.join(crate::prefix::MARKER);
    let summary =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let taken = if b.set == "no_asm" { "no_asm" } else { "asm" };
    let want = [
        format!("set {taken} (requested {}), ", b.set),
        "C ec_nistp_64_gcc_128, ".to_string(),
        format!("{} ", b.assembler),
        ", 0 downgraded".to_string(),
    ];
    let missing: Vec<&String> = want.iter().filter(|w| !summary.contains(w.as_str())).collect();
    ensure!(
        summary.starts_with(&want[0]) && missing.is_empty(),
        "{}: the summary `{}` lacks {missing:?}",
        b.tc.cc,
        summary.trim()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole aarch64 matrix on its own:
    /// `cargo test -p xtask -- --ignored aarch64_matrix`.
    #[test]
    #[ignore = "builds OpenSSL for aarch64 with gcc and clang-19, both sets, and runs the driver \
                under qemu: about 25 minutes"]
    fn aarch64_matrix() {
        let (sh, _) = crate::ci::step_shell();
        run(&sh, Matrix::Full).unwrap();
    }

    #[test]
    fn ci_builds_asm_with_both_compilers() {
        let ci: Vec<_> = builds(Matrix::Ci).iter().map(|b| (b.tc.cc, b.set)).collect();
        assert_eq!(ci, [("aarch64-linux-gnu-gcc", "auto"), ("clang-19", "auto")]);
        assert_eq!(builds(Matrix::Full).len(), 4);
    }

    fn summary_of(b: &Build, text: &str) -> Result<()> {
        let dir = crate::cargo::project_root().join("target/driver/unit-tests/aarch64-summary");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(crate::prefix::MARKER), text).unwrap();
        check_summary(b, &dir)
    }

    /// Summaries as the build writes them: each departure from the plan is refused.
    #[test]
    fn a_summary_must_show_the_set_variant_and_assembler_asked_for() {
        let gcc = &builds(Matrix::Full)[0];
        let good = "set asm (requested auto), C ec_nistp_64_gcc_128, GNU as 2.40, 1117 units \
                    (25 asm, 1117 compiled), 0 downgraded\n";
        summary_of(gcc, good).unwrap();
        for bad in [
            good.replace("0 downgraded", "3 downgraded"),
            good.replace("set asm", "set no_asm"),
            good.replace("C ec_nistp_64_gcc_128", "C default"),
            good.replace("GNU as", "clang integrated assembler"),
        ] {
            let e = summary_of(gcc, &bad).unwrap_err().to_string();
            assert!(e.contains("the summary"), "{e}");
        }
        let clang = &builds(Matrix::Full)[3];
        let no_asm = "set no_asm (requested no_asm), C ec_nistp_64_gcc_128, clang integrated \
                      assembler 19.1.7, 1091 units (0 asm, 1091 compiled), 0 downgraded\n";
        summary_of(clang, no_asm).unwrap();
    }
}
