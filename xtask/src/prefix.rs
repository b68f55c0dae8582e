//! An installed prefix's on-disk format, as `cargo xtask build --prefix` writes it: the marker
//! that makes it ours, the build's facts, and the `openssl` program a build linked.

use crate::runner::{Invocation, Runner};
use anyhow::{ensure, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Marks a directory as a prefix `cargo xtask build --prefix` installed, so it may be
/// replaced; it holds the build's summary line.
pub const MARKER: &str = ".crypto-sys-prefix";
/// The plan the prefix was built with: each asm file and its set (see `build_script`).
pub const PLAN: &str = ".crypto-sys-plan.tsv";

/// The program a build linked into `dir/bin` (a build's OUT_DIR, or a prefix).
pub fn program_path(dir: &Path) -> Result<PathBuf> {
    let bin = dir.join("bin");
    let found = fs::read_dir(&bin).ok().into_iter().flatten().flatten().map(|e| e.path());
    found
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == "openssl"))
        .with_context(|| format!("the build linked no openssl program in {}", bin.display()))
}

/// The program in `dir/bin` (a prefix, or a build's OUT_DIR) and its `version -a`.
pub fn version_output(runner: Runner, dir: &Path) -> Result<(PathBuf, String)> {
    let program = program_path(dir)?;
    let out = runner.run(&Invocation {
        exe: &program,
        args: &["version", "-a"],
        cwd: dir,
        env: &[],
        log: &dir.join("bin/.version-a"),
        timeout: runner.driver_timeout(),
    })?;
    ensure!(
        out.status.success(),
        "{} version -a failed ({}): {}",
        program.display(),
        out.status,
        out.stderr
    );
    // Windows programs end their lines with CR LF.
    Ok((program, out.stdout.replace("\r\n", "\n")))
}
