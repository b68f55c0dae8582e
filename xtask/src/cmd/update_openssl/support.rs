//! OpenSSL's support of each series (`data::SUPPORT`) as update-openssl uses it: the releases
//! a line may not move to, refused before anything is touched, and `--status`, each line
//! against its end date, the newest openssl-src on crates.io and, given their list, OpenSSL's
//! own newest release of its series.

use super::registry::{self, Published};
use super::releases::{self, Release};
use anyhow::{bail, Result};
use crypto_build::data::{self, Date, OpensslLine, Support, SUPPORT_SOURCE};
use crypto_build::source::tarball_name;
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

/// What `--status` knows of the releases out: crates.io's openssl-src versions, and OpenSSL's
/// own releases when a list of them was given.
pub struct Known<'a> {
    pub published: &'a [Published],
    pub releases: Option<&'a [Release]>,
}

/// `cargo xtask update-openssl --status`: a line per OpenSSL line, then a failure naming
/// every line that must move, one line each, or that an answer is missing.
pub fn status(
    sh: &Shell,
    saved: Option<&Path>,
    releases_file: Option<&Path>,
    known_out: &Path,
) -> Result<()> {
    let today = crypto_build::config::today()?;
    let published = registry::answer(sh, saved).and_then(|text| registry::parse(&text));
    let published = match published {
        Ok(p) => p,
        Err(e) => bail!(
            "update-openssl --status cannot tell whether a line has a newer release: no answer \
             from the registry ({e:#})"
        ),
    };
    let releases = match releases_file.map(releases::read).transpose() {
        Ok(r) => r,
        Err(e) => {
            bail!("update-openssl --status cannot tell whether a line has a newer release: {e:#}")
        }
    };
    let where_from = saved.map_or(registry::INDEX_URL.to_string(), |p| p.display().to_string());
    let listed = releases_file.map_or(String::new(), |p| format!("; OpenSSL's: {}", p.display()));
    println!(
        "OpenSSL lines on {today} (support: {SUPPORT_SOURCE}; registry: {where_from}{listed})"
    );
    let known = Known { published: &published, releases: releases.as_deref() };
    let mut moves = Vec::new();
    for line in data::OPENSSL_LINES {
        let (row, needs) = line_status(line, &known, today);
        println!("  {row}");
        moves.extend(needs);
    }
    for series in known.releases.map_or(Vec::new(), new_series) {
        println!("  {series}");
    }
    // Before any failure: a line behind a release is what the builds must learn.
    if let Some(list) = known.releases {
        let added = releases::record(list, today, known_out)?;
        if !added.is_empty() {
            println!(
                "recorded {} in {}, learned {today}: commit it, and a build of a line behind \
                 one says so",
                added.join(", "),
                known_out.display()
            );
        }
    }
    if !moves.is_empty() {
        bail!("the lines need a move:\n{}", moves.join("\n"));
    }
    match known.releases {
        Some(_) => println!(
            "every line is on OpenSSL's newest release of its series, and the default is supported"
        ),
        None => println!(
            "every line is on the newest on crates.io, and the default is supported (OpenSSL's \
             own releases not read: --releases FILE, docs/lines.md)"
        ),
    }
    Ok(())
}

/// A line's row, and what must be done about it, a line each.
fn line_status(line: &OpensslLine, known: &Known, today: Date) -> (String, Vec<String>) {
    let name = line.name();
    let mut needs = Vec::new();
    let newest = registry::newest_of(known.published, name);
    let newest_text = match newest {
        Some(p) => format!("{} (openssl-src {})", p.openssl, p.crate_version),
        None => "none".into(),
    };
    let openssl = known.releases.map(|r| releases::newest_of(r, name));
    needs.extend(newer_release(line, newest, openssl.flatten()));
    let own = line.crate_version();
    let yanked = known.published.iter().any(|p| Some(p.crate_version.as_str()) == own && p.yanked);
    if let (true, Some(own)) = (yanked, own) {
        needs.push(format!("{name}: its openssl-src {own} is yanked"));
    }
    let support = line.support();
    let past = line.support_warning(today).is_some();
    if past && line.default {
        needs.push(format!("{name}: the default line is past its support: move it"));
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
    let openssl_text = match openssl {
        Some(Some(r)) => format!("OpenSSL's newest: {}{}; ", r.version, dated(r)),
        Some(None) => format!("OpenSSL's newest: none of {name} listed; "),
        None => String::new(),
    };
    let row = format!(
        "{name}{lts} ({role}): OpenSSL {} ({from}); newest on crates.io: {newest_text}; \
         {openssl_text}{until}",
        line.version,
    );
    (row, needs)
}

/// OpenSSL's series newer than every line's, a line each with its newest release: no line
/// needs a move for one, but a maintainer is told it is out and what adding it takes.
fn new_series(releases: &[Release]) -> Vec<String> {
    let ours = data::OPENSSL_LINES.iter().filter_map(|l| data::series_number(l.name())).max();
    let mut series: Vec<&str> = releases.iter().map(|r| data::series_of(&r.version)).collect();
    series.sort_by_key(|s| std::cmp::Reverse(data::series_number(s)));
    series.dedup();
    let newer = series.into_iter().filter(|s| data::series_number(s) > ours);
    newer
        .filter_map(|s| Some((s, releases::newest_of(releases, s)?)))
        .map(|(s, r)| {
            let support =
                data::support_of(s).map_or("no row in data::SUPPORT yet".into(), described);
            format!(
                "{s} (no line): OpenSSL has {}{}; {support}; a line of it is a row of \
                 data::SUPPORT and a move (docs/lines.md)",
                r.version,
                dated(r)
            )
        })
        .collect()
}

/// ` (2026-06-09)`, when the release's day is known.
fn dated(r: &Release) -> String {
    r.date.as_ref().map_or(String::new(), |d| format!(" ({d})"))
}

/// The move a line needs to reach the newest release out, in one line: to OpenSSL's own
/// tarball when crates.io lags it, else to crates.io's newer openssl-src.
fn newer_release(
    line: &OpensslLine,
    crate_newest: Option<&Published>,
    openssl_newest: Option<&Release>,
) -> Option<String> {
    let name = line.name();
    let number = |v: &str| registry::release_number(v);
    let own = number(line.version);
    let on_crates = crate_newest.and_then(|p| number(&p.openssl));
    let flag = line.feature().map_or(String::new(), |_| format!(" --openssl {name}"));
    if let Some(r) = openssl_newest.filter(|r| number(&r.version) > own.max(on_crates)) {
        let crates = crate_newest.map_or("none".into(), |p| p.openssl.clone());
        let sha256 = r.sha256.clone().unwrap_or_else(|| {
            format!("HEX (the SHA-256 OpenSSL publishes in {}.sha256)", tarball_name(&r.version))
        });
        let url = r.url.as_ref().map_or(String::new(), |u| format!(" (the tarball: {u})"));
        return Some(format!(
            "{name}: OpenSSL has {}; crates.io's openssl-src has {crates}; move with `cargo xtask \
             update-openssl --source {} --sha256 {sha256}{flag}`{url}",
            r.version,
            tarball_name(&r.version)
        ));
    }
    let p = crate_newest.filter(|p| number(&p.openssl) > own)?;
    Some(format!(
        "{name}: crates.io's openssl-src has {} ({}); move with `cargo xtask update-openssl {}{flag}`",
        p.openssl, p.crate_version, p.crate_version
    ))
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
        assert!(e("4.2", false).contains("no support date for OpenSSL 4.2"));
        check_release("4.2", today, true).unwrap();
        check_release("4.1", today, false).unwrap();
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

    /// `line_status` with crates.io's answer alone.
    fn on_crates(line: &OpensslLine, p: &[Published], today: Date) -> (String, Vec<String>) {
        line_status(line, &Known { published: p, releases: None }, today)
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
        let (row, needs) = on_crates(line, &published(&[(&own, false)]), supported);
        assert!(needs.is_empty(), "{needs:?}");
        assert!(row.contains(&format!("OpenSSL {}", line.version)), "{row}");
        assert!(row.contains(&until.to_string()) && !row.contains("PAST"), "{row}");
        let (_, needs) = on_crates(line, &published(&[(&own, false), (&newer, false)]), supported);
        assert_eq!(needs.len(), 1, "{needs:?}");
        let has = format!("crates.io's openssl-src has {major}.{minor}.{}", patch + 1);
        assert!(needs[0].contains(&has), "{needs:?}");
        // A yanked newer release is none; the line's own yanked crate is one to act on.
        let (_, needs) = on_crates(line, &published(&[(&own, true), (&newer, true)]), supported);
        assert_eq!(needs.len(), 1, "{needs:?}");
        assert!(needs[0].contains("is yanked"), "{needs:?}");
        let past = Date::from_unix(until.to_unix() + 86_400);
        let (row, needs) = on_crates(line, &published(&[(&own, false)]), past);
        assert!(row.contains("PAST ITS SUPPORT"), "{row}");
        assert_eq!(
            needs,
            [format!("{}: the default line is past its support: move it", line.name())]
        );
    }

    /// A series newer than every line's is named once, with its newest release; the lines'
    /// own series and older ones are not.
    #[test]
    fn a_newer_series_is_named_once_with_its_newest_release() {
        let newest = data::OPENSSL_LINES
            .iter()
            .map(|l| l.version)
            .max_by_key(|v| registry::release_number(v));
        let [major, minor, _] = registry::release_number(newest.unwrap()).unwrap();
        let next = |patch| format!("{major}.{}.{patch}", minor + 1);
        let out = [release(&next(0), None), release(&next(1), None), release("3.0.9", None)];
        let lines = data::OPENSSL_LINES.iter().map(|l| release(l.version, None));
        let r: Vec<Release> = out.into_iter().chain(lines).collect();
        let said = new_series(&r);
        let want =
            format!("{major}.{} (no line): OpenSSL has {} (2026-09-29); ", minor + 1, next(1));
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(said[0].starts_with(&want), "{said:?}");
        assert!(said[0].contains("data::SUPPORT"), "{said:?}");
    }

    fn release(version: &str, sha256: Option<&str>) -> Release {
        Release {
            version: version.into(),
            date: Some("2026-09-29".into()),
            sha256: sha256.map(str::to_string),
            url: None,
            security: true,
        }
    }

    /// OpenSSL ahead of crates.io: one line naming both and the tarball move, for the
    /// default line without --openssl and for another with it; OpenSSL's newest no newer than
    /// crates.io's leaves crates.io's move, and no newer than the line's, none.
    #[test]
    fn a_registry_that_lags_openssl_is_told_with_the_tarball_move() {
        let sha = "ab".repeat(32);
        for line in data::OPENSSL_LINES {
            let own = format!("{}+{}", line.crate_version().unwrap(), line.version);
            let [major, minor, patch] = registry::release_number(line.version).unwrap();
            let ahead = format!("{major}.{minor}.{}", patch + 4);
            let p = published(&[(&own, false)]);
            let r = [release(&ahead, Some(&sha)), release(line.version, None)];
            let known = Known { published: &p, releases: Some(&r) };
            let (row, needs) = line_status(line, &known, line.support().unwrap().until);
            assert!(row.contains(&format!("OpenSSL's newest: {ahead} (2026-09-29)")), "{row}");
            let flag =
                line.feature().map_or(String::new(), |_| format!(" --openssl {}", line.name()));
            let want = format!(
                "{}: OpenSSL has {ahead}; crates.io's openssl-src has {}; move with `cargo xtask \
                 update-openssl --source openssl-{ahead}.tar.gz --sha256 {sha}{flag}`",
                line.name(),
                line.version
            );
            assert_eq!(needs, [want]);
            let r = [release(line.version, None)];
            let known = Known { published: &p, releases: Some(&r) };
            let (_, needs) = line_status(line, &known, line.support().unwrap().until);
            assert!(needs.is_empty(), "{needs:?}");
        }
    }
}
