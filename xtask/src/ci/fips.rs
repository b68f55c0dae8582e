//! `fips`: the FIPS provider module of a prefix built as the issue's user builds it (`cargo
//! xtask build --release --apps --fips --openssldir ssl --prefix P`), proved on this CPU:
//! `fipsinstall -verify` passes on what the install wrote; with a FIPS configuration, `list
//! -providers` shows it active, SHA-256 gives its answer and MD5 is refused; on every
//! OPENSSL_ia32cap path the CPU can run, the module loads (its self-tests pass) and its digests,
//! HMAC and ciphers equal the default provider's; a copy with one byte flipped is refused with
//! the integrity error; `verify --prefix` checks its exports and its asm; and crypto-sys's own
//! `fips` feature turns FIPS mode on from Rust (`crypto-sys/tests/fips.rs`).

use super::apps::work_dir;
use crate::runner::Runner;
use anyhow::{bail, ensure, Context, Result};
use crypto_build::data::{self, Arch};
use crypto_build::fips::{CONFIG_FILE, MODULES_DIR, SECTION};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use xshell::{cmd, Shell};

/// Where the step installs its prefix (the line's own, `line_target_dir`).
const PREFIX: &str = "prefix-fips";
// FIPS 180-2, appendix B.1.
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

pub fn run(sh: &Shell, cargo: &str) -> Result<()> {
    let prefix = super::line_target_dir(PREFIX, super::line());
    crate::prefix::remove_earlier(&prefix)?;
    let line = super::line_args();
    let out = cmd!(
        sh,
        "{cargo} xtask build --release --apps --fips --openssldir ssl --prefix {prefix} {line...}"
    )
    .read()?;
    println!("{out}");
    ensure!(
        out.lines().any(|l| l.starts_with(&format!("{CONFIG_FILE}: written by the prefix's"))),
        "the install should say that `openssl fipsinstall` wrote {CONFIG_FILE}:\n{out}"
    );
    let line = super::line_args();
    cmd!(sh, "{cargo} xtask verify --prefix {prefix} {line...}").run()?;
    let work = work_dir(&format!("fips-test{}", super::line().dir_suffix()))?;
    Openssl::new(Runner::Native, &prefix, &work)?.prove(Arch::X86_64)?;
    let features = ["--features", "fips"].into_iter().chain(super::line_features());
    let features: Vec<&str> = features.collect();
    cmd!(sh, "{cargo} test -q --release -p crypto-sys {features...} --test fips -- --nocapture")
        .run()
        .context("crypto-sys's fips feature, from Rust")?;
    Ok(())
}

/// `--full`'s rows: the module of each other target whose programs run here, built by
/// `cargo xtask build --target T --apps --fips --prefix` with the row's compiler and proved
/// under its runner as the default run proves x86_64's (the Rust side excepted: no Rust std
/// for these targets here).
pub fn cross(sh: &Shell, cargo: &str) -> Result<()> {
    use data::triples::{AARCH64_LINUX, I686_LINUX, X86_64_WINDOWS_GNU};
    for triple in [X86_64_WINDOWS_GNU, I686_LINUX, AARCH64_LINUX] {
        let row = crate::matrix::ROWS
            .iter()
            .find(|r| r.target == triple)
            .with_context(|| format!("no test-matrix row builds {triple}"))?;
        let runner = Runner::for_triple(triple).map_err(|why| anyhow::anyhow!(why))?;
        let name = format!("{PREFIX}-{triple}{}", super::line().dir_suffix());
        let prefix = crate::cargo::project_root().join("target").join(&name);
        crate::prefix::remove_earlier(&prefix)?;
        let args = [&["--apps", "--fips"][..], &super::line_args()].concat();
        let out = crate::cargo::for_target(sh, triple, row.cc, &args, &prefix)
            .with_context(|| format!("{triple}: the FIPS module's build with {}", row.cc))?;
        println!("{out}");
        let line = super::line_args();
        cmd!(sh, "{cargo} xtask verify --prefix {prefix} {line...}").run()?;
        let arch = data::target_for(triple)?.arch;
        let work = work_dir(&format!("fips-test-{triple}{}", super::line().dir_suffix()))?;
        Openssl::new(runner, &prefix, &work)?
            .prove(arch)
            .with_context(|| format!("{triple}'s FIPS module"))?;
    }
    Ok(())
}

/// `--full`'s `fips-validated`: for each release of `data::FIPS_VALIDATED`, `cargo xtask build
/// --release --apps --fips-release RELEASE --prefix P`, as a user installs one: the release
/// fetched from crates.io, its module built by its own Configure and make, and loaded into the
/// line's libcrypto by the prefix's `openssl fipsinstall` (a module that does not load is
/// refused, naming both releases); then proved as the line's own module is.
pub fn validated(sh: &Shell, cargo: &str) -> Result<()> {
    let line = super::line().version;
    for v in data::FIPS_VALIDATED {
        let name = format!("{PREFIX}-{}{}", v.release, super::line().dir_suffix());
        let prefix = crate::cargo::project_root().join("target").join(name);
        crate::prefix::remove_earlier(&prefix)?;
        let release = v.release;
        let out = cmd!(
            sh,
            "{cargo} xtask build --release --apps --fips-release {release} --openssldir ssl --prefix {prefix}"
        )
        .read()?;
        println!("{out}");
        let said = format!("{CONFIG_FILE}: OpenSSL {release}'s FIPS module");
        ensure!(
            out.lines().any(|l| l.starts_with(&said)),
            "the install should say `{said}`:\n{out}"
        );
        let work = work_dir(&format!("fips-validated-{release}"))?;
        let openssl = Openssl::new(Runner::Native, &prefix, &work)?;
        let listed = openssl.ok(true, &[], &["list", "-providers"])?;
        ensure!(
            listed.contains(&format!("version: {release}")),
            "the active FIPS provider should be OpenSSL {release}'s:\n{listed}"
        );
        openssl.prove(Arch::X86_64).with_context(|| format!("OpenSSL {release}'s FIPS module"))?;
        println!(
            "fips: OpenSSL {release}'s module ({}), built by its own Configure and make, loads \
             into OpenSSL {line}'s libcrypto and passes",
            v.validation
        );
    }
    Ok(())
}

/// The prefix's `bin/openssl`, its module and configurations, and the test's files.
struct Openssl {
    runner: Runner,
    exe: PathBuf,
    module: PathBuf,
    config: PathBuf,
    /// The test's FIPS configuration: the install's `fipsmodule.cnf` included, the FIPS and
    /// base providers active, `fips=yes` every fetch's default.
    fips_conf: PathBuf,
    work: PathBuf,
}

impl Openssl {
    fn new(runner: Runner, prefix: &Path, work: &Path) -> Result<Openssl> {
        let module = crate::prefix::fips_module(prefix)
            .with_context(|| format!("no FIPS module in {}/lib/{MODULES_DIR}", prefix.display()))?;
        let config = prefix.join("ssl").join(CONFIG_FILE);
        let exe = crate::prefix::program_path(prefix)?;
        let fips_conf = work.join("fips.cnf");
        fs::write(
            &fips_conf,
            format!(
                "config_diagnostics = 1\nopenssl_conf = openssl_init\n.include {}\n\n\
                 [openssl_init]\nproviders = provider_sect\nalg_section = algorithm_sect\n\n\
                 [provider_sect]\nfips = {SECTION}\nbase = base_sect\n\n\
                 [base_sect]\nactivate = 1\n\n[algorithm_sect]\ndefault_properties = fips=yes\n",
                config.display()
            ),
        )?;
        fs::write(work.join("abc.txt"), "abc")?;
        // 64 KiB that is no pattern a shortcut would catch, the same in every run.
        let data: Vec<u8> =
            (0u32..65536).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        fs::write(work.join("data.bin"), data)?;
        Ok(Openssl { runner, exe, module, config, fips_conf, work: work.to_path_buf() })
    }

    /// Every check of a prefix's module, on `arch`'s code paths.
    fn prove(&self, arch: Arch) -> Result<()> {
        self.verify_install()?;
        self.fips_mode()?;
        self.every_path(arch)?;
        self.flipped_byte_refused()
    }

    /// `bin/openssl ARGS`, with the FIPS configuration and the module's directory (`fips`),
    /// or the installed default configuration, and `env`.
    fn run(
        &self,
        fips: bool,
        modules: &Path,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Result<Output> {
        let mut cmd = self.runner.command(&self.exe)?;
        cmd.args(args).current_dir(&self.work).stdin(Stdio::null());
        cmd.env("OPENSSL_MODULES", modules).envs(env.iter().copied());
        if fips {
            cmd.env("OPENSSL_CONF", &self.fips_conf);
        } else {
            cmd.env_remove("OPENSSL_CONF");
        }
        cmd.output().with_context(|| format!("running {cmd:?}"))
    }

    fn modules(&self) -> &Path {
        self.module.parent().expect("the module's directory")
    }

    /// The run's standard output, or an error with all it said.
    fn ok(&self, fips: bool, env: &[(&str, &str)], args: &[&str]) -> Result<String> {
        let out = self.run(fips, self.modules(), env, args)?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        ensure!(
            out.status.success(),
            "openssl {} ({}) failed ({}): {text}{}",
            args.join(" "),
            if fips { "FIPS configuration" } else { "default" },
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(text)
    }

    fn verify_install(&self) -> Result<()> {
        let (m, c) = (self.module.to_string_lossy(), self.config.to_string_lossy());
        let args = ["fipsinstall", "-verify", "-module", &m, "-in", &c];
        let out = self.run(false, self.modules(), &[], &args)?;
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ensure!(
            out.status.success() && said.contains("VERIFY PASSED"),
            "openssl fipsinstall -verify ({}): {said}",
            out.status
        );
        println!("fips: fipsinstall -verify passed on {} with {}", m, c);
        Ok(())
    }

    fn fips_mode(&self) -> Result<()> {
        let listed = self.ok(true, &[], &["list", "-providers"])?;
        ensure_active(&listed)?;
        let sha = self.ok(true, &[], &["dgst", "-sha256", "-r", "abc.txt"])?;
        ensure!(sha.starts_with(SHA256_ABC), "FIPS mode's SHA-256 of `abc`: {sha}");
        let md5 = self.run(true, self.modules(), &[], &["dgst", "-md5", "abc.txt"])?;
        ensure!(
            !md5.status.success(),
            "MD5 must fail in FIPS mode, but gave {}",
            String::from_utf8_lossy(&md5.stdout)
        );
        println!("fips: list -providers shows fips active; dgst -sha256 gives FIPS 180's answer; dgst -md5 is refused");
        Ok(())
    }

    /// On every code path of `arch` the runner can run (capability masks, qemu's CPUs), the
    /// module loads, its self-tests passing, and what it computes equals the default
    /// provider's.
    fn every_path(&self, arch: Arch) -> Result<()> {
        let var = arch.cap_var();
        let mut proved = 0;
        for path in arch.code_paths() {
            if let Some(why) = super::driver_paths::cannot_run(self.runner, path) {
                println!("skipped: fips on the {} path: {why}", path.name);
                continue;
            }
            let mut env: Vec<(&str, &str)> =
                path.cap.zip(var).map(|(v, var)| (var.env, v)).into_iter().collect();
            env.extend(path.qemu_cpu.map(|c| ("QEMU_CPU", c)));
            let shown = match var {
                Some(var) => format!("{}={}", var.env, path.cap.unwrap_or("(unset)")),
                None => "no capability variable".into(),
            };
            let shown = match path.qemu_cpu {
                Some(cpu) => format!("{shown}, qemu CPU {cpu}"),
                None => shown,
            };
            ensure_active(&self.ok(true, &env, &["list", "-providers"])?)
                .with_context(|| format!("the {} path ({shown})", path.name))?;
            for op in OPERATIONS {
                let [fips, default] = [true, false].map(|fips| self.operation(fips, &env, op));
                let (fips, default) = (fips?, default?);
                if fips != default {
                    bail!(
                        "fips: {} on the {} path ({shown}): the FIPS provider's output differs \
                         from the default provider's",
                        op.join(" "),
                        path.name
                    );
                }
            }
            println!(
                "fips: {} path ({shown}): self-tests passed on load; {} operations equal the default provider's",
                path.name,
                OPERATIONS.len()
            );
            proved += 1;
        }
        ensure!(proved > 0, "no code path of this CPU was run");
        Ok(())
    }

    /// What `op` makes of `data.bin`: its standard output, or the file it writes.
    fn operation(&self, fips: bool, env: &[(&str, &str)], op: &[&str]) -> Result<Vec<u8>> {
        let out = self.work.join(if fips { "out-fips.bin" } else { "out-default.bin" });
        let _ = fs::remove_file(&out);
        let o = out.to_string_lossy().into_owned();
        // dgst takes its input as an operand, enc behind -in.
        let input: &[&str] = if op[0] == "dgst" { &["data.bin"] } else { &["-in", "data.bin"] };
        let args: Vec<&str> =
            op.iter().copied().chain(["-out", &o]).chain(input.iter().copied()).collect();
        self.ok(fips, env, &args)?;
        fs::read(&out).with_context(|| format!("reading {}", out.display()))
    }

    /// A copy of the module with one byte flipped, in a directory of its own: `fipsinstall
    /// -verify` fails on it, and the FIPS configuration then activates no FIPS provider, so
    /// that a fetch under `fips=yes` fails rather than computing anything. (`openssl` drops
    /// the module's own error with the configuration's; crypto-sys's test names it.)
    fn flipped_byte_refused(&self) -> Result<()> {
        let dir = self.work.join("flipped");
        fs::create_dir_all(&dir)?;
        let copy = dir.join(self.module.file_name().context("the module's name")?);
        let mut bytes = fs::read(&self.module)?;
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x01;
        fs::write(&copy, bytes)?;
        let (m, c) = (copy.to_string_lossy(), self.config.to_string_lossy());
        let verify =
            self.run(false, &dir, &[], &["fipsinstall", "-verify", "-module", &m, "-in", &c])?;
        let said = |o: &Output| {
            format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
        };
        ensure!(
            !verify.status.success() && said(&verify).contains("VERIFY FAILED"),
            "fipsinstall -verify should fail on a module with one byte flipped ({}): {}",
            verify.status,
            said(&verify)
        );
        let listed = self.run(true, &dir, &[], &["list", "-providers"])?;
        ensure!(
            ensure_active(&String::from_utf8_lossy(&listed.stdout)).is_err(),
            "a module with one byte flipped was loaded: {}",
            said(&listed)
        );
        let sha = self.run(true, &dir, &[], &["dgst", "-sha256", "abc.txt"])?;
        ensure!(
            !sha.status.success(),
            "with the flipped module, FIPS mode computed SHA-256 all the same: {}",
            said(&sha)
        );
        println!(
            "fips: a copy with byte {middle} flipped: fipsinstall -verify fails, no fips provider \
             is activated, and a fetch under fips=yes fails"
        );
        Ok(())
    }
}

/// Digests, HMAC and ciphers the FIPS module provides, as `openssl` runs them on a file.
const OPERATIONS: &[&[&str]] = &[
    &["dgst", "-sha1", "-binary"],
    &["dgst", "-sha256", "-binary"],
    &["dgst", "-sha512", "-binary"],
    &["dgst", "-sha3-256", "-binary"],
    &["dgst", "-sha256", "-binary", "-hmac", "a key of the test's own"],
    &["enc", "-aes-256-cbc", "-K", KEY, "-iv", IV],
    &["enc", "-aes-128-ctr", "-K", KEY_128, "-iv", IV],
];
const KEY: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const KEY_128: &str = "000102030405060708090a0b0c0d0e0f";
const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";

/// `openssl list -providers` must show the FIPS provider, active.
fn ensure_active(listed: &str) -> Result<()> {
    // Each provider is a line of its name, indented two spaces, then its fields under it.
    let mut lines = listed.lines().skip_while(|l| l.trim_end() != "  fips").skip(1);
    let fields: Vec<&str> = lines.by_ref().take_while(|l| l.starts_with("    ")).collect();
    ensure!(
        fields.iter().any(|f| f.trim() == "status: active"),
        "list -providers should show the fips provider active:\n{listed}"
    );
    Ok(())
}
