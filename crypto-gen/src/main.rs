//! The binary crypto-build's build runs in crypto-sys's repository for what a fresh clone
//! lacks (`crypto_build::gen_tool`):
//!
//! - `tree LINE`: the line's source crate made from its supplier, the registry's openssl-src
//!   this crate depends on, when the crate's lock names it;
//! - `sets --root DIR --lock-dir DIR --source DIR --release VERSION KEY...`: the configurations
//!   `KEY` (`asm/linux-x86_64`) generated into `--root` from the tree at `--source` when
//!   missing, each checked against `--lock-dir`'s generate.lock before it is installed.
//!
//! Its error is its last line on standard error, which the build quotes.

use anyhow::{bail, Context, Result};
use crypto_build::gen_tool::{SETS, TREE};
use crypto_build::lock::Lock;
use crypto_build::sets::Config;
use crypto_build::source::{Source, SourceCrate};
use std::path::PathBuf;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<()> {
    match args.split_first() {
        Some((cmd, rest)) if cmd == TREE => tree(rest),
        Some((cmd, rest)) if cmd == SETS => sets(rest),
        _ => bail!("usage: crypto-gen {TREE} LINE | {SETS} --root DIR --lock-dir DIR --source DIR --release VERSION KEY..."),
    }
}

fn tree(args: &[String]) -> Result<()> {
    let [name] = args else { bail!("{TREE} takes one line's name") };
    let line = crypto_build::data::OpensslLine::by_name(name)?;
    let root = crypto_build::repository().context("crypto-gen outside its repository")?;
    let krate = SourceCrate::in_workspace(root, line);
    if !crypto_gen::source::make_from_supplier(&krate, line)? {
        bail!("{}", krate.missing(&krate.lock_for(line)?));
    }
    Ok(())
}

fn sets(args: &[String]) -> Result<()> {
    let mut flags = std::collections::BTreeMap::new();
    let mut keys = vec![];
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.strip_prefix("--") {
            Some(flag) => {
                let value = it.next().with_context(|| format!("--{flag} takes a value"))?;
                flags.insert(flag, value.clone());
            }
            None => keys.push(Config::parse(arg)?),
        }
    }
    let mut flag =
        |name: &str| flags.remove(name).with_context(|| format!("{SETS} needs --{name}"));
    let root = PathBuf::from(flag("root")?);
    let lock = Lock::load(&PathBuf::from(flag("lock-dir")?))?;
    let source = Source { dir: flag("source")?.into(), version: flag("release")? };
    let jobs = crypto_build::jobs::count();
    crypto_gen::generate::ensure(&root, &source, &lock, &keys, jobs)
}
