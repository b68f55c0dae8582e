//! A validated release's FIPS module (`data::FIPS_VALIDATED`), as its Security Policy builds
//! it: the release fetched from crates.io (cargo checks the crate's checksum), its own
//! `Configure enable-fips` and `make`, on this machine. Neither generated nor built by our
//! pipeline: only that build can be the validated one.

use anyhow::{bail, Context, Result};
use crypto_build::data::{self, ValidatedRelease};
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// The row of `release` (`3.1.2`), or one line naming the releases there are.
pub fn validated(release: &str) -> Result<&'static ValidatedRelease> {
    data::FIPS_VALIDATED.iter().find(|v| v.release == release).with_context(|| {
        let known: Vec<&str> = data::FIPS_VALIDATED.iter().map(|v| v.release).collect();
        format!(
            "OpenSSL {release} has no validated FIPS module this build knows: {}",
            known.join(", ")
        )
    })
}

/// Builds `v`'s module for this machine under `work` (its tree copied there); returns it.
pub fn build(sh: &Shell, v: &ValidatedRelease, work: &Path) -> Result<PathBuf> {
    let host = crate::cargo::host_triple(sh)?;
    let target = data::target_for(&host)?;
    let fetched = crate::sources::fetch::openssl_src(sh, work, v.crate_version)?;
    if fetched.source.version != v.release {
        bail!(
            "openssl-src {} holds OpenSSL {}, not {}",
            v.crate_version,
            fetched.source.version,
            v.release
        );
    }
    let tree = work.join("openssl");
    let _ = fs::remove_dir_all(&tree);
    crypto_build::files::copy_tree(&fetched.source.dir, &tree)
        .with_context(|| format!("copying {}", fetched.source.dir.display()))?;
    let jobs = crypto_build::jobs::count().to_string();
    let _dir = sh.push_dir(&tree);
    let configure = target.name;
    // The Policy's `enable-fips`, and no more than keeps the build to the module.
    cmd!(sh, "perl Configure {configure} enable-fips no-shared no-tests")
        .quiet()
        .ignore_stdout()
        .run()
        .with_context(|| format!("OpenSSL {}'s Configure", v.release))?;
    cmd!(sh, "make -j{jobs} build_generated").quiet().ignore_stdout().run()?;
    cmd!(sh, "make -j{jobs} providers/fips.so")
        .quiet()
        .ignore_stdout()
        .run()
        .with_context(|| format!("OpenSSL {}'s make of its FIPS module", v.release))?;
    Ok(tree.join("providers/fips.so"))
}
