//! OpenSSL's support of each series (`data::SUPPORT`) as update-openssl uses it: the releases
//! a line may not move to, refused before anything is touched, and `--status`, each line
//! against its end date and the registry's newest release of its series.

use super::registry::{self, Published};
use anyhow::{bail, Result};
use crypto_build::data::{self, Date, OpensslLine, Support, SUPPORT_SOURCE};
use std::path::Path;
use xshell::Shell;

/// Refuses, in one line, a move (or with `report_only` a report) to a release of `series`
/// (`3.5`): one older than the oldest series still supported on `today`, one past its
/// support, and, for a move, one that `data::SUPPORT` has no date for.
pub fn check_release(series: &str, today: Date, report_only: bool) -> Result<()> {
    let number = data::series_number(series);
    let supported = data::SUPPORT.iter().filter(|s| s.until >= today);
    let oldest = supported.min_by_key(|s| data::series_number(s.series));
    if let Some(oldest) = oldest.filter(|o| number < data::series_number(o.series)) {
        bail!(
            "OpenSSL {series} is older than the oldest series OpenSSL supports, {} ({}): no \
             line moves to it",
            oldest.series,
            described(oldest)
        );
    }
    match data::support_of(series) {
        Some(s) if s.until < today => bail!(
            "OpenSSL {series}'s support ended on {} ({SUPPORT_SOURCE}): no line moves to it",
            s.until
        ),
        None if !report_only => bail!(
            "data::SUPPORT has no support date for OpenSSL {series}: add its row from \
             {SUPPORT_SOURCE} before a line moves to it"
        ),
        _ => Ok(()),
    }
}

/// `until 2030-04-08, LTS`, with where the date is from.
fn described(s: &Support) -> String {
    let lts = if s.lts { ", LTS" } else { "" };
    format!("supported until {}{lts}, {SUPPORT_SOURCE}", s.until)
}

/// `cargo xtask update-openssl --status`: a line per OpenSSL line, then a failure naming
/// every line that must move, or that the registry's answer is missing.
pub fn status(sh: &Shell, saved: Option<&Path>) -> Result<()> {
    let today = crypto_build::config::today()?;
    let published = registry::answer(sh, saved).and_then(|text| registry::parse(&text));
    let published = match published {
        Ok(p) => p,
        Err(e) => bail!(
            "update-openssl --status cannot tell whether a line has a newer release: no answer \
             from the registry ({e:#})"
        ),
    };
    let where_from = saved.map_or(registry::INDEX_URL.to_string(), |p| p.display().to_string());
    println!("OpenSSL lines on {today} (support: {SUPPORT_SOURCE}; registry: {where_from})");
    let mut moves = Vec::new();
    for line in data::OPENSSL_LINES {
        let (row, needs) = line_status(line, &published, today);
        println!("  {row}");
        moves.extend(needs);
    }
    if !moves.is_empty() {
        bail!("the lines need a move: {}", moves.join("; "));
    }
    println!("every line is on the newest release of its series, and the default is supported");
    Ok(())
}

/// A line's row, and what must be done about it.
fn line_status(line: &OpensslLine, published: &[Published], today: Date) -> (String, Vec<String>) {
    let name = line.name();
    let mut needs = Vec::new();
    let newest = registry::newest_of(published, name);
    let newest_text = match newest {
        Some(p) => format!("{} (openssl-src {})", p.openssl, p.crate_version),
        None => "none".into(),
    };
    let newer = newest
        .filter(|p| registry::release_number(&p.openssl) > registry::release_number(line.version));
    if let Some(p) = newer {
        let openssl = line.feature().map_or(String::new(), |_| format!(" --openssl {name}"));
        needs.push(format!(
            "line {name} has OpenSSL {} on the registry (cargo xtask update-openssl {}{openssl})",
            p.openssl, p.crate_version
        ));
    }
    let own = line.crate_version();
    let yanked = published.iter().any(|p| Some(p.crate_version.as_str()) == own && p.yanked);
    if let (true, Some(own)) = (yanked, own) {
        needs.push(format!("line {name}'s openssl-src {own} is yanked"));
    }
    let support = line.support();
    let past = line.support_warning(today).is_some();
    if past && line.default {
        needs.push(format!("the default line {name} is past its support: move it"));
    }
    let until = match support {
        Some(s) if past => {
            format!("PAST ITS SUPPORT, which ended on {} ({SUPPORT_SOURCE})", s.until)
        }
        Some(s) => described(s),
        None => "no support date in data::SUPPORT".into(),
    };
    let role = line.feature().map_or("default".into(), |f| format!("feature {f}"));
    let lts = if support.is_some_and(|s| s.lts) { " LTS" } else { "" };
    let from = match own {
        Some(own) => format!("openssl-src {own}"),
        None => crypto_build::source::tarball_name(line.version),
    };
    let row = format!(
        "{name}{lts} ({role}): OpenSSL {} ({from}); newest of {name} on the registry: \
         {newest_text}; {until}",
        line.version,
    );
    (row, needs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> Date {
        let n: Vec<u32> = s.split('-').map(|p| p.parse().unwrap()).collect();
        Date::ymd(n[0] as i32, n[1], n[2])
    }

    /// The oldest series still supported is the floor; a series past its date or without a
    /// date is refused, each in one line; a report may look at a series not dated yet.
    #[test]
    fn releases_a_line_may_not_move_to_are_refused() {
        let today = day("2026-12-04");
        let e = |series: &str, report_only| {
            check_release(series, today, report_only).unwrap_err().to_string()
        };
        let old = e("3.0", false);
        assert!(old.contains("OpenSSL 3.0 is older than the oldest series"), "{old}");
        assert!(old.contains("3.5 (supported until 2030-04-08, LTS") && !old.contains('\n'));
        assert!(e("1.1", true).contains("older than the oldest series"));
        assert!(e("3.6", false).contains("OpenSSL 3.6's support ended on 2026-11-01"));
        assert!(e("3.6", true).contains("ended"), "a report on it is refused too");
        assert!(e("4.1", false).contains("no support date for OpenSSL 4.1"));
        check_release("4.1", today, true).unwrap();
        check_release("3.5", today, false).unwrap();
        check_release("4.0", today, false).unwrap();
        // Once 3.5 has ended, 4.0 is the floor until its own date.
        let later = day("2030-04-09");
        let e = check_release("3.5", later, false).unwrap_err().to_string();
        assert!(e.contains("3.5's support ended"), "{e}");
    }

    fn published(vers: &[(&str, bool)]) -> Vec<Published> {
        let text: String = vers
            .iter()
            .map(|(v, y)| format!("{{\"name\":\"openssl-src\",\"vers\":\"{v}\",\"yanked\":{y}}}\n"))
            .collect();
        registry::parse(&text).unwrap()
    }

    #[test]
    fn a_line_is_told_of_a_newer_patch_release_and_of_its_end() {
        let line = data::DEFAULT_LINE;
        let own = format!("{}+{}", line.crate_version().unwrap(), line.version);
        let [major, minor, patch] = registry::release_number(line.version).unwrap();
        let crate_line = line.crate_version().unwrap().rsplit_once('.').unwrap().0;
        let newer = format!("{crate_line}.99+{major}.{minor}.{}", patch + 1);
        let until = line.support().unwrap().until;
        let supported = Date::from_unix(until.to_unix() - 86_400);
        let (row, needs) = line_status(line, &published(&[(&own, false)]), supported);
        assert!(needs.is_empty(), "{needs:?}");
        assert!(row.contains(&format!("OpenSSL {}", line.version)), "{row}");
        assert!(row.contains(&until.to_string()) && !row.contains("PAST"), "{row}");
        let (_, needs) =
            line_status(line, &published(&[(&own, false), (&newer, false)]), supported);
        assert_eq!(needs.len(), 1, "{needs:?}");
        assert!(needs[0].contains(&format!("{major}.{minor}.{} on the registry", patch + 1)));
        // A yanked newer release is none; the line's own yanked crate is one to act on.
        let (_, needs) = line_status(line, &published(&[(&own, true), (&newer, true)]), supported);
        assert_eq!(needs.len(), 1, "{needs:?}");
        assert!(needs[0].contains("is yanked"), "{needs:?}");
        let past = Date::from_unix(until.to_unix() + 86_400);
        let (row, needs) = line_status(line, &published(&[(&own, false)]), past);
        assert!(row.contains("PAST ITS SUPPORT"), "{row}");
        assert_eq!(
            needs,
            [format!("the default line {} is past its support: move it", line.name())]
        );
    }
}
