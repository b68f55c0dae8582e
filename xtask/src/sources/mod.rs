//! OpenSSL's releases and the source crates made from them: an openssl-src crate fetched
//! through cargo (`fetch`), a release tarball checked whole and unpacked (`tarball`), and a
//! line's source crate (`crypto_build::source`) made from the archive its lock names. Beneath
//! both rooms: every command makes the crates it lacks on first use, `cargo xtask sources`
//! makes them on demand, and `update-openssl` moves one.

pub mod fetch;
pub mod fips_release;
pub mod krate;
pub mod tarball;

use anyhow::{bail, Context, Result};
use crypto_build::data::OpensslLine;
use crypto_build::source::{SourceCrate, TARBALLS_DIR};
use std::fs;
use std::path::Path;
use xshell::Shell;

/// Under the workspace: the fetch package and the unpacked tarballs.
const SCRATCH: &str = "target/sources";

/// What [`ensure`] found or did.
#[derive(Debug, PartialEq, Eq)]
pub enum Made {
    /// The crate's tree and list were there, its list the lock's.
    Already,
    /// Made now, from this archive.
    Now(String),
    /// A tarball line whose tarball is not at hand: the one line that says so.
    Missing(String),
}

/// The line's source crate in the workspace at `root`, made from the archive its lock names
/// unless it is made: the registry's openssl-src (fetched through cargo, its checksum the
/// lock's), or the release tarball kept in `lines/tarballs/` (checked against the lock's
/// SHA-256).
pub fn ensure(sh: &Shell, root: &Path, line: &OpensslLine) -> Result<Made> {
    let krate = SourceCrate::in_workspace(root, line);
    let lock = krate.lock_for(line)?;
    if krate.is_made(&lock) {
        return Ok(Made::Already);
    }
    let scratch = root.join(SCRATCH);
    match lock.registry_crate() {
        Some(version) => {
            let fetched = fetch::openssl_src(sh, &scratch, version)?;
            if fetched.checksum != lock.sha256 {
                bail!(
                    "{}'s checksum is {}, not {} as {}'s lock says",
                    fetched.archive(),
                    fetched.checksum,
                    lock.sha256,
                    krate.name
                );
            }
            crypto_gen::source::install(&krate, &fetched.source.dir, &lock.files)?;
        }
        None => {
            let path = root.join(TARBALLS_DIR).join(&lock.archive);
            if !path.is_file() {
                return Ok(Made::Missing(krate.missing(&lock)));
            }
            let t = tarball::Tarball::check(&path, &lock.sha256)?;
            let unpacked = scratch.join(format!("tarball-{}", std::process::id()));
            let tree = t.unpack(&unpacked)?;
            let made = crypto_gen::source::install(&krate, &tree, &lock.files);
            let _ = fs::remove_dir_all(&unpacked);
            made?;
        }
    }
    Ok(Made::Now(lock.archive))
}

/// Every line's source crate made where its archive is at hand, before a command that may
/// build any line; a crate made is said in one line, one that cannot be made is left to the
/// build that needs it, whose error names the way.
pub fn ensure_all(sh: &Shell) -> Result<()> {
    let root = crate::cargo::project_root();
    for line in crypto_build::data::OPENSSL_LINES {
        let made =
            ensure(sh, &root, line).with_context(|| format!("making {}", line.source_crate()))?;
        if let Made::Now(archive) = made {
            println!("sources: made {} from {archive}", line.source_crate());
        }
    }
    Ok(())
}
