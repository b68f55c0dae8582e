//! The `rust-openssl` step (`--full`): the `openssl` crate's own test suite, unmodified, against
//! a prefix of this workspace through `OPENSSL_DIR`, as a downstream user of openssl-sys would
//! point it, for each OpenSSL line (`data::OPENSSL_LINES`). The crate is the one the prefix consumer locks, taken from cargo's registry with
//! its tests and their data (`test/`) as published; its manifest gets an empty `[workspace]`.
//! Then the same suite through the `openssl-src` patch alone (no `OPENSSL_DIR`), on each line:
//! its manifest gets the patch entry a user adds, and the tests run with openssl's `vendored`
//! feature (another line chosen by `CRYPTO_SYS_OPENSSL_LINE`).

use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::OpensslLine;
use std::path::PathBuf;
use xshell::{cmd, Shell};

const CONSUMER: &str = "xtask/tests/prefix-consumer/Cargo.toml";
const WORK: &str = "target/rust-openssl";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let mut counts = vec![];
    for line in crypto_build::data::OPENSSL_LINES {
        counts.push(suite(sh, cargo, line).with_context(|| format!("OpenSSL {}", line.version))?);
    }
    for (line, against_prefix) in crypto_build::data::OPENSSL_LINES.iter().zip(counts) {
        let context = || format!("OpenSSL {} through the openssl-src patch", line.version);
        let through = through_patch(sh, cargo, line).with_context(context)?;
        // The suite skips what a release lacks: the same counts as against the line's own
        // prefix show that the patch built that line.
        ensure!(
            through == against_prefix,
            "through the patch on OpenSSL {}, the suite counted {through:?}, against its prefix \
             {against_prefix:?}",
            line.version
        );
    }
    Ok(())
}

/// The suite with openssl's `vendored` feature and the patch entry in its manifest, in the
/// workspace's target directory (its object cache): no prefix; another line than the default
/// chosen by `CRYPTO_SYS_OPENSSL_LINE`, as a project that cannot turn on a patched crate's
/// feature does (the suite's manifest gets no more than the patch entry).
fn through_patch(sh: &Shell, cargo: &str, line: &OpensslLine) -> Result<Vec<String>> {
    let root = crate::cargo::project_root();
    let suite = copy_suite(sh, cargo, &root, "suite-patch")?;
    let manifest = suite.join("Cargo.toml");
    let patch = root.join("openssl-src").display().to_string();
    let mut text = std::fs::read_to_string(&manifest)?;
    text.push_str(&format!("\n[patch.crates-io]\nopenssl-src = {{ path = {patch:?} }}\n"));
    std::fs::write(&manifest, text)?;
    // The crate ships a Cargo.lock holding a registry openssl-src 300.x, which cargo keeps
    // (the patch unused, with a warning) until told: the one command a locked project runs.
    cmd!(sh, "{cargo} update -p openssl-src --manifest-path {manifest}").run()?;
    let target_dir = root.join("target");
    let mut test = cmd!(
        sh,
        "{cargo} test --manifest-path {manifest} --target-dir {target_dir} --features vendored"
    )
    .env_remove("OPENSSL_DIR");
    if !line.is_default() {
        test = test.env(crypto_build::config::OPENSSL_LINE_VAR, line.name());
    }
    let out = test.ignore_status().output()?;
    check_results(&out, &format!("the openssl-src patch on OpenSSL {}", line.version))
}

fn suite(sh: &Shell, cargo: &str, line: &OpensslLine) -> Result<Vec<String>> {
    let root = crate::cargo::project_root();
    let work = root.join(WORK);
    let prefix = work.join(format!("prefix-{}", line.name()));
    let name = line.name();
    cmd!(sh, "{cargo} xtask build --openssl {name} --prefix {prefix}")
        .run()
        .context("the prefix")?;
    let suite = copy_suite(sh, cargo, &root, "suite")?;
    let manifest = suite.join("Cargo.toml");
    // One per line: a rerun against the other line's prefix leaves this one's build as it was.
    let target_dir = work.join(format!("target-{}", line.name()));
    let out = cmd!(sh, "{cargo} test --manifest-path {manifest} --target-dir {target_dir}")
        .env("OPENSSL_DIR", &prefix)
        .env("OPENSSL_STATIC", "1")
        .ignore_status()
        .output()?;
    check_results(&out, &prefix.display().to_string())
}

/// The `openssl` crate the prefix consumer locks, copied to `target/rust-openssl/NAME` with an
/// empty `[workspace]` (under this workspace's target/, cargo would take the copy for an
/// unlisted member; that table makes it its own root, and is the one change to the crate).
fn copy_suite(sh: &Shell, cargo: &str, root: &std::path::Path, name: &str) -> Result<PathBuf> {
    let crate_dir = openssl_crate_dir(sh, cargo, &root.join(CONSUMER))?;
    let suite = root.join(WORK).join(name);
    if suite.exists() {
        std::fs::remove_dir_all(&suite).with_context(|| format!("removing {}", suite.display()))?;
    }
    crypto_build::files::copy_tree(&crate_dir, &suite)
        .with_context(|| format!("copying {}", crate_dir.display()))?;
    let manifest = suite.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest)?;
    text.push_str("\n[workspace]\n");
    std::fs::write(&manifest, text)?;
    Ok(suite)
}

/// The unit tests and the doctests passed, each with a count that shows they ran; printed.
/// Their counts (`468 passed; 0 failed; 5 ignored`), without the time.
fn check_results(out: &std::process::Output, against: &str) -> Result<Vec<String>> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let results: Vec<&str> = stdout.lines().filter(|l| l.starts_with("test result:")).collect();
    if !out.status.success() {
        bail!(
            "the openssl crate's tests failed against {against}:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The unit tests and the doctests, each with a count that shows they ran.
    ensure!(
        results.len() >= 2 && results.iter().all(|r| r.contains("ok.") && !r.contains(" 0 passed")),
        "expected the unit tests and doctests to run and pass, got {results:?}"
    );
    for r in &results {
        println!("rust-openssl against {against}: {r}");
    }
    let counts = |r: &&str| r.split("; finished").next().unwrap_or(r).to_string();
    Ok(results.iter().map(counts).collect())
}

/// The directory of the `openssl` package the consumer's lock names, fetched if need be.
fn openssl_crate_dir(sh: &Shell, cargo: &str, consumer: &std::path::Path) -> Result<PathBuf> {
    let meta = cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {consumer}")
        .read()
        .context("cargo metadata of the prefix consumer")?;
    Ok(crate::cargo::package(&meta, "openssl")?.1)
}
