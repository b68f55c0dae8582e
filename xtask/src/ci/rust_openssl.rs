//! The `rust-openssl` step (`--full`): the `openssl` crate's own test suite, unmodified, against
//! a prefix of this workspace through `OPENSSL_DIR`, as a downstream user of openssl-sys would
//! point it, for each OpenSSL line (`data::OPENSSL_LINES`). The crate is the one the prefix consumer locks, taken from cargo's registry with
//! its tests and their data (`test/`) as published; its manifest gets an empty `[workspace]`.

use anyhow::{bail, ensure, Context, Result};
use std::path::PathBuf;
use xshell::{cmd, Shell};

const CONSUMER: &str = "xtask/tests/prefix-consumer/Cargo.toml";
const WORK: &str = "target/rust-openssl";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    for line in crypto_build::data::OPENSSL_LINES {
        suite(sh, cargo, line).with_context(|| format!("OpenSSL {}", line.version))?;
    }
    Ok(())
}

fn suite(sh: &Shell, cargo: &str, line: &crypto_build::data::OpensslLine) -> Result<()> {
    let root = crate::cargo::project_root();
    let work = root.join(WORK);
    let prefix = work.join(format!("prefix-{}", line.name()));
    let name = line.name();
    cmd!(sh, "{cargo} xtask build --openssl {name} --prefix {prefix}")
        .run()
        .context("the prefix")?;
    let crate_dir = openssl_crate_dir(sh, cargo, &root.join(CONSUMER))?;
    let suite = work.join("suite");
    if suite.exists() {
        std::fs::remove_dir_all(&suite).with_context(|| format!("removing {}", suite.display()))?;
    }
    crypto_build::generate::copy_tree(&crate_dir, &suite)
        .with_context(|| format!("copying {}", crate_dir.display()))?;
    let manifest = suite.join("Cargo.toml");
    // Under this workspace's target/, cargo would take the copy for an unlisted member; an
    // empty workspace table makes it its own root, and is the one change to the crate.
    let mut text = std::fs::read_to_string(&manifest)?;
    text.push_str("\n[workspace]\n");
    std::fs::write(&manifest, text)?;
    // One per line: a rerun against the other line's prefix leaves this one's build as it was.
    let target_dir = work.join(format!("target-{}", line.name()));
    let out = cmd!(sh, "{cargo} test --manifest-path {manifest} --target-dir {target_dir}")
        .env("OPENSSL_DIR", &prefix)
        .env("OPENSSL_STATIC", "1")
        .ignore_status()
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let results: Vec<&str> = stdout.lines().filter(|l| l.starts_with("test result:")).collect();
    if !out.status.success() {
        bail!(
            "the openssl crate's tests failed against {}:\n{stdout}{}",
            prefix.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The unit tests and the doctests, each with a count that shows they ran.
    ensure!(
        results.len() >= 2 && results.iter().all(|r| r.contains("ok.") && !r.contains(" 0 passed")),
        "expected the unit tests and doctests to run and pass, got {results:?}"
    );
    let name = crate_dir.file_name().unwrap_or_default().to_string_lossy();
    for r in results {
        println!("rust-openssl ({name}) against {}: {r}", prefix.display());
    }
    Ok(())
}

/// The directory of the `openssl` package the consumer's lock names, fetched if need be.
fn openssl_crate_dir(sh: &Shell, cargo: &str, consumer: &std::path::Path) -> Result<PathBuf> {
    let meta = cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {consumer}")
        .read()
        .context("cargo metadata of the prefix consumer")?;
    Ok(crate::cargo::package(&meta, "openssl")?.1)
}
