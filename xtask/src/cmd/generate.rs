//! `cargo xtask generate [--check]`: writes the asm sets and generate.lock, or verifies them.

use crate::flags::Generate;
use anyhow::{bail, Result};
use crypto_build::data::{self, AsmSet, Target};
use crypto_build::files::WriteLock;
use crypto_build::sets::Config;
use crypto_build::source::Source;
use crypto_gen::generate::{self, Request, Staging};
use std::time::Instant;
use xshell::Shell;

impl Generate {
    pub fn run(self, _sh: &Shell) -> Result<()> {
        let line = self.openssl.line;
        let workspace = || line.root(&crate::cargo::project_root());
        let root = self.root.clone().unwrap_or_else(workspace);
        let sets: Vec<&'static AsmSet> =
            if self.sets.is_empty() { data::SETS.iter().collect() } else { self.sets.clone() };
        let targets: Vec<&'static Target> = if self.targets.is_empty() {
            data::TARGETS.iter().filter(|t| line.has_target(t.name)).collect()
        } else {
            self.targets.clone()
        };
        for t in &targets {
            line.check_target(t.name)?;
        }
        let jobs = crypto_build::jobs::count();
        let progress = crate::progress::generation;
        let mut configs = Config::expand(&targets, &sets);
        if !self.variants.is_empty() {
            configs.retain(|c| self.variants.contains(&c.variant));
        }
        let source = Source::of_line(line)?;
        let req = Request {
            root: &root,
            configs,
            jobs,
            progress: Some(&progress),
            source: &source,
            trees: None,
        };
        let started = Instant::now();
        if self.check {
            let problems = generate::check(&req)?;
            if !problems.is_empty() {
                for p in problems.iter().take(20) {
                    eprintln!("  {p}");
                }
                bail!(
                    "generate --check: {} difference(s) from {}; run `cargo xtask generate` \
                     to regenerate, and commit generate.lock if the change is intended",
                    problems.len(),
                    crypto_build::lock::FILE_NAME
                );
            }
            println!("generate --check: reproducible and intact ({:.1?})", started.elapsed());
            return Ok(());
        }
        // Two runs installing into one root would interleave renames and lose lock entries.
        let _lock = WriteLock::acquire(&root, false)?;
        let staging = Staging::new(&root)?;
        let staged = generate::stage(&req, &staging)?;
        let summary: Vec<String> = staged
            .iter()
            .map(|s| format!("{} ({} files)", s.manifest.key(), s.manifest.files.len()))
            .collect();
        generate::commit(&root, &staging, staged)?;
        println!("generated {} in {:.1?}", summary.join(", "), started.elapsed());
        Ok(())
    }
}
