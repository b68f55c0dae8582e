//! Where each OpenSSL line's tree comes from: its source crate (`crypto-sys-openssl-X-Y`, named
//! after the line's series), which holds OpenSSL's release tree trimmed to what a build reads
//! ([`trim`]) and never edited, beside its `source.lock` and `files.sha256` ([`list`]). Every
//! build checks the crate's files against them before it compiles anything.
//!
//! The tree is made from the release, never committed: in the workspace the build makes the
//! default line's on first use from the registry's openssl-src that holds its release (a
//! dependency of crypto-build, so that a fresh clone builds with plain cargo), and `cargo xtask
//! sources` makes any line's, from that crate or from the release tarball its lock names. A
//! packaged source crate carries its tree.

pub mod list;
pub mod trim;

use crate::data::{LineSource, OpensslLine};
use anyhow::{bail, Context, Result};
use list::{FileList, SourceLock, LIST_FILE, LOCK_FILE, TREE_DIR};
use std::fs;
use std::path::{Path, PathBuf};

/// Under the workspace: the release tarballs a maintainer keeps at hand (git-ignored), where
/// `cargo xtask sources` looks for a tarball line's.
pub const TARBALLS_DIR: &str = "lines/tarballs";

/// The command that makes a line's source crate in the workspace.
pub const MAKE_COMMAND: &str = "cargo xtask sources";

/// A line's source crate, where it lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceCrate {
    /// `crypto-sys-openssl-3-5`.
    pub name: String,
    pub dir: PathBuf,
}

/// A source crate's tree, checked against its list.
#[derive(Debug, Clone)]
pub struct Tree {
    pub dir: PathBuf,
    /// Each file's SHA-256: the object cache's identity of the files the build compiles.
    pub list: FileList,
}

/// The tree of an OpenSSL line, checked (made first where the build can: [`SourceCrate::checked`]).
pub fn line_source_dir(line: &OpensslLine) -> Result<PathBuf> {
    Ok(line_tree(line)?.dir)
}

/// The tree of an OpenSSL line with its file list, from crypto-build's dependency on the
/// line's source crate.
pub fn line_tree(line: &OpensslLine) -> Result<Tree> {
    SourceCrate::of_line(line)?.checked(line)
}

/// The directory of each line's source crate, as crypto-build's dependency on it resolves:
/// the default line's always, another's behind crypto-build's feature of its name.
fn dependency_dir(line: &OpensslLine) -> Option<&'static Path> {
    match line.name() {
        // The default line's, always a dependency.
        "4.0" => Some(crypto_sys_openssl_4_0::crate_dir()),
        #[cfg(feature = "openssl-3-5")]
        "3.5" => Some(crypto_sys_openssl_3_5::crate_dir()),
        _ => None,
    }
}

/// The registry's openssl-src crate crypto-build depends on for the default line's tree, and
/// its version: what the build makes the default line's source crate from when its lock names
/// that crate.
fn supplier() -> (PathBuf, &'static str) {
    (openssl_src_4_0::source_dir(), openssl_src_4_0::version())
}

impl SourceCrate {
    /// The line's source crate that crypto-build depends on (crypto-sys's feature of the
    /// line's name turns on crypto-build's, which brings it).
    pub fn of_line(line: &OpensslLine) -> Result<SourceCrate> {
        let Some(dir) = dependency_dir(line) else {
            let feature = line.feature().unwrap_or_default();
            bail!(
                "OpenSSL {} needs crypto-build's `{feature}` feature (crypto-sys's `{feature}` \
                 turns it on), which brings its source crate {}",
                line.version,
                line.source_crate()
            )
        };
        Ok(SourceCrate { name: line.source_crate(), dir: dir.to_path_buf() })
    }

    /// The line's source crate in the workspace at `root`.
    pub fn in_workspace(root: &Path, line: &OpensslLine) -> SourceCrate {
        SourceCrate { name: line.source_crate(), dir: root.join(line.source_crate_dir()) }
    }

    pub fn tree_dir(&self) -> PathBuf {
        self.dir.join(TREE_DIR)
    }

    pub fn list_path(&self) -> PathBuf {
        self.dir.join(LIST_FILE)
    }

    pub fn lock(&self) -> Result<SourceLock> {
        SourceLock::read(&self.dir)
    }

    /// A crate `cargo package` made (its manifest rewritten, the original kept beside it),
    /// which carries its tree and is never written to.
    pub fn is_packaged(&self) -> bool {
        self.dir.join("Cargo.toml.orig").is_file()
    }

    /// Its lock, if it is the line's release from the line's source; else one line saying so.
    pub fn lock_for(&self, line: &OpensslLine) -> Result<SourceLock> {
        let lock = self.lock().with_context(|| format!("{} is no source crate", self.name))?;
        if lock.release != line.version {
            bail!(
                "{}'s {LOCK_FILE} is OpenSSL {}'s, not {} as the line says: move the line with \
                 `cargo xtask update-openssl`, which moves both",
                self.name,
                lock.release,
                line.version
            );
        }
        let agrees = match line.source {
            LineSource::Registry { crate_version } => {
                lock.registry_crate().is_some_and(|c| c.split('+').next() == Some(crate_version))
            }
            LineSource::Tarball { sha256 } => {
                lock.sha256 == sha256 && lock.archive == tarball_name(line.version)
            }
        };
        if !agrees {
            bail!(
                "{}'s {LOCK_FILE} names {} (SHA-256 {}), another source than the line's {:?}",
                self.name,
                lock.archive,
                lock.sha256,
                line.source
            );
        }
        Ok(lock)
    }

    /// Whether its list is there and is the one its lock names: the tree made (each file is
    /// checked by [`SourceCrate::checked`]).
    pub fn is_made(&self, lock: &SourceLock) -> bool {
        self.has_list(&lock.files)
    }

    /// Whether its list is there with the SHA-256 `files`, beside a tree.
    fn has_list(&self, files: &str) -> bool {
        let text = fs::read(self.list_path()).unwrap_or_default();
        !text.is_empty() && crate::sha256::hex(&text) == files && self.tree_dir().is_dir()
    }

    /// Its tree, every file checked against its list and the list against its lock; made
    /// first from the registry's openssl-src that crypto-build holds for the default line,
    /// when that is the lock's archive and the tree is not made yet.
    pub fn checked(&self, line: &OpensslLine) -> Result<Tree> {
        let lock = self.lock_for(line)?;
        if !self.is_made(&lock) && !self.is_packaged() {
            let (dir, version) = supplier();
            if line.default && lock.registry_crate() == Some(version) {
                self.install(&dir, &lock.files)?;
            }
        }
        let text = fs::read_to_string(self.list_path()).ok();
        let Some(text) = text.filter(|_| self.tree_dir().is_dir()) else {
            bail!("{}", self.missing(&lock));
        };
        let list = FileList::parse(&text)
            .with_context(|| format!("reading {}", self.list_path().display()))?;
        let hash = list.hash();
        if hash != lock.files {
            bail!(
                "{}'s {LIST_FILE} is not the list its {LOCK_FILE} names (SHA-256 {hash}, not {}): {}",
                self.name,
                lock.files,
                self.remedy(&lock)
            );
        }
        if let Some(first) = list::first_difference(&self.tree_dir(), &list)? {
            bail!(
                "{}'s tree ({}) differs from its {LIST_FILE}, first at {first}: OpenSSL's release \
                 is never edited; {}",
                self.name,
                self.tree_dir().display(),
                self.remedy(&lock)
            );
        }
        Ok(Tree { dir: self.tree_dir(), list })
    }

    /// What to do about a crate whose files are wrong.
    fn remedy(&self, lock: &SourceLock) -> String {
        if self.is_packaged() {
            "this package is damaged; reinstall it (packages are made by `cargo xtask package`)"
                .into()
        } else {
            format!("make it again from {} with `{MAKE_COMMAND}`", lock.archive)
        }
    }

    /// The one line for a crate without its tree.
    pub fn missing(&self, lock: &SourceLock) -> String {
        if self.is_packaged() {
            return format!(
                "{}'s package has no {TREE_DIR}/ or no {LIST_FILE}: {}",
                self.name,
                self.remedy(lock)
            );
        }
        let archive = match lock.registry_crate() {
            Some(_) => format!("the registry's {}", lock.archive),
            None => format!("{} (SHA-256 {}), kept in {TARBALLS_DIR}/", lock.archive, lock.sha256),
        };
        format!(
            "{} (OpenSSL {}'s source) has no tree in {} yet: in crypto-sys's workspace, `{MAKE_COMMAND}` \
             makes it from {archive}",
            self.name,
            lock.release,
            self.tree_dir().display()
        )
    }

    /// Makes the tree from `release` (an OpenSSL tree), trimmed, its list written last: staged
    /// beside the crate and renamed into place, and only when the list's SHA-256 is `files`
    /// (else nothing is touched). One writer at a time; a crate made meanwhile is kept.
    pub fn install(&self, release: &Path, files: &str) -> Result<()> {
        let _lock = crate::generate::WriteLock::acquire(&self.dir, true)?;
        if self.has_list(files) {
            return Ok(());
        }
        let staging = self.dir.join(format!(".staging-{}", std::process::id()));
        let _ = fs::remove_dir_all(&staging);
        let result = self.stage_and_rename(release, files, &staging);
        let _ = fs::remove_dir_all(&staging);
        result
    }

    fn stage_and_rename(&self, release: &Path, files: &str, staging: &Path) -> Result<()> {
        let list = list::trimmed_list(release, Some(&staging.join(TREE_DIR)))
            .with_context(|| format!("copying {} into {}", release.display(), staging.display()))?;
        let hash = list.hash();
        if hash != files {
            bail!(
                "{} trimmed is not the tree {}'s {LOCK_FILE} names (its {LIST_FILE}'s SHA-256 \
                 is {hash}, not {files}): nothing was written",
                release.display(),
                self.name
            );
        }
        let _ = fs::remove_file(self.list_path());
        if self.tree_dir().exists() {
            fs::rename(self.tree_dir(), staging.join("old"))
                .with_context(|| format!("moving aside {}", self.tree_dir().display()))?;
        }
        fs::rename(staging.join(TREE_DIR), self.tree_dir())
            .with_context(|| format!("installing {}", self.tree_dir().display()))?;
        crate::generate::write_atomic(&self.list_path(), list.render().as_bytes())
    }
}

/// A release's directory name in its tarball: `openssl-X.Y.Z`.
pub fn tree_name(version: &str) -> String {
    format!("openssl-{version}")
}

/// The release's tarball as OpenSSL names it: `openssl-X.Y.Z.tar.gz`.
pub fn tarball_name(version: &str) -> String {
    format!("{}.tar.gz", tree_name(version))
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

    /// A tarball line's crate: made from a release tree, checked, then refused in one line
    /// naming the crate and the first file that differs, or what is missing and the command.
    #[test]
    fn a_source_crate_is_made_checked_and_refused_in_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let release = dir.path().join("openssl-9.9.9");
        fs::create_dir_all(release.join("crypto")).unwrap();
        fs::write(release.join("Configure"), "perl").unwrap();
        fs::write(release.join("crypto/a.c"), "int a;").unwrap();
        fs::write(release.join("README.md"), "prose").unwrap();
        let files = list::trimmed_list(&release, None).unwrap().hash();
        let krate =
            SourceCrate { name: "crypto-sys-openssl-9-9".into(), dir: dir.path().join("c") };
        let lock = SourceLock {
            release: "9.9.9".into(),
            archive: tarball_name("9.9.9"),
            sha256: SHA.into(),
            files: files.clone(),
        };
        fs::create_dir_all(&krate.dir).unwrap();
        fs::write(krate.dir.join(LOCK_FILE), lock.render(&krate.name)).unwrap();
        let line = OpensslLine {
            version: "9.9.9",
            source: LineSource::Tarball { sha256: SHA },
            default: false,
            targets: None,
        };
        let e = krate.checked(&line).unwrap_err().to_string();
        assert!(e.contains("has no tree") && e.contains(MAKE_COMMAND) && e.contains(SHA), "{e}");
        assert!(!e.contains('\n'), "{e}");
        // Another tree than the lock's: nothing written.
        let e = krate.install(&dir.path().join("c"), &files).unwrap_err().to_string();
        assert!(e.contains("nothing was written") && !krate.tree_dir().exists(), "{e}");
        krate.install(&release, &files).unwrap();
        let tree = krate.checked(&line).unwrap();
        assert_eq!(tree.list.files.len(), 2, "README.md is trimmed");
        fs::write(krate.tree_dir().join("crypto/a.c"), "int b;").unwrap();
        let e = krate.checked(&line).unwrap_err().to_string();
        assert!(
            e.starts_with("crypto-sys-openssl-9-9's tree") && e.contains("first at crypto/a.c"),
            "{e}"
        );
        fs::write(krate.list_path(), "").unwrap();
        let e = krate.checked(&line).unwrap_err().to_string();
        assert!(e.contains("files.sha256 is not the list its source.lock names"), "{e}");
        fs::write(krate.dir.join("Cargo.toml.orig"), "").unwrap();
        fs::remove_file(krate.list_path()).unwrap();
        let e = krate.checked(&line).unwrap_err().to_string();
        assert!(
            e.contains("package has no openssl/ or no files.sha256") && e.contains("damaged"),
            "{e}"
        );
        let other = OpensslLine { version: "9.9.8", ..line };
        let e = krate.checked(&other).unwrap_err().to_string();
        assert!(e.contains("is OpenSSL 9.9.9's, not 9.9.8"), "{e}");
    }

    /// The registry's openssl-src leaves out what the trim does: its tree passes through
    /// whole, so a crate made from it and one made from the release tarball hold the same.
    #[test]
    fn the_registrys_tree_passes_through_the_trim_whole() {
        let (tree, _) = supplier();
        let all = list::files_under(&tree, false).unwrap();
        assert!(all.len() > 2000, "{}", all.len());
        assert_eq!(list::files_under(&tree, true).unwrap(), all);
    }

    /// The committed locks read back as written.
    #[test]
    #[cfg_attr(
        not(feature = "openssl-3-5"),
        ignore = "the other line's crates come with `--features openssl-3-5`, which `cargo test --workspace` turns on"
    )]
    fn the_committed_locks_are_what_the_writer_writes() {
        for line in crate::data::OPENSSL_LINES {
            let krate = SourceCrate::of_line(line).unwrap();
            let text = fs::read_to_string(krate.dir.join(LOCK_FILE)).unwrap();
            assert_eq!(SourceLock::parse(&text).unwrap().render(&krate.name), text);
            krate.lock_for(line).unwrap();
        }
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
