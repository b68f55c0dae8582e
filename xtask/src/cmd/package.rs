//! `cargo xtask package`: crypto-build, crypto-sys and `openssl-src` (the patch crate) `.crate`
//! files, crypto-build carrying the pre-generated sets (generated where missing, checked
//! against generate.lock) so that crypto-sys and the patch both build without perl.

use crate::flags::Package;
use anyhow::{bail, Context, Result};
use crypto_build::data::{SETS, TARGETS};
use crypto_build::generate::{self, copy_tree, lock, Config};
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// crates.io refuses larger uploads.
const MAX_CRATE_BYTES: u64 = 10 * 1024 * 1024;

impl Package {
    pub fn run(self, sh: &Shell) -> Result<()> {
        let root = crate::cargo::project_root();
        check_sets(&root)?;
        let sets = root.join("crypto-build/sets");
        let _cleanup = RemoveOnDrop(sets.clone());
        install_sets(&root, &sets)?;
        let cargo = crate::cargo::cargo();
        let pkgs = ["-p", "crypto-build", "-p", "crypto-sys"];
        // Not published (the name is openssl-src's): packaged for a path or git patch.
        let patch = format!("openssl-src@{}", crate::cargo::PATCH_VERSION);
        // The crates are built from their .crate by `cargo xtask test`, with perl off PATH.
        cmd!(sh, "{cargo} package --no-verify --allow-dirty {pkgs...} -p {patch}").run()?;
        cmd!(sh, "{cargo} publish --dry-run --no-verify --allow-dirty {pkgs...}").run()?;
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

/// Every set on disk and equal to the lock: a package never ships unchecked outputs. A set
/// not yet generated is made here (after any generation under way, which it may find made).
fn check_sets(root: &Path) -> Result<()> {
    let jobs = crypto_build::jobs::count();
    let progress = crate::progress::generation;
    generate::ensure_all(root, &generate::Source::pinned(), &all_configs(), jobs, Some(&progress))
        .with_context(|| format!("the packaged sets against {}", lock::FILE_NAME))
}

/// The sets and the lock: the packaged build checks every set against the lock it carries.
fn install_sets(root: &Path, sets: &Path) -> Result<()> {
    let _ = fs::remove_dir_all(sets);
    for config in all_configs() {
        let from = config.dir(root);
        copy_tree(&from, &config.dir(sets))
            .with_context(|| format!("copying {}", from.display()))?;
    }
    fs::copy(root.join(lock::FILE_NAME), sets.join(lock::FILE_NAME))
        .with_context(|| format!("copying {}", lock::FILE_NAME))?;
    let (files, bytes) = crypto_build::packed::pack(sets)?;
    println!("sets: {files} repeated files ({:.1} MiB) stored once", bytes as f64 / 1048576.0);
    Ok(())
}

fn all_configs() -> Vec<Config> {
    let targets: Vec<_> = TARGETS.iter().collect();
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
