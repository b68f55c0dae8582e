//! OPENSSLDIR and an installed prefix: `--openssldir` resolved as Configure resolves it, and
//! what `make install_ssldirs` installs, in OPENSSLDIR when it lies under the prefix, else in
//! the prefix's `ssl/` (nothing is written outside the prefix). A user's files there are
//! theirs: a reinstall never replaces them.

use anyhow::{bail, Context, Result};
use crypto_build::compile::SSL_DIR;
use crypto_build::openssldir::{self, FILES};
use std::fs;
use std::path::{Component, Path, PathBuf};

/// What marks a directory as one an install put OPENSSLDIR's files in (`make install_ssldirs`
/// refreshes it every time, and leaves `openssl.cnf` alone).
const DIST: &str = "openssl.cnf.dist";

/// `--openssldir DIR` as the absolute path compiled in: a relative DIR lies under the final
/// prefix, as Configure places it (but may not climb out of it), and may not be the prefix.
pub fn resolve(dir: Option<&str>, prefix: Option<&Path>) -> Result<Option<String>> {
    let Some(dir) = dir else { return Ok(None) };
    let resolved = if openssldir::is_absolute(dir) {
        dir.to_string()
    } else {
        let Some(prefix) = prefix else {
            bail!(
                "--openssldir {dir} is relative, so it lies under the prefix: give --prefix too, \
                 or an absolute DIR"
            );
        };
        let rel = Path::new(dir);
        let under = |c: Component| matches!(c, Component::Normal(_) | Component::CurDir);
        if dir.is_empty() || !rel.components().all(under) {
            bail!(
                "--openssldir {dir:?}: a relative DIR names a directory under the prefix, \
                 without `..`"
            );
        }
        let full = lexical(&final_prefix(prefix)?.join(rel));
        full.to_str().with_context(|| format!("{} is not UTF-8", full.display()))?.to_string()
    };
    openssldir::check(&resolved).context("--openssldir")?;
    if let Some(prefix) = prefix {
        placement(&resolved, &final_prefix(prefix)?)?;
    }
    Ok(Some(resolved))
}

/// The prefix as an absolute path, `.` and `..` resolved as written.
pub fn final_prefix(prefix: &Path) -> Result<PathBuf> {
    Ok(lexical(&std::path::absolute(prefix)?))
}

fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Where in the prefix OPENSSLDIR's files go.
#[derive(Debug, PartialEq, Eq)]
pub struct Placement {
    /// Relative to the prefix.
    pub rel: PathBuf,
    /// Whether that is OPENSSLDIR itself.
    pub inside: bool,
}

/// OPENSSLDIR's place under the final prefix `prefix`, else [`crate::prefix::SSL_DIR`].
pub fn placement(dir: &str, prefix: &Path) -> Result<Placement> {
    match Path::new(dir).strip_prefix(prefix) {
        Ok(rel) if rel.as_os_str().is_empty() => bail!(
            "OPENSSLDIR {dir} is the prefix itself; name a directory under it (--openssldir ssl)"
        ),
        Ok(rel) => Ok(Placement { rel: rel.to_path_buf(), inside: true }),
        Err(_) => Ok(Placement { rel: crate::prefix::SSL_DIR.into(), inside: false }),
    }
}

/// The summary's line saying where `openssl` looks for its configuration, and how to point
/// it at the installed one when that is not there.
pub fn config_line(dir: &str, prefix: &Path, place: &Placement) -> String {
    if place.inside {
        return format!(
            "config: openssl reads {dir}/openssl.cnf (OPENSSLDIR, in the prefix), installed \
             there with certs/ and private/"
        );
    }
    let conf = prefix.join(&place.rel).join("openssl.cnf");
    format!(
        "config: openssl reads {dir}/openssl.cnf (OPENSSLDIR, outside the prefix: nothing was \
         written there); to use the installed {}, set OPENSSL_CONF to it or build with \
         --openssldir ssl",
        conf.display()
    )
}

/// What [`install`] kept from the prefix it replaces, for the user to hear of.
#[derive(Debug, Default)]
pub struct Kept {
    /// The earlier OPENSSLDIRs kept elsewhere than the new one, relative to the prefix.
    pub elsewhere: Vec<PathBuf>,
    /// A line for each file kept although this release ships another one.
    pub notices: Vec<String>,
}

/// `make install_ssldirs` into the staged prefix `staged`, at `rel`, from the build's copies
/// in `out_dir`. First every OPENSSLDIR of the prefix it replaces (`old`) is carried over
/// whole: a user's `openssl.cnf`, certificates and keys. Then the `.dist` files are refreshed,
/// and `openssl.cnf`, `ct_log_list.cnf`, `certs/` and `private/` made where absent.
pub fn install(out_dir: &Path, staged: &Path, old: &Path, rel: &Path) -> Result<Kept> {
    let mut earlier = Vec::new();
    if old.join(crate::prefix::MARKER).exists() {
        find_earlier(old, Path::new(""), &mut earlier)?;
    }
    for e in &earlier {
        copy_tree(&old.join(e), &staged.join(e))
            .with_context(|| format!("keeping {}", old.join(e).display()))?;
    }
    let dir = staged.join(rel);
    let absent = |p: &Path| p.symlink_metadata().is_err();
    fs::create_dir_all(dir.join("certs"))?;
    if absent(&dir.join("private")) {
        fs::create_dir(dir.join("private"))?;
        // Keys go there: for their owner only (make install leaves it to the umask).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(dir.join("private"), fs::Permissions::from_mode(0o700))?;
        }
    }
    let mut notices = Vec::new();
    for (name, _) in FILES {
        let from = out_dir.join(SSL_DIR).join(name);
        let dist = dir.join(format!("{name}.dist"));
        let shipped_before = fs::read_to_string(&dist).ok();
        // Never through a link a user put there.
        let _ = fs::remove_file(&dist);
        fs::copy(&from, &dist).with_context(|| format!("installing {}", dist.display()))?;
        if absent(&dir.join(name)) {
            fs::copy(&from, dir.join(name))?;
        } else if let Ok(users) = fs::read_to_string(dir.join(name)) {
            let texts = Texts { users, shipped_before, shipped: fs::read_to_string(&from)? };
            notices.extend(texts.notice(&old.join(rel).join(name)));
        }
    }
    earlier.retain(|e| e != rel);
    Ok(Kept { elsewhere: earlier, notices })
}

/// A kept file of OPENSSLDIR, and what was shipped as it then and now.
struct Texts {
    users: String,
    /// The `.dist` beside it before this install: what the release it came from shipped.
    shipped_before: Option<String>,
    shipped: String,
}

impl Texts {
    /// One line when this release ships another file than the user's and than the one it
    /// came from: that the user's stays, that the `.dist` is the new one, and what changed
    /// (from the earlier release's, or from the user's when that `.dist` is gone).
    fn notice(&self, path: &Path) -> Option<String> {
        if self.users == self.shipped || self.shipped_before.as_ref() == Some(&self.shipped) {
            return None;
        }
        let (against, base) = match &self.shipped_before {
            Some(before) => ("the earlier release's", before),
            None => ("yours", &self.users),
        };
        let name = path.file_name()?.to_string_lossy();
        Some(format!(
            "kept {} (yours, never replaced); {name}.dist beside it is this release's, and \
             against {against}: {}",
            path.display(),
            super::cnf_changes::describe(base, &self.shipped)
        ))
    }
}

/// The directories under `root` (relative, not followed through links) that hold
/// [`DIST`]; not looked into further, as each is kept whole.
fn find_earlier(root: &Path, rel: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let dir = root.join(rel);
    if dir.join(DIST).symlink_metadata().is_ok_and(|m| m.is_file()) {
        out.push(rel.to_path_buf());
        return Ok(());
    }
    for e in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e?;
        if e.file_type()?.is_dir() {
            find_earlier(root, &rel.join(e.file_name()), out)?;
        }
    }
    Ok(())
}

/// Copies `from` into `to` as it is (modes, and links as links); what the new install put
/// there already stays.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if to.symlink_metadata().is_err() {
        fs::create_dir_all(to)?;
        fs::set_permissions(to, fs::metadata(from)?.permissions())?;
    }
    for e in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_tree(&src, &dst)?;
        } else if dst.symlink_metadata().is_ok() {
            continue;
        } else if ty.is_symlink() {
            copy_link(&src, &dst)?;
        } else if ty.is_file() {
            fs::copy(&src, &dst).with_context(|| format!("copying {}", src.display()))?;
        } else {
            bail!(
                "{} is not a file, a directory or a link; move it out of the prefix",
                src.display()
            );
        }
    }
    Ok(())
}

#[cfg(unix)]
fn copy_link(src: &Path, dst: &Path) -> Result<()> {
    std::os::unix::fs::symlink(fs::read_link(src)?, dst)
        .with_context(|| format!("copying the link {}", src.display()))
}

/// Windows links need privileges to make: what they point at is copied instead.
#[cfg(not(unix))]
fn copy_link(src: &Path, dst: &Path) -> Result<()> {
    fs::copy(src, dst).with_context(|| format!("copying {}", src.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_dir_lies_under_the_final_prefix_and_needs_one() {
        let cwd = std::env::current_dir().unwrap();
        let got = resolve(Some("./etc/ssl"), Some(Path::new("out/../p"))).unwrap().unwrap();
        assert_eq!(Path::new(&got), cwd.join("p/etc/ssl"));
        assert_eq!(resolve(Some("/etc/ssl"), None).unwrap().as_deref(), Some("/etc/ssl"));
        assert_eq!(
            resolve(Some("C:/ssl"), Some(Path::new("p"))).unwrap().as_deref(),
            Some("C:/ssl")
        );
        assert_eq!(resolve(None, Some(Path::new("p"))).unwrap(), None);
        let e = resolve(Some("ssl"), None).unwrap_err().to_string();
        assert!(e.contains("relative") && e.contains("give --prefix too"), "{e}");
        for bad in ["../ssl", "ssl/../../x", ""] {
            let e = format!("{:#}", resolve(Some(bad), Some(Path::new("p"))).unwrap_err());
            assert!(e.contains("without `..`"), "{bad}: {e}");
        }
        let e = format!("{:#}", resolve(Some("/etc/ss\tl"), None).unwrap_err());
        assert!(e.contains("printable ASCII") && !e.contains('\n'), "{e}");
        let e = resolve(Some("."), Some(Path::new("p"))).unwrap_err().to_string();
        assert!(e.contains("is the prefix itself"), "{e}");
    }

    #[test]
    fn outside_the_prefix_the_files_go_to_ssl_and_the_line_says_how_to_use_them() {
        let prefix = Path::new("/w/p");
        let inside = placement("/w/p/etc/ssl", prefix).unwrap();
        assert_eq!(inside, Placement { rel: "etc/ssl".into(), inside: true });
        let outside = placement("/usr/local/ssl", prefix).unwrap();
        assert_eq!(outside, Placement { rel: "ssl".into(), inside: false });
        assert!(placement("/w/p", prefix).unwrap_err().to_string().contains("prefix itself"));
        let line = config_line("/usr/local/ssl", prefix, &outside);
        assert!(line.contains("reads /usr/local/ssl/openssl.cnf"), "{line}");
        assert!(line.contains("installed /w/p/ssl/openssl.cnf, set OPENSSL_CONF"), "{line}");
        assert!(line.contains("--openssldir ssl") && !line.contains('\n'), "{line}");
        let line = config_line("/w/p/etc/ssl", prefix, &inside);
        assert!(line.contains("reads /w/p/etc/ssl/openssl.cnf") && !line.contains("OPENSSL_CONF"));
    }

    #[test]
    fn a_kept_file_is_told_of_only_when_this_release_ships_another() {
        let texts = |users: &str, before: Option<&str>| Texts {
            users: users.into(),
            shipped_before: before.map(String::from),
            shipped: "a = 1\nb = 2\n".into(),
        };
        let path = Path::new("/p/ssl/openssl.cnf");
        // The same release again, or the user's file already the new one: nothing to say.
        assert_eq!(texts("edited = 1\n", Some("a = 1\nb = 2\n")).notice(path), None);
        assert_eq!(texts("a = 1\nb = 2\n", Some("a = 0\n")).notice(path), None);
        let line = texts("a = 1\n", Some("a = 0\n")).notice(path).unwrap();
        assert!(line.starts_with("kept /p/ssl/openssl.cnf (yours, never replaced); "), "{line}");
        assert!(line.ends_with("against the earlier release's: adds b; changes a"), "{line}");
        // Without the earlier .dist, against the user's own.
        let line = texts("a = 1\n", None).notice(path).unwrap();
        assert!(line.ends_with("and against yours: adds b"), "{line}");
        assert!(!line.contains('\n'));
    }

    /// What a reinstall over an earlier prefix keeps: every file of its OPENSSLDIRs, the
    /// user's config first of all; only the `.dist` files are new.
    #[test]
    fn a_reinstall_keeps_the_users_files_and_refreshes_the_dist_files() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let out = dir.join("out");
        fs::create_dir_all(out.join(SSL_DIR)).unwrap();
        for (name, _) in FILES {
            fs::write(out.join(SSL_DIR).join(name), format!("new {name}\n")).unwrap();
        }
        let (old, staged) = (dir.join("prefix"), dir.join("staged"));
        fs::create_dir_all(&old).unwrap();
        // A first install, into an empty prefix.
        let first = install(&out, &old, &dir.join("none"), Path::new("ssl")).unwrap();
        assert!(first.elsewhere.is_empty() && first.notices.is_empty(), "{first:?}");
        fs::write(old.join(crate::prefix::MARKER), "x").unwrap();
        let ssl = old.join("ssl");
        assert_eq!(fs::read_to_string(ssl.join("openssl.cnf")).unwrap(), "new openssl.cnf\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(ssl.join("private")).unwrap().permissions().mode() & 0o777,
                0o700
            );
            std::os::unix::fs::symlink("cert.pem", ssl.join("certs/1a2b3c4d.0")).unwrap();
        }
        fs::write(ssl.join("openssl.cnf"), "edited\n").unwrap();
        fs::write(ssl.join("openssl.cnf.dist"), "[ old ]\n").unwrap();
        fs::write(ssl.join("certs/cert.pem"), "a certificate\n").unwrap();
        fs::write(ssl.join("private/key.pem"), "a key\n").unwrap();
        // An OPENSSLDIR of an install with another --openssldir.
        fs::create_dir_all(old.join("etc/ssl")).unwrap();
        fs::write(old.join("etc/ssl/openssl.cnf.dist"), "older\n").unwrap();
        fs::create_dir_all(&staged).unwrap();
        let kept = install(&out, &staged, &old, Path::new("ssl")).unwrap();
        assert_eq!(kept.elsewhere, [PathBuf::from("etc/ssl")]);
        // The shipped openssl.cnf changed since the user's came; ct_log_list.cnf is as shipped.
        let conf = ssl.join("openssl.cnf").display().to_string();
        assert_eq!(
            kept.notices,
            [format!(
                "kept {conf} (yours, never replaced); openssl.cnf.dist beside it is this \
                 release's, and against the earlier release's: removes [old]"
            )]
        );
        let read = |p: &str| fs::read_to_string(staged.join(p)).unwrap();
        assert_eq!(read("ssl/openssl.cnf"), "edited\n");
        assert_eq!(read("ssl/openssl.cnf.dist"), "new openssl.cnf\n");
        assert_eq!(read("ssl/ct_log_list.cnf"), "new ct_log_list.cnf\n");
        assert_eq!(read("ssl/certs/cert.pem"), "a certificate\n");
        assert_eq!(read("ssl/private/key.pem"), "a key\n");
        assert_eq!(read("etc/ssl/openssl.cnf.dist"), "older\n");
        #[cfg(unix)]
        assert_eq!(
            fs::read_link(staged.join("ssl/certs/1a2b3c4d.0")).unwrap(),
            Path::new("cert.pem")
        );
    }
}
