//! `cargo xtask package`: crypto-build, crypto-sys, each OpenSSL line's source crate, each
//! other line's sets crate and `openssl-src` (the patch crate) `.crate` files, crypto-build
//! carrying the default line's pre-generated sets and each sets crate its line's (generated
//! where missing, checked against each line's generate.lock), each source crate its tree
//! (checked against its list), so that crypto-sys and the patch both build without perl, on
//! every line.

use crate::flags::Package;
use crate::sources::krate::MAX_CRATE_BYTES;
use anyhow::{bail, Context, Result};
use crypto_build::data::{OpensslLine, OPENSSL_LINES, SETS, TARGETS};
use crypto_build::files::copy_tree;
use crypto_build::lock;
use crypto_build::sets::Config;
use crypto_build::source::Source;
use crypto_build::source::SourceCrate;
use crypto_gen::generate;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

impl Package {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let root = crate::cargo::project_root();
        let lines: Vec<&'static OpensslLine> = match self.lines.is_empty() {
            true => OPENSSL_LINES.iter().collect(),
            false => self.lines,
        };
        let source_crates = line_crates(&root)?;
        for line in &lines {
            check_sets(&root, line)?;
        }
        // Each line's sets into its package's `sets/`: crypto-build's, or its sets crate's.
        let sets_dir = |l: &OpensslLine| match l.is_default() {
            true => root.join("crypto-build/sets"),
            false => l.root(&root).join("sets"),
        };
        let _cleanup: Vec<RemoveOnDrop> =
            OPENSSL_LINES.iter().map(|l| RemoveOnDrop(sets_dir(l))).collect();
        for line in &lines {
            install_sets(&root, &sets_dir(line), line)?;
        }
        let cargo = crate::cargo::cargo();
        let pkgs = ["-p", "crypto-build", "-p", "crypto-sys"];
        let sources = &source_crates;
        // Not published (the name is openssl-src's): packaged for a path or git patch.
        let patch = format!("openssl-src@{}", crate::cargo::PATCH_VERSION);
        // The crates are built from their .crate by `cargo xtask test`, with perl off PATH.
        cmd!(sh, "{cargo} package --no-verify --allow-dirty {pkgs...} {sources...} -p {patch}")
            .run()?;
        cmd!(sh, "{cargo} publish --dry-run --no-verify --allow-dirty {pkgs...} {sources...}")
            .run()?;
        for krate in crate::cargo::crates(&root) {
            let size = fs::metadata(&krate)?.len();
            if size > MAX_CRATE_BYTES {
                bail!("{} is {size} bytes, over crates.io's 10 MiB limit", krate.display());
            }
            println!("packaged {} ({:.1} MiB)", krate.display(), size as f64 / 1048576.0);
        }
        Ok(())
    }
}

/// cargo's `-p` arguments for each line's source crate (its tree checked against its list
/// first) and each other line's sets crate.
fn line_crates(root: &Path) -> Result<Vec<String>> {
    let mut args = vec![];
    for line in OPENSSL_LINES {
        let krate = SourceCrate::in_workspace(root, line);
        krate.checked(line).with_context(|| format!("packaging {}", krate.name))?;
        args.extend(["-p".to_string(), format!("{}@{}", krate.name, line.version)]);
        if !line.is_default() {
            args.extend(["-p".to_string(), line.sets_crate()]);
        }
    }
    Ok(args)
}

/// Every set of `line` on disk and equal to its lock: a package never ships unchecked outputs.
/// A set not yet generated is made here (after any generation under way, which it may find
/// made).
fn check_sets(root: &Path, line: &OpensslLine) -> Result<()> {
    let jobs = crypto_build::jobs::count();
    let progress = crate::progress::generation;
    let source = Source::of_line(line)?;
    generate::ensure_all(&line.root(root), &source, &all_configs(line), jobs, Some(&progress), None)
        .with_context(|| {
            format!("the packaged sets of OpenSSL {} against its {}", line.version, lock::FILE_NAME)
        })
}

/// `line`'s sets and lock in `sets`: the packaged build checks every set against the lock it
/// carries.
fn install_sets(root: &Path, sets: &Path, line: &OpensslLine) -> Result<()> {
    let _ = fs::remove_dir_all(sets);
    for config in all_configs(line) {
        let from = config.dir(&line.root(root));
        copy_tree(&from, &config.dir(sets))
            .with_context(|| format!("copying {}", from.display()))?;
    }
    let lock = line.root(root).join(lock::FILE_NAME);
    fs::copy(&lock, sets.join(lock::FILE_NAME))
        .with_context(|| format!("copying {}", lock.display()))?;
    let (files, bytes) = crypto_build::packed::pack(sets)?;
    println!(
        "sets of OpenSSL {}: {files} repeated files ({:.1} MiB) stored once",
        line.version,
        bytes as f64 / 1048576.0
    );
    Ok(())
}

fn all_configs(line: &OpensslLine) -> Vec<Config> {
    let targets: Vec<_> = TARGETS.iter().filter(|t| line.has_target(t.name)).collect();
    let sets: Vec<_> = SETS.iter().collect();
    Config::expand(&targets, &sets)
}

/// The copied sets are git-ignored scaffolding for packaging; never leave them behind.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
