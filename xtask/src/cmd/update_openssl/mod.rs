//! `cargo xtask update-openssl VERSION|--source FILE --sha256 HEX [--openssl LINE]
//! [--from VERSION] [--target NAME]... [--set SET]... [--report-only]`: what moving an OpenSSL
//! line (the default one unless named) to another release changes, as a report for its
//! reviewer, and then (without --report-only) the move itself; and `--status`, each line
//! against its support date and the registry.
//!
//! The new side is every configuration (or those of the targets and sets asked for) generated
//! from the other release's tree in scratch space, each as far as it goes, so that every
//! failure is a finding rather than the end of the run; the tree is an openssl-src crate
//! fetched through cargo, or a release tarball checked whole before anything is touched. The
//! old side is the line's release as its `generate.lock` and manifests have it, or with --from
//! another openssl-src release, generated in scratch too (so that a report can be made again
//! after the pin has moved).

mod api;
mod compare;
mod coverage;
mod names;
mod pin;
mod registry;
mod releases;
mod report;
mod sides;
mod summary;
mod support;
#[cfg(test)]
mod tests;
mod wording;

use crate::flags::UpdateOpenssl;
use crate::sources::krate::{self, Trimmed};
use crate::sources::{fetch, tarball::Tarball};
use anyhow::{bail, Context, Result};
use compare::{Comparison, Origin, Side};
use crypto_build::data::{self, AsmSet, LineSource, OpensslLine, Target};
use crypto_build::sets::Config;
use crypto_build::source::Source;
use crypto_build::source::{list::SourceLock, tarball_name};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xshell::Shell;

/// Under the workspace: the fetch package, the scratch generation and the reports.
const SCRATCH: &str = "target/update-openssl";

/// Where a move leaves its report, for the reviewers of the commit.
const DOCS: &str = "docs/openssl-updates";

/// The release moved to, on disk: its tree trimmed as its source crate will hold it.
struct New {
    source: Source,
    origin: Origin,
    /// The trimmed tree and its list, which the move installs as the line's source crate.
    trimmed: Trimmed,
    /// The archive's name and SHA-256, for the crate's lock.
    archive: (String, String),
    /// The tarball's, when it is one.
    tarball: Option<Tarball>,
}

impl UpdateOpenssl {
    pub fn run(self, sh: &Shell) -> Result<()> {
        if self.status {
            let known_out = match &self.known_releases {
                Some(path) => path.clone(),
                None => crate::cargo::project_root().join(data::RELEASES_FILE),
            };
            let (answer, releases) = (self.registry_answer.as_deref(), self.releases.as_deref());
            return support::status(sh, answer, releases, &known_out);
        }
        self.check()?;
        let line = self.openssl.unwrap_or(data::DEFAULT_LINE);
        if self.newest {
            let Some(version) = registry::newer_crate(sh, self.registry_answer.as_deref(), line)?
            else {
                println!(
                    "update-openssl: OpenSSL {} ({}) is on the newest openssl-src of its series \
                     on crates.io: nothing to move",
                    line.version,
                    line.name()
                );
                return Ok(());
            };
            println!(
                "update-openssl: crates.io's newest of {} is openssl-src {version}",
                line.name()
            );
            return UpdateOpenssl { version: Some(version), newest: false, ..self }.run(sh);
        }
        let started = Instant::now();
        let root = crate::cargo::project_root();
        let scratch = root.join(SCRATCH);
        let configs = self.configs();
        // A tarball is checked whole before anything is written.
        let tarball = match (&self.source, &self.sha256) {
            (Some(file), Some(sha256)) => Some(Tarball::check(file, sha256)?),
            _ => None,
        };
        if let Some((t, line)) = tarball.as_ref().and_then(|t| Some((t, line_of(t)?))) {
            return restore(&root, t, line);
        }
        // Before anything is fetched: a release no line may move to is refused now.
        let series = match (&tarball, &self.version) {
            (Some(t), _) => data::series_of(&t.version).to_string(),
            (None, Some(version)) => fetch::series(version)?,
            (None, None) => bail!("update-openssl needs a VERSION or --source"),
        };
        support::check_release(&series, crypto_build::config::today()?, self.report_only)?;
        // The line's own tree, the old side's, made from its release on first use.
        if let crate::sources::Made::Missing(why) = crate::sources::ensure(sh, &root, line)? {
            bail!("{why}");
        }
        let new = self.new_release(sh, &scratch, tarball)?;
        // Before the long part: a move that could not go through is refused now.
        let plan = self.plan(&root, line, &new)?;
        let jobs = crypto_build::jobs::count();
        let pinned = plan.from.origin.clone();
        let old = self.old_side(sh, (&root, line), &scratch, (&configs, jobs), pinned)?;
        let (source, origin) = (&new.source, new.origin.clone());
        let mut generated = sides::generated(&scratch, "new", source, origin, &configs, jobs)?;
        generated.findings.extend(coverage::of_tables(&configs, &generated.side, &source.dir));
        let findings = std::mem::take(&mut generated.findings);
        let mut comparison = compare::compare(&configs, &old.side, &generated.side, findings);
        sides::text_facts(&mut comparison, &old.side, &generated.side);
        comparison.limited_to = self.targets.iter().map(|t| t.name.to_string()).collect();
        comparison.limited_sets = self.sets.iter().map(|s| s.name.to_string()).collect();
        comparison.command = self.command();
        comparison.api = public_api(sh, &root, &old.side, &source.dir)?;
        let md = write_report(&scratch, &comparison)?;
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
        plan.apply(sh, (&root, line), &comparison, &generated.side, &new)?;
        // The docs' tables that read the files just written (crypto-sys's features), by xtask
        // built anew on the data just moved, as a user would run it; the files the move wrote
        // from that data come out the same.
        let cargo = crate::cargo::cargo();
        xshell::cmd!(sh, "{cargo} xtask lines").run().context(
            "the move is made, but `cargo xtask lines` failed: run it again after fixing the cause",
        )?;
        println!("update-openssl: review and commit the move ({:.0?})", started.elapsed());
        Ok(())
    }

    /// The releases moved from and to, and each file's new text (none for a report only).
    fn plan(&self, root: &Path, line: &OpensslLine, new: &New) -> Result<Plan> {
        let from = pin::pinned(root, line)?;
        let to = pin::Release { openssl: new.source.version.clone(), origin: new.origin.clone() };
        if !self.report_only {
            pin::check_graph(data::OPENSSL_LINES, line, &to.openssl)?;
        }
        if !self.report_only {
            if (&from.openssl, &from.origin) == (&to.openssl, &to.origin) {
                bail!("{} is the pinned one already", to.origin.describe())
            }
            // A stale row refused now; the files themselves are read again at the move.
            pin::plan(root, line, &to)?;
        }
        Ok(Plan { from, to })
    }

    /// Every configuration of every target row and set, or of those asked for.
    fn configs(&self) -> Vec<Config> {
        let targets: Vec<&'static Target> = match self.targets.is_empty() {
            true => data::TARGETS.iter().collect(),
            false => self.targets.clone(),
        };
        let sets: Vec<&'static AsmSet> = match self.sets.is_empty() {
            true => data::SETS.iter().collect(),
            false => self.sets.clone(),
        };
        Config::expand(&targets, &sets)
    }

    /// The release moved to: the tarball unpacked in scratch space, or the crate fetched;
    /// then trimmed as a source crate holds it, which the report is made from.
    fn new_release(&self, sh: &Shell, scratch: &Path, tarball: Option<Tarball>) -> Result<New> {
        let (release_tree, origin, archive) = match &tarball {
            Some(t) => {
                let dir = t.unpack(&scratch.join("tarball"))?;
                (dir, tarball_origin(t), (tarball_name(&t.version), t.sha256.clone()))
            }
            None => {
                let version = self.version.as_deref().context("update-openssl needs a VERSION")?;
                let fetched = fetch::openssl_src(sh, scratch, version)?;
                let archive = (fetched.archive(), fetched.checksum.clone());
                let origin = Origin::Crate { crate_version: fetched.crate_version };
                (fetched.source.dir, origin, archive)
            }
        };
        let trimmed = krate::trim(&release_tree, &scratch.join("crate"))?;
        let source = Source::at(&trimmed.tree)?;
        println!(
            "update-openssl: {} (OpenSSL {}), trimmed to {} files ({:.1} MiB packed) in {}",
            origin.describe(),
            source.version,
            trimmed.list.files.len(),
            trimmed.packed_bytes as f64 / 1048576.0,
            trimmed.tree.display()
        );
        Ok(New { source, origin, trimmed, archive, tarball })
    }

    /// The pinned release, or --from's generated in scratch space.
    fn old_side(
        &self,
        sh: &Shell,
        (root, line): (&Path, &OpensslLine),
        scratch: &Path,
        (configs, jobs): (&[Config], usize),
        pinned: Origin,
    ) -> Result<Old> {
        let Some(from) = &self.from else {
            return Ok(Old {
                side: sides::pinned(root, line, scratch, (configs, jobs), pinned)?,
                _staging: None,
            });
        };
        let fetched = fetch::openssl_src(sh, scratch, from)?;
        let origin = Origin::Crate { crate_version: fetched.crate_version };
        let g = sides::generated_whole(scratch, &fetched.source, origin, configs, jobs)?;
        Ok(Old { side: g.side, _staging: Some(g._staging) })
    }

    /// How the report was made, as a user would type it.
    fn command(&self) -> String {
        let mut words = vec!["cargo xtask update-openssl".to_string()];
        match (&self.source, &self.sha256) {
            (Some(file), Some(sha256)) => {
                words.push(format!("--source {} --sha256 {sha256}", file.display()))
            }
            _ => words.extend(self.version.clone()),
        }
        if let Some(from) = &self.from {
            words.push(format!("--from {from}"));
        }
        words.extend(self.targets.iter().map(|t| format!("--target {}", t.name)));
        words.extend(self.sets.iter().map(|s| format!("--set {}", s.name)));
        if self.report_only {
            words.push("--report-only".into());
        }
        if let Some(line) = self.openssl {
            words.push(format!("--openssl {}", line.name()));
        }
        words.join(" ")
    }
}

/// A move, planned before anything long runs.
struct Plan {
    from: pin::Release,
    to: pin::Release,
}

impl Plan {
    /// The move, all or nothing, with the report that `c` is.
    fn apply(
        self,
        sh: &Shell,
        (root, line): (&Path, &OpensslLine),
        c: &Comparison,
        new: &Side,
        release: &New,
    ) -> Result<()> {
        let scratch = root.join(SCRATCH);
        let name = |ext: &str| format!("{}-to-{}.{ext}", c.from, c.to);
        let docs = root.join(DOCS);
        let report = ["md", "json"].map(|ext| (scratch.join(name(ext)), docs.join(name(ext))));
        let sets = new.manifests.values().map(|m| (m, new.dirs[&m.key()].clone())).collect();
        // A line's directory is its series': a move to another series moves its sets too,
        // and its source crate.
        let (old_root, new_root) = (line.root(root), line.root_at(root, &self.to.openssl));
        let to = &self.to.openssl;
        let (archive, sha256) = release.archive.clone();
        let lock =
            SourceLock { release: to.clone(), archive, sha256, files: release.trimmed.list.hash() };
        let source_crate = pin::NewCrate {
            dirs: (root.join(line.source_crate_dir()), root.join(line.source_crate_dir_at(to))),
            lock,
            tree: &release.trimmed,
            tarball: release.tarball.as_ref().map(|t| t.path.clone()),
        };
        let step = pin::Move {
            root,
            sets_roots: (old_root, new_root.clone()),
            to: &self.to,
            // The files read again now: planned before the generation, their edits would put
            // back what changed in them in the quarter of an hour it took.
            edits: pin::plan(root, line, &self.to)?,
            sets,
            report: report.to_vec(),
            aside: scratch.join(format!("aside-{}", std::process::id())),
            source_crate,
        };
        step.apply(sh)?;
        let moved = format!(
            "its source crate {} ({} files), Cargo.toml and Cargo.lock, lines.rs's version and source",
            line.source_crate_at(to),
            release.trimmed.list.files.len()
        );
        let lock = new_root.join(crypto_build::lock::FILE_NAME);
        println!(
            "update-openssl: moved line {} from {} to {}: {moved}, {} and the sets, the \
             version checks, and {DOCS}/{}",
            line.name(),
            self.from.origin.describe(),
            self.to.origin.describe(),
            lock.strip_prefix(root).unwrap_or(&lock).display(),
            name("md")
        );
        Ok(())
    }
}

/// The old side, and the scratch staging that holds its directories when it was generated.
struct Old {
    side: Side,
    _staging: Option<crypto_gen::generate::Staging>,
}

/// The line whose source is this very tarball, if one is.
fn line_of(t: &Tarball) -> Option<&'static data::OpensslLine> {
    data::OPENSSL_LINES.iter().find(|l| {
        l.version == t.version
            && matches!(l.source, LineSource::Tarball { sha256 } if sha256 == t.sha256)
    })
}

/// Where a tarball's tree comes from, for the report and the pin.
fn tarball_origin(t: &Tarball) -> Origin {
    Origin::Tarball { file: t.file_name(), sha256: t.sha256.clone() }
}

/// A line's tarball again: kept in `lines/tarballs/` and its source crate made from it,
/// nothing else done.
fn restore(root: &Path, t: &Tarball, line: &data::OpensslLine) -> Result<()> {
    let kept = keep_tarball(root, t)?;
    let sh = Shell::new()?;
    crate::sources::ensure(&sh, root, line)?;
    println!(
        "update-openssl: {} is OpenSSL {}'s source (line {}): kept as {}, {} made from it",
        t.path.display(),
        t.version,
        line.name(),
        kept.display(),
        line.source_crate()
    );
    Ok(())
}

/// The tarball copied into `lines/tarballs/` under its release's name, where the source
/// crate is made from.
fn keep_tarball(root: &Path, t: &Tarball) -> Result<PathBuf> {
    let dir = root.join(crypto_build::source::TARBALLS_DIR);
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let kept = dir.join(tarball_name(&t.version));
    if t.path != kept {
        fs::copy(&t.path, &kept).with_context(|| format!("copying {}", t.path.display()))?;
    }
    Ok(kept)
}

/// The exports of the old tree against `tree`'s, with openssl-sys's declarations: the
/// version the prefix consumer locks (the one a user of openssl-sys's vendored build gets).
fn public_api(sh: &Shell, root: &Path, old: &Side, tree: &Path) -> Result<api::Api> {
    let cargo = crate::cargo::cargo();
    let consumer = root.join("xtask/tests/prefix-consumer/Cargo.toml");
    let metadata =
        xshell::cmd!(sh, "{cargo} metadata --format-version 1 --manifest-path {consumer}")
            .quiet()
            .read()
            .context("cargo metadata of the prefix consumer, for openssl-sys")?;
    let (openssl_sys, dir) = crate::cargo::package(&metadata, "openssl-sys")?;
    let bindings = api::bindings(&dir)?;
    // The removed functions are the old release's: its configuration says which it builds,
    // the host's asm one where it was compared.
    let x86_64_linux = data::target_for(data::triples::X86_64_LINUX)?.name;
    let x86 = crypto_build::manifest::key(AsmSet::avx512().name, x86_64_linux, None);
    let key = match old.config.contains_key(&x86) {
        true => x86,
        false => old.config.keys().next().context("no configuration of the old release")?.clone(),
    };
    let disabled = &old.config[&key].disabled;
    let libs = api::compare(&old.tree, tree, disabled, &bindings)?;
    Ok(api::Api { openssl_sys, built_in: key, libs })
}

/// Writes `FROM-to-TO.md` and `.json` under `dir`; returns the Markdown's path.
fn write_report(dir: &Path, c: &Comparison) -> Result<PathBuf> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let md = dir.join(format!("{}-to-{}.md", c.from, c.to));
    fs::write(&md, report::markdown(c)).with_context(|| format!("writing {}", md.display()))?;
    let json = md.with_extension("json");
    fs::write(&json, report::json(c)?).with_context(|| format!("writing {}", json.display()))?;
    Ok(md)
}
