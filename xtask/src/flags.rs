//! The command line: every subcommand's options, parsed into plain structs.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

pub const HELP: &str = "\
cargo xtask <command>

  generate [--check] [--set S]... [--target T]... [--root DIR]
      Generate the asm sets from OpenSSL's perlasm (all sets and targets by default).
      --check regenerates in a scratch directory and compares with generate.lock and with
      the outputs on disk, changing nothing. --root works on another copy of the sets.
  build [--asm-set auto|asm|asm_avx2|no_asm] [--assembler gas|clang|nasm] [--strict]
        [--allow-downgrade] [--target TRIPLE] [--release] [--prefix DIR]
      Build crypto-sys with that set and print one summary line. The options map to the
      variables CRYPTO_SYS_ASM_SET, CRYPTO_SYS_ASSEMBLER, CRYPTO_SYS_STRICT and
      CRYPTO_SYS_ALLOW_DOWNGRADE, which plain cargo builds read. --prefix also installs an
      OpenSSL-style prefix (lib/libcrypto.a, lib/libssl.a, include/openssl) usable as
      OPENSSL_DIR for openssl-sys with OPENSSL_STATIC=1.
  detect [--target T] [--asm-set S] [--assembler gas|clang|nasm] [--strict] [--allow-downgrade] [--json]
      Print the toolchain cc would use (honouring CC, CFLAGS, ...), its probe results and
      the per-file plan, without building anything.
  verify
      Build, then check the linked libcrypto.a: fast paths taken from asm are real code,
      downgraded ones are stubs, and the eligibility functions are true where the CPU allows.
  toolchains [--check]
      Write docs/toolchains.md: each tested toolchain against the plan chosen for it.
  test
      Every check: fmt, clippy, the workspace's tests, crypto-sys's known-answer tests
      with each set, and generate --check.
";

pub enum Command {
    Help,
    Generate(Generate),
    Build(Build),
    Test(Test),
    Detect(Detect),
    Toolchains(Toolchains),
    Verify(Verify),
}

#[derive(Debug, Default)]
pub struct Verify {}

#[derive(Debug, Default)]
pub struct Toolchains {
    pub check: bool,
}

#[derive(Debug, Default)]
pub struct Detect {
    pub target: Option<String>,
    pub asm_set: Option<String>,
    pub assembler: Option<String>,
    pub strict: bool,
    pub allow_downgrade: bool,
    pub json: bool,
}

#[derive(Debug, Default)]
pub struct Test {}

#[derive(Debug, Default)]
pub struct Generate {
    pub check: bool,
    pub sets: Vec<String>,
    pub targets: Vec<String>,
    pub root: Option<PathBuf>,
}

#[derive(Debug, Default)]
pub struct Build {
    pub asm_set: Option<String>,
    pub assembler: Option<String>,
    pub strict: bool,
    pub allow_downgrade: bool,
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
                    "--root" => g.root = Some(value("--root", &mut args)?.into()),
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
                    "--assembler" => b.assembler = Some(value("--assembler", &mut args)?),
                    "--strict" => b.strict = true,
                    "--allow-downgrade" => b.allow_downgrade = true,
                    "--target" => b.target = Some(value("--target", &mut args)?),
                    "--release" => b.release = true,
                    "--prefix" => b.prefix = Some(value("--prefix", &mut args)?.into()),
                    other => bail!("unknown option `{other}` for build; see `cargo xtask help`"),
                }
            }
            Ok(Command::Build(b))
        }
        "detect" => {
            let mut d = Detect::default();
            while let Some(a) = args.next() {
                match a.as_str() {
                    "--target" => d.target = Some(value("--target", &mut args)?),
                    "--asm-set" => d.asm_set = Some(value("--asm-set", &mut args)?),
                    "--assembler" => d.assembler = Some(value("--assembler", &mut args)?),
                    "--strict" => d.strict = true,
                    "--allow-downgrade" => d.allow_downgrade = true,
                    "--json" => d.json = true,
                    other => bail!("unknown option `{other}` for detect; see `cargo xtask help`"),
                }
            }
            Ok(Command::Detect(d))
        }
        "verify" => match args.next() {
            None => Ok(Command::Verify(Verify {})),
            Some(other) => bail!("unknown option `{other}` for verify; see `cargo xtask help`"),
        },
        "toolchains" => match args.next().as_deref() {
            None => Ok(Command::Toolchains(Toolchains { check: false })),
            Some("--check") => Ok(Command::Toolchains(Toolchains { check: true })),
            Some(other) => bail!("unknown option `{other}` for toolchains; see `cargo xtask help`"),
        },
        "test" => match args.next() {
            None => Ok(Command::Test(Test {})),
            Some(other) => bail!("unknown option `{other}` for test; see `cargo xtask help`"),
        },
        other => bail!("unknown command `{other}`; see `cargo xtask help`"),
    }
}
