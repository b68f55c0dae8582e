//! Moving a line's pin, all or nothing: its source crate (written anew for the release, its
//! trimmed tree installed), its row of the data (`data/lines.rs`) and every file `cargo xtask
//! lines` writes from the data moved to, Cargo.lock, the sets and generate.lock, and the report
//! under docs/openssl-updates/. Each file and directory is put aside first; a failure at any
//! step puts every one back.

use super::compare::Origin;
use crate::cmd::lines::{Edit, Lines};
use anyhow::{bail, Context, Result};
use crypto_build::data::{self, LineSource, OpensslLine};
use crypto_build::files::{write_atomic, WriteLock};
use crypto_build::lock::{self, Lock};
use crypto_build::manifest::Manifest;
use crypto_build::source::list::SourceLock;
use crypto_build::source::SourceCrate;
use std::fs;
use std::path::{Path, PathBuf};
use xshell::{cmd, Shell};

/// A release as the pin names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// OpenSSL's, `3.6.3`.
    pub openssl: String,
    /// Where the line's tree comes from (`data::LineSource`).
    pub origin: Origin,
}

/// A line's pinned release: what its source crate's lock names, checked against the line's
/// row. (The default line's supplier is data, `data::TREE_SUPPLIER`.)
pub fn pinned(root: &Path, line: &OpensslLine) -> Result<Release> {
    let lock = SourceCrate::in_workspace(root, line).lock_for(line)?;
    Ok(release_of(line, &lock))
}

/// The release `lock` names.
fn release_of(line: &OpensslLine, lock: &SourceLock) -> Release {
    let origin = match lock.registry_crate() {
        Some(c) => Origin::Crate { crate_version: c.into() },
        None => Origin::Tarball { file: lock.archive.clone(), sha256: lock.sha256.clone() },
    };
    Release { openssl: line.version.into(), origin }
}

/// Refuses, before the long part, a move onto a series another line holds: a source crate is
/// named after its series, one per series.
pub fn check_graph(lines: &[OpensslLine], line: &OpensslLine, release: &str) -> Result<()> {
    let series = data::series_of(release);
    if let Some(other) = lines.iter().find(|l| *l != line && l.name() == series) {
        bail!(
            "OpenSSL {release} is of series {series}, which line {} holds (its source crate {}): \
             move line {} instead",
            other.name(),
            other.source_crate(),
            other.name()
        );
    }
    Ok(())
}

/// Whether the default line's supplier moves with it to `origin`'s crate: a registry crate of a
/// major other than 300, the patch crate's (the only openssl-src 300.x of the graph).
pub fn supplier_moves(line: &OpensslLine, origin: &Origin) -> bool {
    matches!(origin, Origin::Crate { crate_version } if line.default && !crate_version.starts_with("300."))
}

/// The data moved: `data/lines.rs`, its line's row and the tree's supplier.
const LINES_RS: &str = "crypto-build/src/data/lines.rs";

/// `source` as lines.rs spells it.
fn source_text(source: &LineSource) -> String {
    match source {
        LineSource::Registry { crate_version } => {
            format!("LineSource::Registry {{ crate_version: \"{crate_version}\" }}")
        }
        LineSource::Tarball { sha256 } => format!("LineSource::Tarball {{ sha256: \"{sha256}\" }}"),
    }
}

/// A line's row in lines.rs, up to its targets.
fn row(version: &str, source: &LineSource, default: bool) -> String {
    format!(
        "OpensslLine {{ version: \"{version}\", source: {}, default: {default},",
        source_text(source)
    )
}

/// What `to` makes of `line`'s source; its strings live as long as the command.
fn source_of(to: &Release) -> LineSource {
    let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
    match &to.origin {
        Origin::Crate { crate_version } => {
            let own = crate_version.split('+').next().unwrap_or(crate_version);
            LineSource::Registry { crate_version: leak(own) }
        }
        Origin::Tarball { sha256, .. } => LineSource::Tarball { sha256: leak(sha256) },
    }
}

/// The move's edits: `line`'s row of the data (and the supplier, when it moves), and every file
/// `cargo xtask lines` writes from the data moved to. Refused, with nothing moved, when the
/// row is not in lines.rs as the data compiled in has it.
pub fn plan(root: &Path, line: &OpensslLine, to: &Release) -> Result<Vec<Edit>> {
    let path = root.join(LINES_RS);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {LINES_RS}"))?;
    let old = row(line.version, &line.source, line.default);
    if text.matches(&old).count() != 1 {
        bail!(
            "{LINES_RS}: line {}'s row `{old}` is not there once, so nothing was moved",
            line.name()
        );
    }
    let source = source_of(to);
    let mut text = text.replacen(&old, &row(&to.openssl, &source, line.default), 1);
    let supplier = match (supplier_moves(line, &to.origin), source) {
        (true, LineSource::Registry { crate_version }) => crate_version,
        _ => data::TREE_SUPPLIER,
    };
    let supplier_row = |v: &str| format!("pub const TREE_SUPPLIER: &str = \"{v}\";");
    text = text.replace(&supplier_row(data::TREE_SUPPLIER), &supplier_row(supplier));
    let version: &'static str = Box::leak(to.openssl.clone().into_boxed_str());
    let moved = OpensslLine { version, source, ..*line };
    let all: Vec<OpensslLine> =
        data::OPENSSL_LINES.iter().map(|l| if l == line { moved } else { *l }).collect();
    let mut edits = vec![Edit { path, text }];
    edits.extend(crate::cmd::lines::render(root, &Lines { all: &all, supplier })?);
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
    /// The line's source crate at the release moved to.
    pub source_crate: NewCrate<'a>,
}

/// A line's source crate, written anew for the release moved to.
pub struct NewCrate<'a> {
    /// Where the line's crate lies now, and after the move (another series renames it).
    pub dirs: (PathBuf, PathBuf),
    pub lock: SourceLock,
    /// The release's tree, trimmed in scratch space, renamed into the crate.
    pub tree: &'a crate::sources::krate::Trimmed,
    /// The release tarball, kept in `lines/tarballs/` where the crate is made from again.
    pub tarball: Option<PathBuf>,
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
        // The line's sets' one writer (`generate`'s lock), while they are replaced.
        let _lock = WriteLock::acquire(&self.sets_roots.0, false)?;
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
        // The crates Cargo.toml will name exist before cargo reads it.
        self.install_crate(undo)?;
        let mut lock = self.sets_root(undo)?;
        for e in &self.edits {
            write_atomic(&e.path, e.text.as_bytes())?;
        }
        let cargo = crate::cargo::cargo();
        let _dir = sh.push_dir(self.root);
        // Cargo.toml names the new source crate (and supplier) now: cargo resolves them into
        // Cargo.lock, keeping every other version.
        cmd!(sh, "{cargo} tree --quiet -p crypto-build --depth 0 -e normal")
            .quiet()
            .ignore_stdout()
            .run()
            .context("moving Cargo.lock to the new source crate")?;
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
        for (from, to) in &self.report {
            let dir = to.parent().unwrap();
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            fs::copy(from, to).with_context(|| format!("writing {}", to.display()))?;
        }
        self.check_cargo_lock(sh)
    }

    /// The line's sets root and its lock: the same, or for another series a directory of its
    /// own (another line's sets crate is among the edits), its lock made of the new sets alone.
    fn sets_root(&self, undo: &mut Undo) -> Result<Lock> {
        let (old_root, new_root) = &self.sets_roots;
        if old_root == new_root {
            return Lock::load(old_root);
        }
        self.move_aside(old_root, undo)?;
        fs::create_dir_all(new_root).with_context(|| format!("creating {}", new_root.display()))?;
        undo.sets.push((new_root.clone(), None));
        Ok(Lock::default())
    }

    /// Cargo.lock and Cargo.toml agree on the release moved to. cargo tree, unlike cargo
    /// metadata, resolves for the host only, so it needs no other platform's crates.
    fn check_cargo_lock(&self, sh: &Shell) -> Result<()> {
        let cargo = crate::cargo::cargo();
        let name = crypto_build::data::source_crate_of(&self.to.openssl);
        let spec = format!("{name}@{}", self.to.openssl);
        let tree = cmd!(sh, "{cargo} tree --locked --offline -i {spec} --depth 0 -e normal")
            .quiet()
            .read()
            .context("cargo tree --locked after the move")?;
        if !tree.trim().starts_with(&format!("{name} v{} (", self.to.openssl)) {
            bail!("after the move, cargo tree has `{}`, not {spec}", tree.trim());
        }
        Ok(())
    }

    /// The line's source crate written anew for the release (the one it replaces put aside
    /// whole), and the release tarball kept in `lines/tarballs/`.
    fn install_crate(&self, undo: &mut Undo) -> Result<()> {
        let c = &self.source_crate;
        let (old, new) = &c.dirs;
        if old.exists() {
            self.move_aside(old, undo)?;
        }
        if old != new {
            if new.exists() {
                self.move_aside(new, undo)?;
            }
            undo.sets.push((new.clone(), None));
        }
        crate::sources::krate::write(new, &c.lock, c.tree)?;
        if let Some(tarball) = &c.tarball {
            let kept = self.root.join(crypto_build::source::TARBALLS_DIR).join(&c.lock.archive);
            undo.keep(&kept, &self.aside)?;
            fs::create_dir_all(kept.parent().context("a tarball's directory")?)?;
            if tarball != &kept {
                fs::copy(tarball, &kept).with_context(|| format!("keeping {}", kept.display()))?;
            }
        }
        Ok(())
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
        Release { openssl: o.into(), origin: Origin::Crate { crate_version: c.into() } }
    }

    /// Each line's release and origin are its source crate's lock's.
    #[test]
    fn the_pin_is_the_source_crates_lock() {
        let default = data::DEFAULT_LINE;
        let dv = format!("{}+{}", default.crate_version().unwrap(), default.version);
        let lock = SourceLock {
            release: default.version.into(),
            archive: crypto_build::source::tarball_name(default.version),
            sha256: "ab".repeat(32),
            files: "cd".repeat(32),
        };
        let tarball = release_of(default, &lock);
        let origin = Origin::Tarball { file: lock.archive.clone(), sha256: lock.sha256.clone() };
        assert_eq!(tarball.origin, origin);
        let registry = SourceLock { archive: format!("openssl-src-{dv}.crate"), ..lock };
        assert_eq!(release_of(default, &registry), release(&dv, default.version));
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

    /// One source crate per series: a move onto the series another line holds is refused; the
    /// supplier moves only to a registry crate crypto-build can hold.
    #[test]
    fn a_move_onto_another_lines_series_is_refused() {
        let (default, other) =
            (data::DEFAULT_LINE, data::OPENSSL_LINES.iter().find(|l| !l.default).unwrap());
        let lines = data::OPENSSL_LINES;
        let mate = format!("{}.99", other.name());
        let e = check_graph(lines, default, &mate).unwrap_err().to_string();
        assert!(e.contains(&format!("which line {} holds", other.name())), "{e}");
        assert!(e.contains(&other.source_crate()) && !e.contains('\n'), "{e}");
        check_graph(lines, other, &mate).unwrap();
        check_graph(lines, default, "9.1.0").unwrap();
        let krate = |v: &str| Origin::Crate { crate_version: v.into() };
        assert!(supplier_moves(default, &krate("401.0.0+4.1.0")));
        assert!(!supplier_moves(default, &krate("300.5.9+3.5.9")));
        assert!(!supplier_moves(other, &krate("401.0.0+4.1.0")));
        let tarball = Origin::Tarball { file: "openssl-4.1.0.tar.gz".into(), sha256: "0".into() };
        assert!(!supplier_moves(default, &tarball));
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

    /// The move edits the data and writes the rest from it: a move of each line to a release
    /// of a new series renames what is named after the series, and only that line's.
    #[test]
    fn a_move_edits_the_row_and_writes_the_files_from_the_data_moved_to() {
        let root = crate::cargo::project_root();
        let to = release("999.1.0+9.1.0", "9.1.0");
        for line in data::OPENSSL_LINES {
            let pinned = pinned(&root, line).unwrap();
            assert_eq!(pinned.openssl, line.version);
            let own = format!("{}+{}", line.crate_version().unwrap(), line.version);
            assert_eq!(pinned.origin, Origin::Crate { crate_version: own });
            let edits = plan(&root, line, &to).unwrap();
            let text = |file: &str| {
                let e = edits.iter().find(|e| e.path == root.join(file));
                e.unwrap_or_else(|| panic!("{}: no edit of {file}", line.name())).text.as_str()
            };
            let row = format!("version: \"9.1.0\", source: LineSource::Registry {{ crate_version: \"999.1.0\" }}, default: {}", line.default);
            assert!(text("crypto-build/src/data/lines.rs").contains(&row), "{}", line.name());
            let krate = "crypto-sys-openssl-9-1 = { path = \"lines/openssl-9.1/source\", version = \"=9.1.0\" }";
            assert!(text("Cargo.toml").contains(krate), "{}", text("Cargo.toml"));
            let updates = text(".github/workflows/update-openssl.yml");
            let moved_off = format!("--openssl {}\n", line.name());
            assert!(updates.contains("--openssl 9.1\n") && !updates.contains(&moved_off));
            if line.default {
                let supplier =
                    "openssl-src-9-1 = { package = \"openssl-src\", version = \"=999.1.0\" }";
                assert!(text("Cargo.toml").contains(supplier), "{}", text("Cargo.toml"));
                assert!(text("crypto-build/src/data/lines.rs")
                    .contains("TREE_SUPPLIER: &str = \"999.1.0\""));
                assert!(text("crypto-sys/tests/kat.rs").contains("(\"9.1.0\", 0x9010_0000)"));
            } else {
                let ci = text(".github/workflows/ci.yml");
                assert!(
                    ci.contains("--openssl 9.1 --step")
                        && !ci.contains(&format!("--openssl {} ", line.name()))
                );
                let feature =
                    "openssl-9-1 = [\"dep:crypto-sys-openssl-9-1\", \"dep:crypto-sys-sets-9-1\"]";
                assert!(text("crypto-build/Cargo.toml").contains(feature));
                assert!(
                    text("lines/openssl-9.1/Cargo.toml").contains("name = \"crypto-sys-sets-9-1\"")
                );
            }
        }
        // To a tarball: the row names its SHA-256, the supplier stays, the docs say where the
        // tree comes from.
        let sha256 = "ab".repeat(32);
        let file = "openssl-4.0.99.tar.gz".to_string();
        let tarball = Release {
            openssl: "4.0.99".into(),
            origin: Origin::Tarball { file, sha256: sha256.clone() },
        };
        let edits = plan(&root, data::DEFAULT_LINE, &tarball).unwrap();
        let text = |file: &str| &edits.iter().find(|e| e.path == root.join(file)).unwrap().text;
        let row = format!("version: \"4.0.99\", source: LineSource::Tarball {{ sha256: \"{sha256}\" }}, default: true,");
        assert!(text("crypto-build/src/data/lines.rs").contains(&row));
        let supplier = format!("TREE_SUPPLIER: &str = \"{}\"", data::TREE_SUPPLIER);
        assert!(text("crypto-build/src/data/lines.rs").contains(&supplier));
        assert!(text("docs/lines.md")
            .contains("OpenSSL's tarball (`lines/tarballs/openssl-4.0.99.tar.gz`)"));
        let stale = OpensslLine { version: "4.0.9", ..*data::DEFAULT_LINE };
        let e = plan(&root, &stale, &to).unwrap_err().to_string();
        assert!(e.contains("nothing was moved") && e.contains("4.0.9"), "{e}");
        let e = super::pinned(&root, &OpensslLine { version: "4.0.9", ..*data::DEFAULT_LINE });
        let e = format!("{:#}", e.unwrap_err());
        let said = format!("source.lock is OpenSSL {}'s, not 4.0.9", data::DEFAULT_LINE.version);
        assert!(e.contains(&said), "{e}");
        let source = data::LineSource::Registry { crate_version: "999.9.9" };
        let e = super::pinned(&root, &OpensslLine { source, ..*data::DEFAULT_LINE });
        let e = format!("{:#}", e.unwrap_err());
        assert!(e.contains("another source than the line's"), "{e}");
    }
}
