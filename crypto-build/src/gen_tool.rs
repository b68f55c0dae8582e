//! In crypto-sys's own repository (a clone, or a git or path dependency on it), what a fresh
//! clone lacks, made by the maintainer's crate: a line's source tree and the sets a build
//! reads. crypto-build never depends on crypto-gen, so that no packaged crate carries the
//! generator; it builds crypto-gen's binary with cargo, in a target directory of its own, and
//! runs it. A packaged crate carries both, and never comes here.

use crate::sets::Config;
use crate::source::Source;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The maintainer's crate, in the repository at crypto-build's parent.
pub const CRATE: &str = "crypto-gen";

/// Its binary's commands: the line's source crate made from its supplier; missing sets made.
pub const TREE: &str = "tree";
pub const SETS: &str = "sets";

/// Where cargo builds the tool, under the repository: never the caller's target directory,
/// whose lock the running cargo holds.
const TARGET_DIR: &str = "target/crypto-gen";

/// What cargo hands a build script that a cargo started from it must not take as its own:
/// the caller's target, flags, wrappers for its workspace (clippy's) and jobserver.
const CALLER_ONLY: &[&str] = &[
    "CARGO_BUILD_TARGET",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_MAKEFLAGS",
    "CARGO_TARGET_DIR",
    "MAKEFLAGS",
    "MFLAGS",
    "RUSTC_WORKSPACE_WRAPPER",
];

/// Makes `line`'s source crate in the repository from its supplier (the registry's openssl-src
/// of its release, crypto-gen's optional dependency: only that line's is downloaded), when its
/// lock names it.
pub fn make_tree(line: &crate::data::OpensslLine) -> Result<()> {
    run(line.supplier().as_deref(), &[TREE.into(), line.name().into()])
        .with_context(|| format!("making {}'s tree", line.source_crate()))
}

/// Generates `configs` into `root` from `source`, each checked against the lock in `lock_dir`
/// before it is installed (as `cargo xtask generate` would, but for these only).
pub fn make_sets(root: &Path, lock_dir: &Path, source: &Source, configs: &[Config]) -> Result<()> {
    let mut args: Vec<String> = vec![SETS.into()];
    for (flag, value) in [("--root", root), ("--lock-dir", lock_dir), ("--source", &source.dir)] {
        args.extend([flag.into(), value.display().to_string()]);
    }
    args.extend(["--release".into(), source.version.clone()]);
    let keys: Vec<String> = configs.iter().map(Config::key).collect();
    args.extend(keys.iter().cloned());
    run(None, &args).with_context(|| format!("generating {}", keys.join(", ")))
}

/// Runs the tool, with the supplier `feature` on, with `args`; its own error, one line, when
/// it fails.
fn run(feature: Option<&str>, args: &[String]) -> Result<()> {
    let tool = build(feature)?;
    let out = Command::new(&tool)
        .args(args)
        .output()
        .with_context(|| format!("running {}", tool.display()))?;
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("no message");
        bail!("{CRATE} {}: {last}", args.join(" "));
    }
    Ok(())
}

/// crypto-gen's binary, built (or found fresh, in a fraction of a second) with no supplier but
/// `feature`.
fn build(feature: Option<&str>) -> Result<PathBuf> {
    let Some(root) = crate::repository() else {
        bail!(
            "crypto-build at {} is neither packaged nor in crypto-sys's repository: no \
             {CRATE} beside it to generate with",
            crate::crate_dir().display()
        );
    };
    let cargo = crate::config::cargo_program();
    let target_dir = root.join(TARGET_DIR);
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--quiet", "-p", CRATE, "--bin", CRATE, "--no-default-features"])
        .args(feature.map(|f| ["--features", f]).into_iter().flatten())
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // A build script's stdout is cargo's to read.
        .stdout(std::process::Stdio::null());
    for var in CALLER_ONLY {
        cmd.env_remove(var);
    }
    let status = cmd.status().with_context(|| format!("running {}", cargo.to_string_lossy()))?;
    if !status.success() {
        bail!("`cargo build -p {CRATE}` in {} failed ({status}); see above", root.display());
    }
    Ok(target_dir.join("debug").join(format!("{CRATE}{}", std::env::consts::EXE_SUFFIX)))
}
