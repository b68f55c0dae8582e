//! The `package` step: the `.crate` files of `cargo xtask package`, unpacked at another path
//! and built by a consumer without perl, debug and release at once, to this workspace's bytes.

use super::repro;
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// The consumer's variable: how many asm files the workspace's own build linked.
const EXPECT_ASM_FILES: &str = "CRYPTO_SYS_EXPECT_ASM_FILES";

/// Unpacks the `.crate` files of `cargo xtask package` and builds a consumer from them with
/// perl absent from PATH, in debug and release at once, from a cache holding seven eighths of
/// this workspace's objects: both must give this workspace's prefix's libraries, byte for byte (see
/// `repro` for what is proven on which objects). A package stripped of its lock or sets
/// must fail with one clear line.
pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let root = crate::cargo::project_root();
    // The default line's sets only: the other lines' are generated and packed by `--full`'s
    // `patch-lines` step.
    let line = crypto_build::data::DEFAULT_LINE.name();
    cmd!(sh, "{cargo} xtask package --openssl {line}").run()?;
    let work = root.join("target/package-test");
    crate::cargo::unpack_crates(sh, &root, &work)?;
    let manifest = consumer(&root, &work)?.join("Cargo.toml");
    // One OpenSSL tree, and no generator, in the packaged crates' graph.
    crate::graph::check_user_graph(cargo, &manifest, None, crypto_build::data::DEFAULT_LINE)?;
    let path = path_without_perl(&work.join("bin"))?;
    let _path = sh.push_env("PATH", &path);
    if which::which_in("perl", Some(&path), &root).is_ok() {
        bail!("perl is still on the PATH built for this test");
    }
    let target_dir = work.join("target");
    let reference = root.join("target/prefix");
    // The consumer checks its build against the workspace's: the same number of asm files.
    let expect = crate::prefix::facts(&reference)?.asm_files.len().to_string();
    repro::Race {
        project: &work.join("consumer"),
        target_dir: &target_dir,
        args: &["run"],
        path: &path,
        env: &[(EXPECT_ASM_FILES, expect)],
        reference: &reference,
        reference_cache: &root.join("target/crypto-sys-objcache"),
    }
    .run(cargo)?;

    // A source crate's file changed: the build stops before compiling, naming crate and file.
    let line = crypto_build::data::DEFAULT_LINE;
    let tree = work.join(format!("{}-{}", line.source_crate(), line.version));
    let tree = tree.join(crypto_build::source::list::TREE_DIR);
    let changed = tree.join("crypto/mem.c");
    let original = std::fs::read(&changed)?;
    std::fs::write(&changed, [&original[..], b"/* edited */\n"].concat())?;
    let stderr = failed_build(sh, cargo, &manifest, &target_dir);
    std::fs::write(&changed, &original)?;
    let want = format!(
        "{}'s tree ({}) differs from its files.sha256, first at crypto/mem.c",
        line.source_crate(),
        tree.display()
    );
    if !stderr?.lines().any(|l| l.contains(&want)) {
        bail!("an edited source crate must stop the build in one line: `{want}`");
    }

    // The build reads the lock the package carries: without it, or without the sets, it fails.
    let sets = work.join(format!("crypto-build-{}/sets", env!("CARGO_PKG_VERSION")));
    std::fs::remove_file(sets.join(crypto_build::lock::FILE_NAME))?;
    let stderr = failed_build(sh, cargo, &manifest, &target_dir)?;
    if !stderr.contains("no generate.lock") {
        bail!("a package without its generate.lock must fail clearly:\n{stderr}");
    }
    std::fs::remove_dir_all(&sets)?;
    let stderr = failed_build(sh, cargo, &manifest, &target_dir)?;
    if !stderr.contains("carries no pre-generated asm sets") {
        bail!("a package without its sets must fail clearly:\n{stderr}");
    }
    Ok(())
}

/// The package consumer in `work/consumer`, each unpublished crate patched in from `work`.
pub(super) fn consumer(root: &Path, work: &Path) -> Result<PathBuf> {
    let dir = work.join("consumer");
    crypto_build::files::copy_tree(&root.join("xtask/tests/package-consumer"), &dir)?;
    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest)?;
    for line in crate::cargo::unpacked_patches(work) {
        text.push_str(&format!("{line}\n"));
    }
    std::fs::write(&manifest, text)?;
    Ok(dir)
}

/// A build that must fail; its standard error.
fn failed_build(
    sh: &Shell,
    cargo: &str,
    manifest: &std::path::Path,
    target_dir: &std::path::Path,
) -> Result<String> {
    let out = cmd!(sh, "{cargo} build --manifest-path {manifest} --target-dir {target_dir}")
        .ignore_status()
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.status.success() {
        bail!("the build should have failed:\n{stderr}");
    }
    Ok(stderr)
}

/// A PATH of symlinks to every program on the current PATH except perl.
pub(super) fn path_without_perl(bin: &std::path::Path) -> Result<String> {
    std::fs::create_dir_all(bin)?;
    let path = std::env::var("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let name = e.file_name();
            let link = bin.join(&name);
            if name.to_string_lossy().starts_with("perl") || link.exists() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(e.path(), link);
        }
    }
    Ok(bin.display().to_string())
}
