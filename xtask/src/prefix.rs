//! An installed prefix's on-disk format, as `cargo xtask build --prefix` writes it: the marker
//! that makes it ours, the build's facts, the `openssl` program a build linked, and where
//! OPENSSLDIR's files are.

use crate::runner::{Invocation, Runner};
use anyhow::{ensure, Context, Result};
use crypto_build::facts::BuildFacts;
use std::fs;
use std::path::{Path, PathBuf};

/// Marks a directory as a prefix `cargo xtask build --prefix` installed, so it may be
/// replaced; it holds the build's summary line, for people.
pub const MARKER: &str = ".crypto-sys-prefix";

/// Where a prefix holds OPENSSLDIR's files (`openssl.cnf`, `certs/`, `private/`) when
/// OPENSSLDIR lies outside it, as by default.
pub const SSL_DIR: &str = "ssl";

/// Removes an earlier run's prefix at `prefix`, so that the next install is one into an empty
/// prefix: a reinstall keeps the earlier `openssl.cnf`, which a test would then read, and a
/// build that must install nothing would seem to have installed it.
/// Where `cargo xtask build --target` builds for a target without a Rust std: what a build
/// script's OUT_DIR would hold (the plain libraries a prefix installs, crypto-sys's prefixed
/// copy beside them). Under target/, so the object cache beside cargo's CACHEDIR.TAG is shared
/// with cargo's builds; one directory per prefix, as builds of two may run at once.
pub fn build_dir(triple: &str, prefix: Option<&Path>) -> Result<PathBuf> {
    let out = match prefix {
        Some(p) => {
            let key =
                crypto_build::sha256::hex(std::path::absolute(p)?.as_os_str().as_encoded_bytes());
            format!("crypto-sys-out-{}", &key[..16])
        }
        None => "crypto-sys-out".into(),
    };
    Ok(crate::cargo::project_root().join("target").join(triple).join(out))
}

pub fn remove_earlier(prefix: &Path) -> Result<()> {
    if prefix.exists() {
        fs::remove_dir_all(prefix).with_context(|| format!("removing {}", prefix.display()))?;
    }
    Ok(())
}

/// The facts of the build the prefix holds (`crypto_build::facts`, installed as the build
/// wrote them).
pub fn facts(prefix: &Path) -> Result<BuildFacts> {
    BuildFacts::read(prefix)
        .with_context(|| format!("{} is not a crypto-sys prefix", prefix.display()))
}

/// The program a build linked into `dir/bin` (a build's OUT_DIR, or a prefix).
pub fn program_path(dir: &Path) -> Result<PathBuf> {
    let bin = dir.join("bin");
    let found = fs::read_dir(&bin).ok().into_iter().flatten().flatten().map(|e| e.path());
    found
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == "openssl"))
        .with_context(|| format!("the build linked no openssl program in {}", bin.display()))
}

/// The FIPS module in `dir/lib/ossl-modules` (a prefix, or a build's OUT_DIR), if there is one.
pub fn fips_module(dir: &Path) -> Option<PathBuf> {
    let modules = dir.join("lib").join(crypto_build::fips::MODULES_DIR);
    fs::read_dir(modules).ok()?.flatten().map(|e| e.path()).next()
}

/// The program in `dir/bin` (a prefix, or a build's OUT_DIR) and its `version -a`.
pub fn version_output(runner: Runner, dir: &Path) -> Result<(PathBuf, String)> {
    let program = program_path(dir)?;
    let out = runner.run(&Invocation {
        exe: &program,
        args: &["version", "-a"],
        cwd: dir,
        env: &[],
        log: &dir.join("bin/.version-a"),
        timeout: runner.driver_timeout(),
    })?;
    ensure!(
        out.status.success(),
        "{} version -a failed ({}): {}",
        program.display(),
        out.status,
        out.stderr
    );
    // Windows programs end their lines with CR LF.
    Ok((program, out.stdout.replace("\r\n", "\n")))
}

/// libcrypto.pc, libssl.pc and openssl.pc as OpenSSL's `make install` writes them, with
/// Configure's ex_libs as Libs.private, but relative to the file so the prefix can move.
pub fn write_pkg_config(out_dir: &Path, dir: &Path) -> Result<()> {
    let ex_libs = fs::read_to_string(out_dir.join(crypto_build::build_script::EX_LIBS_FILE))
        .context("reading the build's system libraries")?;
    let private: Vec<String> = ex_libs.lines().map(crypto_build::data::ex_lib_flag).collect();
    let head = "prefix=${pcfiledir}/../..\nexec_prefix=${prefix}\nlibdir=${exec_prefix}/lib\n\
                includedir=${prefix}/include\n";
    // The release built, whichever line it is; the libraries as its target names them
    // (`-llibcrypto` for MSVC's `libcrypto.lib`).
    let facts = BuildFacts::read(out_dir)?;
    let version = facts.openssl_version;
    let target = crypto_build::data::target_for(&facts.target)?;
    let [crypto, ssl] = ["crypto", "ssl"].map(|l| target.archive_link_name(l));
    let files = [
        (
            "libcrypto.pc",
            format!(
                "{head}enginesdir=${{libdir}}/engines-3\nmodulesdir=${{libdir}}/ossl-modules\n\n\
                 Name: OpenSSL-libcrypto\nDescription: OpenSSL cryptography library\n\
                 Version: {version}\nLibs: -L${{libdir}} -l{crypto}\nLibs.private: {}\n\
                 Cflags: -I${{includedir}}\n",
                private.join(" ")
            ),
        ),
        (
            "libssl.pc",
            format!(
                "{head}\nName: OpenSSL-libssl\nDescription: Secure Sockets Layer and \
                 cryptography libraries\nVersion: {version}\nRequires.private: libcrypto\n\
                 Libs: -L${{libdir}} -l{ssl}\nCflags: -I${{includedir}}\n"
            ),
        ),
        (
            "openssl.pc",
            format!(
                "{head}\nName: OpenSSL\nDescription: Secure Sockets Layer and cryptography \
                 libraries and tools\nVersion: {version}\nRequires: libssl libcrypto\n"
            ),
        ),
    ];
    fs::create_dir_all(dir)?;
    for (name, text) in files {
        fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// The facts of a gcc `auto` build of x86_64 Linux on the default line, nothing downgraded,
/// for tests of their readers.
#[cfg(test)]
pub fn sample_facts() -> BuildFacts {
    use crypto_build::data::{triples, AsmSet, DEFAULT_LINE, NISTP};
    use crypto_build::facts::PlannedFile;
    let asm = AsmSet::avx512().name;
    let file = |path: &str| PlannedFile { path: path.into(), set: asm.into() };
    // What no reader here looks at keeps its default (no downgrade, no apps, none refused).
    BuildFacts {
        target: triples::X86_64_LINUX.into(),
        openssl_version: DEFAULT_LINE.version.into(),
        asm_files: vec![file("crypto/aes/aesni-x86_64.s"), file("crypto/modes/aes-gcm-avx512.s")],
        requested_set: "auto".into(),
        effective_set: asm.into(),
        requested_c_variant: "auto".into(),
        c_variant: Some(NISTP.into()),
        legacy_provider: true,
        assembler_kind: "GNU as".into(),
        assembler_version: Some("2.40".into()),
        openssldir: "/usr/local/ssl".into(),
        units: 1127,
        compiled: 1127,
        c_compiler: "gcc 12.2.0".into(),
        ..BuildFacts::default()
    }
}
