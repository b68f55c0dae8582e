//! MSVC-ABI rows built off Windows, without Microsoft's SDK (`data::WINE_RUNTIMES`): clang in
//! cl mode compiles against wine's C runtime and Windows headers, and lld-link links programs
//! against import libraries, with an entry point of our own (`entry.c`).

use crate::config::BuildConfig;
use crate::data::{WineRuntime, WINE_HEADER_GAPS};
use crate::detect::{probe, versioned_names};
use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

/// The program entry point and the CRT symbols clang-cl's code needs (`mainCRTStartup`, the
/// /GS cookie, `_fltused`), which Microsoft's static CRT would give.
pub const ENTRY_C: &str = include_str!("entry.c");

/// [`ENTRY_C`] written to `dir/entry.c`, for a program's build to compile.
pub fn write_entry(dir: &Path) -> Result<PathBuf> {
    fs::create_dir_all(dir)?;
    let src = dir.join("entry.c");
    fs::write(&src, ENTRY_C).with_context(|| format!("writing {}", src.display()))?;
    Ok(src)
}

/// Whether an MSVC-ABI build of `target` here takes wine's C runtime: off Windows, with
/// clang-cl (cl.exe brings its SDK, and runs on Windows only).
pub fn runtime(target: &crate::data::Target, c: &cc::Tool) -> Option<&'static WineRuntime> {
    WineRuntime::of(target).filter(|_| !cfg!(windows) && c.is_like_clang_cl())
}

/// Makes `base` compile an MSVC row's C in MSVC mode: a compiler the user named must be one
/// (cl.exe, clang-cl); where none is named and cc found none (off Windows), clang runs as
/// clang-cl. Other rows are left alone.
pub fn choose_compiler(base: &mut cc::Build, config: &BuildConfig) -> Result<()> {
    if config.target.cc_kind != crate::data::CcKind::Msvc {
        return Ok(());
    }
    let found = base.try_get_compiler().context("finding the C compiler")?;
    if found.is_like_msvc() {
        return Ok(());
    }
    if let Some((var, value)) = &config.cc_named {
        bail!(
            "{var}=`{value}` is not an MSVC-mode C compiler, which {} ({}) needs: name cl.exe, \
             or clang-cl (`clang-cl`, or `clang-19 --driver-mode=cl`)",
            config.triple,
            config.target.name
        );
    }
    base.compiler(clang_as_cl(&config.out_dir.join("msvc-cc"), &config.triple)?);
    Ok(())
}

/// `clang-cl` on PATH; else the newest versioned clang there, run as clang-cl through a link
/// of that name in `dir` (clang takes its driver mode from its program's name; Debian installs
/// no clang-cl).
fn clang_as_cl(dir: &Path, triple: &str) -> Result<PathBuf> {
    let cl = std::iter::once("clang-cl".to_string()).chain(versioned_names("clang-cl"));
    if let Some(found) = cl.into_iter().find_map(|n| which::which(n).ok()) {
        return Ok(found);
    }
    let clang = versioned_names("clang").chain(std::iter::once("clang".into()));
    let Some(clang) = clang.into_iter().find_map(|n| which::which(n).ok()) else {
        bail!(
            "no MSVC-mode C compiler for {triple}: install clang (Debian: apt install clang-19), \
             which runs as clang-cl, or name one in CC_{}",
            triple.replace('-', "_")
        );
    };
    let real =
        fs::canonicalize(&clang).with_context(|| format!("resolving {}", clang.display()))?;
    fs::create_dir_all(dir)?;
    let link = dir.join("clang-cl");
    if fs::read_link(&link).ok().as_deref() != Some(real.as_path()) {
        let _ = fs::remove_file(&link);
        #[cfg(unix)]
        std::os::unix::fs::symlink(&real, &link)
            .with_context(|| format!("linking {} to {}", link.display(), real.display()))?;
    }
    Ok(link)
}

/// The flags that give clang-cl wine's headers as the system headers, where it finds no
/// C library of its own (no `INCLUDE`, no `/winsysroot`), and a header of what they lack
/// against the SDK's ([`WINE_HEADER_GAPS`], each probed), which every unit includes first;
/// none where it has one. Missing headers are one line naming their package.
pub fn system_headers(c: &cc::Tool, rt: &WineRuntime, scratch: &Path) -> Result<Vec<String>> {
    let probe =
        "#include <stdio.h>\n#include <windows.h>\nint probe(void) { return puts(\"\"); }\n";
    fs::create_dir_all(scratch)?;
    let compiles = |flags: &[String], text: &str| {
        let mut args: Vec<OsString> = c.args().to_vec();
        args.extend(flags.iter().map(OsString::from));
        probe::c_compiles(c.path(), &args, text, scratch)
    };
    if compiles(&[], probe) {
        return Ok(Vec::new());
    }
    let mut flags = include_flags(rt, "-imsvc")?;
    if !compiles(&flags, probe) {
        bail!(
            "{} cannot compile against wine's C runtime and Windows headers ({}): <stdio.h> or \
             <windows.h> fails",
            c.path().display(),
            rt.include.join(", ")
        );
    }
    let gaps: String =
        WINE_HEADER_GAPS.iter().filter(|g| !compiles(&flags, g.probe)).map(|g| g.declare).collect();
    if gaps.is_empty() {
        return Ok(flags);
    }
    // Named after its text, so that the object cache, which keys the flags but not the
    // include directories, tells two texts apart.
    let dir = scratch.join("wine-gaps");
    let name = format!("crypto-sys-wine-gaps-{}.h", &crate::sha256::hex(gaps.as_bytes())[..12]);
    let text =
        format!("/* What wine's headers lack against the Windows SDK's (crypto-build). */\n{gaps}");
    fs::create_dir_all(&dir)?;
    crate::files::write_atomic(&dir.join(&name), text.as_bytes())?;
    flags.extend(["-I".into(), dir.display().to_string(), format!("/FI{name}")]);
    if let Some(gap) = WINE_HEADER_GAPS.iter().find(|g| !compiles(&flags, g.probe)) {
        bail!(
            "wine's headers lack what {} needs, and crypto-build's stand-in fails its probe",
            gap.why
        );
    }
    Ok(flags)
}

/// `<option> <dir>` for each of the runtime's header directories, a missing one named in one
/// line with its package: `-imsvc` for clang-cl, `-isystem` for clang's own driver.
pub fn include_flags(rt: &WineRuntime, option: &str) -> Result<Vec<String>> {
    let mut flags = Vec::new();
    for dir in rt.include {
        if !Path::new(dir).is_dir() {
            bail!(
                "wine's C runtime and Windows headers are not installed ({dir} is missing): \
                 install {} (Debian: apt install {})",
                rt.include_package,
                rt.include_package
            );
        }
        flags.extend([option.to_string(), dir.to_string()]);
    }
    Ok(flags)
}

/// lld-link, as `lld-link` or LLVM's versioned name (Debian's lld-19: `lld-link-19`).
pub fn lld_link() -> Result<PathBuf> {
    first_lld_link(std::iter::once("lld-link".to_string()).chain(versioned_names("lld-link")))
}

/// The first of `names` on `PATH`, or one line naming the package that has lld-link.
fn first_lld_link(names: impl IntoIterator<Item = String>) -> Result<PathBuf> {
    names.into_iter().find_map(|n| which::which(n).ok()).context(
        "lld-link not found: it links MSVC-ABI programs here; install it (Debian: apt install \
         lld-19)",
    )
}

/// A program lld-link makes from objects (the entry point's among them), static libraries and
/// the runtime's import libraries.
pub struct Program<'a> {
    pub runtime: &'a WineRuntime,
    pub out: &'a Path,
    pub objects: &'a [PathBuf],
    /// Static libraries (`libssl.lib`, `libcrypto.lib`), in link order.
    pub libs: &'a [PathBuf],
    /// System libraries by name (Configure's ex_libs: `ws2_32`), from the runtime's import
    /// libraries, before its C runtime's.
    pub system: &'a [String],
}

/// Links `p`, a console program, with lld-link: no default library (each is named), the entry
/// point of [`ENTRY_C`], no timestamp. `scratch` holds what the link needs made (ntdll's
/// helpers' import library).
pub fn link(p: &Program, scratch: &Path) -> Result<()> {
    let rt = p.runtime;
    let lld = lld_link()?;
    let mut cmd = std::process::Command::new(&lld);
    cmd.args([
        "/nologo",
        "/subsystem:console",
        "/entry:mainCRTStartup",
        "/nodefaultlib",
        "/brepro",
    ]);
    cmd.arg(format!("/machine:{}", rt.machine)).args(rt.link_flags);
    cmd.arg(format!("/out:{}", p.out.display())).args(p.objects).args(p.libs);
    let names = p.system.iter().map(String::as_str).chain(rt.crt_libs.iter().copied());
    for name in names {
        cmd.arg(import_lib(rt, name)?);
    }
    if !rt.ntdll_helpers.is_empty() {
        cmd.arg(ntdll_helpers(&lld, rt, scratch)?);
    }
    let out = cmd.output().with_context(|| format!("running {}", lld.display()))?;
    if !out.status.success() {
        let (o, e) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        bail!("linking {} failed: {o}{e}", p.out.display());
    }
    Ok(())
}

/// The runtime's import library of DLL `name`, a missing one named with its package.
pub fn import_lib(rt: &WineRuntime, name: &str) -> Result<PathBuf> {
    let lib = Path::new(rt.lib_dir).join(format!("lib{name}.a"));
    if !lib.exists() {
        bail!(
            "the import library of {name}.dll is not installed ({} is missing): install {}",
            lib.display(),
            rt.lib_package
        );
    }
    Ok(lib)
}

/// An import library of ntdll's compiler helpers, made by lld-link's lib mode from a .def.
fn ntdll_helpers(lld: &Path, rt: &WineRuntime, scratch: &Path) -> Result<PathBuf> {
    fs::create_dir_all(scratch)?;
    let def = scratch.join("ntdll-helpers.def");
    let lib = scratch.join("ntdll-helpers.lib");
    let exports: String = rt.ntdll_helpers.iter().map(|h| format!("{h}\n")).collect();
    fs::write(&def, format!("LIBRARY ntdll.dll\nEXPORTS\n{exports}"))?;
    let out = std::process::Command::new(lld)
        .arg("/lib")
        .arg(format!("/def:{}", def.display()))
        .arg(format!("/machine:{}", rt.machine))
        .arg(format!("/out:{}", lib.display()))
        .output()
        .with_context(|| format!("running {} /lib", lld.display()))?;
    if !out.status.success() {
        bail!("making {}: {}", lib.display(), String::from_utf8_lossy(&out.stderr));
    }
    Ok(lib)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Arch, WINE_RUNTIMES};

    fn runtime(arch: Arch) -> &'static WineRuntime {
        WINE_RUNTIMES.iter().find(|r| r.arch == arch).unwrap()
    }

    /// A missing header directory, import library or lld-link is one line naming its Debian
    /// package.
    #[test]
    fn a_missing_header_directory_import_library_or_lld_link_names_its_package() {
        let x64 = runtime(Arch::X86_64);
        let moved = WineRuntime { include: &["/nonexistent/wine/msvcrt"], ..*x64 };
        let e = include_flags(&moved, "-imsvc").unwrap_err().to_string();
        assert!(!e.contains('\n') && e.contains("/nonexistent/wine/msvcrt is missing"), "{e}");
        assert!(e.contains("apt install libwine-dev"), "{e}");
        let moved = WineRuntime { lib_dir: "/nonexistent/x86_64-windows", ..*x64 };
        let e = import_lib(&moved, "ucrtbase").unwrap_err().to_string();
        assert!(e.contains("libucrtbase.a is missing") && e.contains("wine64-tools"), "{e}");
        let x86 = WineRuntime { lib_dir: "/nonexistent/i686", ..*runtime(Arch::X86) };
        let e = import_lib(&x86, "ws2_32").unwrap_err().to_string();
        assert!(e.contains("install mingw-w64-i686-dev"), "{e}");
        let e = first_lld_link(["no-such-lld-link".to_string()]).unwrap_err().to_string();
        assert!(!e.contains('\n') && e.contains("apt install lld-19"), "{e}");
        lld_link().expect("lld-link: .ci/install installs lld-19");
        // Installed here by .ci/install: each architecture's runtime whole.
        for rt in WINE_RUNTIMES {
            include_flags(rt, "-imsvc").unwrap();
            for name in
                rt.crt_libs.iter().chain(&["ws2_32", "gdi32", "advapi32", "crypt32", "user32"])
            {
                import_lib(rt, name).unwrap();
            }
        }
    }
}
