//! Where each OpenSSL line's tree comes from (`data::LineSource`): an openssl-src crate that
//! crypto-build depends on, or a release tarball that `cargo xtask update-openssl --source
//! FILE --sha256 HEX` unpacked and verified into the workspace's git-ignored
//! `openssl-sources/`, beside a stamp naming the tarball's SHA-256.

use crate::data::{LineSource, OpensslLine};
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Under the workspace: each tarball line's tree, `openssl-X.Y.Z/`, and its stamp.
pub const SOURCES_DIR: &str = "openssl-sources";

/// The tree of an OpenSSL line.
pub fn line_source_dir(line: &OpensslLine) -> Result<PathBuf> {
    match line.source {
        LineSource::Registry { .. } => registry_tree(line),
        LineSource::Tarball { sha256 } => tarball_tree(&workspace_sources()?, line.version, sha256),
    }
}

/// A tarball line's stamp, which changes when its tree is unpacked again (a build's input).
pub fn line_stamp(line: &OpensslLine) -> Option<PathBuf> {
    match line.source {
        LineSource::Registry { .. } => None,
        LineSource::Tarball { .. } => Some(stamp_path(&workspace_sources().ok()?, line.version)),
    }
}

/// The openssl-src crate's tree: the pinned one for the default line; for another, the
/// openssl-src dependency named after its series, which crypto-build's feature of the same
/// name (crypto-sys's turns it on) brings.
fn registry_tree(line: &OpensslLine) -> Result<PathBuf> {
    if line.default {
        return Ok(openssl_src::source_dir());
    }
    match line.name() {
        #[cfg(feature = "openssl-3-5")]
        "3.5" => Ok(openssl_src_3_5::source_dir()),
        _ => {
            let feature = line.feature().unwrap_or_default();
            bail!(
                "OpenSSL {} needs crypto-build's `{feature}` feature (crypto-sys's `{feature}` \
                 turns it on), which brings its source",
                line.version
            )
        }
    }
}

/// `openssl-sources/` of the workspace this crypto-build belongs to (its parent directory).
fn workspace_sources() -> Result<PathBuf> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let workspace = manifest_dir.parent().context("crypto-build's directory has no parent")?;
    Ok(workspace.join(SOURCES_DIR))
}

/// A release's directory name in its tarball and under `openssl-sources/`: `openssl-X.Y.Z`.
pub fn tree_name(version: &str) -> String {
    format!("openssl-{version}")
}

/// The release's tarball as OpenSSL names it: `openssl-X.Y.Z.tar.gz`.
pub fn tarball_name(version: &str) -> String {
    format!("{}.tar.gz", tree_name(version))
}

/// The stamp beside a tree: the tarball's SHA-256 and name, as `sha256sum` prints them.
pub fn stamp_path(sources: &Path, version: &str) -> PathBuf {
    sources.join(format!("{}.sha256", tree_name(version)))
}

pub fn stamp_text(version: &str, sha256: &str) -> String {
    format!("{sha256}  {}\n", tarball_name(version))
}

/// The tree unpacked from the tarball of `sha256` under `sources`, or one line saying what
/// is missing and the command that unpacks it.
pub fn tarball_tree(sources: &Path, version: &str, sha256: &str) -> Result<PathBuf> {
    let dir = sources.join(tree_name(version));
    let tarball = tarball_name(version);
    let command = format!("cargo xtask update-openssl --source {tarball} --sha256 {sha256}");
    let stamp = fs::read_to_string(stamp_path(sources, version)).ok();
    let tree = dir.join("Configure").is_file() && dir.join("VERSION.dat").is_file();
    match stamp {
        Some(text) if text == stamp_text(version, sha256) && tree => Ok(dir),
        Some(_) if tree => bail!(
            "{} was unpacked from another tarball than {tarball} (SHA-256 {sha256}), which \
             OpenSSL {version}'s line names: unpack that one with `{command}`",
            dir.display()
        ),
        _ => bail!(
            "OpenSSL {version}'s tree comes from {tarball} (SHA-256 {sha256}) and is not \
             unpacked in {}: unpack it with `{command}`",
            dir.display()
        ),
    }
}

/// The release a `VERSION.dat` names: `MAJOR.MINOR.PATCH`, with `-TAG` for a pre-release.
pub fn release_of_version_dat(text: &str) -> Result<String> {
    let field = |name: &str| {
        let value = text.lines().find_map(|l| l.strip_prefix(&format!("{name}=")));
        value.map(|v| v.trim().trim_matches('"').to_string())
    };
    let number = |name: &str| {
        let value = field(name).with_context(|| format!("no {name}"))?;
        value.parse::<u32>().with_context(|| format!("{name}={value} is not a number"))
    };
    let mut version = format!("{}.{}.{}", number("MAJOR")?, number("MINOR")?, number("PATCH")?);
    if let Some(tag) = field("PRE_RELEASE_TAG").filter(|t| !t.is_empty()) {
        version = format!("{version}-{tag}");
    }
    Ok(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_tarball_tree_is_taken_only_with_its_stamp() {
        let scratch = tempfile::tempdir().unwrap();
        let sources = scratch.path().join("openssl-sources");
        let e = tarball_tree(&sources, "4.1.0", SHA).unwrap_err().to_string();
        assert!(e.contains("openssl-4.1.0.tar.gz (SHA-256 0123"), "{e}");
        let command =
            format!("cargo xtask update-openssl --source openssl-4.1.0.tar.gz --sha256 {SHA}");
        assert!(e.contains(&command) && !e.contains('\n'), "{e}");
        let tree = sources.join("openssl-4.1.0");
        fs::create_dir_all(&tree).unwrap();
        fs::write(tree.join("Configure"), "").unwrap();
        fs::write(tree.join("VERSION.dat"), "").unwrap();
        // Unpacked, but no stamp: a run killed before its end.
        assert!(tarball_tree(&sources, "4.1.0", SHA).is_err());
        fs::write(stamp_path(&sources, "4.1.0"), stamp_text("4.1.0", &SHA.replace('0', "f")))
            .unwrap();
        let e = tarball_tree(&sources, "4.1.0", SHA).unwrap_err().to_string();
        assert!(e.contains("another tarball"), "{e}");
        fs::write(stamp_path(&sources, "4.1.0"), stamp_text("4.1.0", SHA)).unwrap();
        assert_eq!(tarball_tree(&sources, "4.1.0", SHA).unwrap(), tree);
    }

    #[test]
    fn version_dat_names_the_release() {
        let dat = "MAJOR=3\nMINOR=6\nPATCH=3\nPRE_RELEASE_TAG=\nBUILD_METADATA=\n";
        assert_eq!(release_of_version_dat(dat).unwrap(), "3.6.3");
        let pre = "MAJOR=4\nMINOR=1\nPATCH=0\nPRE_RELEASE_TAG=alpha1\n";
        assert_eq!(release_of_version_dat(pre).unwrap(), "4.1.0-alpha1");
        assert!(release_of_version_dat("MAJOR=3\nMINOR=x\nPATCH=0\n").is_err());
        assert!(release_of_version_dat("").is_err());
    }
}
