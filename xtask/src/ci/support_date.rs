//! A build of a line past the end of its support warns in one line and builds the same bytes:
//! the run's line built into two prefixes, with SOURCE_DATE_EPOCH on the day after its end and
//! on its last day, the second build warning-free, and their archives compared byte for byte.
//! Both days are set, so that the check does not depend on the calendar.
//!
//! And a build of a line behind a release known to fix security issues warns in one line
//! naming it, and `--strict` refuses it: a patch release past every one known of the line,
//! given as a fixture
//! through `CRYPTO_SYS_KNOWN_RELEASES`, so that the check does not depend on the committed
//! list either.

use anyhow::{ensure, Context, Result};
use crypto_build::config::{KNOWN_RELEASES_VAR, SOURCE_DATE_EPOCH_VAR};
use crypto_build::data::{self, Date, KnownRelease, OpensslLine};
use std::fs;
use std::path::Path;
use xshell::{cmd, Shell};

/// The libraries a prefix installs, each compared.
const ARCHIVES: &[&str] = &["lib/libcrypto.a", "lib/libssl.a"];

pub fn check(sh: &Shell, cargo: &str) -> Result<()> {
    let line = super::line();
    let support = line.support().with_context(|| format!("no support date for {}", line.name()))?;
    let last = support.until;
    let after = Date::from_unix(last.to_unix() + 86_400);
    let dir = super::line_target_dir("support-date", line);
    let (past, supported) = (dir.join("past"), dir.join("supported"));
    // The past build first: had the build script not rerun for the second, cargo would replay
    // its warning there, and the second count would catch it.
    let warned = build(sh, cargo, &past, after, &[])?;
    let quiet_text = build(sh, cargo, &supported, last, &[])?;
    let lines = |text: &str| -> Vec<String> {
        text.lines().filter(|l| l.contains("is past its support")).map(String::from).collect()
    };
    let (warned, quiet) = (lines(&warned), lines(&quiet_text));
    ensure!(
        warned.len() == 1 && warned[0].contains(&last.to_string()),
        "OpenSSL {} built on {after} should warn in one line naming {last}; it printed {warned:?}",
        line.version
    );
    ensure!(
        quiet.is_empty(),
        "OpenSSL {} built on {last}, its last day, warned: {quiet:?}",
        line.version
    );
    for archive in ARCHIVES {
        let read =
            |p: &Path| fs::read(p.join(archive)).with_context(|| format!("reading {archive}"));
        ensure!(
            read(&past)? == read(&supported)?,
            "{archive} differs between the builds on {after} and {last}: a date changed the bytes"
        );
    }
    println!(
        "support date: OpenSSL {} on {after} warned once ({}), on {last} not; {} the same bytes",
        line.version,
        warned[0].trim(),
        ARCHIVES.join(" and ")
    );
    behind(sh, cargo, line, (&dir, last), &quiet_text)
}

/// The line behind a fixture's newer patch release: one warning line naming it, and a
/// refusal under `--strict`; without the fixture, the warnings the committed list gives.
fn behind(
    sh: &Shell,
    cargo: &str,
    line: &OpensslLine,
    (dir, day): (&Path, Date),
    quiet: &str,
) -> Result<()> {
    let lines = |text: &str| -> Vec<String> {
        text.lines().filter(|l| l.contains(" is behind OpenSSL ")).map(String::from).collect()
    };
    let committed = data::known_releases()?;
    let expected = usize::from(line.behind_warning(&committed).is_some());
    ensure!(
        lines(quiet).len() == expected,
        "OpenSSL {} with the committed list of releases should warn {expected} time(s) that it is \
         behind one; it printed {:?}",
        line.version,
        lines(quiet)
    );
    // Past every release the committed list knows of the line, so that the warning names it.
    let newest = data::newer_than(line, &committed).last().map_or(line.version, |r| &r.version);
    let (series, patch) = newest.rsplit_once('.').context("a release X.Y.Z")?;
    let next = format!("{series}.{}", patch.parse::<u32>()? + 1);
    let fixture = dir.join("known-releases.tsv");
    let row = KnownRelease { version: next.clone(), published: day, learned: day, security: true };
    fs::write(&fixture, data::render_releases(&[row]))?;
    let fixture = fixture.to_string_lossy().into_owned();
    let env = [(KNOWN_RELEASES_VAR, fixture.as_str())];
    let warned = lines(&build(sh, cargo, &dir.join("behind"), day, &env)?);
    ensure!(
        warned.len() == 1 && warned[0].contains(&format!("behind OpenSSL {next} ")),
        "OpenSSL {} behind {next} should warn in one line naming it; it printed {warned:?}",
        line.version
    );
    ensure!(warned[0].contains("security"), "the warning says why it matters: {warned:?}");
    let strict = build_with(sh, cargo, &dir.join("behind-strict"), day, &env, &["--strict"])?;
    ensure!(
        !strict.0 && strict.1.contains(&format!("strict mode: OpenSSL {} is behind", line.version)),
        "--strict must refuse OpenSSL {} behind {next}:\n{}",
        line.version,
        strict.1
    );
    println!(
        "behind a release: OpenSSL {} behind {next} (a fixture) warned once ({}), and --strict \
         refused it",
        line.version,
        warned[0].trim()
    );
    Ok(())
}

/// `cargo xtask build --prefix PREFIX` of the run's line on `day`, with `env`; its output,
/// both streams, when it succeeded.
fn build(
    sh: &Shell,
    cargo: &str,
    prefix: &Path,
    day: Date,
    env: &[(&str, &str)],
) -> Result<String> {
    let (ok, text) = build_with(sh, cargo, prefix, day, env, &[])?;
    ensure!(ok, "the build on {day} failed:\n{text}");
    Ok(text)
}

/// The same with `flags`: whether it succeeded, and its output.
fn build_with(
    sh: &Shell,
    cargo: &str,
    prefix: &Path,
    day: Date,
    env: &[(&str, &str)],
    flags: &[&str],
) -> Result<(bool, String)> {
    let line = super::line_args();
    let mut command = cmd!(sh, "{cargo} xtask build {line...} {flags...} --prefix {prefix}")
        .env(SOURCE_DATE_EPOCH_VAR, day.to_unix().to_string());
    for (name, value) in env {
        command = command.env(name, value);
    }
    let out = command.ignore_status().output().context("running cargo xtask build")?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), text))
}
