//! A build of a line past the end of its support warns in one line and builds the same bytes:
//! the run's line built into two prefixes, with SOURCE_DATE_EPOCH on the day after its end and
//! on its last day, the second build warning-free, and their archives compared byte for byte.
//! Both days are set, so that the check does not depend on the calendar.

use anyhow::{ensure, Context, Result};
use crypto_build::config::SOURCE_DATE_EPOCH_VAR;
use crypto_build::data::Date;
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
    let warned = build(sh, cargo, &past, after)?;
    let quiet = build(sh, cargo, &supported, last)?;
    let lines = |text: &str| -> Vec<String> {
        text.lines().filter(|l| l.contains("is past its support")).map(String::from).collect()
    };
    let (warned, quiet) = (lines(&warned), lines(&quiet));
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
    Ok(())
}

/// `cargo xtask build --prefix PREFIX` of the run's line on `day`; its output, both streams.
fn build(sh: &Shell, cargo: &str, prefix: &Path, day: Date) -> Result<String> {
    let line = super::line_args();
    let out = cmd!(sh, "{cargo} xtask build {line...} --prefix {prefix}")
        .env(SOURCE_DATE_EPOCH_VAR, day.to_unix().to_string())
        .ignore_status()
        .output()
        .context("running cargo xtask build")?;
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    ensure!(out.status.success(), "the build on {day} failed:\n{text}");
    Ok(text)
}
