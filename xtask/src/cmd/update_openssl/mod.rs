//! `cargo xtask update-openssl VERSION [--report-only] [--openssl LINE]`: what moving an
//! OpenSSL line (the default one unless named) to another release changes, as a report for
//! its reviewer, and then (without --report-only) the move itself; and `--status`, each line
//! against its support date and the registry.
//!
//! The old side is the line's release as its `generate.lock` and manifests have it, with what
//! its Configure decides; the new side is every configuration of every target row generated
//! from the fetched tree in scratch space, each as far as it goes, so that every failure is
//! a finding rather than the end of the run.

mod api;
mod compare;
mod coverage;
mod fetch;
mod pin;
mod registry;
mod report;
mod support;

use crate::flags::UpdateOpenssl;
use anyhow::{bail, Context, Result};
use compare::{Finding, Side};
use crypto_build::data::{self, AsmSet, OpensslLine, Target};
use crypto_build::generate::{self, Config, ConfigData, Request, Source, Staging};
use crypto_build::manifest::Manifest;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::Shell;

/// Under the workspace: the fetch package, the scratch generation and the reports.
const SCRATCH: &str = "target/update-openssl";

impl UpdateOpenssl {
    pub fn run(self, sh: &Shell) -> Result<()> {
        if self.status {
            return support::status(sh, self.registry_answer.as_deref());
        }
        let started = Instant::now();
        let line = self.openssl.unwrap_or(data::DEFAULT_LINE);
        // clap requires VERSION without --status.
        let version = self.version.as_deref().context("update-openssl needs a VERSION")?;
        // Before anything is fetched: a release no line may move to is refused now.
        let series = fetch::series(version)?;
        support::check_release(&series, crypto_build::config::today()?, self.report_only)?;
        let root = crate::cargo::project_root();
        let scratch = root.join(SCRATCH);
        let fetched = fetch::openssl_src(sh, &scratch, version)?;
        let source = &fetched.source;
        println!(
            "update-openssl: openssl-src {} (OpenSSL {}) in {}",
            fetched.crate_version,
            source.version,
            source.dir.display()
        );
        let targets: Vec<&'static Target> = data::TARGETS.iter().collect();
        let sets: Vec<&'static AsmSet> = data::SETS.iter().collect();
        let configs = Config::expand(&targets, &sets);
        let jobs = crypto_build::jobs::count();
        // Before the long part: a move that could not go through is refused now.
        let from = pin::pinned(sh, &root, line)?;
        let to = pin::Release {
            crate_full: fetched.crate_version.clone(),
            openssl: source.version.clone(),
        };
        if !self.report_only {
            pin::check_graph(
                data::OPENSSL_LINES,
                line,
                to.crate_full.split('+').next().unwrap_or(""),
            )?;
        }
        let edits = match self.report_only {
            true => vec![],
            false if from == to => bail!("openssl-src {} is the pinned one already", to.crate_full),
            false => pin::plan(&root, pin::sites(line), &from, &to)?,
        };
        let old = old_side(&root, line, &scratch, &configs, jobs)?;
        let mut new = new_side(&scratch, source, &configs, jobs)?;
        new.findings.extend(coverage::of_tables(&configs, &new.side, &source.dir));
        let findings = std::mem::take(&mut new.findings);
        let mut comparison = compare::compare(&configs, &old, &new.side, findings);
        comparison.crate_version = fetched.crate_version.clone();
        comparison.api = public_api(sh, &root, line, &old, &source.dir)?;
        let flag = if self.report_only { " --report-only" } else { "" };
        let openssl = self.openssl.map_or(String::new(), |l| format!(" --openssl {}", l.name()));
        let command = format!("cargo xtask update-openssl {version}{flag}{openssl}");
        let md = write_report(&scratch, &comparison, &command)?;
        println!(
            "update-openssl: wrote {} and its .json ({:.0?})",
            md.display(),
            started.elapsed()
        );
        if let Some(first) = comparison.findings.first() {
            bail!(
                "{} finding(s) on OpenSSL {}, the first a failed {} in {}; see {}",
                comparison.findings.len(),
                comparison.to,
                first.check,
                first.config,
                md.display()
            );
        }
        if self.report_only {
            return Ok(());
        }
        let docs = root.join(DOCS);
        let name = |ext: &str| format!("{}-to-{}.{ext}", comparison.from, comparison.to);
        let report = ["md", "json"].map(|ext| (scratch.join(name(ext)), docs.join(name(ext))));
        let sets = new.side.manifests.values().map(|m| (m, new.dirs[&m.key()].clone())).collect();
        let aside = scratch.join(format!("aside-{}", std::process::id()));
        // A line's directory is its series': a move to another series moves its sets too.
        let (old_root, new_root) = (line.root(&root), line.root_at(&root, &to.openssl));
        let step = pin::Move {
            root: &root,
            sets_roots: (old_root, new_root.clone()),
            to: &to,
            edits,
            sets,
            report: report.to_vec(),
            aside,
        };
        step.apply(sh)?;
        println!(
            "update-openssl: moved line {} from openssl-src {} to {}: Cargo.toml, Cargo.lock, \
             {} and the sets, the version checks, and {DOCS}/{}; review and commit them \
             ({:.0?})",
            line.name(),
            from.crate_full,
            to.crate_full,
            new_root.join("generate.lock").strip_prefix(&root).unwrap_or(&new_root).display(),
            name("md"),
            started.elapsed()
        );
        Ok(())
    }
}

/// Where a move leaves its report, for the reviewers of the commit.
const DOCS: &str = "docs/openssl-updates";

/// The fetched release as generated: the side compared, its findings so far, and its
/// configurations' directories in `staging` (which a move installs).
struct NewSide {
    side: Side,
    findings: Vec<Finding>,
    dirs: BTreeMap<String, PathBuf>,
    _staging: Staging,
}

/// The line's release: its sets as its lock has them (made where missing) and what its
/// Configure decides.
fn old_side(
    root: &Path,
    line: &OpensslLine,
    scratch: &Path,
    configs: &[Config],
    jobs: usize,
) -> Result<Side> {
    let (version, sets_root, source) = (line.version, line.root(root), Source::of_line(line)?);
    let lock = sets_root.join(generate::lock::FILE_NAME);
    let lock = lock.strip_prefix(root).unwrap_or(&lock).display();
    println!("update-openssl: OpenSSL {version}'s sets against {lock}");
    let progress = crate::progress::generation;
    generate::ensure_all(&sets_root, &source, configs, jobs, Some(&progress))?;
    let mut manifests = BTreeMap::new();
    for c in configs {
        manifests.insert(c.key(), Manifest::load(&c.dir(&sets_root))?);
    }
    println!("update-openssl: configuring OpenSSL {version}");
    let staging = Staging::new(&scratch_root(scratch)?)?;
    let answers = generate::configure_only(&source, configs, &staging, jobs)?;
    let mut config = BTreeMap::new();
    for (group, answer) in answers {
        let data = answer.context("configuring the pinned release")?;
        config.extend(group.iter().map(|c| (c.key(), data.clone())));
    }
    Ok(Side { version: version.into(), manifests, config })
}

/// The fetched release: every configuration generated as far as it goes, and configured;
/// each failure a finding.
fn new_side(scratch: &Path, source: &Source, configs: &[Config], jobs: usize) -> Result<NewSide> {
    let root = scratch_root(scratch)?;
    let staging = Staging::new(&root)?;
    println!(
        "update-openssl: generating OpenSSL {} ({} configurations)",
        source.version,
        configs.len()
    );
    let progress = crate::progress::generation;
    let req =
        Request { root: &root, configs: configs.to_vec(), jobs, progress: Some(&progress), source };
    let survey = generate::survey(&req, &staging)?;
    let mut findings = coverage::of_failures(&survey.failed);
    println!("update-openssl: configuring OpenSSL {}", source.version);
    let answers = generate::configure_only(source, configs, &staging, jobs)?;
    findings.extend(coverage::of_configure(&answers));
    let mut config: BTreeMap<String, ConfigData> = BTreeMap::new();
    for (group, answer) in answers {
        if let Ok(data) = answer {
            config.extend(group.iter().map(|c| (c.key(), data.clone())));
        }
    }
    let dirs = survey.staged.iter().map(|s| (s.manifest.key(), s.dir.clone())).collect();
    let manifests = survey.staged.into_iter().map(|s| (s.manifest.key(), s.manifest)).collect();
    let side = Side { version: source.version.clone(), manifests, config };
    Ok(NewSide { side, findings, dirs, _staging: staging })
}

/// The exports of the line's tree against `tree`'s, with openssl-sys's declarations: the
/// version the prefix consumer locks (the one a user of openssl-sys's vendored build gets).
fn public_api(
    sh: &Shell,
    root: &Path,
    line: &OpensslLine,
    old: &Side,
    tree: &Path,
) -> Result<api::Api> {
    let cargo = crate::cargo::cargo();
    let consumer = root.join("xtask/tests/prefix-consumer/Cargo.toml");
    let metadata =
        xshell::cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {consumer}")
            .quiet()
            .read()
            .context("cargo metadata of the prefix consumer, for openssl-sys")?;
    let (openssl_sys, dir) = crate::cargo::package(&metadata, "openssl-sys")?;
    let bindings = api::bindings(&dir)?;
    // The removed functions are the pinned release's: its configuration says which it builds.
    let key = crypto_build::manifest::key("asm", "linux-x86_64", None);
    let disabled =
        &old.config.get(&key).context("no pinned configuration of asm/linux-x86_64")?.disabled;
    let libs = api::compare(&Source::of_line(line)?.dir, tree, disabled, &bindings)?;
    Ok(api::Api { openssl_sys, libs })
}

/// Where scratch generation stages (the staging directory goes when dropped).
fn scratch_root(scratch: &Path) -> Result<PathBuf> {
    let root = scratch.join("sets");
    fs::create_dir_all(&root).with_context(|| format!("creating {}", root.display()))?;
    Ok(root)
}

/// Writes `FROM-to-TO.md` and `.json` under `dir`; returns the Markdown's path.
fn write_report(dir: &Path, c: &compare::Comparison, command: &str) -> Result<PathBuf> {
    let md = dir.join(format!("{}-to-{}.md", c.from, c.to));
    fs::write(&md, report::markdown(c, command))
        .with_context(|| format!("writing {}", md.display()))?;
    let json = md.with_extension("json");
    let text = report::json_text(c)?;
    fs::write(&json, text).with_context(|| format!("writing {}", json.display()))?;
    Ok(md)
}
