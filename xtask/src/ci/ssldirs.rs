//! A prefix built with `--openssldir ssl`: `bin/openssl` finds the installed `openssl.cnf`
//! with no OPENSSL_CONF, a user's edit of it survives a reinstall, and the libraries differ
//! from the default prefix's only in the units that see OPENSSLDIR, with no trace of the
//! default left.

use super::apps::{self, Tool};
use anyhow::{ensure, Context, Result};
use crypto_build::openssldir::FILES;
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

/// Where the step installs it, beside the default prefix.
const PREFIX: &str = "target/prefix-openssldir";
/// `--openssldir`, relative: under the prefix.
const DIR: &str = "ssl";
/// What a user's edit makes `req` put in a certificate's subject when given none.
const EDITED_CN: &str = "edited by the user";
/// libcrypto's units that see OPENSSLDIR (`crypto_build::openssldir` finds them).
const SEERS: usize = 4;

/// `default` is the prefix built without `--openssldir`, whose libraries are compared.
pub fn run(sh: &Shell, cargo: &str, default: &Path) -> Result<()> {
    let prefix = crate::cargo::project_root().join(PREFIX);
    // Fresh, so that the first install is one into an empty prefix.
    if prefix.exists() {
        fs::remove_dir_all(&prefix).with_context(|| format!("removing {}", prefix.display()))?;
    }
    install(sh, cargo, &prefix)?;
    let ssl = prefix.join(DIR);
    let facts = crate::prefix::facts(&prefix)?;
    ensure!(
        Path::new(&facts.openssldir) == ssl,
        "OPENSSLDIR {} is not {}",
        facts.openssldir,
        ssl.display()
    );
    installed_as_shipped(&ssl)?;
    let work = apps::work_dir("openssldir-test")?;
    let runner = crate::runner::Runner::Native;
    let tool = Tool { runner, exe: &prefix.join("bin/openssl"), conf: None, cwd: &work };
    let dir = tool.output(&["version", "-d"])?;
    ensure!(
        dir.trim() == format!("OPENSSLDIR: \"{}\"", ssl.display()),
        "openssl version -d: {dir}"
    );
    apps::self_signed(&tool, &["-subj", "/CN=localhost"]).context("req with no OPENSSL_CONF")?;
    println!(
        "--openssldir ssl: bin/openssl reads {}/openssl.cnf with no OPENSSL_CONF",
        ssl.display()
    );

    edit(&ssl)?;
    install(sh, cargo, &prefix).context("reinstalling over an edited openssl.cnf")?;
    installed_as_shipped(&ssl).context("after a reinstall")?;
    ensure!(ssl.join("private/key.pem").exists(), "the reinstall lost private/key.pem");
    apps::self_signed(&tool, &[])?;
    let subject = tool.output(&["x509", "-in", "cert.pem", "-noout", "-subject"])?;
    ensure!(subject.contains(EDITED_CN), "the edited openssl.cnf was not read: {subject}");
    println!(
        "--openssldir ssl: a reinstall kept the edited openssl.cnf and private/, and req reads it"
    );
    only_seers_differ(default, &prefix)
}

fn install(sh: &Shell, cargo: &str, prefix: &Path) -> Result<()> {
    let out = cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps --openssldir {DIR}").read()?;
    println!("{out}");
    let line = out.lines().find(|l| l.starts_with("config: ")).unwrap_or("");
    let want = format!("openssl reads {}/openssl.cnf", prefix.join(DIR).display());
    ensure!(line.contains(&want), "the summary should say `{want}`:\n{out}");
    Ok(())
}

/// The `.dist` files, and `certs/` and `private/`, are what `make install_ssldirs` leaves;
/// `openssl.cnf` is a user's, and the shipped one only until edited.
fn installed_as_shipped(ssl: &Path) -> Result<()> {
    for (name, text) in FILES {
        let dist = ssl.join(format!("{name}.dist"));
        ensure!(fs::read_to_string(&dist)? == text, "{} is not the shipped {name}", dist.display());
    }
    ensure!(ssl.join("certs").is_dir() && ssl.join("private").is_dir(), "no certs/ or private/");
    Ok(())
}

/// A user's edit: `req` takes its subject from openssl.cnf; and a key kept in `private/`.
fn edit(ssl: &Path) -> Result<()> {
    let conf = ssl.join("openssl.cnf");
    let shipped = FILES[0].1;
    ensure!(fs::read_to_string(&conf)? == shipped, "{} is not the shipped one", conf.display());
    let edit = format!(
        "\n[ req ]\nprompt = no\ndistinguished_name = edited_dn\n[ edited_dn ]\nCN = {EDITED_CN}\n"
    );
    fs::write(&conf, format!("{shipped}{edit}"))?;
    fs::write(ssl.join("private/key.pem"), "a user's key\n")?;
    Ok(())
}

/// libssl.a the same bytes as the default prefix's; libcrypto.a different in the objects of
/// the units that see OPENSSLDIR only, each naming the new one; and neither library nor the
/// program holding the default's path, which a unit compiled with it would.
fn only_seers_differ(default: &Path, prefix: &Path) -> Result<()> {
    let read = |p: &Path, f: &str| {
        fs::read(p.join(f)).with_context(|| format!("reading {f} of {}", p.display()))
    };
    ensure!(read(default, "lib/libssl.a")? == read(prefix, "lib/libssl.a")?, "libssl.a differs");
    let (a, b) = (read(default, "lib/libcrypto.a")?, read(prefix, "lib/libcrypto.a")?);
    let objects = |ar| -> Result<Vec<Object>> {
        let members = super::repro::members(ar)?;
        Ok(members
            .into_iter()
            .filter(|m| !m.name.starts_with('/'))
            .map(|m| (m.name, m.data.to_vec()))
            .collect())
    };
    let (a, b) = (objects(&a)?, objects(&b)?);
    let new_dir = crate::prefix::facts(prefix)?.openssldir;
    let not_in = |x: &[Object], y: &[Object]| -> Vec<Object> {
        x.iter().filter(|m| !y.contains(m)).cloned().collect()
    };
    let (replaced, changed) = (not_in(&a, &b), not_in(&b, &a));
    ensure!(
        replaced.len() == SEERS && changed.len() == SEERS,
        "libcrypto.a: {} objects of the default prefix's replaced by {}, not {SEERS}",
        replaced.len(),
        changed.len()
    );
    for (name, data) in &changed {
        ensure!(contains(data, new_dir.as_bytes()), "{name} differs but does not name {new_dir}");
    }
    let default_dir = crate::prefix::facts(default)?.openssldir;
    for file in ["lib/libcrypto.a", "lib/libssl.a", "bin/openssl"] {
        ensure!(
            !contains(&read(prefix, file)?, default_dir.as_bytes()),
            "{file} of {} still holds {default_dir}: a unit that sees OPENSSLDIR kept the default",
            prefix.display()
        );
    }
    println!(
        "--openssldir ssl: libssl.a the same, libcrypto.a different in {SEERS} objects only, and \
         no trace of {default_dir}"
    );
    Ok(())
}

/// An archive member: its name (the object's cache key) and bytes.
type Object = (String, Vec<u8>);

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}
