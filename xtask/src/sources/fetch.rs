//! Fetches an openssl-src release through cargo itself: a scratch package that depends on it,
//! `cargo fetch`, and `cargo metadata` for where cargo unpacked it. Nothing is downloaded by
//! hand, so the registry, its mirror and its checksums are cargo's as for any dependency.

use anyhow::{bail, Context, Result};
use crypto_build::source::Source;
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

/// An openssl-src release on disk.
pub struct Fetched {
    /// The crate's version, with its build metadata (`400.0.2+4.0.3`).
    pub crate_version: String,
    pub source: Source,
    /// The `.crate` archive's SHA-256, as the registry's index has it and cargo checked it.
    pub checksum: String,
}

impl Fetched {
    /// The archive's name, as a source crate's lock names it.
    pub fn archive(&self) -> String {
        format!("openssl-src-{}.crate", self.crate_version)
    }
}

/// What VERSION asks for: an exact crate version, or the newest crate of an OpenSSL line
/// that must hold that release.
#[derive(Debug, PartialEq, Eq)]
enum Wanted {
    Crate(String),
    Openssl { requirement: String, release: String },
}

/// openssl-src numbers its crates `MAJOR*100 + …`: `300.MINOR.N` holds OpenSSL 3.MINOR.x and
/// `400.MINOR.N` 4.MINOR.x, N counting the crate's own releases. So an OpenSSL release maps
/// only to its line (`~400.0`), whose newest crate must then hold it.
fn wanted(version: &str) -> Result<Wanted> {
    let version = version.split('+').next().unwrap_or(version);
    let parts: Vec<u32> = version
        .split('.')
        .map(|p| p.parse().with_context(|| format!("`{version}` is not a version")))
        .collect::<Result<_>>()?;
    let [major, minor, _patch] = parts[..] else {
        bail!("`{version}` is not a version: give openssl-src's (400.0.2) or OpenSSL's (4.0.3)");
    };
    Ok(if major >= 100 {
        Wanted::Crate(version.into())
    } else {
        let requirement = format!("~{}.{minor}", major * 100);
        Wanted::Openssl { requirement, release: version.into() }
    })
}

/// The OpenSSL series VERSION asks for: `300.5.5` and `3.5.5` are `3.5`; openssl-src's crates
/// before 300 (`111.28.2`, OpenSSL 1.1.1) are `1.1`.
pub fn series(version: &str) -> Result<String> {
    Ok(match wanted(version)? {
        Wanted::Crate(v) => {
            let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
            if major >= 300 {
                format!("{}.{minor}", major / 100)
            } else {
                "1.1".into()
            }
        }
        Wanted::Openssl { release, .. } => crypto_build::data::series_of(&release).into(),
    })
}

/// Fetches openssl-src `version` (see [`wanted`]) into cargo's registry, through a scratch
/// package under `scratch`.
pub fn openssl_src(sh: &Shell, scratch: &Path, version: &str) -> Result<Fetched> {
    let wanted = wanted(version)?;
    let requirement = match &wanted {
        Wanted::Crate(v) => format!("={v}"),
        Wanted::Openssl { requirement, .. } => requirement.clone(),
    };
    let dir = scratch.join("fetch");
    fs::create_dir_all(dir.join("src")).with_context(|| format!("creating {}", dir.display()))?;
    // Its own workspace, or cargo would take it for a stray member of ours.
    let manifest = format!(
        "[package]\nname = \"update-openssl-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nopenssl-src = \"{requirement}\"\n\n[workspace]\n"
    );
    fs::write(dir.join("Cargo.toml"), manifest)?;
    fs::write(dir.join("src/lib.rs"), "")?;
    // No lock left from another run: the newest crate that matches, every time.
    let _ = fs::remove_file(dir.join("Cargo.lock"));
    let cargo = crate::cargo::cargo();
    let path = dir.join("Cargo.toml");
    cmd!(sh, "{cargo} fetch --quiet --manifest-path {path}")
        .quiet()
        .run()
        .with_context(|| format!("fetching openssl-src {requirement} through cargo"))?;
    let metadata =
        cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {path}").quiet().read()?;
    let (crate_version, crate_dir) = crate::cargo::package(&metadata, "openssl-src")?;
    let source = Source::at(&crate_dir.join("openssl"))?;
    if let Wanted::Openssl { release, .. } = &wanted {
        if &source.version != release {
            bail!(
                "the newest openssl-src of the OpenSSL line of {release} is {crate_version}, \
                 which holds OpenSSL {}: name the crate version that holds {release} instead",
                source.version
            );
        }
    }
    let checksum = locked_checksum(&dir.join("Cargo.lock"), &crate_version)?;
    Ok(Fetched { crate_version, source, checksum })
}

/// The checksum a Cargo.lock holds for openssl-src `version`.
fn locked_checksum(lock: &Path, version: &str) -> Result<String> {
    let text = fs::read_to_string(lock).with_context(|| format!("reading {}", lock.display()))?;
    let entry = format!("name = \"openssl-src\"\nversion = \"{version}\"\n");
    let at = text
        .find(&entry)
        .with_context(|| format!("{} has no openssl-src {version}", lock.display()))?;
    let rest = &text[at + entry.len()..];
    let block = rest.split("\n\n").next().unwrap_or_default();
    let checksum = block.lines().find_map(|l| l.strip_prefix("checksum = \""));
    let checksum = checksum.and_then(|c| c.strip_suffix('"'));
    checksum
        .map(String::from)
        .with_context(|| format!("{} has no checksum of openssl-src {version}", lock.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_a_crate_or_an_openssl_release() {
        assert_eq!(wanted("400.0.2").unwrap(), Wanted::Crate("400.0.2".into()));
        assert_eq!(wanted("400.0.2+4.0.3").unwrap(), Wanted::Crate("400.0.2".into()));
        let line = |r: &str, v: &str| Wanted::Openssl { requirement: r.into(), release: v.into() };
        assert_eq!(wanted("4.0.3").unwrap(), line("~400.0", "4.0.3"));
        assert_eq!(wanted("3.5.5").unwrap(), line("~300.5", "3.5.5"));
        assert!(wanted("3.5").is_err());
        assert!(wanted("latest").is_err());
        assert_eq!(series("400.0.2").unwrap(), "4.0");
        assert_eq!(series("300.5.5+3.5.5").unwrap(), "3.5");
        assert_eq!(series("4.1.0").unwrap(), "4.1");
        assert_eq!(series("111.28.2").unwrap(), "1.1");
        assert!(series("3.5").is_err());
    }
}
