//! The command line: every subcommand's options, parsed into plain structs.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

pub const HELP: &str = "\
cargo xtask <command>

  generate [--check] [--set S]... [--target T]...
      Generate the asm sets from OpenSSL's perlasm (all sets and targets by default).
      --check regenerates in a scratch directory and compares with generate.lock and with
      the outputs on disk, changing nothing.
  build [--asm-set auto|asm|asm_avx2|no_asm] [--target TRIPLE] [--release] [--prefix DIR]
      Build crypto-sys with that set and print one summary line. --prefix also installs an
      OpenSSL-style prefix (lib/libcrypto.a, lib/libssl.a, include/openssl) usable as
      OPENSSL_DIR for openssl-sys with OPENSSL_STATIC=1.
";

pub enum Command {
    Help,
    Generate(Generate),
    Build(Build),
}

#[derive(Debug, Default)]
pub struct Generate {
    pub check: bool,
    pub sets: Vec<String>,
    pub targets: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Build {
    pub asm_set: Option<String>,
    pub target: Option<String>,
    pub release: bool,
    pub prefix: Option<PathBuf>,
}

pub fn parse(args: impl Iterator<Item = String>) -> Result<Command> {
    let mut args = args.peekable();
    let Some(cmd) = args.next() else {
        return Ok(Command::Help);
    };
    let value = |flag: &str, args: &mut std::iter::Peekable<_>| -> Result<String> {
        args.next().with_context(|| format!("{flag} needs a value"))
    };
    match cmd.as_str() {
        "help" | "--help" | "-h" => Ok(Command::Help),
        "generate" => {
            let mut g = Generate::default();
            while let Some(a) = args.next() {
                match a.as_str() {
                    "--check" => g.check = true,
                    "--set" => g.sets.push(value("--set", &mut args)?),
                    "--target" => g.targets.push(value("--target", &mut args)?),
                    other => bail!("unknown option `{other}` for generate; see `cargo xtask help`"),
                }
            }
            Ok(Command::Generate(g))
        }
        "build" => {
            let mut b = Build::default();
            while let Some(a) = args.next() {
                match a.as_str() {
                    "--asm-set" => b.asm_set = Some(value("--asm-set", &mut args)?),
                    "--target" => b.target = Some(value("--target", &mut args)?),
                    "--release" => b.release = true,
                    "--prefix" => b.prefix = Some(value("--prefix", &mut args)?.into()),
                    other => bail!("unknown option `{other}` for build; see `cargo xtask help`"),
                }
            }
            Ok(Command::Build(b))
        }
        other => bail!("unknown command `{other}`; see `cargo xtask help`"),
    }
}
