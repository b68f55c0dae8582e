//! The registry's answer about openssl-src: crates.io's sparse index file of the crate (one
//! JSON object a line, one line a version: `vers` `300.5.5+3.5.5`, `yanked`), fetched with
//! curl or read from a saved copy, and what it says of each OpenSSL series.

use anyhow::{bail, Context, Result};
use std::path::Path;
use xshell::{cmd, Shell};

/// openssl-src's file in crates.io's sparse index (the path cargo itself reads).
pub const INDEX_URL: &str = "https://index.crates.io/op/en/openssl-src";

/// One version of openssl-src on the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Published {
    /// The crate's version without its build metadata, `300.5.5`.
    pub crate_version: String,
    /// The OpenSSL release it holds (its build metadata), `3.5.5`.
    pub openssl: String,
    pub yanked: bool,
}

/// The index file's text: from `saved` when given, else fetched from [`INDEX_URL`].
pub fn answer(sh: &Shell, saved: Option<&Path>) -> Result<String> {
    match saved {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
        }
        None => {
            which::which("curl").context("curl is not installed (Debian package curl)")?;
            cmd!(sh, "curl --silent --show-error --fail --location --max-time 60 {INDEX_URL}")
                .quiet()
                .ignore_stderr()
                .read()
                .with_context(|| format!("fetching {INDEX_URL}"))
        }
    }
}

/// Every version the answer lists; an answer with none, or with a line that is not an index
/// entry, is refused (it cannot tell what is out).
pub fn parse(text: &str) -> Result<Vec<Published>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let entry: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("line {} of the answer is not JSON", n + 1))?;
        let (Some(vers), Some(yanked)) = (entry["vers"].as_str(), entry["yanked"].as_bool()) else {
            bail!("line {} of the answer has no `vers` and `yanked`", n + 1);
        };
        if entry["name"].as_str().is_some_and(|name| name != "openssl-src") {
            bail!("line {} of the answer is about another crate", n + 1);
        }
        // Versions before openssl-src named the OpenSSL release in their metadata say nothing.
        let Some((crate_version, openssl)) = vers.split_once('+') else { continue };
        out.push(Published {
            crate_version: crate_version.into(),
            openssl: openssl.into(),
            yanked,
        });
    }
    if out.is_empty() {
        bail!("the answer lists no version of openssl-src");
    }
    Ok(out)
}

/// A release's numbers (`3.5.5` → [3, 5, 5]), to order them; `None` for a pre-release or
/// anything else that is not three numbers.
pub fn release_number(release: &str) -> Option<[u32; 3]> {
    let mut parts = release.split('.').map(|p| p.parse::<u32>().ok());
    let number = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(number)
}

/// The newest release of `series` (`3.5`) that is not yanked, with its crate.
pub fn newest_of<'a>(published: &'a [Published], series: &str) -> Option<&'a Published> {
    published
        .iter()
        .filter(|p| !p.yanked && crypto_build::data::series_of(&p.openssl) == series)
        .filter_map(|p| Some((release_number(&p.openssl)?, p)))
        .max_by_key(|(number, p)| (*number, release_number(&p.crate_version)))
        .map(|(_, p)| p)
}

/// The openssl-src version (`400.0.3`) of the newest release of `line`'s series on crates.io
/// (`saved`, or the index fetched), when it is newer than the line's; `None` when it is not.
pub fn newer_crate(
    sh: &Shell,
    saved: Option<&Path>,
    line: &crypto_build::data::OpensslLine,
) -> Result<Option<String>> {
    let published = parse(&answer(sh, saved)?)?;
    let newest = newest_of(&published, line.name());
    let newer = newest.filter(|p| release_number(&p.openssl) > release_number(line.version));
    Ok(newer.map(|p| p.crate_version.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANSWER: &str = r#"{"name":"openssl-src","vers":"111.28.2+1.1.1w","deps":[],"yanked":false}
{"name":"openssl-src","vers":"300.5.4+3.5.4","yanked":false}
{"name":"openssl-src","vers":"300.5.5+3.5.5","yanked":false}
{"name":"openssl-src","vers":"300.5.6+3.5.6","yanked":true}
{"name":"openssl-src","vers":"400.0.2+4.0.3","yanked":false}
{"name":"openssl-src","vers":"0.1.0","yanked":false}
"#;

    #[test]
    fn the_newest_of_a_series_skips_yanked_releases() {
        let p = parse(ANSWER).unwrap();
        assert_eq!(p.len(), 5, "the version without a release is left out");
        let newest = newest_of(&p, "3.5").unwrap();
        assert_eq!((newest.crate_version.as_str(), newest.openssl.as_str()), ("300.5.5", "3.5.5"));
        assert_eq!(newest_of(&p, "4.0").unwrap().openssl, "4.0.3");
        assert_eq!(newest_of(&p, "4.1"), None);
        assert_eq!(release_number("3.5.10"), Some([3, 5, 10]));
        assert!(release_number("3.5.10") > release_number("3.5.9"));
        assert_eq!(release_number("3.0.0-alpha1"), None);
    }

    /// `--newest`: a line behind its series' newest crate gets that crate; one on it, or
    /// ahead of the registry (a tarball's release), gets none; a yanked one is no release.
    #[test]
    fn the_newer_crate_of_a_line_is_its_series_newest() {
        use crypto_build::data::{LineSource, OpensslLine};
        let dir = tempfile::tempdir().unwrap();
        let saved = dir.path().join("index.jsonl");
        std::fs::write(&saved, ANSWER).unwrap();
        let sh = Shell::new().unwrap();
        let line = |version| OpensslLine {
            version,
            source: LineSource::Registry { crate_version: "0" },
            default: false,
            targets: None,
        };
        let newer = |version| newer_crate(&sh, Some(&saved), &line(version)).unwrap();
        assert_eq!(newer("3.5.4").as_deref(), Some("300.5.5"));
        assert_eq!(newer("3.5.5"), None, "3.5.6 is yanked");
        assert_eq!(newer("4.0.4"), None, "ahead of the registry");
        assert_eq!(newer("4.0.2").as_deref(), Some("400.0.2"));
    }

    #[test]
    fn an_answer_that_is_not_the_index_is_refused() {
        let e = |text: &str| parse(text).unwrap_err().to_string();
        assert!(e("").contains("no version"), "{}", e(""));
        assert!(e("<html>").contains("line 1 of the answer is not JSON"), "{}", e("<html>"));
        assert!(e(r#"{"vers":"300.5.5+3.5.5"}"#).contains("no `vers` and `yanked`"));
        let other = r#"{"name":"openssl-sys","vers":"0.9.118","yanked":false}"#;
        assert!(e(other).contains("another crate"), "{}", e(other));
    }
}
