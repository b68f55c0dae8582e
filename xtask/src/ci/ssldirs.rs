//! A prefix built with `--openssldir ssl`: `bin/openssl` finds the installed `openssl.cnf`
//! with no OPENSSL_CONF (and serves the documented flows, `flows.rs`), a user's edit of it
//! survives a reinstall (which names what the new `.dist` adds), and the libraries differ
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
/// The key of the config that releases before the flows' fix lacked (4.0's `x509 -req`
/// needs it): what a reinstall over their config must name.
const EARLIER_LACKS: &str = "extensions";
/// libcrypto's units that see OPENSSLDIR (`crypto_build::openssldir` finds them).
const SEERS: usize = 4;

/// `default` is the prefix built without `--openssldir`, whose libraries are compared.
pub fn run(sh: &Shell, cargo: &str, default: &Path) -> Result<()> {
    let prefix = crate::cargo::project_root().join(PREFIX);
    crate::prefix::remove_earlier(&prefix)?;
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
    super::flows::on_prefix(&prefix, "openssldir-flows")?;
    println!(
        "--openssldir ssl: bin/openssl reads {}/openssl.cnf with no OPENSSL_CONF",
        ssl.display()
    );

    reinstall_over_an_edit(sh, cargo, &prefix, &tool)?;
    only_seers_differ(default, &prefix)
}

/// A reinstall over a user's edit of the config an earlier release shipped: the edit and
/// `private/` kept, `req` reading the edit, and one line naming what the new `.dist` adds.
fn reinstall_over_an_edit(sh: &Shell, cargo: &str, prefix: &Path, tool: &Tool) -> Result<()> {
    let ssl = prefix.join(DIR);
    edit(&ssl)?;
    let out = install(sh, cargo, prefix).context("reinstalling over an edited openssl.cnf")?;
    installed_as_shipped(&ssl).context("after a reinstall")?;
    ensure!(ssl.join("private/key.pem").exists(), "the reinstall lost private/key.pem");
    let notices: Vec<&str> = out.lines().filter(|l| l.starts_with("kept ")).collect();
    let conf = ssl.join("openssl.cnf");
    let want = format!("against the earlier release's: adds {EARLIER_LACKS}");
    ensure!(
        matches!(&notices[..], [n] if n.starts_with(&format!("kept {} (yours", conf.display()))
            && n.ends_with(&want)),
        "the reinstall should say in one line that it kept {}, ending `{}`:\n{out}",
        conf.display(),
        want
    );
    apps::self_signed(tool, &[])?;
    let subject = tool.output(&["x509", "-in", "cert.pem", "-noout", "-subject"])?;
    ensure!(subject.contains(EDITED_CN), "the edited openssl.cnf was not read: {subject}");
    println!(
        "--openssldir ssl: a reinstall kept the edited openssl.cnf and private/, and req reads it"
    );
    println!("--openssldir ssl: the reinstall said: {}", notices[0]);
    Ok(())
}

/// Installs the prefix; returns what the build printed.
fn install(sh: &Shell, cargo: &str, prefix: &Path) -> Result<String> {
    let out = cmd!(sh, "{cargo} xtask build --prefix {prefix} --apps --openssldir {DIR}").read()?;
    println!("{out}");
    let line = out.lines().find(|l| l.starts_with("config: ")).unwrap_or("");
    let want = format!("openssl reads {}/openssl.cnf", prefix.join(DIR).display());
    ensure!(line.contains(&want), "the summary should say `{want}`:\n{out}");
    Ok(out)
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
/// And the `.dist` beside it an earlier release's, which lacked [`EARLIER_LACKS`].
fn edit(ssl: &Path) -> Result<()> {
    let conf = ssl.join("openssl.cnf");
    let shipped = FILES[0].1;
    ensure!(fs::read_to_string(&conf)? == shipped, "{} is not the shipped one", conf.display());
    let edit = format!(
        "\n[ req ]\nprompt = no\ndistinguished_name = edited_dn\n[ edited_dn ]\nCN = {EDITED_CN}\n"
    );
    fs::write(&conf, format!("{shipped}{edit}"))?;
    fs::write(ssl.join("private/key.pem"), "a user's key\n")?;
    let key = format!("{EARLIER_LACKS} =");
    let earlier: Vec<&str> = shipped.lines().filter(|l| !l.starts_with(&key)).collect();
    ensure!(earlier.len() + 1 == shipped.lines().count(), "openssl.cnf sets no `{key}`");
    fs::write(ssl.join("openssl.cnf.dist"), earlier.join("\n"))?;
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
