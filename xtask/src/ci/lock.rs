//! The `lock` step: every configuration of every target of the line the run tests
//! (`--openssl`, the default line unless named), and the other lines' configurations of the
//! host's target, generated where missing (a fresh clone has only what `cargo xtask build`
//! needed) and equal to each line's committed generate.lock. A run on each line checks that
//! line's lock whole; the other lines' whole, each another forty-odd configurations, are
//! left to their own runs.

use anyhow::{Context, Result};

pub fn run() -> Result<()> {
    use crypto_build::data::{self, OPENSSL_LINES, SETS, TARGETS};
    use crypto_build::generate::{self, Config, Source};
    let sets: Vec<_> = SETS.iter().collect();
    let jobs = crypto_build::jobs::count();
    let progress = crate::progress::generation;
    // A target at a time, the host's first: the steps beside this one build the host's sets,
    // and a build or detect that needs a configuration waits only for the batch under way
    // (then makes what is still missing itself, or finds it made).
    let host = data::target_for(&crate::cargo::host_triple(&xshell::Shell::new()?)?).ok();
    let mut order: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    order.sort_by_key(|name| host.is_none_or(|h| h.name != *name));
    let workspace = crate::cargo::project_root();
    for line in OPENSSL_LINES {
        let whole = line == super::line();
        let targets: Vec<_> = TARGETS
            .iter()
            .filter(|t| {
                line.has_target(t.name) && (whole || host.is_some_and(|h| h.name == t.name))
            })
            .collect();
        let configs = Config::expand(&targets, &sets);
        let (root, source) = (line.root(&workspace), Source::of_line(line)?);
        for target in order.iter().filter(|t| targets.iter().any(|c| c.name == **t)) {
            let batch: Vec<Config> =
                configs.iter().filter(|c| c.target.name == *target).copied().collect();
            generate::ensure_all(&root, &source, &batch, jobs, Some(&progress)).with_context(
                || format!("OpenSSL {}'s sets of {target} against its generate.lock", line.version),
            )?;
        }
        let which = if whole { "all" } else { "the host target's" };
        println!(
            "sets: {which} {} configurations of OpenSSL {} match {}",
            configs.len(),
            line.version,
            root.join(generate::lock::FILE_NAME).strip_prefix(&workspace)?.display()
        );
    }
    Ok(())
}
