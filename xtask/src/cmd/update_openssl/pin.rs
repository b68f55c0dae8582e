//! Moving the pin, all or nothing: every file that names the pinned release ([`SITES`]),
//! Cargo.lock, the sets and generate.lock, and the report under docs/openssl-updates/. Each
//! file is copied aside first; a failure at any step puts every file and set back.

use super::compare::Origin;
use anyhow::{bail, Context, Result};
use crypto_build::data::LineSource;
use crypto_build::generate::lock::{self, Lock};
use crypto_build::generate::{write_atomic, WriteLock};
use crypto_build::manifest::Manifest;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// A release as the pin names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// OpenSSL's, `3.6.3`.
    pub openssl: String,
    /// Where the default line's tree comes from (`data::LineSource`).
    pub origin: Origin,
    /// The openssl-src the workspace depends on, with its build metadata (`300.6.1+3.6.3`):
    /// the origin's crate, or for a tarball the one left as it was.
    pub krate: String,
}

impl Release {
    /// `text` with each placeholder of this release: `{crate}` (`300.6.1`), `{crate_full}`,
    /// `{crate_release}` (the crate's OpenSSL, `3.6.3`), `{source}` (data.rs's
    /// `LineSource`), `{release}` (`3.6.3`), `{number}` (OPENSSL_VERSION_NUMBER,
    /// `0x30600030`) and `{number_rust}` (`0x3060_0030`), `{prefix_len}` (the length of
    /// `OpenSSL 3.6.3 `).
    fn render(&self, text: &str) -> Result<String> {
        let (krate, crate_release) = self.krate.split_once('+').unwrap_or((&self.krate, ""));
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
        let source = match &self.origin {
            Origin::Crate { crate_version } => {
                format!("LineSource::Registry {{ crate_version: \"{crate_version}\" }}")
            }
            Origin::Tarball { sha256, .. } => {
                format!("LineSource::Tarball {{ sha256: \"{sha256}\" }}")
            }
        };
        Ok(text
            .replace("{crate_full}", &self.krate)
            .replace("{crate_release}", crate_release)
            .replace("{crate}", krate)
            .replace("{source}", &source)
            .replace("{release}", &self.openssl)
            .replace("{number_rust}", &format!("0x{}_{}", &hex[..4], &hex[4..]))
            .replace("{number}", &format!("0x{hex}"))
            .replace("{prefix_len}", &format!("OpenSSL {} ", self.openssl).len().to_string()))
    }

    /// The tarball's SHA-256 when the tree comes from one.
    pub fn tarball(&self) -> Option<&str> {
        match &self.origin {
            Origin::Tarball { sha256, .. } => Some(sha256),
            Origin::Crate { .. } => None,
        }
    }
}

/// The pinned release: the default line's (data.rs), with the openssl-src Cargo.lock has.
pub fn pinned(root: &Path) -> Result<Release> {
    let path = root.join("Cargo.lock");
    let lock = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = lock.lines().skip_while(|l| *l != "name = \"openssl-src\"");
    let version = lines.nth(1).and_then(|l| l.strip_prefix("version = \""));
    let version = version.with_context(|| format!("{} has no openssl-src", path.display()))?;
    let krate = version.trim_end_matches('"').to_string();
    let line = crypto_build::data::DEFAULT_LINE;
    let origin = match line.source {
        LineSource::Registry { crate_version } => {
            Origin::Crate { crate_version: crate_version.into() }
        }
        LineSource::Tarball { sha256 } => Origin::Tarball {
            file: crypto_build::source::tarball_name(line.version),
            sha256: sha256.into(),
        },
    };
    Ok(Release { openssl: line.version.into(), origin, krate })
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
    Site { path: "Cargo.toml", texts: &["openssl-src = \"={crate}\"", "({crate_full}): OpenSSL {crate_release},"] },
    Site { path: "crypto-build/src/data.rs",
           texts: &["pub const OPENSSL_VERSION: &str = \"{release}\";", "source: {source}"] },
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
    /// A tarball's tree, unpacked in scratch space, which goes to
    /// `openssl-sources/openssl-X.Y.Z/` beside its stamp (`crypto_build::source`).
    pub tree: Option<PathBuf>,
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
        let _dir = sh.push_dir(self.root);
        if self.from.krate != self.to.krate {
            self.move_cargo_lock(sh)?;
        }
        let mut lock = Lock::load(self.root)?;
        for (m, dir) in &self.sets {
            self.install_dir(dir, &self.root.join(m.key()), undo)?;
            lock.update(&Lock::of_manifest(m));
        }
        lock.save(self.root)?;
        if let (Some(tree), Some(sha256)) = (&self.tree, self.to.tarball()) {
            self.install_tree(tree, sha256, undo)?;
        }
        for (from, to) in &self.report {
            let dir = to.parent().unwrap();
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            fs::copy(from, to).with_context(|| format!("writing {}", to.display()))?;
        }
        self.check_crate(sh)
    }

    /// `dir` (in scratch space) to `dest`, what was there aside.
    fn install_dir(&self, dir: &Path, dest: &Path, undo: &mut Undo) -> Result<()> {
        let name = dest.strip_prefix(self.root).unwrap_or(dest).display().to_string();
        let old = dest.exists().then(|| self.aside.join(name.replace('/', "-")));
        if let Some(o) = &old {
            fs::rename(dest, o).with_context(|| format!("moving aside {}", dest.display()))?;
        }
        undo.sets.push((dest.to_path_buf(), old));
        fs::create_dir_all(dest.parent().unwrap())?;
        fs::rename(dir, dest).with_context(|| format!("installing {}", dest.display()))
    }

    /// The tarball's tree where builds take it from, its stamp written last.
    fn install_tree(&self, tree: &Path, sha256: &str, undo: &mut Undo) -> Result<()> {
        let sources = self.root.join(crypto_build::source::SOURCES_DIR);
        let version = &self.to.openssl;
        self.install_dir(tree, &sources.join(crypto_build::source::tree_name(version)), undo)?;
        let stamp = crypto_build::source::stamp_path(&sources, version);
        undo.keep(&stamp, &self.aside)?;
        write_atomic(&stamp, crypto_build::source::stamp_text(version, sha256).as_bytes())?;
        crypto_build::source::tarball_tree(&sources, version, sha256).map(drop)
    }

    fn move_cargo_lock(&self, sh: &Shell) -> Result<()> {
        let cargo = crate::cargo::cargo();
        let precise = &self.to.krate;
        // Build metadata (`+4.0.3`) is no part of what cargo matches. By the old version: the
        // second line's openssl-src (data::OPENSSL_LINES) is in the graph too.
        let version = precise.split('+').next().unwrap_or(precise);
        let old = format!("openssl-src@{}", self.from.krate);
        cmd!(sh, "{cargo} update --quiet -p {old} --precise {version}")
            .quiet()
            .run()
            .context("moving Cargo.lock to the new openssl-src")
    }

    /// Cargo.lock and Cargo.toml agree on the openssl-src moved to. cargo tree, unlike cargo
    /// metadata, resolves for the host only, so it needs no other platform's crates. By
    /// version: the second line's openssl-src (data::OPENSSL_LINES) is in the graph too.
    fn check_crate(&self, sh: &Shell) -> Result<()> {
        let cargo = crate::cargo::cargo();
        let precise = &self.to.krate;
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
        Release {
            openssl: o.into(),
            origin: Origin::Crate { crate_version: c.into() },
            krate: c.into(),
        }
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
        assert_eq!(
            r.render("{crate_release} {source}").unwrap(),
            "4.0.3 LineSource::Registry { crate_version: \"400.0.2+4.0.3\" }"
        );
        assert!(release("1", "4.0").render("x").is_err());
        // A tarball keeps the openssl-src the workspace depends on.
        let t = Release {
            openssl: "4.1.0".into(),
            origin: Origin::Tarball { file: "openssl-4.1.0.tar.gz".into(), sha256: "ab".into() },
            krate: "400.0.2+4.0.3".into(),
        };
        assert_eq!(
            t.render("{release} {crate_full} {source}").unwrap(),
            "4.1.0 400.0.2+4.0.3 LineSource::Tarball { sha256: \"ab\" }"
        );
    }

    #[test]
    fn undo_puts_back_files_and_sets() {
        let dir = std::env::temp_dir().join(format!("update-openssl-undo-{}", std::process::id()));
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
        fs::remove_dir_all(&dir).unwrap();
    }

    /// The table is this workspace's: every text is found for the pinned release.
    #[test]
    fn every_site_names_the_pinned_release() {
        let root = crate::cargo::project_root();
        let pinned = pinned(&root).unwrap();
        assert_eq!(pinned.openssl, crypto_build::data::OPENSSL_VERSION);
        let to = release("999.0.0+9.0.0", "9.0.0");
        let edits = plan(&root, SITES, &pinned, &to).unwrap();
        assert_eq!(edits.len(), SITES.len());
        let data = edits.iter().find(|e| e.path.ends_with("data.rs")).unwrap();
        assert!(data.text.contains("OPENSSL_VERSION: &str = \"9.0.0\""));
        assert!(data.text.contains("crate_version: \"999.0.0+9.0.0\""));
        // To a tarball: the line's source is the tarball, the openssl-src dependency stays.
        let sha = "f".repeat(64);
        let origin = Origin::Tarball { file: "openssl-9.0.0.tar.gz".into(), sha256: sha.clone() };
        let to = Release { openssl: "9.0.0".into(), origin, krate: pinned.krate.clone() };
        let edits = plan(&root, SITES, &pinned, &to).unwrap();
        let data = edits.iter().find(|e| e.path.ends_with("data.rs")).unwrap();
        assert!(data
            .text
            .contains(&format!("source: LineSource::Tarball {{ sha256: \"{sha}\" }}")));
        let cargo = edits.iter().find(|e| e.path.ends_with("Cargo.toml")).unwrap();
        assert_eq!(cargo.text, fs::read_to_string(root.join("Cargo.toml")).unwrap());
        let stale = [Site { path: "README.md", texts: &["OpenSSL {release} was never here"] }];
        let e = plan(&root, &stale, &pinned, &to).unwrap_err().to_string();
        assert!(e.contains("nothing was moved") && e.contains("README.md"), "{e}");
    }
}
