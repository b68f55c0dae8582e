//! A source crate's records: `source.lock` (committed: the release, the archive its tree was
//! made from with that archive's SHA-256, and the SHA-256 of its file list) and `files.sha256`
//! (made with the tree: each file's SHA-256, as `sha256sum` prints them, so that `sha256sum
//! -c files.sha256` checks a crate by hand too).

use crate::sha256;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::Path;

/// The committed record, beside the crate's Cargo.toml.
pub const LOCK_FILE: &str = "source.lock";
/// The file list, made with the tree.
pub const LIST_FILE: &str = "files.sha256";
/// The release's tree, under the crate.
pub const TREE_DIR: &str = "openssl";

/// `source.lock`: what the crate's tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLock {
    /// OpenSSL's release, `3.5.5`.
    pub release: String,
    /// The archive the tree was made from: a release tarball (`openssl-3.5.5.tar.gz`) or the
    /// registry's openssl-src crate that holds the release (`openssl-src-300.5.5+3.5.5.crate`).
    pub archive: String,
    /// That archive's SHA-256 (a crate's is the checksum cargo checks it against).
    pub sha256: String,
    /// The SHA-256 of `files.sha256`.
    pub files: String,
}

const KEYS: [&str; 4] = ["release", "archive", "sha256", "files"];

impl SourceLock {
    pub fn parse(text: &str) -> Result<SourceLock> {
        let mut values = [None, None, None, None];
        for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let (key, value) = line.split_once('\t').with_context(|| format!("`{line}`"))?;
            let Some(i) = KEYS.iter().position(|k| *k == key) else {
                bail!("unknown key `{key}`");
            };
            values[i] = Some(value.to_string());
        }
        let [release, archive, sha256, files] = values;
        let missing = |k: &str| format!("no `{k}`");
        Ok(SourceLock {
            release: release.with_context(|| missing("release"))?,
            archive: archive.with_context(|| missing("archive"))?,
            sha256: sha256.with_context(|| missing("sha256"))?,
            files: files.with_context(|| missing("files"))?,
        })
    }

    pub fn render(&self, krate: &str) -> String {
        format!(
            "# {krate}: OpenSSL {}'s release tree ({TREE_DIR}/), trimmed, never edited; made by\n\
             # `cargo xtask update-openssl` from the archive below. The build checks {LIST_FILE}\n\
             # against `files`, then every file of the tree against {LIST_FILE}.\n\
             release\t{}\narchive\t{}\nsha256\t{}\nfiles\t{}\n",
            self.release, self.release, self.archive, self.sha256, self.files
        )
    }

    /// The openssl-src version the archive is, when it is a registry crate (`300.5.5+3.5.5`).
    pub fn registry_crate(&self) -> Option<&str> {
        self.archive.strip_prefix("openssl-src-")?.strip_suffix(".crate")
    }

    pub fn read(crate_dir: &Path) -> Result<SourceLock> {
        let path = crate_dir.join(LOCK_FILE);
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        SourceLock::parse(&text).with_context(|| format!("reading {}", path.display()))
    }
}

/// `files.sha256`: each file of the tree (relative to it) and its SHA-256, by path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileList {
    pub files: Vec<(String, String)>,
}

impl FileList {
    /// As `sha256sum` prints it from the crate's directory.
    pub fn render(&self) -> String {
        self.files.iter().map(|(path, sha)| format!("{sha}  {TREE_DIR}/{path}\n")).collect()
    }

    pub fn parse(text: &str) -> Result<FileList> {
        let mut files = Vec::new();
        for line in text.lines() {
            let entry = line.split_once("  ").and_then(|(sha, p)| {
                Some((p.strip_prefix(TREE_DIR)?.strip_prefix('/')?.to_string(), sha.to_string()))
            });
            files.push(
                entry.with_context(|| format!("`{line}` is not `SHA-256  {TREE_DIR}/PATH`"))?,
            );
        }
        Ok(FileList { files })
    }

    /// The SHA-256 of its text: `source.lock`'s `files`.
    pub fn hash(&self) -> String {
        sha256::hex(self.render().as_bytes())
    }

    pub fn sha256_of(&self, rel: &str) -> Option<&str> {
        let i = self.files.binary_search_by(|(p, _)| p.as_str().cmp(rel)).ok()?;
        Some(&self.files[i].1)
    }
}

/// Every file under `tree` (relative, `/`-separated), by path, that `keep` keeps (given the
/// path and whether it is a directory; a directory it leaves out is not entered).
pub fn files_under(tree: &Path, keep: &dyn Fn(&str, bool) -> bool) -> Result<Vec<String>> {
    let mut files = Vec::new();
    let mut dirs = vec![(tree.to_path_buf(), String::new())];
    while let Some((dir, rel)) = dirs.pop() {
        let entries = fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name().into_string().map_err(|n| {
                anyhow::anyhow!("{} has a name that is not UTF-8: {n:?}", dir.display())
            })?;
            let path = if rel.is_empty() { name } else { format!("{rel}/{name}") };
            let is_dir = entry.path().is_dir();
            if !keep(&path, is_dir) {
                continue;
            }
            match is_dir {
                true => dirs.push((entry.path(), path)),
                false => files.push(path),
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The first file where `tree` and `list` part: one the list has and the tree lacks or holds
/// other bytes of, or one the tree has and the list does not; `None` when they agree.
pub fn first_difference(tree: &Path, list: &FileList) -> Result<Option<String>> {
    let on_disk = files_under(tree, &|_, _| true)?;
    let mut listed = list.files.iter();
    for rel in &on_disk {
        let Some((path, sha)) = listed.next() else {
            return Ok(Some(format!("{rel} (not in {LIST_FILE})")));
        };
        if path < rel {
            return Ok(Some(format!("{path} (missing)")));
        }
        if path > rel {
            return Ok(Some(format!("{rel} (not in {LIST_FILE})")));
        }
        let from = tree.join(rel);
        let bytes = fs::read(&from).with_context(|| format!("reading {}", from.display()))?;
        if sha256::hex(&bytes) != *sha {
            return Ok(Some(format!("{rel} (its SHA-256 is not the listed one)")));
        }
    }
    Ok(listed.next().map(|(path, _)| format!("{path} (missing)")))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn the_lock_reads_back_what_it_writes() {
        let lock = SourceLock {
            release: "3.5.5".into(),
            archive: "openssl-src-300.5.5+3.5.5.crate".into(),
            sha256: SHA.into(),
            files: SHA.replace('0', "f"),
        };
        let text = lock.render("crypto-sys-openssl-3-5");
        assert_eq!(SourceLock::parse(&text).unwrap(), lock);
        assert_eq!(lock.registry_crate(), Some("300.5.5+3.5.5"));
        let tarball = SourceLock { archive: "openssl-3.5.5.tar.gz".into(), ..lock };
        assert_eq!(tarball.registry_crate(), None);
        assert!(SourceLock::parse("release\t3.5.5\n").unwrap_err().to_string().contains("archive"));
        assert!(SourceLock::parse("colour\tred\n").is_err());
    }
}
