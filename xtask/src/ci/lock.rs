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
    // The host's first, installed as a batch of their own: the steps beside this one build
    // the host's sets, and a build waits for a generation under way to finish.
    let host = data::target_for(&crate::cargo::host_triple(&xshell::Shell::new()?)?).ok();
    let (first, rest): (Vec<Config>, Vec<Config>) =
        configs.iter().partition(|c| host.is_some_and(|h| c.target.name == h.name));
    let root = crate::cargo::project_root();
    for batch in [&first, &rest].into_iter().filter(|b| !b.is_empty()) {
        generate::ensure_all(&root, batch, jobs, Some(&progress))
            .context("the generated sets against generate.lock")?;
    }
    println!("sets: all {} configurations match generate.lock", configs.len());
    Ok(())
}
