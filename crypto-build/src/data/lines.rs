//! OpenSSL's release lines that crypto-sys builds, where each line's source comes from, and
//! the day OpenSSL's support of each series ends (its release strategy), as tables.

use std::fmt;

/// The default line's OpenSSL release.
pub const OPENSSL_VERSION: &str = DEFAULT_LINE.version;

/// The registry's openssl-src that crypto-build holds to supply the default line's tree, from
/// which a fresh clone's first build makes the line's source crate: the default line's own
/// crate while it comes from the registry (a move keeps it so; a tarball's line keeps the one
/// it had). `cargo xtask lines` writes the dependency from it.
pub const TREE_SUPPLIER: &str = "400.0.3";

/// The oldest openssl-sys that accepts each OpenSSL major (`4`: rust-openssl #2591, in
/// openssl-sys 0.9.114), for the `openssl-src` patch crate's refusal of an older one. A major
/// without a row has no such limit among the lines.
pub const OPENSSL_SYS_MIN: &[(&str, &str)] = &[("4", "0.9.114")];

/// Where the support dates come from: OpenSSL's release strategy.
pub const SUPPORT_SOURCE: &str = "openssl-library.org/policies/releasestrat";

/// Where each line's directory is, under the workspace: `lines/openssl-4.0/` holds the line's
/// `generate.lock`, its sets (`asm/`, ... as generated; another line's as a sets crate, its
/// Cargo.toml beside them) and its source crate (`source/`), the default line's as any other's.
pub const LINES_DIR: &str = "lines";

/// A calendar day (UTC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Date {
    pub year: i32,
    pub month: u32,
    pub day: u32,
}

impl Date {
    pub const fn ymd(year: i32, month: u32, day: u32) -> Date {
        Date { year, month, day }
    }

    /// The UTC day `secs` seconds after the Unix epoch (SOURCE_DATE_EPOCH's unit), by Howard
    /// Hinnant's `civil_from_days`.
    pub fn from_unix(secs: i64) -> Date {
        let z = secs.div_euclid(86_400) + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// `2026-04-07`, exactly so; `None` for anything else.
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || !(digits(0..4) && digits(5..7)) {
            return None;
        }
        let (year, month, day) =
            (s[..4].parse().ok()?, s[5..7].parse().ok()?, s[8..].parse().ok()?);
        let date = Date { year, month, day };
        // A day the calendar lacks (02-30) comes back as another one.
        (digits(8..10) && Date::from_unix(date.to_unix()) == date).then_some(date)
    }

    /// Seconds from the Unix epoch to this day's midnight (UTC), `days_from_civil`.
    pub fn to_unix(self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        (era * 146_097 + doe - 719_468) * 86_400
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// How long OpenSSL supports a release series (`3.5`, `4.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    pub series: &'static str,
    /// A long-term support release: five years, where any other gets thirteen months.
    pub lts: bool,
    /// The last day of support: no security fix after it.
    pub until: Date,
}

/// OpenSSL's series that a line may be on, with the end of their support, from its release
/// strategy ([`SUPPORT_SOURCE`]). Each line's date is its series' row ([`OpensslLine::support`]),
/// so that moving a line to another series moves its date with it; the oldest row that is
/// still supported is the oldest series `cargo xtask update-openssl` moves a line to. A series
/// missing here (4.1) is refused until its row is added from the source.
#[rustfmt::skip]
pub const SUPPORT: &[Support] = &[
    Support { series: "3.5", lts: true, until: Date::ymd(2030, 4, 8) },
    Support { series: "3.6", lts: false, until: Date::ymd(2026, 11, 1) },
    Support { series: "4.0", lts: false, until: Date::ymd(2027, 5, 14) },
    // Released 2026-10-23 (its NEWS.md); the strategy's table gives "Nov 2027", and its rule
    // for a release that is not LTS, thirteen months, the day (as 4.0's 2026-04-14 gives
    // 2027-05-14).
    Support { series: "4.1", lts: false, until: Date::ymd(2027, 11, 23) },
];

/// The support row of `series` (`4.0`).
pub fn support_of(series: &str) -> Option<&'static Support> {
    SUPPORT.iter().find(|s| s.series == series)
}

/// Where a line's OpenSSL source comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineSource {
    /// The openssl-src crate of that exact version (`400.0.2`), whose tree the line's source
    /// crate is made from (`crate::source`; its `source.lock` names the crate).
    Registry { crate_version: &'static str },
    /// An OpenSSL release tarball (`openssl-X.Y.Z.tar.gz`) of this SHA-256, for a release the
    /// registry lacks: the line's source crate is made from it (`cargo xtask update-openssl
    /// --source FILE --sha256 HEX`, then `cargo xtask sources` from `lines/tarballs/`).
    Tarball { sha256: &'static str },
}

/// An OpenSSL release line crypto-sys builds: the default one (the pin, which `cargo xtask
/// update-openssl` moves), or one a crypto-sys feature chooses (`--openssl NAME` moves it).
/// Its name (`3.5`), directory (`openssl-3.5`) and feature (`openssl-3-5`) are its series'.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpensslLine {
    /// OpenSSL's release, `3.6.3`.
    pub version: &'static str,
    pub source: LineSource,
    /// Built without a crypto-sys feature, its sets and lock at the workspace's root.
    pub default: bool,
    /// The targets its sets are generated, locked and tested for; `None`: every target.
    pub targets: Option<&'static [&'static str]>,
}

/// The default line first, then the others. 4.0 removes public API that users of 3.x may
/// call (ENGINE, much of EVP's deprecated surface: docs/openssl-updates/3.6.3-to-4.0.3.md), so
/// a line is chosen explicitly.
#[rustfmt::skip]
pub const OPENSSL_LINES: &[OpensslLine] = &[
    OpensslLine { version: "4.0.4", source: LineSource::Registry { crate_version: "400.0.3" }, default: true,
                  targets: None },
    OpensslLine { version: "3.5.5", source: LineSource::Registry { crate_version: "300.5.5" }, default: false,
                  targets: None },
];

pub const DEFAULT_LINE: &OpensslLine = &OPENSSL_LINES[0];

/// The series of an OpenSSL release (`4.0.3` → `4.0`): its first two numbers.
pub fn series_of(release: &str) -> &str {
    match release.match_indices('.').nth(1) {
        Some((i, _)) => &release[..i],
        None => release,
    }
}

/// The series of `release` with a dash (`3-5`), as crate, feature and directory names spell it.
fn dashed(release: &str) -> String {
    series_of(release).replace('.', "-")
}

/// The source crate of `release`'s series (`crypto-sys-openssl-3-5`), whether or not a line
/// has it yet.
pub fn source_crate_of(release: &str) -> String {
    format!("crypto-sys-openssl-{}", dashed(release))
}

/// The sets crate of `release`'s series (`crypto-sys-sets-3-5`).
pub fn sets_crate_of(release: &str) -> String {
    format!("crypto-sys-sets-{}", dashed(release))
}

/// A series' `(major, minor)`, to order them; `None` for text that is not one.
pub fn series_number(series: &str) -> Option<(u32, u32)> {
    let (major, minor) = series.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl OpensslLine {
    /// The line named on a command line (`--openssl NAME`), the default one when none is.
    pub fn chosen(name: Option<&str>) -> anyhow::Result<&'static OpensslLine> {
        name.map_or(Ok(DEFAULT_LINE), OpensslLine::by_name)
    }

    pub fn by_name(name: &str) -> anyhow::Result<&'static OpensslLine> {
        OPENSSL_LINES.iter().find(|l| l.name() == name).ok_or_else(|| {
            let names: Vec<&str> = OPENSSL_LINES.iter().map(|l| l.name()).collect();
            anyhow::anyhow!("no OpenSSL line `{name}`; the lines: {}", names.join(", "))
        })
    }

    /// Its name on the command line (`cargo xtask generate --openssl 3.5`): its series.
    pub fn name(&self) -> &'static str {
        series_of(self.version)
    }

    /// Its release's major (`3`), whose API bindings follow.
    pub fn major(&self) -> &'static str {
        self.version.split('.').next().unwrap_or(self.version)
    }

    /// Its series with a dash (`3-5`), as cargo's feature and dependency names spell it.
    pub fn series_dashed(&self) -> String {
        dashed(self.version)
    }

    /// crypto-sys's feature that selects it (`openssl-3-5`); `None`: the default line.
    pub fn feature(&self) -> Option<String> {
        (!self.default).then(|| format!("openssl-{}", self.series_dashed()))
    }

    /// Where its sets and generate.lock are, under the workspace: `lines/openssl-3.5`, the
    /// default line's as another's ([`LINES_DIR`]).
    pub fn dir(&self) -> String {
        self.dir_at(self.version)
    }

    /// Where they would be at `release` (a move to another series moves them).
    pub fn dir_at(&self, release: &str) -> String {
        format!("{LINES_DIR}/openssl-{}", series_of(release))
    }

    /// Its source crate (`crypto-sys-openssl-3-5`): its release's tree, named after its
    /// series (`crate::source`).
    pub fn source_crate(&self) -> String {
        self.source_crate_at(self.version)
    }

    /// Its source crate's name at `release` (a move to another series renames it).
    pub fn source_crate_at(&self, release: &str) -> String {
        source_crate_of(release)
    }

    /// The crate that carries its pre-generated sets in a package (`crypto-sys-sets-3-5`, at
    /// its sets root): crypto-build's own for the default line.
    pub fn sets_crate(&self) -> String {
        sets_crate_of(self.version)
    }

    /// Where its source crate lies under the workspace: `lines/openssl-3.5/source`.
    pub fn source_crate_dir(&self) -> String {
        self.source_crate_dir_at(self.version)
    }

    /// Where its source crate lies at `release`.
    pub fn source_crate_dir_at(&self, release: &str) -> String {
        format!("{}/source", self.dir_at(release))
    }

    /// The name crypto-gen depends on its openssl-src by, its feature too (`openssl-src-4-0`):
    /// the supplier of its tree to a fresh clone; `None` for a tarball's line.
    pub fn supplier(&self) -> Option<String> {
        self.crate_version().map(|_| format!("openssl-src-{}", self.name().replace('.', "-")))
    }

    /// The openssl-src crate it builds from; `None` for a tarball's line.
    pub fn crate_version(&self) -> Option<&'static str> {
        match self.source {
            LineSource::Registry { crate_version } => Some(crate_version),
            LineSource::Tarball { .. } => None,
        }
    }

    /// Its series' support row (a test holds every line to have one).
    pub fn support(&self) -> Option<&'static Support> {
        support_of(self.name())
    }

    /// The one warning line for a build of it on `today`, when OpenSSL's support of its
    /// series has ended; `None` while supported.
    pub fn support_warning(&self, today: Date) -> Option<String> {
        let support = self.support()?;
        (today > support.until).then(|| {
            format!(
                "OpenSSL {} is past its support, which ended on {} ({SUPPORT_SOURCE}): it gets \
                 no security fixes; move to a supported OpenSSL line",
                self.version, support.until
            )
        })
    }

    /// Whether its sets exist for `target` (a `Target::name`).
    pub fn has_target(&self, target: &str) -> bool {
        self.targets.is_none_or(|t| t.contains(&target))
    }

    /// Refuses, in one line, a target it has no sets for.
    pub fn check_target(&self, target: &str) -> anyhow::Result<()> {
        if self.has_target(target) {
            return Ok(());
        }
        anyhow::bail!(
            "OpenSSL {} (crypto-sys's `{}` feature) has sets for {} only, not {target}; the \
             default OpenSSL {} has every target",
            self.version,
            self.feature().unwrap_or_default(),
            self.targets.unwrap_or_default().join(", "),
            DEFAULT_LINE.version
        )
    }

    /// Whether it is the default line, the one built without a crypto-sys feature.
    pub fn is_default(&self) -> bool {
        self.default
    }

    /// cargo's argument that builds crypto-sys on this line: none for the default.
    pub fn cargo_feature_arg(&self) -> Option<String> {
        self.feature().map(|f| format!("--features={f}"))
    }

    /// What a directory of this line's own builds adds to the default line's name: nothing
    /// for the default, `-openssl-NAME` for another, so that the lines never share one.
    pub fn dir_suffix(&self) -> String {
        if self.default {
            String::new()
        } else {
            format!("-openssl-{}", self.name())
        }
    }

    /// Its sets' root under `workspace`.
    pub fn root(&self, workspace: &std::path::Path) -> std::path::PathBuf {
        workspace.join(self.dir())
    }

    /// Its sets' root under `workspace` at `release`.
    pub fn root_at(&self, workspace: &std::path::Path, release: &str) -> std::path::PathBuf {
        workspace.join(self.dir_at(release))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_convert_both_ways() {
        assert_eq!(Date::from_unix(0), Date::ymd(1970, 1, 1));
        // 2026-11-01T00:00:00Z and the last second of 2027-05-14.
        assert_eq!(Date::from_unix(1_793_491_200), Date::ymd(2026, 11, 1));
        assert_eq!(Date::from_unix(1_810_339_199), Date::ymd(2027, 5, 14));
        assert_eq!(Date::from_unix(951_782_400), Date::ymd(2000, 2, 29));
        for d in [Date::ymd(2030, 4, 8), Date::ymd(2000, 2, 29), Date::ymd(1969, 12, 31)] {
            assert_eq!(Date::from_unix(d.to_unix()), d);
            assert_eq!(Date::from_unix(d.to_unix() + 86_399), d);
        }
        assert_eq!(Date::ymd(2027, 5, 14).to_string(), "2027-05-14");
        assert_eq!(Date::parse("2027-05-14"), Some(Date::ymd(2027, 5, 14)));
        for bad in ["2027-5-14", "2027-02-30", "2027-13-01", "2027-05-14 ", "20270514xx"] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert!(Date::ymd(2027, 5, 15) > Date::ymd(2027, 5, 14));
        assert!(Date::ymd(2026, 12, 31) < Date::ymd(2027, 1, 1));
    }

    /// Every line has a support row, the names are derived from the release, and exactly
    /// one line, the first, is the default.
    #[test]
    fn lines_are_their_series() {
        for line in OPENSSL_LINES {
            let support =
                line.support().unwrap_or_else(|| panic!("no support row for {}", line.name()));
            assert_eq!(support.series, line.name());
            assert_eq!(line.version.matches('.').count(), 2, "{}", line.version);
            if !line.default {
                let dashed = line.name().replace('.', "-");
                assert_eq!(line.feature(), Some(format!("openssl-{dashed}")));
            }
        }
        assert!(DEFAULT_LINE.default && DEFAULT_LINE.version == OPENSSL_VERSION);
        assert_eq!(OPENSSL_LINES.iter().filter(|l| l.default).count(), 1);
        assert_eq!(DEFAULT_LINE.feature(), None);
        for line in OPENSSL_LINES {
            assert_eq!(line.dir(), format!("lines/openssl-{}", line.name()));
            assert_eq!(line.source_crate_dir(), format!("lines/openssl-{}/source", line.name()));
        }
        assert_eq!(series_of("3.5.5"), "3.5");
        assert_eq!(series_number("4.10"), Some((4, 10)));
        assert_eq!(series_number("four"), None);
    }

    #[test]
    fn a_line_past_its_date_warns_in_one_line() {
        let line = DEFAULT_LINE;
        let until = line.support().unwrap().until;
        assert_eq!(line.support_warning(until), None, "the last day is still supported");
        let next = Date::from_unix(until.to_unix() + 86_400);
        let w = line.support_warning(next).unwrap();
        assert!(w.contains(&format!("OpenSSL {} is past its support", line.version)), "{w}");
        assert!(w.contains(&until.to_string()) && w.contains(SUPPORT_SOURCE) && !w.contains('\n'));
    }
}
