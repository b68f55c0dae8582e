//! OpenSSL's own releases, for `--status --releases FILE`: a saved answer of GitHub's REST API
//! for the releases of openssl/openssl (`gh api repos/openssl/openssl/releases --paginate`, or
//! `curl https://api.github.com/repos/openssl/openssl/releases?per_page=100`), where OpenSSL
//! publishes each release with its tarball and GitHub the tarball's SHA-256 (`digest`).
//! crates.io's openssl-src may lag them: this is what tells.

use super::registry::release_number;
use anyhow::{bail, Context, Result};
use crypto_build::source::tarball_name;
use serde::Deserialize;
use std::path::Path;

/// One release of the answer, as GitHub spells it; the fields read, the others ignored.
#[derive(Deserialize)]
struct GitHubRelease {
    tag_name: String,
    #[serde(default)]
    draft: bool,
    #[serde(default)]
    prerelease: bool,
    published_at: Option<String>,
    #[serde(default)]
    assets: Vec<GitHubAsset>,
    /// OpenSSL's release notes: `OpenSSL 3.5.7 is a security patch release. …`.
    body: Option<String>,
}

#[derive(Deserialize)]
struct GitHubAsset {
    name: String,
    /// `sha256:HEX`, on every asset uploaded since June 2025.
    digest: Option<String>,
    browser_download_url: Option<String>,
}

/// A release of OpenSSL's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// `3.5.9`.
    pub version: String,
    /// The day it was published, `2026-06-09`.
    pub date: Option<String>,
    /// Its tarball's SHA-256, lower-case hex, when the answer gives it.
    pub sha256: Option<String>,
    /// Where its tarball is.
    pub url: Option<String>,
    /// Whether it fixes security issues: its notes say so (`security`, a `CVE-`), or it has
    /// no notes, as a patch release of a stable series is where OpenSSL ships its security
    /// fixes and a line behind one must not be told otherwise.
    pub security: bool,
}

/// Reads `path`: every final release it lists. A file that is not the answer, or that lists
/// none, is refused (it cannot tell what OpenSSL has out).
pub fn read(path: &Path) -> Result<Vec<Release>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    parse(&text).with_context(|| format!("{} is no list of OpenSSL's releases", path.display()))
}

/// The releases of an answer: one JSON array, or several one after another (each page of a
/// `--paginate`d answer); drafts, pre-releases and tags other than `openssl-X.Y.Z` left out.
pub fn parse(text: &str) -> Result<Vec<Release>> {
    let mut out = Vec::new();
    for page in serde_json::Deserializer::from_str(text).into_iter::<Vec<GitHubRelease>>() {
        let page = page.context("not GitHub's JSON list of releases")?;
        out.extend(page.into_iter().filter_map(release));
    }
    if out.is_empty() {
        bail!("it lists no final release of OpenSSL (tags `openssl-X.Y.Z`)");
    }
    Ok(out)
}

/// The release a GitHub release is, if it is a final one of OpenSSL's.
fn release(r: GitHubRelease) -> Option<Release> {
    let version = r.tag_name.strip_prefix("openssl-")?;
    if r.draft || r.prerelease || release_number(version).is_none() {
        return None;
    }
    let security = r.body.as_deref().is_none_or(|b| {
        let b = b.to_ascii_lowercase();
        b.contains("security") || b.contains("cve-")
    });
    let tarball = r.assets.into_iter().find(|a| a.name == tarball_name(version));
    let sha256 = tarball.as_ref().and_then(|a| a.digest.as_deref()?.strip_prefix("sha256:"));
    let sha256 = sha256.filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
    Some(Release {
        version: version.to_string(),
        date: r.published_at.and_then(|d| d.get(..10).map(str::to_string)),
        sha256: sha256.map(str::to_ascii_lowercase),
        url: tarball.and_then(|a| a.browser_download_url),
        security,
    })
}

/// The newest release of `series` (`3.5`).
pub fn newest_of<'a>(releases: &'a [Release], series: &str) -> Option<&'a Release> {
    releases
        .iter()
        .filter(|r| crypto_build::data::series_of(&r.version) == series)
        .max_by_key(|r| release_number(&r.version))
}

/// Adds to the known-releases file at `path` (`data::RELEASES_FILE`'s format; missing: none
/// yet) every release of `releases` newer than a line's release of its series, learned
/// `today`, and writes it back, atomically, when one is new; the rows already there keep
/// their days. The releases added, oldest first.
pub fn record(
    releases: &[Release],
    today: crypto_build::data::Date,
    path: &Path,
) -> Result<Vec<String>> {
    use crypto_build::data::{self, Date, KnownRelease};
    let mut rows = match std::fs::read_to_string(path) {
        Ok(text) => data::parse_releases(&text).with_context(|| format!("{}", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut added = Vec::new();
    for line in data::OPENSSL_LINES {
        let newer = releases.iter().filter(|r| {
            data::series_of(&r.version) == line.name()
                && release_number(&r.version) > release_number(line.version)
        });
        for r in newer {
            if rows.iter().any(|k| k.version == r.version) {
                continue;
            }
            let published = r.date.as_deref().and_then(Date::parse).with_context(|| {
                format!("OpenSSL {} has no day of publication in the list", r.version)
            })?;
            rows.push(KnownRelease {
                version: r.version.clone(),
                published,
                learned: today,
                security: r.security,
            });
            added.push(r.version.clone());
        }
    }
    if !added.is_empty() {
        crypto_build::files::write_atomic(path, data::render_releases(&rows).as_bytes())?;
    }
    added.sort_by(|a, b| crypto_build::version::compare(a, b));
    Ok(added)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const HEX: &str = "9ac3d5a3b6e4f1c2d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0";

    fn entry(tag: &str, pre: bool, digest: Option<&str>) -> String {
        let digest = digest.map_or("null".into(), |d| format!("\"{d}\""));
        let version = tag.strip_prefix("openssl-").unwrap_or(tag);
        format!(
            r#"{{"tag_name":"{tag}","draft":false,"prerelease":{pre},
                "published_at":"2026-06-09T14:00:00Z","assets":[
                {{"name":"openssl-{version}.tar.gz.asc","digest":null}},
                {{"name":"openssl-{version}.tar.gz","digest":{digest},
                  "browser_download_url":"https://example.invalid/{version}.tar.gz"}}]}}"#
        )
    }

    #[test]
    fn the_newest_final_release_of_a_series_with_its_tarball_digest() {
        let digest = format!("sha256:{}", HEX.to_uppercase());
        let page1 = format!(
            "[{},{}]",
            entry("openssl-3.5.7", false, Some(&digest)),
            entry("openssl-3.5.10", false, None)
        );
        let page2 = format!(
            "[{},{}]",
            entry("openssl-3.6.0-alpha1", true, None),
            entry("OpenSSL_1_1_1w", false, None)
        );
        let r = parse(&format!("{page1}\n{page2}")).unwrap();
        assert_eq!(r.len(), 2, "{r:?}");
        let newest = newest_of(&r, "3.5").unwrap();
        assert_eq!((newest.version.as_str(), newest.sha256.as_deref()), ("3.5.10", None));
        let older = r.iter().find(|r| r.version == "3.5.7").unwrap();
        assert_eq!(older.sha256.as_deref(), Some(HEX), "the digest read, lower-cased");
        assert_eq!(older.date.as_deref(), Some("2026-06-09"));
        assert_eq!(newest_of(&r, "3.6"), None, "a pre-release is no release");
    }

    /// Each line's newer releases are added once, learned today, with their notes' word on
    /// security; a row already there keeps its days, and a list with nothing new writes
    /// nothing.
    #[test]
    fn newer_releases_are_recorded_once() {
        use crypto_build::data::{parse_releases, Date, OPENSSL_LINES};
        let line = OPENSSL_LINES.iter().find(|l| !l.default).unwrap();
        let (major_minor, patch) = line.version.rsplit_once('.').unwrap();
        let next = |n: u32| format!("{major_minor}.{}", patch.parse::<u32>().unwrap() + n);
        let body = |b: &str| format!(r#""body":"{b}","#);
        let entry_with = |v: &str, b: &str| {
            entry(&format!("openssl-{v}"), false, None).replacen('{', &format!("{{{b}"), 1)
        };
        let list = format!(
            "[{},{},{}]",
            entry_with(&next(1), &body("OpenSSL is a security patch release.")),
            entry_with(&next(2), &body("A bug fix release.")),
            entry(&format!("openssl-{}", line.version), false, None)
        );
        let releases = parse(&list).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("releases.tsv");
        let today = Date::ymd(2026, 12, 7);
        assert_eq!(record(&releases, today, &path).unwrap(), [next(1), next(2)]);
        let rows = parse_releases(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows[0].security && !rows[1].security, "{rows:?}");
        assert_eq!((rows[0].published, rows[0].learned), (Date::ymd(2026, 6, 9), today));
        let later = Date::ymd(2027, 1, 1);
        assert!(record(&releases, later, &path).unwrap().is_empty());
        let again = parse_releases(&fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(again, rows, "the days learned are kept");
    }

    #[test]
    fn what_is_not_the_answer_is_refused() {
        let e = |text: &str| format!("{:#}", parse(text).unwrap_err());
        assert!(e("<html>").contains("not GitHub's JSON"), "{}", e("<html>"));
        assert!(e(r#"{"message":"API rate limit exceeded"}"#).contains("not GitHub's JSON"));
        assert!(e("[]").contains("no final release"), "{}", e("[]"));
        let pre = format!("[{}]", entry("openssl-4.1.0-beta1", true, None));
        assert!(e(&pre).contains("no final release"), "{}", e(&pre));
    }
}
