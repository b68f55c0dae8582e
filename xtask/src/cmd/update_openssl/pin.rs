//! Moving the pin, all or nothing: every file that names the pinned release ([`SITES`]),
//! Cargo.lock, the sets and generate.lock, and the report under docs/openssl-updates/. Each
//! file is copied aside first; a failure at any step puts every file and set back.

use anyhow::{bail, Context, Result};
use crypto_build::generate::lock::{self, Lock};
use crypto_build::generate::{write_atomic, WriteLock};
use crypto_build::manifest::Manifest;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// A release as the pin names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// openssl-src's version with its build metadata, `300.6.1+3.6.3`.
    pub crate_full: String,
    /// OpenSSL's, `3.6.3`.
    pub openssl: String,
}

impl Release {
    /// `text` with each placeholder of this release: `{crate}` (`300.6.1`), `{crate_full}`,
    /// `{release}` (`3.6.3`), `{number}` (OPENSSL_VERSION_NUMBER, `0x30600030`) and
    /// `{number_rust}` (`0x3060_0030`), `{prefix_len}` (the length of `OpenSSL 3.6.3 `).
    fn render(&self, text: &str) -> Result<String> {
        let krate = self.crate_full.split('+').next().unwrap_or(&self.crate_full);
        let parts: Vec<u32> = self
            .openssl
            .split('.')
            .map(|p| p.parse().with_context(|| format!("OpenSSL release `{}`", self.openssl)))
            .collect::<Result<_>>()?;
        let [major, minor, patch] = parts[..] else {
            bail!("OpenSSL release `{}` is not MAJOR.MINOR.PATCH", self.openssl);
        };
        // include/openssl/opensslv.h: 0xMNN00PP0L.
        let number = (major << 28) | (minor << 20) | (patch << 4);
        let hex = format!("{number:08x}");
        Ok(text
            .replace("{crate_full}", &self.crate_full)
            .replace("{crate}", krate)
            .replace("{release}", &self.openssl)
            .replace("{number_rust}", &format!("0x{}_{}", &hex[..4], &hex[4..]))
            .replace("{number}", &format!("0x{hex}"))
            .replace("{prefix_len}", &format!("OpenSSL {} ", self.openssl).len().to_string()))
    }
}

/// The pinned release: the openssl-src that crypto-build's `openssl-src` dependency resolves to
/// in `root`'s Cargo.lock (as `cargo metadata --locked` reads it; the other lines' openssl-src
/// are renamed dependencies), OpenSSL's from data.rs.
pub fn pinned(sh: &Shell, root: &Path) -> Result<Release> {
    let (cargo, manifest) = (crate::cargo::cargo(), root.join("Cargo.toml"));
    let metadata =
        cmd!(sh, "{cargo} metadata --format-version 1 --locked --manifest-path {manifest}")
            .quiet()
            .read()
            .with_context(|| format!("cargo metadata of {}", manifest.display()))?;
    pinned_in(&metadata)
}

fn pinned_in(metadata: &str) -> Result<Release> {
    let metadata = crate::cargo::Metadata::parse(metadata)?;
    let krate = metadata.dependency("crypto-build", "openssl_src")?;
    Ok(Release {
        crate_full: krate.version.clone(),
        openssl: crypto_build::data::OPENSSL_VERSION.into(),
    })
}

/// A file that names the pinned release, and the exact texts that do. Each text must be found
/// (else this table is stale and nothing moves). Comments that cite a fact checked in one
/// release (`data.rs`'s "from OpenSSL 3.6.3's perlasm") are no site: they stay until
/// someone checks them again.
pub struct Site {
    pub path: &'static str,
    pub texts: &'static [&'static str],
}

#[rustfmt::skip]
pub const SITES: &[Site] = &[
    Site { path: "Cargo.toml", texts: &["openssl-src = \"={crate}\"", "({crate_full}): OpenSSL {release},"] },
    Site { path: "crypto-build/src/data.rs", texts: &["pub const OPENSSL_VERSION: &str = \"{release}\";"] },
    Site { path: "README.md", texts: &["generates OpenSSL {release}'s perlasm output"] },
    Site { path: "docs/ARCHITECTURE.md", texts: &["(pinned, OpenSSL {release} source)"] },
    Site { path: "crypto-sys/Cargo.toml", texts: &["description = \"OpenSSL {release} (libcrypto"] },
    Site { path: "crypto-sys/README.md", texts: &["OpenSSL {release} (libcrypto and libssl)"] },
    Site { path: "crypto-sys/src/lib.rs", texts: &["//! OpenSSL {release} (libcrypto and libssl)"] },
    Site { path: "crypto-sys/src/bindings.rs", texts: &["prototype in OpenSSL {release}'s"] },
    Site { path: "crypto-sys/tests/api.rs",
           texts: &["0xMNN00PP0L: {release}.", "OpenSSL_version_num(), {number_rust},",
                    "starts_with(\"OpenSSL {release}\")"] },
    Site { path: "crypto-sys/tests/kat.rs",
           texts: &["{release} -> {number}.", "assert_eq!(num, {number_rust});", "Ok(\"{release}\")"] },
    Site { path: "crypto-sys/tests/fast_paths.rs", texts: &["info.openssl_version, \"{release}\""] },
    Site { path: "consumer/c/digest.c",
           texts: &["OPENSSL_VERSION_NUMBER != {number}L", "expected the OpenSSL {release} headers"] },
    Site { path: "xtask/tests/c-consumer/CMakeLists.txt",
           texts: &["OPENSSL_VERSION STREQUAL \"{release}\"", "not {release}\")"] },
    Site { path: "xtask/tests/c-consumer/main.c",
           texts: &["strncmp(version, \"OpenSSL {release} \", {prefix_len})"] },
    Site { path: "xtask/tests/prefix-consumer/src/main.rs",
           texts: &["starts_with(\"OpenSSL {release} \")", "openssl::version::number(), {number_rust}"] },
    Site { path: "xtask/tests/bad_input.rs", texts: &["\\nopenssl\\t{release}\\n", "builds OpenSSL {release}"] },
    Site { path: "xtask/src/ci/consumers.rs", texts: &["\"c consumer: OpenSSL {release}\""] },
    Site { path: "xtask/src/ci/apps.rs",
           texts: &["\"OpenSSL {release} ", "(Library: OpenSSL {release} ", "VERSION.replace(\"{release}\","] },
];

/// One file's new text.
#[derive(Debug)]
pub struct Edit {
    pub path: PathBuf,
    pub text: String,
}

/// The new text of every site, or an error naming each text not found.
pub fn plan(root: &Path, sites: &[Site], from: &Release, to: &Release) -> Result<Vec<Edit>> {
    let mut edits = Vec::new();
    let mut stale = Vec::new();
    for site in sites {
        let path = root.join(site.path);
        let mut text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        for t in site.texts {
            let (old, new) = (from.render(t)?, to.render(t)?);
            if !text.contains(&old) {
                stale.push(format!("{}: `{old}`", site.path));
            }
            text = text.replace(&old, &new);
        }
        edits.push(Edit { path, text });
    }
    if !stale.is_empty() {
        bail!(
            "update_openssl/pin.rs's SITES are stale, so nothing was moved; not found:\n  {}",
            stale.join("\n  ")
        );
    }
    Ok(edits)
}

/// What the move installs besides the edits.
pub struct Move<'a> {
    pub root: &'a Path,
    pub from: &'a Release,
    pub to: &'a Release,
    pub edits: Vec<Edit>,
    /// Each configuration's manifest and its generated directory, in scratch space.
    pub sets: Vec<(&'a Manifest, PathBuf)>,
    /// The report's files and where they go under docs/openssl-updates/.
    pub report: Vec<(PathBuf, PathBuf)>,
    /// Where everything replaced waits until the move is done.
    pub aside: PathBuf,
}

/// Everything replaced so far, to put back.
#[derive(Default)]
struct Undo {
    files: Vec<(PathBuf, Option<PathBuf>)>,
    sets: Vec<(PathBuf, Option<PathBuf>)>,
}

impl Undo {
    /// Copies `path` aside before it is written (`None`: it did not exist, so it goes).
    fn keep(&mut self, path: &Path, aside: &Path) -> Result<()> {
        let copy = path.exists().then(|| aside.join(format!("file-{}", self.files.len())));
        if let Some(c) = &copy {
            fs::copy(path, c).with_context(|| format!("copying {} aside", path.display()))?;
        }
        self.files.push((path.to_path_buf(), copy));
        Ok(())
    }

    fn put_back(self) -> Vec<String> {
        let mut failed = Vec::new();
        for (path, copy) in self.files.into_iter().rev() {
            let done = match copy {
                Some(c) => fs::copy(&c, &path).map(drop),
                None if path.is_file() => fs::remove_file(&path),
                None => Ok(()),
            };
            done.unwrap_or_else(|e| failed.push(format!("{}: {e}", path.display())));
        }
        for (dir, old) in self.sets.into_iter().rev() {
            let _ = fs::remove_dir_all(&dir);
            if let Some(old) = old {
                fs::rename(&old, &dir)
                    .unwrap_or_else(|e| failed.push(format!("{}: {e}", dir.display())));
            }
        }
        failed
    }
}

impl Move<'_> {
    /// Applies the move; on any failure, puts everything back and says so.
    pub fn apply(self, sh: &Shell) -> Result<()> {
        let _lock = WriteLock::acquire(self.root, false)?;
        fs::create_dir_all(&self.aside)?;
        let mut undo = Undo::default();
        let result = self.steps(sh, &mut undo);
        if let Err(e) = result {
            let failed = undo.put_back();
            if !failed.is_empty() {
                bail!(
                    "{e:#}\nand putting the tree back failed for {}; the originals are in {}",
                    failed.join(", "),
                    self.aside.display()
                );
            }
            let _ = fs::remove_dir_all(&self.aside);
            return Err(e.context("moving the pin failed; the tree is as it was"));
        }
        let _ = fs::remove_dir_all(&self.aside);
        Ok(())
    }

    fn steps(&self, sh: &Shell, undo: &mut Undo) -> Result<()> {
        let lock_path = self.root.join(lock::FILE_NAME);
        let cargo_lock = self.root.join("Cargo.lock");
        for path in self.edits.iter().map(|e| &e.path).chain([&lock_path, &cargo_lock]) {
            undo.keep(path, &self.aside)?;
        }
        for (_, to) in &self.report {
            undo.keep(to, &self.aside)?;
        }
        for e in &self.edits {
            write_atomic(&e.path, e.text.as_bytes())?;
        }
        let cargo = crate::cargo::cargo();
        let _dir = sh.push_dir(self.root);
        let precise = &self.to.crate_full;
        // Build metadata (`+4.0.3`) is no part of what cargo matches. By the old version: the
        // second line's openssl-src (data::OPENSSL_LINES) is in the graph too.
        let version = precise.split('+').next().unwrap_or(precise);
        let old = format!("openssl-src@{}", self.from.crate_full);
        cmd!(sh, "{cargo} update --quiet -p {old} --precise {version}")
            .quiet()
            .run()
            .context("moving Cargo.lock to the new openssl-src")?;
        let mut lock = Lock::load(self.root)?;
        for (m, dir) in &self.sets {
            let dest = self.root.join(m.key());
            let old = dest.exists().then(|| self.aside.join(m.key().replace('/', "-")));
            if let Some(o) = &old {
                fs::rename(&dest, o).with_context(|| format!("moving aside {}", dest.display()))?;
            }
            undo.sets.push((dest.clone(), old));
            fs::create_dir_all(dest.parent().unwrap())?;
            fs::rename(dir, &dest).with_context(|| format!("installing {}", dest.display()))?;
            lock.update(&Lock::of_manifest(m));
        }
        lock.save(self.root)?;
        for (from, to) in &self.report {
            let dir = to.parent().unwrap();
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            fs::copy(from, to).with_context(|| format!("writing {}", to.display()))?;
        }
        // Cargo.lock and Cargo.toml agree on the release moved to. cargo tree, unlike cargo
        // metadata, resolves for the host only, so it needs no other platform's crates.
        // By version: the second line's openssl-src (data::OPENSSL_LINES) is in the graph too.
        let spec = format!("openssl-src@{precise}");
        let tree = cmd!(sh, "{cargo} tree --locked --offline -i {spec} --depth 0 -e normal")
            .quiet()
            .read()
            .context("cargo tree --locked after the move")?;
        if tree.trim() != format!("openssl-src v{precise}") {
            bail!("after the move, cargo tree has `{}`, not openssl-src {precise}", tree.trim());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(c: &str, o: &str) -> Release {
        Release { crate_full: c.into(), openssl: o.into() }
    }

    /// The pin is what crypto-build's `openssl-src` resolves to, wherever the lock lists it:
    /// here the renamed 4.0 line's crate comes first, and a 200.x one sorts before both.
    #[test]
    fn the_pin_is_crypto_builds_openssl_src_not_the_first_listed() {
        let r = "registry+https://github.com/rust-lang/crates.io-index#openssl-src@";
        let metadata = format!(
            r#"{{"packages":[
              {{"id":"{r}400.0.2+4.0.3","name":"openssl-src","version":"400.0.2+4.0.3","manifest_path":"/r/a/Cargo.toml"}},
              {{"id":"{r}200.1.0+2.1.0","name":"openssl-src","version":"200.1.0+2.1.0","manifest_path":"/r/c/Cargo.toml"}},
              {{"id":"{r}300.6.1+3.6.3","name":"openssl-src","version":"300.6.1+3.6.3","manifest_path":"/r/b/Cargo.toml"}},
              {{"id":"path+file:///w/crypto-build#0.1.0","name":"crypto-build","version":"0.1.0","manifest_path":"/w/crypto-build/Cargo.toml"}}],
            "resolve":{{"nodes":[{{"id":"path+file:///w/crypto-build#0.1.0","deps":[
              {{"name":"openssl_src_4","pkg":"{r}400.0.2+4.0.3"}},
              {{"name":"openssl_src","pkg":"{r}300.6.1+3.6.3"}}]}}]}}}}"#
        );
        let pin = pinned_in(&metadata).unwrap();
        assert_eq!(pin, release("300.6.1+3.6.3", crypto_build::data::OPENSSL_VERSION));
        let without = metadata.replace(r#""name":"openssl_src","#, r#""name":"openssl_src_3","#);
        let e = pinned_in(&without).unwrap_err().to_string();
        assert_eq!(e, "cargo metadata: crypto-build has no openssl_src");
    }

    #[test]
    fn placeholders_render_each_form_of_a_release() {
        let r = release("300.6.1+3.6.3", "3.6.3");
        let text = "{crate} {crate_full} {release} {number} {number_rust} {prefix_len}";
        assert_eq!(
            r.render(text).unwrap(),
            "300.6.1 300.6.1+3.6.3 3.6.3 0x30600030 0x3060_0030 14"
        );
        let r = release("400.0.2+4.0.3", "4.0.3");
        assert_eq!(r.render("{number}L").unwrap(), "0x40000030L");
        assert!(release("1", "4.0").render("x").is_err());
    }

    #[test]
    fn undo_puts_back_files_and_sets() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let aside = dir.join("aside");
        fs::create_dir_all(&aside).unwrap();
        let (kept, fresh, set) = (dir.join("kept"), dir.join("fresh"), dir.join("set"));
        fs::write(&kept, "old").unwrap();
        fs::create_dir_all(&set).unwrap();
        fs::write(set.join("manifest.tsv"), "old set").unwrap();
        let mut undo = Undo::default();
        undo.keep(&kept, &aside).unwrap();
        undo.keep(&fresh, &aside).unwrap();
        // Never written: nothing to remove, and no failure for it.
        undo.keep(&dir.join("never/written"), &aside).unwrap();
        fs::write(&kept, "new").unwrap();
        fs::write(&fresh, "new").unwrap();
        let old_set = aside.join("set");
        fs::rename(&set, &old_set).unwrap();
        fs::create_dir_all(&set).unwrap();
        fs::write(set.join("manifest.tsv"), "new set").unwrap();
        undo.sets.push((set.clone(), Some(old_set)));
        assert_eq!(undo.put_back(), Vec::<String>::new());
        assert_eq!(fs::read_to_string(&kept).unwrap(), "old");
        assert!(!fresh.exists());
        assert_eq!(fs::read_to_string(set.join("manifest.tsv")).unwrap(), "old set");
    }

    /// The table is this workspace's: every text is found for the pinned release.
    #[test]
    fn every_site_names_the_pinned_release() {
        let root = crate::cargo::project_root();
        let pinned = pinned(&Shell::new().unwrap(), &root).unwrap();
        assert_eq!(pinned.openssl, crypto_build::data::OPENSSL_VERSION);
        let to = release("999.0.0+9.0.0", "9.0.0");
        let edits = plan(&root, SITES, &pinned, &to).unwrap();
        assert_eq!(edits.len(), SITES.len());
        let data = edits.iter().find(|e| e.path.ends_with("data.rs")).unwrap();
        assert!(data.text.contains("OPENSSL_VERSION: &str = \"9.0.0\""));
        let stale = [Site { path: "README.md", texts: &["OpenSSL {release} was never here"] }];
        let e = plan(&root, &stale, &pinned, &to).unwrap_err().to_string();
        assert!(e.contains("nothing was moved") && e.contains("README.md"), "{e}");
    }
}
