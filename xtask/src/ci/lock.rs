//! The `lock` step: every configuration of every target, generated where missing (a fresh
//! clone has only what `cargo xtask build` needed) and equal to the committed generate.lock.

use anyhow::{Context, Result};

pub fn run() -> Result<()> {
    use crypto_build::data::{SETS, TARGETS};
    use crypto_build::generate::{self, Config};
    let targets: Vec<_> = TARGETS.iter().collect();
    let sets: Vec<_> = SETS.iter().collect();
    let configs = Config::expand(&targets, &sets);
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    let progress = crate::progress::generation;
    generate::ensure_all(&crate::cargo::project_root(), &configs, jobs, Some(&progress))
        .context("the generated sets against generate.lock")?;
    println!("sets: all {} configurations match generate.lock", configs.len());
    Ok(())
}
