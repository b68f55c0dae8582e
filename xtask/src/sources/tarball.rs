//! `update-openssl --source FILE --sha256 HEX`: an OpenSSL release tarball, checked whole
//! before anything is written: its SHA-256 first, then its entries (one `openssl-X.Y.Z/`
//! directory with `Configure` and a `VERSION.dat` naming that release, a release OpenSSL still
//! supports, nothing but files, directories and links that stay inside it); then unpacked.
//! Read in process by the `tar` and `flate2` crates rather than a system tar: the same on
//! every host xtask runs on, and every entry checked before any is written.

use anyhow::{bail, Context, Result};
use crypto_build::source::{release_of_version_dat, tree_name};
use flate2::read::GzDecoder;
use std::fs;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

/// A tarball that passed every check, in memory.
pub struct Tarball {
    pub path: PathBuf,
    /// Lower-case hex.
    pub sha256: String,
    /// The release its VERSION.dat names.
    pub version: String,
    bytes: Vec<u8>,
}

impl Tarball {
    /// Its SHA-256, then its entries (none written); one line saying what is wrong.
    pub fn check(path: &Path, sha256: &str) -> Result<Tarball> {
        let want = sha256.to_ascii_lowercase();
        if want.len() != 64 || !want.bytes().all(|b| b.is_ascii_hexdigit()) {
            bail!("--sha256 `{sha256}` is not a SHA-256 (64 hex digits)");
        }
        let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let got = crypto_build::sha256::hex(&bytes);
        if got != want {
            bail!(
                "{}'s SHA-256 is {got}, not {want} as --sha256 says: refused, nothing touched",
                path.display()
            );
        }
        let version = release_in(&bytes)
            .with_context(|| format!("{} is not an OpenSSL release tarball", path.display()))?;
        Ok(Tarball { path: path.to_path_buf(), sha256: want, version, bytes })
    }

    /// Its file's name, as a source crate's lock names its archive.
    pub fn file_name(&self) -> String {
        let file = self.path.file_name().map(|f| f.to_string_lossy().to_string());
        file.unwrap_or_default()
    }

    /// Unpacks into `dir/openssl-X.Y.Z/` (replacing what a former run left there), mtimes
    /// kept; returns that tree.
    pub fn unpack(&self, dir: &Path) -> Result<PathBuf> {
        let tree = dir.join(tree_name(&self.version));
        if tree.exists() {
            fs::remove_dir_all(&tree).with_context(|| format!("removing {}", tree.display()))?;
        }
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let mut archive = tar::Archive::new(GzDecoder::new(&self.bytes[..]));
        archive.set_preserve_mtime(true);
        archive
            .unpack(dir)
            .with_context(|| format!("unpacking {} into {}", self.path.display(), dir.display()))?;
        Ok(tree)
    }
}

/// The release an OpenSSL tarball holds, from its entries.
fn release_in(bytes: &[u8]) -> Result<String> {
    let mut archive = tar::Archive::new(GzDecoder::new(bytes));
    let mut top: Option<PathBuf> = None;
    let (mut configure, mut version_dat) = (false, None);
    let unreadable = "it is no gzip'd tar";
    for entry in archive.entries().context(unreadable)? {
        let mut entry = entry.context(unreadable)?;
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            continue;
        }
        let path = entry.path().context(unreadable)?.into_owned();
        let dir = inside(&path, top.as_deref())?;
        let rest = path.strip_prefix(&dir).unwrap_or(&path).to_path_buf();
        top.get_or_insert(dir);
        if kind.is_symlink() {
            let link = entry.link_name()?.unwrap_or_default().into_owned();
            inside(&path.parent().unwrap_or(Path::new("")).join(&link), top.as_deref())
                .with_context(|| format!("{} links to {}", path.display(), link.display()))?;
        } else if !(kind.is_file() || kind.is_dir()) {
            bail!("{} is neither a file, a directory nor a link", path.display());
        }
        if rest == Path::new("Configure") {
            configure = kind.is_file();
        } else if rest == Path::new("VERSION.dat") {
            let mut text = String::new();
            entry.read_to_string(&mut text).context("reading its VERSION.dat")?;
            version_dat = Some(text);
        }
    }
    let top = top.context("it is empty")?.display().to_string();
    if !configure {
        bail!("it has no {top}/Configure");
    }
    let dat = version_dat.with_context(|| format!("it has no {top}/VERSION.dat"))?;
    let version = release_of_version_dat(&dat).with_context(|| format!("{top}/VERSION.dat"))?;
    if top != tree_name(&version) {
        bail!("its directory is {top}/, but its VERSION.dat names OpenSSL {version}");
    }
    Ok(version)
}

/// The top directory of `path` (relative, no `..` climbing out), which must be `top` when
/// that is known.
fn inside(path: &Path, top: Option<&Path>) -> Result<PathBuf> {
    let mut depth: i32 = 0;
    let mut first = None;
    for c in path.components() {
        match c {
            Component::Normal(name) => {
                first.get_or_insert_with(|| PathBuf::from(name));
                depth += 1;
            }
            Component::CurDir => {}
            Component::ParentDir if depth > 1 => depth -= 1,
            _ => bail!("{} lies outside the release's directory", path.display()),
        }
    }
    let first = first.with_context(|| format!("`{}` names no file", path.display()))?;
    match top {
        Some(top) if top != first => {
            bail!(
                "it holds {} beside {}: a release is one directory",
                first.display(),
                top.display()
            )
        }
        _ => Ok(first),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    type Entries = Vec<(&'static str, String)>;

    const VERSION_DAT: &str = "MAJOR=3\nMINOR=6\nPATCH=3\nPRE_RELEASE_TAG=\nBUILD_METADATA=\n";

    /// A gzip'd tar of `(path, contents)`; a path ending in `/` is a directory.
    pub fn pack(entries: &[(&str, &str)]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut tar = tar::Builder::new(gz);
        for (path, text) in entries {
            let mut h = tar::Header::new_gnu();
            match path.strip_suffix('/') {
                Some(dir) => {
                    h.set_entry_type(tar::EntryType::Directory);
                    h.set_mode(0o755);
                    h.set_size(0);
                    tar.append_data(&mut h, dir, std::io::empty()).unwrap();
                }
                // The builder refuses `..`, as a tarball made to climb out would not.
                None if path.contains("..") => {
                    h.as_old_mut().name[..path.len()].copy_from_slice(path.as_bytes());
                    h.set_mode(0o644);
                    h.set_size(text.len() as u64);
                    h.set_cksum();
                    tar.append(&h, text.as_bytes()).unwrap();
                }
                None => {
                    h.set_mode(0o644);
                    h.set_size(text.len() as u64);
                    tar.append_data(&mut h, path, text.as_bytes()).unwrap();
                }
            }
        }
        tar.into_inner().unwrap().finish().unwrap()
    }

    pub fn release(version_dat: &str) -> Vec<(&'static str, String)> {
        vec![
            ("openssl-3.6.3/", String::new()),
            ("openssl-3.6.3/Configure", "#!/usr/bin/env perl\n".into()),
            ("openssl-3.6.3/VERSION.dat", version_dat.into()),
            ("openssl-3.6.3/crypto/x86_64cpuid.pl", "print 1;\n".into()),
        ]
    }

    fn written(dir: &Path, name: &str, entries: &[(&str, String)]) -> (PathBuf, String) {
        let entries: Vec<(&str, &str)> = entries.iter().map(|(p, t)| (*p, t.as_str())).collect();
        let bytes = pack(&entries);
        let path = dir.join(name);
        fs::write(&path, &bytes).unwrap();
        (path, crypto_build::sha256::hex(&bytes))
    }

    #[test]
    fn a_release_is_read_and_unpacked() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let (path, sha) = written(dir, "openssl-3.6.3.tar.gz", &release(VERSION_DAT));
        let t = Tarball::check(&path, &sha.to_uppercase()).unwrap();
        assert_eq!((t.version.as_str(), t.sha256.as_str()), ("3.6.3", sha.as_str()));
        let tree = t.unpack(&dir.join("out")).unwrap();
        assert_eq!(tree, dir.join("out/openssl-3.6.3"));
        assert_eq!(fs::read_to_string(tree.join("VERSION.dat")).unwrap(), VERSION_DAT);
        assert!(tree.join("crypto/x86_64cpuid.pl").is_file());
    }

    /// Each bad tarball is refused in one line, by its check alone (nothing unpacked).
    #[test]
    fn bad_tarballs_are_refused_in_one_line() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let good = release(VERSION_DAT);
        let without = |name: &str| -> Vec<(&'static str, String)> {
            good.iter().filter(|(p, _)| !p.ends_with(name)).cloned().collect()
        };
        let mut escaping = good.clone();
        escaping.push(("openssl-3.6.3/../evil", "x".into()));
        let mut two = good.clone();
        two.push(("other/file", "x".into()));
        let cases: [(&str, Entries, &str); 5] = [
            ("no-configure", without("/Configure"), "has no openssl-3.6.3/Configure"),
            ("no-version", without("/VERSION.dat"), "has no openssl-3.6.3/VERSION.dat"),
            (
                "misnamed",
                release(&VERSION_DAT.replace("PATCH=3", "PATCH=4")),
                "names OpenSSL 3.6.4",
            ),
            ("escaping", escaping, "outside the release's directory"),
            ("two", two, "beside openssl-3.6.3"),
        ];
        for (name, entries, want) in cases {
            let (path, sha) = written(dir, &format!("{name}.tar.gz"), &entries);
            let e = format!("{:#}", Tarball::check(&path, &sha).err().expect(name));
            assert!(e.contains(want) && !e.contains('\n'), "{name}: {e}");
        }
        let (path, sha) = written(dir, "good.tar.gz", &good);
        let other = sha.replace(&sha[..1], if sha.starts_with('0') { "1" } else { "0" });
        let e = format!("{:#}", Tarball::check(&path, &other).err().unwrap());
        assert!(e.contains(&format!("SHA-256 is {sha}, not {other}")), "{e}");
        let e = format!("{:#}", Tarball::check(&path, "abc").err().unwrap());
        assert!(e.contains("not a SHA-256"), "{e}");
        fs::write(dir.join("plain.tar.gz"), "not gzip").unwrap();
        let sha = crypto_build::sha256::hex(b"not gzip");
        let e = format!("{:#}", Tarball::check(&dir.join("plain.tar.gz"), &sha).err().unwrap());
        assert!(e.contains("no gzip'd tar"), "{e}");
        assert_eq!(
            fs::read_dir(dir).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count(),
            0
        );
    }
}
