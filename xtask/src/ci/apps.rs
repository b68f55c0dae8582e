//! The prefix's `bin/openssl` (`cargo xtask build --apps`), as people check an OpenSSL build:
//! `version -a` naming what was built, `speed` on AES-256-GCM, and `req -x509` reading the
//! configuration the prefix installed through OPENSSL_CONF, as the build's summary says (the
//! documented flows on a prefix that reads it with no variable are `flows.rs`').

use crate::runner::Runner;
use anyhow::{ensure, Context, Result};
use crypto_build::facts::BuildFacts;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs every check against `prefix/bin/openssl`, whose `version -a` must name the set, C
/// variant, legacy provider and OPENSSLDIR of the prefix's build facts. OPENSSLDIR is the
/// default, outside the prefix: the installed `ssl/openssl.cnf` is used through OPENSSL_CONF,
/// as the build's summary tells users to.
pub fn run(prefix: &Path) -> Result<()> {
    let openssl = prefix.join("bin/openssl");
    ensure!(openssl.exists(), "{} is missing; build the prefix with --apps", openssl.display());
    let work = work_dir("apps-test")?;
    let conf = prefix.join(crate::prefix::SSL_DIR).join("openssl.cnf");
    ensure!(conf.exists(), "{} is missing: the prefix installed no config", conf.display());
    let tool = Tool { runner: Runner::Native, exe: &openssl, conf: Some(&conf), cwd: &work };

    version(Runner::Native, prefix)?;

    let speed = tool.output(&["speed", "-seconds", "1", "-evp", "aes-256-gcm"])?;
    let figures = speed_figures(&speed, "AES-256-GCM")
        .with_context(|| format!("openssl speed printed no AES-256-GCM figures:\n{speed}"))?;
    ensure!(figures.iter().all(|&f| f > 0.0), "openssl speed: a zero figure: {figures:?}");
    println!("openssl speed -evp aes-256-gcm: {} block sizes measured", figures.len());

    self_signed(&tool, &["-subj", "/CN=localhost"])?;
    super::flows::check_ca(&tool, "cert.pem").context("req -x509 through OPENSSL_CONF")?;
    println!("openssl req -x509: the installed config's v3_ca, read through OPENSSL_CONF");
    Ok(())
}

/// The prefix's `openssl` program of a target that runs here under `runner` (wine): `version
/// -a` against its build facts, and the TLS 1.3 handshake between two of its processes, with
/// the configuration the prefix installed.
pub fn under(runner: Runner, prefix: &Path) -> Result<()> {
    version(runner, prefix)?;
    let openssl = crate::prefix::program_path(prefix)?;
    let name = prefix.file_name().context("the prefix's name")?.to_string_lossy();
    let work = work_dir(&format!("apps-test-{name}"))?;
    let conf = prefix.join(crate::prefix::SSL_DIR).join("openssl.cnf");
    ensure!(conf.exists(), "{} is missing: the prefix installed no config", conf.display());
    let tool = Tool { runner, exe: &openssl, conf: Some(&conf), cwd: &work };
    self_signed(&tool, &["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])?;
    let suite = super::flows::tls13_handshake(&tool, ("cert.pem", "key.pem"), "cert.pem")?;
    println!("openssl s_server/s_client: TLS 1.3, {suite}, certificate verified");
    Ok(())
}

/// An empty `target/<name>`, for a program's files.
pub fn work_dir(name: &str) -> Result<PathBuf> {
    let work = crate::cargo::project_root().join("target").join(name);
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    Ok(work)
}

/// `bin/openssl version -a` under `runner`, checked against the prefix's build summary.
pub fn version(runner: Runner, prefix: &Path) -> Result<()> {
    let facts = crate::prefix::facts(prefix)?;
    let (program, text) = crate::prefix::version_output(runner, prefix)?;
    check_version(&text, &facts)?;
    let platform = text.lines().find(|l| l.starts_with("platform: ")).unwrap_or("");
    println!("{} version -a ({runner}): {}", program.display(), platform.trim());
    Ok(())
}

/// `bin/openssl`, run by `runner` in `cwd` with OPENSSL_CONF set to `conf`, or unset.
pub struct Tool<'a> {
    pub runner: Runner,
    pub exe: &'a Path,
    pub conf: Option<&'a Path>,
    pub cwd: &'a Path,
}

impl Tool<'_> {
    pub fn command(&self, args: &[&str]) -> Result<Command> {
        let mut cmd = self.runner.command(self.exe)?;
        cmd.args(args).current_dir(self.cwd);
        match self.conf {
            Some(conf) => cmd.env("OPENSSL_CONF", conf),
            None => cmd.env_remove("OPENSSL_CONF"),
        };
        Ok(cmd)
    }

    pub fn output(&self, args: &[&str]) -> Result<String> {
        let out = self.command(args)?.stdin(Stdio::null()).output()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            out.status.success(),
            "openssl {} failed ({}): {}{}",
            args.join(" "),
            out.status,
            text,
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(text)
    }
}

/// `version -a` must give the version, on its platform line the set, the C variant and the
/// legacy provider the build's facts record, and their OPENSSLDIR.
fn check_version(version: &str, facts: &BuildFacts) -> Result<()> {
    let first = version.lines().next().unwrap_or("");
    let want_first = format!("OpenSSL {} ", facts.openssl_version);
    ensure!(first.starts_with(&want_first), "openssl version -a: `{first}`");
    let platform = version.lines().find(|l| l.starts_with("platform: ")).unwrap_or("");
    let (set, variant) = (&facts.effective_set, facts.c_variant_name());
    let legacy = if facts.legacy_provider { "built in" } else { "left out" };
    for want in [
        format!("crypto-sys: set {set} "),
        format!("C variant {variant},"),
        format!("legacy provider {legacy})"),
    ] {
        ensure!(platform.contains(&want), "openssl version -a: `{platform}` lacks `{want}`");
    }
    // OpenSSL's optimisation: -O3, or its VC-* targets' /O2.
    let optimised = |l: &str| [" -O3", " /O2"].iter().any(|o| l.contains(o));
    ensure!(
        version.lines().any(|l| l.starts_with("compiler: ") && optimised(l)),
        "openssl version -a names no compiler line with OpenSSL's flags:\n{version}"
    );
    ensure!(!version.contains("1970"), "version -a should carry no build date:\n{version}");
    let dir = format!("OPENSSLDIR: \"{}\"", facts.openssldir);
    ensure!(version.lines().any(|l| l == dir), "openssl version -a lacks `{dir}`:\n{version}");
    Ok(())
}

/// The figures of `openssl speed`'s result line for `name` (bytes per second, in thousands).
fn speed_figures(speed: &str, name: &str) -> Option<Vec<f64>> {
    let line = speed.lines().rev().find(|l| l.starts_with(name))?;
    let figures: Vec<f64> = line[name.len()..]
        .split_whitespace()
        .map(|f| f.trim_end_matches('k').parse().ok())
        .collect::<Option<_>>()?;
    (!figures.is_empty()).then_some(figures)
}

/// `req -x509 -newkey rsa:2048` for `key.pem` and `cert.pem`, with `more` arguments: what
/// fails without a configuration (`Can't open ".../openssl.cnf"`).
pub fn self_signed(tool: &Tool, more: &[&str]) -> Result<()> {
    let args = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem"];
    let args = [&args[..], &["-out", "cert.pem", "-days", "2"], more].concat();
    tool.output(&args).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `openssl version -a` of a build of the default line.
    const VERSION: &str =
        "OpenSSL {release} 30 Sep 2025 (Library: OpenSSL {release} 30 Sep 2025)\n\
        built on: reproducible build, date unspecified\n\
        platform: linux-x86_64 (crypto-sys: set asm requested auto, GNU as 2.40, C variant \
        ec_nistp_64_gcc_128, legacy provider built in)\n\
        options:  bn(64,64)\n\
        compiler: cc -fPIC -pthread -m64 -Wa,--noexecstack -Wall -O3 -DNDEBUG\n\
        OPENSSLDIR: \"/usr/local/ssl\"\n";
    #[test]
    fn version_must_name_the_built_set_variant_and_provider() {
        let facts = crate::prefix::sample_facts();
        let version = VERSION.replace("{release}", &facts.openssl_version);
        let version = version.as_str();
        check_version(version, &facts).unwrap();
        let other_set = BuildFacts { effective_set: "asm_avx2".into(), ..facts.clone() };
        assert!(check_version(version, &other_set).is_err());
        let plain = BuildFacts { c_variant: None, ..facts.clone() };
        let e = check_version(version, &plain).unwrap_err().to_string();
        assert!(e.contains("lacks `C variant none,`"), "{e}");
        let no_legacy = BuildFacts { legacy_provider: false, ..facts.clone() };
        assert!(check_version(version, &no_legacy).is_err());
        assert!(check_version(&version.replace(&facts.openssl_version, "3.0.2"), &facts).is_err());
        let elsewhere = BuildFacts { openssldir: "/w/prefix/ssl".into(), ..facts.clone() };
        let e = check_version(version, &elsewhere).unwrap_err().to_string();
        assert!(e.contains("lacks `OPENSSLDIR: \"/w/prefix/ssl\"`"), "{e}");
    }

    #[test]
    fn speed_figures_are_read_from_the_result_line() {
        let speed = "Doing AES-256-GCM ops for 1s on 16 size blocks: 1 AES-256-GCM ops in 1s\n\
            type             16 bytes     64 bytes    256 bytes   1024 bytes   8192 bytes  16384 bytes\n\
            AES-256-GCM     612345.67k  1834567.89k  4012345.12k  6523456.78k  9123456.00k  9234567.11k\n";
        let f = speed_figures(speed, "AES-256-GCM").unwrap();
        assert_eq!(f.len(), 6);
        assert_eq!(f[0], 612345.67);
        assert!(speed_figures("nothing here", "AES-256-GCM").is_none());
    }
}
