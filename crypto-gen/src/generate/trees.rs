//! Scratch copies of an OpenSSL tree, each configured by one group after another. A fresh copy
//! (2,500 files, 40 MB) for every group cost each about 2 s, most of it the filesystem's, and
//! a generation runs many more groups than jobs. A tree is taken back to its copied state
//! between groups: what Configure and make added goes; a copied file changed, gone or replaced
//! makes the tree unfit, and it is removed, never reused.

use anyhow::{Context, Result};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::SystemTime;

/// The trees of one generation, under `dir`, copied from `source` as needed.
pub struct Trees<'a> {
    source: &'a Path,
    dir: PathBuf,
    /// How a fresh copy is made ready: the copy, then what Configure's speed asks of it.
    prepare: fn(&Path, &Path) -> Result<()>,
    free: Mutex<Vec<Tree>>,
    copies: AtomicUsize,
}

/// One copy, and each of its files as copied.
pub struct Tree {
    pub dir: PathBuf,
    files: HashMap<PathBuf, Stamp>,
    dirs: HashSet<PathBuf>,
}

/// What says a file is still the one copied: its size and modification time.
type Stamp = (u64, SystemTime);

impl<'a> Trees<'a> {
    /// Copies of `source`'s tree, made under `dir` as needed and removed with this value: one
    /// value can serve a run's many generations from one tree.
    pub fn new(source: &'a Path, dir: PathBuf) -> Self {
        Self::with_prepare(source, dir, super::openssl::prepare)
    }

    fn with_prepare(
        source: &'a Path,
        dir: PathBuf,
        prepare: fn(&Path, &Path) -> Result<()>,
    ) -> Self {
        Trees { source, dir, prepare, free: Mutex::default(), copies: AtomicUsize::new(0) }
    }

    /// Whether these are copies of `source`.
    pub(super) fn of(&self, source: &Path) -> bool {
        self.source == source
    }

    /// A tree as copied: one given back, or a new copy.
    pub fn take(&self) -> Result<Tree> {
        if let Some(tree) = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(tree);
        }
        let dir = self.dir.join(self.copies.fetch_add(1, Ordering::SeqCst).to_string());
        // A run killed before its trees were dropped left what its groups made here: never
        // taken for the tree as copied.
        if dir.exists() {
            fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        (self.prepare)(self.source, &dir)
            .with_context(|| format!("copying {} to scratch", self.source.display()))?;
        Tree::stamp(dir)
    }

    /// Takes `tree` back to its copied state for the next group, or removes it when it cannot
    /// be: a group must never start from a tree another has changed.
    pub fn give_back(&self, tree: Tree) {
        match tree.restore() {
            Ok(true) => self.free.lock().unwrap_or_else(|e| e.into_inner()).push(tree),
            Ok(false) | Err(_) => {
                let _ = fs::remove_dir_all(&tree.dir);
            }
        }
    }

    /// How many copies were made.
    #[cfg(test)]
    fn copies(&self) -> usize {
        self.copies.load(Ordering::SeqCst)
    }
}

impl Drop for Trees<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

impl Tree {
    fn stamp(dir: PathBuf) -> Result<Tree> {
        let mut tree = Tree { dir, files: HashMap::new(), dirs: HashSet::new() };
        let mut pending = vec![tree.dir.clone()];
        while let Some(d) = pending.pop() {
            for entry in fs::read_dir(&d)? {
                let entry = entry?;
                let path = entry.path();
                let rel = path.strip_prefix(&tree.dir)?.to_path_buf();
                let meta = entry.metadata()?;
                if meta.is_dir() {
                    tree.dirs.insert(rel);
                    pending.push(path);
                } else {
                    tree.files.insert(rel, (meta.len(), meta.modified()?));
                }
            }
        }
        Ok(tree)
    }

    /// Removes what was added since the copy; false if a copied file changed or went.
    fn restore(&self) -> Result<bool> {
        let mut seen = 0;
        let mut pending = vec![self.dir.clone()];
        while let Some(d) = pending.pop() {
            for entry in fs::read_dir(&d)? {
                let entry = entry?;
                let path = entry.path();
                let rel = path.strip_prefix(&self.dir)?;
                let meta = fs::symlink_metadata(&path)?;
                if meta.is_dir() && self.dirs.contains(rel) {
                    pending.push(path);
                } else if meta.is_dir() {
                    fs::remove_dir_all(&path)?;
                } else if let Some(stamp) = self.files.get(rel) {
                    if !meta.is_file() || *stamp != (meta.len(), meta.modified()?) {
                        return Ok(false);
                    }
                    seen += 1;
                } else {
                    fs::remove_file(&path)?;
                }
            }
        }
        Ok(seen == self.files.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(from: &Path, to: &Path) -> Result<()> {
        crypto_build::files::copy_tree(from, to)
    }

    fn source() -> tempfile::TempDir {
        let src = tempfile::tempdir().unwrap();
        fs::create_dir_all(src.path().join("crypto/aes")).unwrap();
        fs::write(src.path().join("Configure"), "configure").unwrap();
        fs::write(src.path().join("crypto/aes/aes.pl"), "perlasm").unwrap();
        src
    }

    /// What a group adds goes, and the next group gets the same copy; one that changed a
    /// copied file, or removed one, gets a fresh copy instead.
    #[test]
    fn a_tree_is_reused_only_as_it_was_copied() {
        let (src, scratch) = (source(), tempfile::tempdir().unwrap());
        let trees = Trees::with_prepare(src.path(), scratch.path().join("trees"), copy);
        // What a killed run left where the first copy goes is not kept.
        fs::create_dir_all(scratch.path().join("trees/0")).unwrap();
        fs::write(scratch.path().join("trees/0/configdata.pm"), "stale").unwrap();
        let tree = trees.take().unwrap();
        assert!(!tree.dir.join("configdata.pm").exists());
        let dir = tree.dir.clone();
        fs::write(dir.join("configdata.pm"), "made").unwrap();
        fs::create_dir_all(dir.join(".fake-bin/x")).unwrap();
        fs::write(dir.join("crypto/aes/aes-x86_64.s"), "made").unwrap();
        trees.give_back(tree);
        let tree = trees.take().unwrap();
        assert_eq!((tree.dir.clone(), trees.copies()), (dir.clone(), 1));
        assert!(!dir.join("configdata.pm").exists() && !dir.join(".fake-bin").exists());
        assert!(!dir.join("crypto/aes/aes-x86_64.s").exists());
        assert_eq!(fs::read_to_string(dir.join("crypto/aes/aes.pl")).unwrap(), "perlasm");

        type Change = fn(&Path);
        let changes: [(&str, Change); 3] = [
            ("written in place", |d| fs::write(d.join("Configure"), "rewritten!").unwrap()),
            ("removed", |d| fs::remove_file(d.join("crypto/aes/aes.pl")).unwrap()),
            ("a directory for a file", |d| {
                fs::remove_file(d.join("Configure")).unwrap();
                fs::create_dir(d.join("Configure")).unwrap();
            }),
        ];
        let mut tree = tree;
        for (n, (what, change)) in changes.into_iter().enumerate() {
            change(&tree.dir);
            let changed = tree.dir.clone();
            trees.give_back(tree);
            assert!(!changed.exists(), "a copied file {what}: the tree was kept");
            tree = trees.take().unwrap();
            assert_eq!(trees.copies(), n + 2, "a copied file {what}: no fresh copy");
            assert_eq!(fs::read_to_string(tree.dir.join("Configure")).unwrap(), "configure");
        }
    }
}
