//! The C test driver (`driver/`) for targets where Rust tests cannot run: writes the vectors it
//! reads, builds it with a target's C compiler against an OpenSSL prefix, runs it (natively,
//! under wine or under qemu-aarch64) with a timeout, and parses its report.

mod report;
mod vectors;

pub use crate::runner::{Invocation, Runner};
pub use report::{diagnostics, parse_report, tail, PathReport, Report};
pub use vectors::{families, write_vectors, KATS};

use anyhow::{bail, ensure, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;
use xshell::{cmd, Shell};

/// Each driver build (program, vectors, run logs) gets a directory here, under the project root.
pub const DRIVER_DIR: &str = "target/driver";
/// The -D that compiles in the x86_64 asm's symbols (OPENSSL_ia32cap_P, eligibility functions).
pub const X86_64_ASM_DEFINE: &str = "-DDRIVER_X86_64_ASM";
/// The -D that compiles in the aarch64 asm's OPENSSL_armcap_P.
pub const AARCH64_ASM_DEFINE: &str = "-DDRIVER_AARCH64_ASM";

/// Which asm's symbols the driver reports (`path asm …`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum AsmKind {
    #[default]
    None,
    X86_64,
    Aarch64,
}

impl AsmKind {
    fn define(self) -> Option<&'static str> {
        match self {
            AsmKind::None => None,
            AsmKind::X86_64 => Some(X86_64_ASM_DEFINE),
            AsmKind::Aarch64 => Some(AARCH64_ASM_DEFINE),
        }
    }
}

/// A C toolchain the driver is built with, and how its programs run here (a matrix row's,
/// `matrix::Row::driver`).
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// Names its build directories and its lines in the report.
    pub name: String,
    pub cc: &'static str,
    /// The Debian package that provides `cc`, named in the error when it is missing.
    pub package: &'static str,
    /// Compiler flags besides CFLAGS, on the compile and the link line (clang's target,
    /// sanitizers).
    pub flags: Vec<String>,
    /// Added to the environment of every run (sanitizer options).
    pub env: &'static [(&'static str, &'static str)],
    pub exe: &'static str,
    /// The asm whose symbols its programs can report, when the prefix has asm.
    pub asm: AsmKind,
    pub runner: Runner,
}

/// Strict C99 and no warnings: the driver must build unchanged with every target's compiler.
const CFLAGS: &[&str] = &["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"];

pub fn require_cc(tc: &Toolchain) -> Result<()> {
    match which::which(tc.cc) {
        Ok(_) => Ok(()),
        Err(_) => bail!("{} not found: install {}", tc.cc, tc.package),
    }
}

/// The driver's C sources, in a fixed order.
fn sources(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("driver");
    let mut files = Vec::new();
    for e in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == "c") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Builds the driver into `target/driver/<name>/` against `prefix` (lib/libcrypto.a,
/// include/openssl/), beside the vectors it reads (`vectors/`, so each build directory is
/// self-contained); `asm` when the prefix has asm, whose symbols (`tc.asm`) it then
/// reports. Returns the executable.
pub fn build(sh: &Shell, tc: &Toolchain, name: &str, prefix: &Path, asm: bool) -> Result<PathBuf> {
    require_cc(tc)?;
    let out_dir = crate::cargo::project_root().join(DRIVER_DIR).join(name);
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = out_dir.join(tc.exe);
    let (cc, flags) = (tc.cc, &tc.flags);
    let srcs = sources(&crate::cargo::project_root())?;
    let define = asm.then(|| tc.asm.define()).flatten();
    let libcrypto = prefix.join("lib/libcrypto.a");
    ensure!(libcrypto.exists(), "{} not found: not an OpenSSL prefix", libcrypto.display());
    // The prefix's own pkg-config files say how to compile and link against it, the system
    // libraries of its target included: the driver is their first consumer.
    let (cflags, libs) = pkg_config(sh, prefix, "libcrypto")?;
    cmd!(sh, "{cc} {CFLAGS...} {flags...} {define...} {cflags...} {srcs...} {libs...} -o {exe}")
        .run()
        .with_context(|| format!("building the driver with {cc} against {}", prefix.display()))?;
    write_vectors(&out_dir.join("vectors"))?;
    Ok(exe)
}

/// `pkg-config --cflags` and `--static --libs` of `package`, from `prefix` alone.
pub fn pkg_config(sh: &Shell, prefix: &Path, package: &str) -> Result<(Vec<String>, Vec<String>)> {
    ensure!(which::which("pkg-config").is_ok(), "pkg-config not found: install pkg-config");
    let _dir = sh.push_env("PKG_CONFIG_LIBDIR", prefix.join("lib/pkgconfig"));
    let _path = sh.push_env("PKG_CONFIG_PATH", "");
    let words = |s: String| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let cflags = cmd!(sh, "pkg-config --cflags {package}").read()?;
    let libs = cmd!(sh, "pkg-config --static --libs {package}").read()?;
    Ok((words(cflags), words(libs)))
}

/// Compiles the driver's sources with `tc` against `include` without linking: proves they
/// build for a target before there is a prefix for it.
pub fn compile_only(sh: &Shell, tc: &Toolchain, include: &Path, asm: bool) -> Result<()> {
    require_cc(tc)?;
    let out_dir = crate::cargo::project_root().join(DRIVER_DIR).join(format!("{}-objects", tc.cc));
    fs::create_dir_all(&out_dir)?;
    let define = asm.then(|| tc.asm.define()).flatten();
    let (cc, flags) = (tc.cc, &tc.flags);
    for src in sources(&crate::cargo::project_root())? {
        let obj = out_dir.join(src.file_stem().context("a source file name")?).with_extension("o");
        cmd!(sh, "{cc} {CFLAGS...} {flags...} {define...} -I{include} -c {src} -o {obj}")
            .run()
            .with_context(|| format!("compiling {} with {cc}", src.display()))?;
    }
    Ok(())
}

/// Runs a driver `build` made on the vectors beside it, with the toolchain's `env` and then
/// `env` added, its output logged beside it as `<label>.stdout.txt`. An error, carrying every failure line, unless all
/// checks passed and every check family reported its counts.
pub fn run_driver(
    tc: &Toolchain,
    exe: &Path,
    label: &str,
    env: &[(&str, &str)],
    timeout: Duration,
) -> Result<Report> {
    let (dir, log) = (exe.parent().context("the driver's directory")?, exe.with_file_name(label));
    // A relative path, so that wine and qemu need no path translation.
    let env: Vec<(&str, &str)> = tc.env.iter().chain(env).copied().collect();
    let inv = Invocation { exe, args: &["vectors"], cwd: dir, env: &env, log: &log, timeout };
    let out = tc.runner.run(&inv)?;
    let report = parse_report(&out.stdout).with_context(|| {
        let (stdout, stderr) = (tail(&out.stdout), diagnostics(&out.stderr));
        format!("driver exited with {}:\n{stdout}\n{stderr}", out.status)
    })?;
    if !report.passed || !out.status.success() || !report.failures.is_empty() {
        bail!(
            "driver {} failed ({}):\n{}\n{}",
            exe.display(),
            out.status,
            report.failures.join("\n"),
            diagnostics(&out.stderr)
        );
    }
    let expected = families().chain(KATS.iter().copied());
    let missing: Vec<&str> = expected.filter(|f| !report.counts.contains_key(*f)).collect();
    ensure!(missing.is_empty(), "the driver reported no counts for {missing:?}");
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_toolchain_reports_its_own_asm() {
        use crate::matrix::{How, ROWS};
        for row in ROWS.iter().filter(|r| matches!(r.how, How::Wine | How::Qemu)) {
            let want =
                if row.target.starts_with("x86_64-") { AsmKind::X86_64 } else { AsmKind::Aarch64 };
            assert_eq!(row.driver().unwrap().asm, want, "{row:?}");
        }
        assert_eq!(AsmKind::Aarch64.define(), Some(AARCH64_ASM_DEFINE));
    }

    #[test]
    fn a_missing_compiler_is_one_line_naming_its_package() {
        let host = crate::matrix::rows(crate::matrix::How::Workspace).next().unwrap();
        let tc = Toolchain {
            cc: "no-such-cc-for-the-driver",
            package: "gcc-example",
            ..host.driver().unwrap()
        };
        let e = format!("{:#}", require_cc(&tc).unwrap_err());
        assert_eq!(e, "no-such-cc-for-the-driver not found: install gcc-example");
    }
}
