//! The `lock` step: every configuration of every target, generated where missing (a fresh
//! clone has only what `cargo xtask build` needed) and equal to the committed generate.lock.

use anyhow::{Context, Result};

pub fn run() -> Result<()> {
    use crypto_build::data::{self, SETS, TARGETS};
    use crypto_build::generate::{self, Config};
    let targets: Vec<_> = TARGETS.iter().collect();
    let sets: Vec<_> = SETS.iter().collect();
    let configs = Config::expand(&targets, &sets);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let progress = crate::progress::generation;
    // A target at a time, the host's first: the steps beside this one build the host's sets,
    // and a build or detect that needs a configuration waits only for the batch under way
    // (then makes what is still missing itself, or finds it made).
    let host = data::target_for(&crate::cargo::host_triple(&xshell::Shell::new()?)?).ok();
    let mut order: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    order.sort_by_key(|name| host.is_none_or(|h| h.name != *name));
    let root = crate::cargo::project_root();
    for target in order {
        let batch: Vec<Config> =
            configs.iter().filter(|c| c.target.name == target).copied().collect();
        generate::ensure_all(&root, &batch, jobs, Some(&progress))
            .with_context(|| format!("the generated sets of {target} against generate.lock"))?;
    }
    println!("sets: all {} configurations match generate.lock", configs.len());
    Ok(())
}
