//! Moving a line's pin, all or nothing: every file that names the line's release
//! ([`DEFAULT_SITES`], [`LINE_SITES`]), Cargo.lock, the sets and generate.lock, and the report
//! under docs/openssl-updates/. Each file is copied aside first; a failure at any step puts
//! every file and set back.

use super::compare::Origin;
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, LineSource, OpensslLine};
use crypto_build::generate::lock::{self, Lock};
use crypto_build::generate::{write_atomic, WriteLock};
use crypto_build::manifest::Manifest;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// A release as the pin names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// openssl-src's version with its build metadata, `300.6.1+3.6.3`: the origin's crate,
    /// or for a tarball the one the line's Cargo.toml keeps.
    pub crate_full: String,
    /// OpenSSL's, `3.6.3`.
    pub openssl: String,
    /// Where the line's tree comes from (`data::LineSource`).
    pub origin: Origin,
}

impl Release {
    /// `text` with each placeholder of this release: `{crate}` (`300.6.1`), `{crate_full}`,
    /// `{source}` (lines.rs's `LineSource`),
    /// `{release}` (`3.6.3`), `{number}` (OPENSSL_VERSION_NUMBER, `0x30600030`) and
    /// `{number_rust}` (`0x3060_0030`), `{prefix_len}` (the length of `OpenSSL 3.6.3 `), and
    /// its series as a line's name (`{series}`, `3.6`), in cargo's names (`{series_dash}`,
    /// `3-6`) and in Rust's (`{series_ident}`, `3_6`).
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
        let series = data::series_of(&self.openssl);
        let source = match &self.origin {
            Origin::Crate { .. } => {
                format!("LineSource::Registry {{ crate_version: \"{krate}\" }}")
            }
            Origin::Tarball { sha256, .. } => {
                format!("LineSource::Tarball {{ sha256: \"{sha256}\" }}")
            }
        };
        Ok(text
            .replace("{source}", &source)
            .replace("{series_dash}", &series.replace('.', "-"))
            .replace("{series_ident}", &series.replace('.', "_"))
            .replace("{series}", series)
            .replace("{crate_full}", &self.crate_full)
            .replace("{crate}", krate)
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

/// A line's pinned release: the openssl-src that crypto-build's dependency for the line
/// (`openssl_src` for the default, `openssl_src_3_5` for 3.5) resolves to in `root`'s
/// Cargo.lock, as `cargo metadata --locked` reads it; OpenSSL's from the line.
pub fn pinned(sh: &Shell, root: &Path, line: &OpensslLine) -> Result<Release> {
    let (cargo, manifest) = (crate::cargo::cargo(), root.join("Cargo.toml"));
    let metadata =
        cmd!(sh, "{cargo} metadata --format-version 1 --locked --manifest-path {manifest}")
            .quiet()
            .read()
            .with_context(|| format!("cargo metadata of {}", manifest.display()))?;
    pinned_in(&metadata, line)
}

fn pinned_in(metadata: &str, line: &OpensslLine) -> Result<Release> {
    let metadata = crate::cargo::Metadata::parse(metadata)?;
    let extern_name = match line.feature() {
        None => "openssl_src".to_string(),
        Some(_) => format!("openssl_src_{}", line.name().replace('.', "_")),
    };
    let krate = metadata.dependency("crypto-build", &extern_name)?;
    let origin = match line.source {
        LineSource::Registry { crate_version } => {
            if !krate.version.starts_with(&format!("{crate_version}+")) {
                bail!(
                    "crypto-build's {extern_name} resolves to openssl-src {} in Cargo.lock, not \
                     the line's {crate_version}",
                    krate.version,
                );
            }
            Origin::Crate { crate_version: krate.version.clone() }
        }
        LineSource::Tarball { sha256 } => Origin::Tarball {
            file: crypto_build::source::tarball_name(line.version),
            sha256: sha256.into(),
        },
    };
    Ok(Release { crate_full: krate.version.clone(), openssl: line.version.into(), origin })
}

/// Refuses, before the long part, a move cargo could not resolve: cargo holds one
/// openssl-src of a major (one 300.x, one 400.x) in a graph, so `krate` may not be another
/// major-mate of another line's crate than that crate itself (the default moving onto the
/// release another line holds is fine).
pub fn check_graph(lines: &[OpensslLine], line: &OpensslLine, krate: &str) -> Result<()> {
    let major = |v: &str| v.split('.').next().unwrap_or(v).to_string();
    // A tarball's line takes no openssl-src.
    let crates = lines.iter().filter_map(|l| Some((l, l.crate_version()?)));
    let mut mates = crates.filter(|(l, c)| *l != line && major(c) == major(krate));
    if let Some((other, other_crate)) = mates.find(|(_, c)| *c != krate) {
        let hint = other
            .feature()
            .map_or(String::new(), |_| format!(", or add --openssl {}", other.name()));
        bail!(
            "openssl-src {krate} cannot be in cargo's graph beside line {}'s {} (one {}.x at a \
             time): move line {} instead{hint}",
            other.name(),
            other_crate,
            major(krate),
            other.name()
        );
    }
    Ok(())
}

/// The sites of `line`: the default line's, or another line's.
pub fn sites(line: &OpensslLine) -> &'static [Site] {
    if line.default {
        DEFAULT_SITES
    } else {
        LINE_SITES
    }
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
pub const DEFAULT_SITES: &[Site] = &[
    Site { path: "Cargo.toml", texts: &["openssl-src = \"={crate}\"", "({crate_full}): OpenSSL {release} "] },
    Site { path: "crypto-build/src/data/lines.rs",
           texts: &["pub const OPENSSL_VERSION: &str = \"{release}\";",
                    "OpensslLine { version: OPENSSL_VERSION, source: {source}, default: true,"] },
    Site { path: "README.md", texts: &["generates OpenSSL {release}'s perlasm output", "| OpenSSL {release} | the default |"] },
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

/// The files that name a line other than the default, and the texts that do: its release,
/// and the names taken from its series (its feature, directory and openssl-src dependency),
/// each with enough around it to tell it from the default line's.
#[rustfmt::skip]
pub const LINE_SITES: &[Site] = &[
    Site { path: "Cargo.toml",
           texts: &["# OpenSSL {release}, the line crypto-sys's `openssl-{series_dash}` feature chooses",
                    "openssl-src-{series_dash} = { package = \"openssl-src\", version = \"={crate}\" }"] },
    Site { path: "crypto-build/Cargo.toml",
           texts: &["openssl-src-{series_dash} = { workspace = true, optional = true }",
                    "# OpenSSL {series}'s source, for the line crypto-sys's `openssl-{series_dash}` feature selects.\n\
                     openssl-{series_dash} = [\"dep:openssl-src-{series_dash}\"]"] },
    Site { path: "crypto-build/src/data/lines.rs",
           texts: &["OpensslLine { version: \"{release}\", source: {source}, default: false,"] },
    Site { path: "crypto-build/src/source.rs",
           texts: &["#[cfg(feature = \"openssl-{series_dash}\")]\n        \"{series}\" => Ok(openssl_src_{series_ident}::source_dir()),"] },
    Site { path: "crypto-sys/Cargo.toml",
           texts: &["# OpenSSL {release} instead of the default line",
                    "openssl-{series_dash} = [\"crypto-build/openssl-{series_dash}\"]"] },
    Site { path: "crypto-sys/README.md",
           texts: &["| OpenSSL {release} | crypto-sys's `openssl-{series_dash}` feature |",
                    "| `openssl-{series_dash}` | off | OpenSSL {release} instead of the default line"] },
    Site { path: "README.md", texts: &["| OpenSSL {release} | crypto-sys's `openssl-{series_dash}` feature |"] },
    Site { path: "crypto-sys/src/bindings.rs", texts: &["feature = \"openssl-{series_dash}\""] },
    Site { path: "crypto-sys/tests/api.rs",
           texts: &["// The second line (crypto-sys's `openssl-{series_dash}` feature): {release}.\n        \
                     #[cfg(feature = \"openssl-{series_dash}\")]\n        {\n            \
                     assert_eq!(ffi::OpenSSL_version_num(), {number_rust}, \"{num:#x}\");\n            \
                     assert!(v.starts_with(\"OpenSSL {release}\"), \"{v}\");",
                    "feature = \"openssl-{series_dash}\""] },
    Site { path: "crypto-sys/tests/kat.rs",
           texts: &["// crypto-sys's `openssl-{series_dash}` feature: {release} -> {number}.\n    \
                     #[cfg(feature = \"openssl-{series_dash}\")]\n    {\n        \
                     assert_eq!(num, {number_rust});\n        assert_eq!(text.to_str(), Ok(\"{release}\"));",
                    "feature = \"openssl-{series_dash}\""] },
    Site { path: "crypto-sys/tests/fast_paths.rs",
           texts: &["#[cfg(feature = \"openssl-{series_dash}\")]\n    assert_eq!(info.openssl_version, \"{release}\");",
                    "feature = \"openssl-{series_dash}\""] },
    Site { path: "crypto-sys/tests/signatures.rs", texts: &["\"openssl-{series_dash}\""] },
    Site { path: "bench/Cargo.toml",
           texts: &["openssl-{series_dash} = [\"crypto-sys?/openssl-{series_dash}\"]\n\
                     vendored-openssl-{series_dash} = [\"dep:openssl-src-{series_dash}\"]",
                    "openssl-src-{series_dash} = { workspace = true, optional = true, features = [\"legacy\"] }"] },
    Site { path: "bench/build.rs",
           texts: &["#[cfg(feature = \"vendored-openssl-{series_dash}\")]\n    openssl_src_{series_ident}::Build::new()"] },
    Site { path: "xtask/Cargo.toml", texts: &["features = [\"openssl-{series_dash}\"]"] },
    Site { path: ".gitignore",
           texts: &["/openssl-{series}/*/*/", "/openssl-{series}/.gen-staging*", "/openssl-{series}/.gen-lock"] },
    Site { path: ".github/workflows/ci.yml",
           texts: &["- name: openssl-{series}-tests", "- name: openssl-{series}-windows",
                    "- name: openssl-{series}-cross", "--openssl {series} --step"] },
    Site { path: "xtask/src/ci/workflow.rs",
           texts: &["@{series}\"", "--openssl {series} --step lock"] },
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
    /// The workspace.
    pub root: &'a Path,
    /// The line's sets root (its generate.lock's directory) now, and after the move: another
    /// one when the move changes the line's series, and so its directory.
    pub sets_roots: (PathBuf, PathBuf),
    pub to: &'a Release,
    pub edits: Vec<Edit>,
    /// Each configuration's manifest and its generated directory, in scratch space.
    pub sets: Vec<(&'a Manifest, PathBuf)>,
    /// The report's files and where they go under docs/openssl-updates/.
    pub report: Vec<(PathBuf, PathBuf)>,
    /// Where everything replaced waits until the move is done.
    pub aside: PathBuf,
    /// The tarball's tree, unpacked in scratch space, when the release comes from one.
    pub tree: Option<PathBuf>,
}

/// Everything replaced so far, to put back.
#[derive(Default)]
struct Undo {
    files: Vec<(PathBuf, Option<PathBuf>)>,
    /// Directories installed, each with where the one it replaced waits (`None`: there was
    /// none, so it goes), in order.
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

    /// Directories first: a line's whole sets root may have moved aside, its lock with it.
    fn put_back(self) -> Vec<String> {
        let mut failed = Vec::new();
        for (dir, old) in self.sets.into_iter().rev() {
            let _ = fs::remove_dir_all(&dir);
            if let Some(old) = old {
                fs::rename(&old, &dir)
                    .unwrap_or_else(|e| failed.push(format!("{}: {e}", dir.display())));
            }
        }
        for (path, copy) in self.files.into_iter().rev() {
            let done = match copy {
                Some(c) => fs::copy(&c, &path).map(drop),
                None if path.is_file() => fs::remove_file(&path),
                None => Ok(()),
            };
            done.unwrap_or_else(|e| failed.push(format!("{}: {e}", path.display())));
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
        let (old_root, new_root) = &self.sets_roots;
        let cargo_lock = self.root.join("Cargo.lock");
        let lock_path = old_root.join(lock::FILE_NAME);
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
        // Cargo.toml names the new crate now: cargo resolves it into Cargo.lock, keeping every
        // other version (the other lines' openssl-src among them), and moves whatever else
        // took the old one (openssl-sys's vendored takes the one openssl-src 300) with it.
        let spec = format!("openssl-src@{}", self.to.crate_full);
        cmd!(sh, "{cargo} tree --quiet -i {spec} --depth 0 -e normal")
            .quiet()
            .ignore_stdout()
            .run()
            .context("moving Cargo.lock to the new openssl-src")?;
        let mut lock = if old_root == new_root {
            Lock::load(old_root)?
        } else {
            // Another series: a directory of its own, its lock made of the new sets alone.
            self.move_aside(old_root, undo)?;
            fs::create_dir_all(new_root)
                .with_context(|| format!("creating {}", new_root.display()))?;
            undo.sets.push((new_root.clone(), None));
            Lock::default()
        };
        for (m, dir) in &self.sets {
            let dest = new_root.join(m.key());
            if dest.exists() {
                self.move_aside(&dest, undo)?;
            } else {
                undo.sets.push((dest.clone(), None));
            }
            fs::create_dir_all(dest.parent().unwrap())?;
            fs::rename(dir, &dest).with_context(|| format!("installing {}", dest.display()))?;
            lock.update(&Lock::of_manifest(m));
        }
        lock.save(new_root)?;
        if let (Some(tree), Some(sha256)) = (&self.tree, self.to.tarball()) {
            self.install_tree(tree, sha256, undo)?;
        }
        for (from, to) in &self.report {
            let dir = to.parent().unwrap();
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            fs::copy(from, to).with_context(|| format!("writing {}", to.display()))?;
        }
        // Cargo.lock and Cargo.toml agree on the release moved to. cargo tree, unlike cargo
        // metadata, resolves for the host only, so it needs no other platform's crates.
        // By version: the other lines' openssl-src (data::OPENSSL_LINES) are in the graph too.
        let precise = &self.to.crate_full;
        let tree = cmd!(sh, "{cargo} tree --locked --offline -i {spec} --depth 0 -e normal")
            .quiet()
            .read()
            .context("cargo tree --locked after the move")?;
        if tree.trim() != format!("openssl-src v{precise}") {
            bail!("after the move, cargo tree has `{}`, not openssl-src {precise}", tree.trim());
        }
        Ok(())
    }

    /// The tarball's tree where builds take it from, its stamp written last.
    fn install_tree(&self, tree: &Path, sha256: &str, undo: &mut Undo) -> Result<()> {
        use crypto_build::source;
        let sources = self.root.join(source::SOURCES_DIR);
        let version = &self.to.openssl;
        let dest = sources.join(source::tree_name(version));
        if dest.exists() {
            self.move_aside(&dest, undo)?;
        } else {
            undo.sets.push((dest.clone(), None));
        }
        fs::create_dir_all(&sources).with_context(|| format!("creating {}", sources.display()))?;
        fs::rename(tree, &dest).with_context(|| format!("installing {}", dest.display()))?;
        let stamp = source::stamp_path(&sources, version);
        undo.keep(&stamp, &self.aside)?;
        write_atomic(&stamp, source::stamp_text(version, sha256).as_bytes())?;
        source::tarball_tree(&sources, version, sha256).map(drop)
    }

    /// Renames `dir` into the aside directory, and records it to put back.
    fn move_aside(&self, dir: &Path, undo: &mut Undo) -> Result<()> {
        let rel = dir.strip_prefix(self.root).unwrap_or(dir);
        let name = format!("set-{}-{}", undo.sets.len(), rel.display()).replace('/', "-");
        let aside = self.aside.join(name);
        fs::rename(dir, &aside).with_context(|| format!("moving aside {}", dir.display()))?;
        undo.sets.push((dir.to_path_buf(), Some(aside)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(c: &str, o: &str) -> Release {
        Release {
            crate_full: c.into(),
            openssl: o.into(),
            origin: Origin::Crate { crate_version: c.into() },
        }
    }

    /// Each line's pin is what crypto-build's dependency for it resolves to, wherever the lock
    /// lists it: here a 200.x crate sorts before both, and the 3.5 line's is renamed.
    #[test]
    fn the_pin_is_crypto_builds_openssl_src_not_the_first_listed() {
        let r = "registry+https://github.com/rust-lang/crates.io-index#openssl-src@";
        let (default, other) =
            (data::DEFAULT_LINE, data::OPENSSL_LINES.iter().find(|l| !l.default).unwrap());
        let (d, o) = (default.crate_version().unwrap(), other.crate_version().unwrap());
        let (dv, ov) = (format!("{d}+{}", default.version), format!("{o}+{}", other.version));
        let renamed = format!("openssl_src_{}", other.name().replace('.', "_"));
        let metadata = format!(
            r#"{{"packages":[
              {{"id":"{r}{ov}","name":"openssl-src","version":"{ov}","manifest_path":"/r/a/Cargo.toml"}},
              {{"id":"{r}200.1.0+2.1.0","name":"openssl-src","version":"200.1.0+2.1.0","manifest_path":"/r/c/Cargo.toml"}},
              {{"id":"{r}{dv}","name":"openssl-src","version":"{dv}","manifest_path":"/r/b/Cargo.toml"}},
              {{"id":"path+file:///w/crypto-build#0.1.0","name":"crypto-build","version":"0.1.0","manifest_path":"/w/crypto-build/Cargo.toml"}}],
            "resolve":{{"nodes":[{{"id":"path+file:///w/crypto-build#0.1.0","deps":[
              {{"name":"{renamed}","pkg":"{r}{ov}"}},
              {{"name":"openssl_src","pkg":"{r}{dv}"}}]}}]}}}}"#
        );
        assert_eq!(pinned_in(&metadata, default).unwrap(), release(&dv, default.version));
        assert_eq!(pinned_in(&metadata, other).unwrap(), release(&ov, other.version));
        let without = metadata.replace(r#""name":"openssl_src","#, r#""name":"openssl_src_x","#);
        let e = pinned_in(&without, default).unwrap_err().to_string();
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

    #[test]
    fn a_move_cargo_could_not_resolve_is_refused() {
        let (default, other) =
            (data::DEFAULT_LINE, data::OPENSSL_LINES.iter().find(|l| !l.default).unwrap());
        let lines = data::OPENSSL_LINES;
        // Onto the very crate another line holds (the default onto a release it promotes): fine.
        check_graph(lines, default, other.crate_version().unwrap()).unwrap();
        let (major, _) = other.crate_version().unwrap().split_once('.').unwrap();
        let mate = format!("{major}.99.0");
        let e = check_graph(lines, default, &mate).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "beside line {}'s {}",
                other.name(),
                other.crate_version().unwrap()
            )),
            "{e}"
        );
        assert!(e.contains(&format!("--openssl {}", other.name())), "{e}");
        check_graph(lines, other, &mate).unwrap();
        check_graph(lines, default, "999.0.0").unwrap();
    }

    /// A line's sets root moved aside whole (a move to another series) comes back whole,
    /// its lock with it, and the new root goes.
    #[test]
    fn undo_puts_back_a_moved_sets_root() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (old, new, aside) =
            (dir.join("openssl-4.0"), dir.join("openssl-3.5"), dir.join("aside"));
        fs::create_dir_all(old.join("asm/x")).unwrap();
        fs::create_dir_all(&aside).unwrap();
        fs::write(old.join("generate.lock"), "old lock").unwrap();
        let mut undo = Undo::default();
        undo.keep(&old.join("generate.lock"), &aside).unwrap();
        fs::rename(&old, aside.join("root")).unwrap();
        undo.sets.push((old.clone(), Some(aside.join("root"))));
        fs::create_dir_all(new.join("asm/x")).unwrap();
        undo.sets.push((new.clone(), None));
        fs::write(new.join("generate.lock"), "new lock").unwrap();
        assert_eq!(undo.put_back(), Vec::<String>::new());
        assert_eq!(fs::read_to_string(old.join("generate.lock")).unwrap(), "old lock");
        assert!(old.join("asm/x").is_dir() && !new.exists());
    }

    /// The moves in the order cargo allows (openssl-src 300.x once in a graph): the default
    /// line onto another line's release first, then that line away. The second move finds its
    /// texts and leaves every one of the default line's, though both lines share a release.
    #[test]
    fn a_line_moves_off_the_default_lines_release_leaving_the_defaults_texts() {
        let root = crate::cargo::project_root();
        let sh = Shell::new().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let tmp = scratch.path();
        for site in DEFAULT_SITES.iter().chain(LINE_SITES) {
            let to = tmp.join(site.path);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(root.join(site.path), to).unwrap();
        }
        let other = data::OPENSSL_LINES.iter().find(|l| !l.default).unwrap();
        let (default, shared) =
            (pinned(&sh, &root, data::DEFAULT_LINE).unwrap(), pinned(&sh, &root, other).unwrap());
        let apply = |sites, from, to| {
            for e in plan(tmp, sites, from, to).unwrap() {
                fs::write(&e.path, e.text).unwrap();
            }
        };
        apply(DEFAULT_SITES, &default, &shared);
        apply(LINE_SITES, &shared, &release("999.1.0+9.1.0", "9.1.0"));
        for site in DEFAULT_SITES {
            let text = fs::read_to_string(tmp.join(site.path)).unwrap();
            for t in site.texts {
                let t = shared.render(t).unwrap();
                assert!(text.contains(&t), "{}: the default line's `{t}` was moved too", site.path);
            }
        }
    }

    /// The tables are this workspace's: every text of each line's sites is found for its
    /// pinned release, and a move to another series renames what is named after it.
    #[test]
    fn every_site_names_its_lines_release() {
        let root = crate::cargo::project_root();
        let sh = Shell::new().unwrap();
        let to = release("999.1.0+9.1.0", "9.1.0");
        for line in data::OPENSSL_LINES {
            let pinned = pinned(&sh, &root, line).unwrap();
            assert_eq!(pinned.openssl, line.version);
            assert!(pinned.crate_full.starts_with(&format!("{}+", line.crate_version().unwrap())));
            let sites = sites(line);
            let edits = plan(&root, sites, &pinned, &to).unwrap();
            assert_eq!(edits.len(), sites.len());
            let rows = edits.iter().find(|e| e.path.ends_with("lines.rs")).unwrap();
            let row = format!("version: \"9.1.0\", source: LineSource::Registry {{ crate_version: \"999.1.0\" }}, default: {}", line.default);
            let version = "OPENSSL_VERSION: &str = \"9.1.0\"";
            assert!(
                rows.text.contains(if line.default { version } else { &row }),
                "{}",
                line.name()
            );
            if !line.default {
                let krate = edits.iter().find(|e| e.path.ends_with("crypto-build/Cargo.toml"));
                let text = &krate.unwrap().text;
                assert!(text.contains("openssl-9-1 = [\"dep:openssl-src-9-1\"]"), "{text}");
                let ci = edits.iter().find(|e| e.path.ends_with("ci.yml")).unwrap();
                assert!(
                    ci.text.contains("--openssl 9.1 --step") && !ci.text.contains("--openssl 4.0")
                );
            }
        }
        let pinned = pinned(&sh, &root, data::DEFAULT_LINE).unwrap();
        let stale = [Site { path: "README.md", texts: &["OpenSSL {release} was never here"] }];
        let e = plan(&root, &stale, &pinned, &to).unwrap_err().to_string();
        assert!(e.contains("nothing was moved") && e.contains("README.md"), "{e}");
        let other = OpensslLine { version: "9.9.9", ..*data::DEFAULT_LINE };
        let e = super::pinned(
            &sh,
            &root,
            &OpensslLine {
                source: data::LineSource::Registry { crate_version: "999.9.9" },
                ..other
            },
        );
        assert!(e.unwrap_err().to_string().contains("not the line's 999.9.9"));
    }
}
