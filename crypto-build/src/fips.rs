//! The FIPS provider module (`data::FIPS`): its objects, compiled with the asm the plan chose
//! for libcrypto, linked into a shared object that exports OpenSSL's provider entry point
//! alone, as OpenSSL's own `providers/fips.so` rule links it.

use crate::compile::Job;
use crate::data::FIPS;
use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// Where the module goes under the build's `lib/`, as OpenSSL's `install_fips` puts it under a
/// prefix's (MODULESDIR, `lib/ossl-modules`).
pub const MODULES_DIR: &str = "ossl-modules";

/// The export list the module's linker takes, by the flag that takes it (`shared_defflag`).
enum Exports {
    /// GNU ld's and lld's version script: every other symbol local, so that the module's
    /// own calls never bind to a libcrypto the program also holds.
    VersionScript,
    /// ld64's exported symbols list.
    ExportedList,
    /// A Windows `.def`, given as an input of the link.
    Def,
}

impl Exports {
    /// By the flag, and where there is none by the module's file: a DLL's list is a `.def`.
    fn of(defflag: Option<&str>, file: &str) -> Result<Exports> {
        match defflag {
            None if file.ends_with(".dll") => Ok(Exports::Def),
            Some(f) if f.ends_with("--version-script=") => Ok(Exports::VersionScript),
            Some(f) if f.contains("exported_symbols_list") => Ok(Exports::ExportedList),
            _ => bail!(
                "the FIPS module {file}: no export list this build knows how to give its linker \
                 (export flag {defflag:?})"
            ),
        }
    }

    fn write(&self, dir: &Path, prefix: &str) -> Result<PathBuf> {
        let entry = FIPS.entry;
        let (name, text) = match self {
            Exports::VersionScript => {
                ("fips.ld", format!("{{\n    global:\n        {entry};\n    local: *;\n}};\n"))
            }
            Exports::ExportedList => ("fips.exp", format!("{prefix}{entry}\n")),
            Exports::Def => ("fips.def", format!("EXPORTS\n    {entry}\n")),
        };
        let path = dir.join(name);
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        Ok(path)
    }
}

/// Links the module's own objects `own`, and what they need of `libs` (archived first, as
/// OpenSSL's `libfips.a`), into `lib_dir/ossl-modules/<module file>` by the C compiler
/// driver, at the manifest's DSO_LDFLAGS and DSO_EX_LIBS.
pub fn link_module(
    job: &Job,
    lib_dir: &Path,
    own: &[PathBuf],
    libs: &[PathBuf],
) -> Result<PathBuf> {
    job.progress.phase("link");
    let m = job.c_manifest;
    let file = m.module_file.as_deref().with_context(|| {
        format!("the manifest {} names no FIPS module file; regenerate the sets", m.key())
    })?;
    let tool = job.base.try_get_compiler().context("finding the C compiler")?;
    if tool.is_like_msvc() {
        bail!(
            "the FIPS module of {} is not linked in MSVC mode yet; build it without --fips",
            job.target.name
        );
    }
    let dir = lib_dir.join(MODULES_DIR);
    fs::create_dir_all(&dir)?;
    let scratch = job.out_dir.join("fips-link");
    fs::create_dir_all(&scratch)?;
    let archive = scratch.join(job.target.archive_file("fips"));
    crate::compile::archive(&job.base, &archive, libs)?;
    let exports = Exports::of(m.module_defflag.as_deref(), file)?;
    let list = exports.write(&scratch, job.target.symbol_prefix)?;
    let module = dir.join(file);
    let mut cmd = tool.to_command();
    cmd.args(&m.module_ldflags).arg("-o").arg(&module);
    // Behind its flag; a `.def` has none and is an input of the link.
    match m.module_defflag.as_deref() {
        Some(flag) => cmd.arg(format!("{flag}{}", list.display())),
        None => cmd.arg(&list),
    };
    cmd.args(own).arg(&archive);
    cmd.args(m.module_ex_libs.iter().map(|l| crate::data::ex_lib_flag(l)));
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("linking {} failed: {}", module.display(), String::from_utf8_lossy(&out.stderr));
    }
    let key = fips_key(job)?;
    write_config(&module, &key, &job.out_dir.join(crate::compile::SSL_DIR).join(CONFIG_FILE))?;
    Ok(module)
}

/// The module's configuration file, as OpenSSL names it.
pub const CONFIG_FILE: &str = "fipsmodule.cnf";
/// Its section, as `openssl fipsinstall` names it and OpenSSL's `openssl.cnf` refers to it.
pub const SECTION: &str = "fips_sect";

/// The key the module checks its own file's HMAC under: `FIPS_KEY_STRING` of the module's
/// generated `fipskey.h` (its configuration's copy where that differs from the libraries').
fn fips_key(job: &Job) -> Result<Vec<u8>> {
    let m = job.c_manifest;
    let c_dir = job.sets_root.join(m.key());
    let own = format!("{}/include/openssl/fipskey.h", FIPS.gen_dir);
    let rel = if m.generated(&own).is_some() { own } else { "include/openssl/fipskey.h".into() };
    let path = crate::manifest::gen_path(&c_dir, &rel);
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let hex = text
        .lines()
        .find_map(|l| {
            l.split_once("FIPS_KEY_STRING")?.1.trim().strip_prefix('"')?.strip_suffix('"')
        })
        .with_context(|| format!("{} defines no FIPS_KEY_STRING", path.display()))?;
    decode_hex(hex).with_context(|| format!("FIPS_KEY_STRING of {}", path.display()))
}

fn decode_hex(hex: &str) -> Result<Vec<u8>> {
    if hex.len() % 2 != 0 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("`{hex}` is not hex");
    }
    (0..hex.len()).step_by(2).map(|i| Ok(u8::from_str_radix(&hex[i..i + 2], 16)?)).collect()
}

/// Writes the module's configuration: its section, turned on, with the HMAC-SHA256 of the
/// module's file under `key` as `openssl fipsinstall` writes it (`module-mac`, hex pairs
/// joined by `:`). The module checks that MAC against its own file each time it loads; every
/// other setting keeps the module's default. A prefix gets `openssl fipsinstall`'s own file.
pub fn write_config(module: &Path, key: &[u8], out: &Path) -> Result<()> {
    let bytes = fs::read(module).with_context(|| format!("reading {}", module.display()))?;
    let mac: Vec<String> =
        crate::sha256::hmac(key, &bytes).iter().map(|b| format!("{b:02X}")).collect();
    let text = format!(
        "# The FIPS provider module's configuration, written by crypto-build for {}:\n\
         # its HMAC-SHA256 under the module's FIPS key, as `openssl fipsinstall` computes it.\n\
         [{SECTION}]\nactivate = 1\nmodule-mac = {}\n",
        module.file_name().and_then(|n| n.to_str()).unwrap_or_default(),
        mac.join(":")
    );
    if let Some(dir) = out.parent() {
        fs::create_dir_all(dir)?;
    }
    crate::files::write_atomic(out, text.as_bytes())
}
