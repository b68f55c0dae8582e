//! The `lock` step: every configuration of every target of the line the run tests
//! (`--openssl`, the default line unless named), and the other lines' configurations of the
//! host's target, generated where missing (a fresh clone has only what `cargo xtask build`
//! needed) and equal to each line's committed generate.lock. A run on each line checks that
//! line's lock whole; the other lines' whole, each another forty-odd configurations, are
//! left to their own runs. On the default line, a release tarball packed from its tree goes
//! through `update-openssl --source` for the host's target: the same sets, byte for byte.

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::Path;

pub fn run() -> Result<()> {
    use crypto_build::data::{self, OPENSSL_LINES, SETS, TARGETS};
    use crypto_build::generate::{self, Config, Source};
    let sets: Vec<_> = SETS.iter().collect();
    let jobs = crypto_build::jobs::count();
    let progress = crate::progress::generation;
    // A target at a time, the host's first: the steps beside this one build the host's sets,
    // and a build or detect that needs a configuration waits only for the batch under way
    // (then makes what is still missing itself, or finds it made).
    let host = data::target_for(&crate::cargo::host_triple(&xshell::Shell::new()?)?).ok();
    let mut order: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    order.sort_by_key(|name| host.is_none_or(|h| h.name != *name));
    let workspace = crate::cargo::project_root();
    for line in OPENSSL_LINES {
        let whole = line == super::line();
        let targets: Vec<_> = TARGETS
            .iter()
            .filter(|t| {
                line.has_target(t.name) && (whole || host.is_some_and(|h| h.name == t.name))
            })
            .collect();
        let configs = Config::expand(&targets, &sets);
        let (root, source) = (line.root(&workspace), Source::of_line(line)?);
        for target in order.iter().filter(|t| targets.iter().any(|c| c.name == **t)) {
            let batch: Vec<Config> =
                configs.iter().filter(|c| c.target.name == *target).copied().collect();
            generate::ensure_all(&root, &source, &batch, jobs, Some(&progress)).with_context(
                || format!("OpenSSL {}'s sets of {target} against its generate.lock", line.version),
            )?;
        }
        let which = if whole { "all" } else { "the host target's" };
        println!(
            "sets: {which} {} configurations of OpenSSL {} match {}",
            configs.len(),
            line.version,
            root.join(generate::lock::FILE_NAME).strip_prefix(&workspace)?.display()
        );
    }
    match host {
        Some(host) if super::line().is_default() => tarball_equals_the_crate(host.name),
        _ => Ok(()),
    }
}

/// The default line's openssl-src tree packed as its release tarball (`openssl-X.Y.Z/`), then
/// `update-openssl --source` on it for `target` alone: every configuration the same as the
/// lock's, so a tarball line generates what the crate does.
fn tarball_equals_the_crate(target: &str) -> Result<()> {
    use crypto_build::{data::DEFAULT_LINE, source};
    let started = std::time::Instant::now();
    let version = DEFAULT_LINE.version;
    let dir = crate::cargo::xtask_test_dir()?.join("tarball");
    let tarball = dir.join(source::tarball_name(version));
    let tree = crypto_build::line_source_dir(DEFAULT_LINE)?;
    pack(&tree, &source::tree_name(version), &tarball)?;
    let sha256 = crypto_build::sha256::hex(&fs::read(&tarball)?);
    let xtask = crate::cargo::xtask_binary()?;
    let sh = xshell::Shell::new()?;
    xshell::cmd!(
        sh,
        "{xtask} update-openssl --source {tarball} --sha256 {sha256} --report-only --target {target}"
    )
    .quiet()
    .read()
    .context("update-openssl --source on a tarball of the default line's tree")?;
    let report = crate::cargo::project_root()
        .join(format!("target/update-openssl/{version}-to-{version}.json"));
    let json: serde_json::Value = serde_json::from_str(&fs::read_to_string(&report)?)?;
    let (same, all) = (json["identical"].as_array().map_or(0, Vec::len), &json["configurations"]);
    if json["findings"].as_array().is_none_or(|f| !f.is_empty())
        || all.as_u64() != Some(same as u64)
    {
        bail!(
            "a tarball of OpenSSL {version}'s tree generates otherwise than its crate: {}",
            report.display()
        );
    }
    let _ = fs::remove_dir_all(&dir);
    println!(
        "sets: a tarball of OpenSSL {version}'s tree (SHA-256 {sha256}) generates the {same} \
         configurations of {target} byte for byte as its crate does ({:.0?})",
        started.elapsed()
    );
    Ok(())
}

/// `tree` as a gzip'd tar whose entries lie under `top/`, mtimes and modes kept.
fn pack(tree: &Path, top: &str, out: &Path) -> Result<()> {
    fs::create_dir_all(out.parent().unwrap())?;
    let file = fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    tar.append_dir_all(top, tree).with_context(|| format!("packing {}", tree.display()))?;
    tar.into_inner()?.finish()?;
    Ok(())
}
