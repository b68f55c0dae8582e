//! What a build compiles and runs, as `cargo tree` lists it, and what it must never reach: the
//! maintainer's crate (crypto-gen), a registry openssl-src other than openssl-sys's vendored
//! 300.x (the default line's tree comes in its source crate, never a second time), and the
//! source crate of a line it does not build.
//! Shared by the `package` and `patch` steps (the packaged crates) and, through `#[path]`, by
//! `tests/architecture.rs` (the workspace's).

use anyhow::{bail, Context, Result};
use crypto_build::data::{OpensslLine, DEFAULT_LINE};
use std::collections::BTreeSet;
use std::path::Path;

/// Whether `package` (`name vVERSION`, a path crate's followed by its path) is one a user's
/// build must never reach.
pub fn maintainer_only(package: &str) -> bool {
    let (name, version) = package.split_once(" v").unwrap_or((package, ""));
    let registry = !version.contains('(');
    name == "crypto-gen" || (name == "openssl-src" && registry && !version.starts_with("300."))
}

/// The packages a build of `manifest`'s project (of `package` in it, when given) compiles and
/// runs: normal and build dependencies, for every platform.
pub fn build_graph(cargo: &str, manifest: &Path, package: Option<&str>) -> Result<Vec<String>> {
    let mut cmd = std::process::Command::new(cargo);
    cmd.args(["tree", "-e", "normal,build", "--target", "all", "--prefix", "none"]);
    cmd.args(["--format", "{p}", "--manifest-path"]).arg(manifest);
    cmd.args(package.map(|p| ["-p", p]).into_iter().flatten());
    let out = cmd.output().with_context(|| format!("running {cargo} tree"))?;
    if !out.status.success() {
        bail!("cargo tree of {}: {}", manifest.display(), String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8(out.stdout)?;
    Ok(text.lines().map(|l| l.trim_end_matches(" (*)").to_string()).collect())
}

/// `manifest`'s build, of OpenSSL `line`, reaches crypto-build and nothing
/// [`maintainer_only`]: of the source crates, the default line's (which crypto-build always
/// carries) and at most `line`'s beside it.
pub fn check_user_graph(
    cargo: &str,
    manifest: &Path,
    package: Option<&str>,
    line: &OpensslLine,
) -> Result<()> {
    let graph = build_graph(cargo, manifest, package)?;
    let what = format!("{} ({})", manifest.display(), package.unwrap_or("every package"));
    if !graph.iter().any(|p| p.starts_with("crypto-build v")) {
        bail!("{what}'s build does not reach crypto-build: {graph:?}");
    }
    let found: Vec<&String> = graph.iter().filter(|p| maintainer_only(p)).collect();
    if !found.is_empty() {
        bail!("{what}'s build reaches what only a maintainer runs: {found:?}");
    }
    let trees: BTreeSet<&str> = graph
        .iter()
        .filter_map(|p| p.split(' ').next())
        .filter(|name| name.starts_with("crypto-sys-openssl-"))
        .collect();
    // The line's crate may be the repository's, not the graph's (a path patch's line chosen
    // by CRYPTO_SYS_OPENSSL_LINE).
    let (built, default) = (line.source_crate(), DEFAULT_LINE.source_crate());
    let allowed: BTreeSet<&str> = [built.as_str(), default.as_str()].into();
    if !trees.contains(default.as_str()) || !trees.is_subset(&allowed) {
        bail!(
            "{what}'s build of OpenSSL {} holds the trees {trees:?}: {default} and at most \
             {built} beside it",
            line.version
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maintainers_crate_and_a_second_tree_are_named() {
        assert!(maintainer_only("crypto-gen v0.1.0 (/w/crypto-gen)"));
        assert!(maintainer_only("openssl-src v400.0.3+4.0.4"));
        assert!(!maintainer_only("openssl-src v300.99.0 (/w/openssl-src)"));
        assert!(!maintainer_only("openssl-src v300.6.1+3.6.3"));
        assert!(!maintainer_only("crypto-build v0.1.0"));
    }
}
