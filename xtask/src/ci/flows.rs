//! The `openssl` flows docs/prefix.md documents, run as a new user runs them by a prefix's
//! `bin/openssl` on the `openssl.cnf` it installed in OPENSSLDIR, with no OPENSSL_CONF and no
//! -extfile: a CA made by `req -x509`; requests made by `req -new`, one signed by `x509 -req`,
//! one by `ca` from a `demoCA` tree; both verified; `pkcs12 -export` and back; TLS 1.3
//! between `s_server` and `s_client` with the signed certificate. Each certificate is read
//! back with `x509 -text` for the extensions the config promises.

use super::apps::{self, Tool};
use crate::runner::Runner;
use anyhow::{bail, ensure, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The release from which `openssl x509` without -extfile takes a certificate's extensions
/// from the main config (4.0's apps/x509.c: the section its default section's `extensions`
/// names, else the default section itself). Before it, `x509 -req` reads no config, and gives
/// only the key identifiers it gives every certificate.
const X509_READS_CONFIG_FROM: &str = "4.0.0";

/// What the config's `v3_ca` gives the CA `req -x509` makes: (critical, value).
const CA_BASIC: (bool, &str) = (true, "CA:TRUE");
/// What its `usr_cert` gives the certificates `ca` and `x509 -req` sign.
const END_ENTITY_BASIC: (bool, &str) = (false, "CA:FALSE");

/// The first serial number of the `demoCA` tree, hex as ca(1) reads its `serial` file.
const FIRST_SERIAL: &str = "1000";
const PASS: &str = "pass:crypto-sys test";

/// Runs every flow on `prefix`, whose OPENSSLDIR must be in it (`--openssldir ssl`), in an
/// empty `target/<work>`.
pub fn on_prefix(prefix: &Path, work: &str) -> Result<()> {
    let facts = crate::prefix::facts(prefix)?;
    let conf = Path::new(&facts.openssldir).join("openssl.cnf");
    ensure!(
        Path::new(&facts.openssldir).starts_with(prefix) && conf.is_file(),
        "{} reads {}, not a config in the prefix: build it with --apps --openssldir ssl",
        prefix.display(),
        conf.display()
    );
    let work = apps::work_dir(work)?;
    let tool =
        Tool { runner: Runner::Native, exe: &prefix.join("bin/openssl"), conf: None, cwd: &work };
    run(&tool, &facts.openssl_version)
        .with_context(|| format!("OpenSSL {}'s flows on {}", facts.openssl_version, conf.display()))
}

fn run(tool: &Tool, version: &str) -> Result<()> {
    let self_signed = ["req", "-x509", "-newkey", "rsa:2048", "-noenc", "-keyout", "ca.key"];
    tool.output(
        &[&self_signed[..], &["-out", "ca.pem", "-subj", "/CN=crypto-sys test CA"]].concat(),
    )
    .context("req -x509")?;
    let ca = check_ca(tool, "ca.pem")?;

    request(tool, "x509-leaf")?;
    let sign = ["x509", "-req", "-in", "x509-leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key"];
    tool.output(&[&sign[..], &["-CAcreateserial", "-out", "x509-leaf.pem", "-days", "2"]].concat())
        .context("x509 -req, with no -extfile")?;
    let basic = crypto_build::version::at_least(version, X509_READS_CONFIG_FROM)
        .then_some(END_ENTITY_BASIC);
    check_extensions(tool, "x509-leaf.pem", basic, Some(&ca))?;

    request(tool, "ca-leaf")?;
    sign_with_ca(tool, "ca-leaf")?;
    check_extensions(tool, "ca-leaf.pem", Some(END_ENTITY_BASIC), Some(&ca))?;

    let verified = tool.output(&["verify", "-CAfile", "ca.pem", "x509-leaf.pem", "ca-leaf.pem"])?;
    ensure!(
        verified == "x509-leaf.pem: OK\nca-leaf.pem: OK\n",
        "verify -CAfile ca.pem: {verified}"
    );
    pkcs12_round_trip(tool, "x509-leaf")?;
    tls13_handshake(tool, ("x509-leaf.pem", "x509-leaf.key"), "ca.pem")?;
    let with =
        if basic.is_some() { "basicConstraints and key identifiers" } else { "key identifiers" };
    println!(
        "OpenSSL {version}, installed openssl.cnf: req -x509, req -new, x509 -req ({with}), ca \
         (basicConstraints and key identifiers), verify, pkcs12 and back, TLS 1.3"
    );
    Ok(())
}

/// `req -new` for `NAME.key` and `NAME.csr`, for the host name the TLS flow checks.
fn request(tool: &Tool, name: &str) -> Result<()> {
    let (key, csr) = (format!("{name}.key"), format!("{name}.csr"));
    let args = ["req", "-new", "-newkey", "rsa:2048", "-noenc", "-keyout", &key, "-out", &csr];
    tool.output(&[&args[..], &["-subj", "/CN=localhost"]].concat()).context("req -new").map(drop)
}

/// The `demoCA` tree docs/prefix.md describes (ca(1)'s layout under the config's `dir`), with
/// the CA of `ca.pem`, then `ca -batch` signing `NAME.csr` into `NAME.pem`; the tree must then
/// hold it under its serial, in `newcerts/` and in `index.txt`.
fn sign_with_ca(tool: &Tool, name: &str) -> Result<()> {
    let dir = tool.cwd.join("demoCA");
    for sub in ["certs", "crl", "newcerts", "private"] {
        fs::create_dir_all(dir.join(sub))?;
    }
    fs::write(dir.join("index.txt"), "")?;
    fs::write(dir.join("serial"), format!("{FIRST_SERIAL}\n"))?;
    fs::copy(tool.cwd.join("ca.pem"), dir.join("cacert.pem"))?;
    fs::copy(tool.cwd.join("ca.key"), dir.join("private/cakey.pem"))?;
    let (csr, pem) = (format!("{name}.csr"), format!("{name}.pem"));
    tool.output(&["ca", "-batch", "-in", &csr, "-out", &pem]).context("ca, in a demoCA tree")?;
    let serial = tool.output(&["x509", "-in", &pem, "-noout", "-serial"])?;
    ensure!(serial.trim() == format!("serial={FIRST_SERIAL}"), "ca's certificate has {serial}");
    let kept = fs::read_to_string(dir.join(format!("newcerts/{FIRST_SERIAL}.pem")))
        .context("ca kept no copy in demoCA/newcerts")?;
    ensure!(
        certificates(&kept) == certificates(&fs::read_to_string(tool.cwd.join(&pem))?),
        "demoCA/newcerts/{FIRST_SERIAL}.pem is not the certificate ca wrote"
    );
    let index = fs::read_to_string(dir.join("index.txt"))?;
    let entry: Vec<&str> = index.split('\t').collect();
    ensure!(
        index.lines().count() == 1
            && entry.first() == Some(&"V")
            && entry.get(3) == Some(&FIRST_SERIAL)
            && index.trim_end().ends_with("/CN=localhost"),
        "demoCA/index.txt should list the one valid certificate {FIRST_SERIAL}: {index:?}"
    );
    Ok(())
}

/// That `cert`, made by `req -x509`, has the config's `v3_ca`; returns its key identifier.
pub fn check_ca(tool: &Tool, cert: &str) -> Result<String> {
    check_extensions(tool, cert, Some(CA_BASIC), None)
}

/// `cert`'s extensions as `x509 -text` shows them: its basicConstraints as `basic` says (or
/// none), a subject key identifier, and an authority key identifier that is `issuer`'s (or,
/// self-signed, its own). Returns its subject key identifier.
fn check_extensions(
    tool: &Tool,
    cert: &str,
    basic: Option<(bool, &str)>,
    issuer: Option<&str>,
) -> Result<String> {
    let text = tool.output(&["x509", "-in", cert, "-noout", "-text"])?;
    let found = extensions(&text).with_context(|| format!("{cert}: {text}"))?;
    let got_basic = found.get("Basic Constraints").map(|e| (e.critical, e.value.as_str()));
    ensure!(
        got_basic == basic,
        "{cert}: basicConstraints {got_basic:?}, not {basic:?}, in:\n{text}"
    );
    let skid = found.get("Subject Key Identifier").map(|e| e.value.clone());
    let skid = skid
        .filter(|k| !k.is_empty())
        .with_context(|| format!("{cert}: no subject key identifier:\n{text}"))?;
    let akid = found.get("Authority Key Identifier").map(|e| e.value.as_str());
    let want = issuer.unwrap_or(&skid);
    ensure!(
        akid == Some(want),
        "{cert}: authority key identifier {akid:?}, not the issuer's {want}:\n{text}"
    );
    Ok(skid)
}

/// An extension as `x509 -text` prints it.
#[derive(Debug, PartialEq)]
struct Extension {
    critical: bool,
    /// Its value's lines, trimmed, joined by a space.
    value: String,
}

/// The `X509v3 extensions:` block of `x509 -text`, by name (without `X509v3 `): each name at
/// the block's first indentation, its value on the deeper lines below it.
fn extensions(text: &str) -> Result<BTreeMap<String, Extension>> {
    let mut lines = text.lines().skip_while(|l| l.trim() != "X509v3 extensions:").skip(1);
    let first = lines.next().context("no X509v3 extensions")?;
    let depth = |l: &str| l.len() - l.trim_start().len();
    let top = depth(first);
    let mut out = BTreeMap::new();
    let mut current = String::new();
    for line in std::iter::once(first).chain(lines).take_while(|l| depth(l) >= top) {
        if depth(line) == top {
            let (name, rest) = line.trim().split_once(':').context("an extension without `:`")?;
            current = name.strip_prefix("X509v3 ").unwrap_or(name).to_string();
            let critical = rest.trim() == "critical";
            out.insert(current.clone(), Extension { critical, value: String::new() });
        } else if let Some(e) = out.get_mut(&current) {
            let sep = if e.value.is_empty() { "" } else { " " };
            e.value = format!("{}{sep}{}", e.value, line.trim());
        }
    }
    Ok(out)
}

/// `pkcs12 -export` of `NAME.pem`, `NAME.key` and the CA, then back: the same certificates,
/// and a key of the same public key.
fn pkcs12_round_trip(tool: &Tool, name: &str) -> Result<()> {
    let (pem, key) = (format!("{name}.pem"), format!("{name}.key"));
    let export = ["pkcs12", "-export", "-in", &pem, "-inkey", &key, "-certfile", "ca.pem"];
    tool.output(&[&export[..], &["-name", name, "-out", "back.p12", "-passout", PASS]].concat())
        .context("pkcs12 -export")?;
    let read = ["pkcs12", "-in", "back.p12", "-passin", PASS];
    let out = |more: &[&str]| tool.output(&[&read[..], more].concat());
    let file =
        |f: &str| Ok::<_, anyhow::Error>(certificates(&fs::read_to_string(tool.cwd.join(f))?));
    ensure!(
        certificates(&out(&["-nokeys", "-clcerts"])?) == file(&pem)?,
        "pkcs12 gave back another certificate than {pem}"
    );
    ensure!(
        certificates(&out(&["-nokeys", "-cacerts"])?) == file("ca.pem")?,
        "pkcs12 gave back another CA certificate"
    );
    out(&["-nocerts", "-noenc", "-out", "back.key"]).context("pkcs12, the key back")?;
    let public = |k: &str| tool.output(&["pkey", "-in", k, "-pubout"]);
    ensure!(public("back.key")? == public(&key)?, "pkcs12 gave back another key than {key}");
    Ok(())
}

/// The base64 lines of each PEM certificate in `text`, in order.
fn certificates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match line.trim() {
            "-----BEGIN CERTIFICATE-----" => current = Some(String::new()),
            "-----END CERTIFICATE-----" => out.extend(current.take()),
            l => {
                if let Some(c) = current.as_mut() {
                    c.push_str(l);
                }
            }
        }
    }
    out
}

/// `s_server` with the certificate and key of `(pem, key)` on a free loopback port for one
/// connection, and `s_client` verifying it against `ca` for `localhost` and negotiating TLS
/// 1.3; returns the ciphersuite line. The server answers in `-www` mode, which never reads its
/// standard input: a Windows s_server cannot wait on a pipe and a socket at once, and blocks
/// reading the pipe.
pub fn tls13_handshake(tool: &Tool, (pem, key): (&str, &str), ca: &str) -> Result<String> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port().to_string();
    let accept = format!("127.0.0.1:{port}");
    let server = tool
        .command(&[
            "s_server", "-accept", &accept, "-cert", pem, "-key", key, "-tls1_3", "-naccept", "1",
            "-www",
        ])?
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting openssl s_server")?;
    let mut server = KillOnDrop(server);
    wait_for_accept(&mut server.0)?;
    let client = tool
        .command(&[
            "s_client",
            "-connect",
            &accept,
            "-servername",
            "localhost",
            "-tls1_3",
            "-CAfile",
            ca,
            "-verify_return_error",
            "-verify_hostname",
            "localhost",
            "-brief",
        ])?
        .stdin(Stdio::null())
        .output()
        .context("running openssl s_client")?;
    // -brief reports the connection on stderr.
    let report = String::from_utf8_lossy(&client.stderr);
    ensure!(
        client.status.success()
            && report.contains("Protocol version: TLSv1.3")
            && report.contains("Verification: OK"),
        "s_client did not complete a verified TLS 1.3 handshake ({}):\n{report}",
        client.status
    );
    Ok(report.lines().find(|l| l.contains("Ciphersuite")).unwrap_or("").trim().to_string())
}

/// Reads s_server's output until it says it listens; it exits on its own after one client.
fn wait_for_accept(server: &mut Child) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let out = server.stdout.take().context("s_server's output")?;
    let mut lines = BufReader::new(out).lines();
    while Instant::now() < deadline {
        match lines.next().transpose()? {
            Some(line) if line.starts_with("ACCEPT") => return Ok(()),
            Some(_) => {}
            None => bail!("openssl s_server exited before accepting ({:?})", server.try_wait()),
        }
    }
    bail!("openssl s_server did not start listening within 60 s")
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Certificate:\n    Data:\n        Version: 3 (0x2)\n\
        \x20       X509v3 extensions:\n\
        \x20           X509v3 Basic Constraints: critical\n\
        \x20               CA:TRUE\n\
        \x20           X509v3 Subject Key Identifier: \n\
        \x20               FE:CC:79\n\
        \x20           X509v3 Authority Key Identifier: \n\
        \x20               DirName:/CN=ca\n\
        \x20               serial:10\n\
        \x20   Signature Algorithm: sha256WithRSAEncryption\n\
        \x20   Signature Value:\n        aa:bb\n";

    #[test]
    fn extensions_are_read_by_name_with_their_criticality_and_value() {
        let got = extensions(TEXT).unwrap();
        let e = |critical, value: &str| Extension { critical, value: value.into() };
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got["Basic Constraints"], e(true, "CA:TRUE"));
        assert_eq!(got["Subject Key Identifier"], e(false, "FE:CC:79"));
        assert_eq!(got["Authority Key Identifier"], e(false, "DirName:/CN=ca serial:10"));
        let none = extensions("Certificate:\n    Data:\n        Version: 1 (0x0)\n");
        assert!(none.unwrap_err().to_string().contains("no X509v3 extensions"));
    }

    #[test]
    fn certificates_are_the_base64_of_each_pem_block() {
        let text = "Bag Attributes\n-----BEGIN CERTIFICATE-----\nAAA\nBBB\n\
            -----END CERTIFICATE-----\nsubject=CN=x\n-----BEGIN CERTIFICATE-----\r\nCCC\r\n\
            -----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nDDD\n";
        assert_eq!(certificates(text), ["AAABBB", "CCC"]);
        assert!(certificates("no certificate").is_empty());
    }
}
