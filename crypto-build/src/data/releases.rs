//! OpenSSL's releases known to be newer than a line's (`releases.tsv` beside this file): the day
//! OpenSSL published each, the day this project learned of it, and whether it fixes security
//! issues. `cargo xtask update-openssl --status --releases FILE` adds those it reads, and a
//! maintainer commits the file; a build of a line behind one says so in one warning line,
//! an error under `CRYPTO_SYS_STRICT`. `CRYPTO_SYS_KNOWN_RELEASES` names a file of the same
//! format read beside it, for a list newer than the crate's.

use super::lines::{Date, OpensslLine};
use anyhow::{bail, Context, Result};

/// The committed list, as the crate carries it.
const COMMITTED: &str = include_str!("releases.tsv");

/// Its path in crypto-build, for messages and for the command that writes it.
pub const RELEASES_FILE: &str = "crypto-build/src/data/releases.tsv";

/// The file's header: what it is, and its columns.
const HEADER: &str = "\
# OpenSSL releases known to be newer than a line's release, so that a build of that line
# says it is behind one (crypto-build/src/data/releases.rs). Written by `cargo xtask
# update-openssl --status --releases FILE`; committed by a maintainer. Columns, tab-separated:
# release, the day OpenSSL published it, the day it was learned here, and `security` when it
# fixes security issues (else `bugfix`).
";

/// One row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownRelease {
    /// `3.5.9`.
    pub version: String,
    pub published: Date,
    pub learned: Date,
    pub security: bool,
}

/// The committed list.
pub fn known_releases() -> Result<Vec<KnownRelease>> {
    parse_releases(COMMITTED)
        .with_context(|| format!("{RELEASES_FILE} (as this crypto-build carries it)"))
}

/// Rows of the format [`render_releases`] writes: `#` lines and blank lines aside, each line four
/// tab-separated fields; anything else is refused, naming the line.
pub fn parse_releases(text: &str) -> Result<Vec<KnownRelease>> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(row(line).with_context(|| format!("line {}: {line:?}", n + 1))?);
    }
    Ok(out)
}

fn row(line: &str) -> Result<KnownRelease> {
    let fields: Vec<&str> = line.split('\t').collect();
    let [version, published, learned, kind] = fields[..] else {
        bail!("not four tab-separated fields (release, published, learned, security|bugfix)");
    };
    let numbers: Vec<&str> = version.split('.').collect();
    if numbers.len() != 3 || numbers.iter().any(|n| n.is_empty() || n.parse::<u32>().is_err()) {
        bail!("`{version}` is not a release X.Y.Z");
    }
    let day = |s: &str| Date::parse(s).with_context(|| format!("`{s}` is not a day YYYY-MM-DD"));
    let security = match kind {
        "security" => true,
        "bugfix" => false,
        other => bail!("`{other}` is neither `security` nor `bugfix`"),
    };
    Ok(KnownRelease {
        version: version.to_string(),
        published: day(published)?,
        learned: day(learned)?,
        security,
    })
}

/// The file's text: its header, then the rows sorted by release.
pub fn render_releases(rows: &[KnownRelease]) -> String {
    let mut rows: Vec<&KnownRelease> = rows.iter().collect();
    rows.sort_by(|a, b| crate::version::compare(&a.version, &b.version));
    let mut out = HEADER.to_string();
    for r in rows {
        let kind = if r.security { "security" } else { "bugfix" };
        out.push_str(&format!("{}\t{}\t{}\t{kind}\n", r.version, r.published, r.learned));
    }
    out
}

/// The releases of `line`'s series newer than its own, oldest first.
pub fn newer_than<'a>(line: &OpensslLine, known: &'a [KnownRelease]) -> Vec<&'a KnownRelease> {
    let mut newer: Vec<&KnownRelease> = known
        .iter()
        .filter(|r| super::series_of(&r.version) == line.name())
        .filter(|r| crate::version::compare(&r.version, line.version).is_gt())
        .collect();
    newer.sort_by(|a, b| crate::version::compare(&a.version, &b.version));
    newer.dedup_by(|a, b| a.version == b.version);
    newer
}

impl OpensslLine {
    /// The one warning line for a build of it when a newer release of its series is known,
    /// naming the newest and whether any of them fixes security issues; `None` when none is.
    pub fn behind_warning(&self, known: &[KnownRelease]) -> Option<String> {
        let newer = newer_than(self, known);
        let newest = newer.last()?;
        let security = newer.iter().any(|r| r.security);
        let what = match security {
            true => "which fixes security issues this build still has",
            false => "a bug-fix release",
        };
        let count = match newer.len() {
            1 => String::new(),
            n => format!("; {n} newer releases of {} are out", self.name()),
        };
        Some(format!(
            "OpenSSL {} is behind OpenSSL {} (published {}, known here since {}), {what}{count}: \
             move the line (docs/lines.md)",
            self.version, newest.version, newest.published, newest.learned
        ))
    }

    /// Whether a build of it is refused under `CRYPTO_SYS_STRICT`: behind a security release.
    pub fn behind_security_release(&self, known: &[KnownRelease]) -> bool {
        newer_than(self, known).iter().any(|r| r.security)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{LineSource, DEFAULT_LINE, OPENSSL_LINES};

    fn known(version: &str, security: bool) -> KnownRelease {
        KnownRelease {
            version: version.into(),
            published: Date::ymd(2026, 4, 7),
            learned: Date::ymd(2026, 12, 7),
            security,
        }
    }

    const LINE: OpensslLine = OpensslLine {
        version: "3.5.5",
        source: LineSource::Registry { crate_version: "300.5.5" },
        default: false,
        targets: None,
    };

    #[test]
    fn the_committed_list_reads_and_writes_back_the_same() {
        let rows = known_releases().unwrap();
        assert_eq!(
            render_releases(&rows),
            COMMITTED,
            "{RELEASES_FILE} is not as render_releases writes it"
        );
        for line in OPENSSL_LINES {
            let newer = newer_than(line, &rows);
            assert!(newer.iter().all(|r| r.learned >= r.published), "{newer:?}");
        }
    }

    #[test]
    fn a_line_behind_a_security_release_warns_in_one_line_naming_the_newest() {
        let rows = [known("3.5.7", true), known("3.5.9", false), known("3.5.4", true)];
        let w = LINE.behind_warning(&rows).unwrap();
        assert!(
            w.starts_with("OpenSSL 3.5.5 is behind OpenSSL 3.5.9 (published 2026-04-07"),
            "{w}"
        );
        assert!(w.contains("fixes security issues") && w.contains("2 newer releases"), "{w}");
        assert!(!w.contains('\n'));
        assert!(LINE.behind_security_release(&rows));
        let bugfix = [known("3.5.6", false)];
        assert!(LINE.behind_warning(&bugfix).unwrap().contains("a bug-fix release"));
        assert!(!LINE.behind_security_release(&bugfix));
        // Another series, or an older release, is no newer release of the line.
        let others = [known("3.6.3", true), known("3.5.5", true), known("4.0.9", true)];
        assert_eq!(LINE.behind_warning(&others), None);
        assert_eq!(DEFAULT_LINE.behind_warning(&[]), None);
    }

    #[test]
    fn what_is_not_the_format_is_refused_naming_the_line() {
        let e = |text: &str| format!("{:#}", parse_releases(text).unwrap_err());
        assert!(e("3.5.6\t2026-04-07\t2026-12-07").contains("line 1"));
        assert!(e("# c\n3.5\t2026-04-07\t2026-12-07\tsecurity").contains("not a release"));
        assert!(e("3.5.6\t2026-4-7\t2026-12-07\tsecurity").contains("not a day"));
        assert!(e("3.5.6\t2026-04-07\t2026-12-07\tmaybe").contains("neither"));
        let rows = [known("3.5.10", true), known("3.5.9", false)];
        let text = render_releases(&rows);
        assert!(text.find("3.5.9\t").unwrap() < text.find("3.5.10\t").unwrap(), "{text}");
        assert_eq!(parse_releases(&text).unwrap(), [known("3.5.9", false), known("3.5.10", true)]);
    }
}
