//! The command line: every subcommand's options, parsed into plain structs.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;

pub const HELP: &str = "\
cargo xtask <command>

  generate [--check] [--set S]... [--target T]... [--c-variant V]... [--root DIR]
           [--openssl 3.6|4.0]
      Generate the asm sets from OpenSSL's perlasm (all sets, targets and C variants by
      default; `--c-variant none` is OpenSSL's default C configuration alone).
      --check regenerates in a scratch directory and compares with generate.lock and with
      the outputs on disk, changing nothing. --root works on another copy of the sets.
      --openssl 4.0: the second OpenSSL line's sets, in openssl-4.0/ with its own lock.
  build [--asm-set auto|asm|asm_avx2|no_asm] [--c-variant auto|none|ec_nistp_64_gcc_128]
        [--assembler gas|clang|nasm] [--strict] [--allow-downgrade] [--target TRIPLE]
        [--release] [--prefix DIR] [--no-legacy] [--apps] [--openssldir DIR]
        [--openssl 3.6|4.0]
      Build crypto-sys with that set and print one summary line. The options map to the
      variables CRYPTO_SYS_ASM_SET, CRYPTO_SYS_C_VARIANT, CRYPTO_SYS_ASSEMBLER,
      CRYPTO_SYS_STRICT and CRYPTO_SYS_ALLOW_DOWNGRADE, which plain cargo builds read.
      --no-legacy leaves the legacy provider out (crypto-sys without its `legacy` feature).
      --apps also links the `openssl` program (CRYPTO_SYS_APPS=1) and runs `openssl version
      -a` where the target's programs can run here. --prefix also installs an OpenSSL-style
      prefix (include/openssl, lib/libcrypto.a, lib/libssl.a, lib/pkgconfig,
      lib/cmake/OpenSSL, and bin/openssl with --apps), usable as OPENSSL_DIR for openssl-sys
      with OPENSSL_STATIC=1, or through PKG_CONFIG_PATH, and what `make install_ssldirs`
      installs: openssl.cnf (never over an existing one), openssl.cnf.dist, ct_log_list.cnf,
      certs/ and private/, in OPENSSLDIR when it lies under the prefix, else in its ssl/.
      --openssldir sets OPENSSLDIR, where OpenSSL looks for openssl.cnf, certificates and
      keys (CRYPTO_SYS_OPENSSLDIR, absolute); a relative DIR lies under the prefix, as with
      Configure, and needs --prefix. By default it is /usr/local/ssl, as in openssl-sys's
      vendored build, and the libraries do not depend on the prefix. --openssl 4.0 builds
      the second OpenSSL line (crypto-sys's `openssl-4` feature).
  detect [--target T] [--asm-set S] [--c-variant V] [--assembler gas|clang|nasm] [--strict]
         [--allow-downgrade] [--json]
      Print the toolchain cc would use (honouring CC, CFLAGS, ...), its assembler and C
      probe results and the plan (per-file sets, C variant), without building anything.
  bench [--sets asm,asm_avx2,no_asm] [--against openssl-src,ring,aws-lc-rs] [--cc COMPILER]
        [--windows] [--json FILE] [--plot FILE] [--rounds N] [--seconds S] [--openssl 3.6|4.0]
      Build the benchmark harness with each set (and with each --against library: OpenSSL's
      own build, ring and aws-lc-rs through their own APIs, any subset), run them interleaved
      for N rounds, and print each figure with its ratio to asm, then ours against
      openssl-src built the same way and against ring and aws-lc-rs (n/a where a library
      lacks a figure), then clean build times. --cc adds asm and openssl-src built with
      CC=COMPILER. --windows instead compares the C driver's figures under wine (GNU as and
      nasm objects) with the native Linux build. --openssl 4.0 measures the second OpenSSL
      line, against openssl-src 400's own build of it.
  package
      Make crypto-build and crypto-sys .crate files (crypto-sys carrying the pre-generated
      sets, checked against generate.lock) and run `cargo publish --dry-run` on them.
  verify [--no-legacy] [--openssl 3.6|4.0]
      Build, then check the linked libcrypto.a: fast paths taken from asm are real code,
      downgraded ones are stubs, the legacy provider is linked (or, with --no-legacy, left
      out as asked), and the eligibility functions are true where the CPU allows.
      --openssl 4.0 builds and checks the second OpenSSL line, against its own manifests.
  toolchains [--check]
      Write docs/toolchains.md: each tested toolchain against the plan chosen for it.
  update-openssl VERSION|--source FILE --sha256 HEX [--from VERSION] [--target NAME]...
                 [--report-only]
      Fetch openssl-src VERSION through cargo (a crate version, 400.0.2, or an OpenSSL
      release, 4.0.3: the newest crate of its line, which must hold it), or take the release
      tarball FILE (openssl-X.Y.Z.tar.gz: its SHA-256 must be HEX, it must hold Configure and
      VERSION.dat under openssl-X.Y.Z/, and be 3.5 or newer; each refused before anything is
      touched), generate every configuration from it in scratch space and compare with
      generate.lock and the manifests: a summary in plain words, then per target and set the
      asm files with the entry points and instruction classes they gain and lose, the oldest
      assembler each set takes, Configure's defines, disabled features and generated headers,
      the C variants still accepted, the public API, and every failed configuration or check
      as a finding. Writes target/update-openssl/FROM-to-TO.md and .json; fails after writing
      them when there is a finding. --from VERSION compares with that openssl-src release,
      generated in scratch too, instead of the pinned one; --target NAME (a Configure target
      of data::TARGETS, repeatable) only those targets' configurations; both need
      --report-only. Without --report-only, and only when there is no finding, then moves the
      pin: Cargo.toml, generate.lock and the sets, data::OPENSSL_VERSION and the default
      line's source, the version checks and the README, all or nothing, and the report to
      docs/openssl-updates/; a tarball's tree goes to openssl-sources/openssl-X.Y.Z/ with its
      SHA-256, where builds take it from. The tarball of a line that names it already is only
      unpacked there (what a build that misses it asks for).
  test [--list] [--step NAME]... [--target TRIPLE]... [--full] [--openssl 3.6|4.0]
      Every check CI runs, as named steps: fmt and clippy, the sets against generate.lock,
      the workspace's tests, crypto-sys's suites with each set on every code path, the other
      toolchains, the prefix and its consumers, the sanitizers, Windows under wine, aarch64,
      ppc64le, s390x and riscv64 under qemu, the rows only assembled, the packaged crate at
      another path, and the CI workflow against this registry. --list prints each step, what
      it covers, its targets and its time in the last run here. --step runs only the steps
      named (again as often as named); --target only those that check that triple's
      toolchain rows; --full adds the steps CI's default run leaves out (no_asm for Windows,
      aarch64, ppc64le, s390x and riscv64, clang-19's runs under qemu, the second OpenSSL
      line, and the openssl crate's own tests against a prefix of each line). Steps run side
      by side: those that build through cargo in turn, beside them those that never call
      cargo, one per core (and, once the cargo steps are done, in their lane too), each line
      tagged with its step. A table of each step's time ends the run. --openssl 4.0 runs
      the steps on the second OpenSSL line (crypto-sys's `openssl-4` feature): those whose
      checks depend on the line, each other one named once with the reason it is left out.
";

pub enum Command {
    /// The whole help, or one command's part of it.
    Help(Option<String>),
    Generate(Generate),
    Build(Build),
    Test(Test),
    Detect(Detect),
    Toolchains(Toolchains),
    Verify(Verify),
    Package(Package),
    Bench(Bench),
    UpdateOpenssl(UpdateOpenssl),
}

#[derive(Debug, Default)]
pub struct UpdateOpenssl {
    /// The release moved to, fetched through cargo; empty with `--source`.
    pub version: String,
    /// A release tarball instead, and the SHA-256 it must have.
    pub source: Option<PathBuf>,
    pub sha256: Option<String>,
    /// The release compared with, instead of the pinned one.
    pub from: Option<String>,
    /// Only these targets' configurations (`Target::name`); none: every target.
    pub targets: Vec<String>,
    pub report_only: bool,
}

#[derive(Debug, Default)]
pub struct Bench {
    pub sets: Option<String>,
    pub against: Option<String>,
    pub json: Option<PathBuf>,
    pub plot: Option<PathBuf>,
    pub rounds: Option<usize>,
    pub seconds: Option<f64>,
    pub cc: Option<String>,
    pub windows: bool,
    pub openssl: Option<String>,
}

#[derive(Debug, Default)]
pub struct Package {}

#[derive(Debug, Default)]
pub struct Verify {
    pub no_legacy: bool,
    pub openssl: Option<String>,
}

#[derive(Debug, Default)]
pub struct Toolchains {
    pub check: bool,
}

#[derive(Debug, Default)]
pub struct Detect {
    pub target: Option<String>,
    pub asm_set: Option<String>,
    pub c_variant: Option<String>,
    pub assembler: Option<String>,
    pub strict: bool,
    pub allow_downgrade: bool,
    pub json: bool,
}

#[derive(Debug, Default)]
pub struct Test {
    pub list: bool,
    pub steps: Vec<String>,
    pub targets: Vec<String>,
    pub full: bool,
    pub openssl: Option<String>,
}

#[derive(Debug, Default)]
pub struct Generate {
    pub check: bool,
    pub sets: Vec<String>,
    pub targets: Vec<String>,
    pub variants: Vec<String>,
    pub root: Option<PathBuf>,
    /// The OpenSSL line (`data::OPENSSL_LINES`); the default line when absent.
    pub openssl: Option<String>,
}

#[derive(Debug, Default)]
pub struct Build {
    pub asm_set: Option<String>,
    pub c_variant: Option<String>,
    pub assembler: Option<String>,
    pub strict: bool,
    pub allow_downgrade: bool,
    pub target: Option<String>,
    pub release: bool,
    pub prefix: Option<PathBuf>,
    pub no_legacy: bool,
    pub apps: bool,
    pub openssldir: Option<String>,
    /// The OpenSSL line (`data::OPENSSL_LINES`); the default line when absent.
    pub openssl: Option<String>,
}

pub fn parse(args: impl Iterator<Item = String>) -> Result<Command> {
    let args: Vec<String> = args.collect();
    let Some(cmd) = args.first().cloned() else { return Ok(Command::Help(None)) };
    if matches!(cmd.as_str(), "help" | "--help" | "-h") {
        return Ok(Command::Help(args.get(1).cloned()));
    }
    if args[1..].iter().any(|a| a == "--help" || a == "-h") {
        help_for(&cmd)?;
        return Ok(Command::Help(Some(cmd)));
    }
    let args = &mut args.into_iter().skip(1);
    Ok(match cmd.as_str() {
        "generate" => {
            let mut g = Generate::default();
            options("generate", args, |opt, v| {
                match opt {
                    "--check" => g.check = true,
                    "--set" => g.sets.push(v.take()?),
                    "--target" => g.targets.push(v.take()?),
                    "--c-variant" => g.variants.push(v.take()?),
                    "--root" => g.root = Some(v.take()?.into()),
                    "--openssl" => g.openssl = Some(v.take()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Command::Generate(g)
        }
        "build" => {
            let mut b = Build::default();
            options("build", args, |opt, v| {
                match opt {
                    "--asm-set" => b.asm_set = Some(v.take()?),
                    "--c-variant" => b.c_variant = Some(v.take()?),
                    "--assembler" => b.assembler = Some(v.take()?),
                    "--strict" => b.strict = true,
                    "--allow-downgrade" => b.allow_downgrade = true,
                    "--target" => b.target = Some(v.take()?),
                    "--release" => b.release = true,
                    "--prefix" => b.prefix = Some(v.take()?.into()),
                    "--no-legacy" => b.no_legacy = true,
                    "--apps" => b.apps = true,
                    "--openssldir" => b.openssldir = Some(v.take()?),
                    "--openssl" => b.openssl = Some(v.take()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Command::Build(b)
        }
        "detect" => {
            let mut d = Detect::default();
            options("detect", args, |opt, v| {
                match opt {
                    "--target" => d.target = Some(v.take()?),
                    "--asm-set" => d.asm_set = Some(v.take()?),
                    "--c-variant" => d.c_variant = Some(v.take()?),
                    "--assembler" => d.assembler = Some(v.take()?),
                    "--strict" => d.strict = true,
                    "--allow-downgrade" => d.allow_downgrade = true,
                    "--json" => d.json = true,
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Command::Detect(d)
        }
        "toolchains" => {
            let mut t = Toolchains::default();
            options("toolchains", args, |opt, _| {
                Ok(opt == "--check" && {
                    t.check = true;
                    true
                })
            })?;
            Command::Toolchains(t)
        }
        "bench" => {
            let mut b = Bench::default();
            options("bench", args, |opt, v| {
                match opt {
                    "--sets" => b.sets = Some(v.take()?),
                    "--against" => b.against = Some(v.take()?),
                    "--json" => b.json = Some(v.take()?.into()),
                    "--plot" => b.plot = Some(v.take()?.into()),
                    "--rounds" => b.rounds = Some(v.take()?.parse().context("--rounds")?),
                    "--seconds" => b.seconds = Some(v.take()?.parse().context("--seconds")?),
                    "--cc" => b.cc = Some(v.take()?),
                    "--windows" => b.windows = true,
                    "--openssl" => b.openssl = Some(v.take()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Command::Bench(b)
        }
        "package" => {
            options("package", args, |_, _| Ok(false))?;
            Command::Package(Package {})
        }
        "verify" => {
            let mut v = Verify::default();
            options("verify", args, |opt, val| {
                Ok(match opt {
                    "--no-legacy" => {
                        v.no_legacy = true;
                        true
                    }
                    "--openssl" => {
                        v.openssl = Some(val.take()?);
                        true
                    }
                    _ => false,
                })
            })?;
            Command::Verify(v)
        }
        "test" => {
            let mut t = Test::default();
            options("test", args, |opt, v| {
                match opt {
                    "--list" => t.list = true,
                    "--step" => t.steps.push(v.take()?),
                    "--target" => t.targets.push(v.take()?),
                    "--full" => t.full = true,
                    "--openssl" => t.openssl = Some(v.take()?),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            Command::Test(t)
        }
        "update-openssl" => {
            let mut u = UpdateOpenssl::default();
            options("update-openssl", args, |opt, v| {
                match opt {
                    "--report-only" => u.report_only = true,
                    "--source" => u.source = Some(v.take()?.into()),
                    "--sha256" => u.sha256 = Some(v.take()?),
                    "--from" => u.from = Some(v.take()?),
                    "--target" => u.targets.push(v.take()?),
                    v if !v.starts_with('-') && u.version.is_empty() => u.version = v.into(),
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            u.check()?;
            Command::UpdateOpenssl(u)
        }
        other => bail!("unknown command `{other}`; see `cargo xtask help`"),
    })
}

impl UpdateOpenssl {
    /// The combinations that make sense, else one line saying which is wrong.
    fn check(&self) -> Result<()> {
        match (&self.source, &self.sha256, self.version.is_empty()) {
            (None, None, true) => bail!(
                "update-openssl needs a VERSION (openssl-src's, 400.0.2, or OpenSSL's, 4.0.3) \
                 or --source openssl-X.Y.Z.tar.gz --sha256 HEX"
            ),
            (Some(_), _, false) => bail!("update-openssl takes a VERSION or --source, not both"),
            (Some(_), None, _) => {
                bail!("--source needs --sha256 HEX: the tarball's SHA-256, from its publisher")
            }
            (None, Some(_), _) => bail!("--sha256 is the SHA-256 of --source's tarball"),
            _ => {}
        }
        if !self.report_only && (self.from.is_some() || !self.targets.is_empty()) {
            bail!(
                "--from and --target make a report only (a move starts from the pin and takes \
                 every target): add --report-only"
            );
        }
        Ok(())
    }
}

/// One command's part of HELP: its usage lines and their description.
pub fn help_for(cmd: &str) -> Result<String> {
    let mut out = String::new();
    let mut inside = false;
    for line in HELP.lines().skip(1) {
        // A command's usage starts at two spaces of indent; its description is deeper.
        let starts_command = line.starts_with("  ") && !line[2..].starts_with(' ');
        if starts_command {
            inside = line[2..].split_whitespace().next() == Some(cmd);
        }
        if inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    if out.is_empty() {
        bail!("unknown command `{cmd}`; see `cargo xtask help`");
    }
    Ok(out)
}

/// The value of the option being parsed.
pub struct Value<'a> {
    flag: &'a str,
    args: &'a mut dyn Iterator<Item = String>,
}

impl Value<'_> {
    fn take(&mut self) -> Result<String> {
        self.args.next().with_context(|| format!("{} needs a value", self.flag))
    }
}

/// Feeds each option to `apply`, which answers false for one it does not know.
fn options(
    cmd: &str,
    args: &mut dyn Iterator<Item = String>,
    mut apply: impl FnMut(&str, &mut Value) -> Result<bool>,
) -> Result<()> {
    while let Some(opt) = args.next() {
        if !apply(&opt, &mut Value { flag: &opt, args })? {
            bail!("unknown option `{opt}` for {cmd}; see `cargo xtask help`");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(line: &str) -> Result<Command> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn every_command_answers_help_with_its_own_part() {
        let cmds = ["generate", "build", "detect", "bench", "package", "verify", "toolchains"];
        for cmd in cmds.into_iter().chain(["test", "update-openssl"]) {
            for flag in ["--help", "-h"] {
                let parsed = parse_str(&format!("{cmd} --release {flag}")).unwrap();
                assert!(matches!(parsed, Command::Help(Some(ref c)) if c == cmd));
            }
            let text = help_for(cmd).unwrap();
            assert!(text.starts_with(&format!("  {cmd}")), "{text}");
            assert!(text.lines().count() >= 2, "usage and description: {text}");
            let others =
                text.lines().skip(1).filter(|l| l.starts_with("  ") && !l[2..].starts_with(' '));
            assert_eq!(others.count(), 0, "only {cmd}'s part: {text}");
        }
        assert!(help_for("bench").unwrap().contains("--windows"));
        assert!(help_for("frob").is_err());
        assert!(matches!(parse_str("help build").unwrap(), Command::Help(Some(c)) if c == "build"));
    }

    #[test]
    fn update_openssl_takes_one_version() {
        let Command::UpdateOpenssl(u) = parse_str("update-openssl 400.0.2 --report-only").unwrap()
        else {
            panic!("not update-openssl")
        };
        assert_eq!((u.version.as_str(), u.report_only), ("400.0.2", true));
        let e = parse_str("update-openssl").err().expect("a version is needed");
        assert!(e.to_string().contains("needs a VERSION"), "{e}");
        assert!(parse_str("update-openssl 4.0.3 3.5.5").is_err());
    }

    #[test]
    fn update_openssl_takes_a_tarball_and_its_sha256() {
        let line = "update-openssl --source openssl-3.6.3.tar.gz --sha256 ab --report-only \
                    --from 300.6.1 --target linux-x86_64 --target linux-aarch64";
        let Command::UpdateOpenssl(u) = parse_str(line).unwrap() else {
            panic!("not update-openssl")
        };
        assert_eq!(u.source, Some(PathBuf::from("openssl-3.6.3.tar.gz")));
        assert_eq!((u.sha256.as_deref(), u.from.as_deref()), (Some("ab"), Some("300.6.1")));
        assert_eq!(u.targets, ["linux-x86_64", "linux-aarch64"]);
        let refused = [
            ("update-openssl --source a.tar.gz", "--source needs --sha256"),
            ("update-openssl --sha256 ab 4.0.3", "--sha256 is the SHA-256 of --source"),
            ("update-openssl 4.0.3 --source a.tar.gz --sha256 ab", "not both"),
            ("update-openssl 4.0.3 --from 3.6.3", "add --report-only"),
            ("update-openssl 4.0.3 --target linux-x86_64", "add --report-only"),
        ];
        for (line, want) in refused {
            let e = parse_str(line).err().expect(line).to_string();
            assert!(e.contains(want) && !e.contains('\n'), "{line}: {e}");
        }
    }
}
