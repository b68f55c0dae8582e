//! Which assembler the build will really use, what its banner says, and what it can really
//! assemble. Banners are reported; the probes decide.

mod banner;
pub mod probe;

pub use banner::{parse_banners, AsmKind};

use crate::config::AssemblerChoice;
use crate::data::{Arch, AsmSyntax, Feature, Target};
use anyhow::{bail, Result};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

/// The assembler behind a C compiler driver, and the probe results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembler {
    /// The syntax it reads, and so the rendering of the asm files it gets.
    pub syntax: AsmSyntax,
    pub driver: PathBuf,
    pub args: Vec<OsString>,
    pub kind: AsmKind,
    pub version: Option<String>,
    /// Each feature class and whether its probe assembled.
    pub probes: Vec<(Feature, bool)>,
}

impl Assembler {
    pub fn describe(&self) -> String {
        describe(self.kind.name(), self.version.as_deref())
    }

    pub fn supports(&self, f: Feature) -> bool {
        self.probes.iter().any(|(g, ok)| *g == f && *ok)
    }

    /// Where the banner's version and the probes disagree, in words; empty when they agree.
    pub fn disagreements(&self) -> Vec<String> {
        banner::expected_support(self.kind, self.version.as_deref())
            .into_iter()
            // Thresholds of another architecture's classes say nothing of this one.
            .filter(|(f, _)| self.probes.iter().any(|(g, _)| g == f))
            .filter(|(f, expected)| self.supports(*f) != *expected)
            .map(|(f, expected)| {
                let (said, did) =
                    if expected { ("supports", "rejected") } else { ("lacks", "assembled") };
                format!("{} {said} {f} by its version, but the probe {did} it", self.describe())
            })
            .collect()
    }
}

/// An assembler as reports name it; also rendered from the build facts, which keep only the
/// kind's name and the version.
pub fn describe(kind_name: &str, version: Option<&str>) -> String {
    format!("{kind_name} {}", version.unwrap_or("(version unknown)"))
}

/// The kinds of MSVC-mode C compiler, as the facts name them.
pub const CLANG_CL: &str = "clang-cl";
pub const CL_EXE: &str = "cl.exe";

/// The C compiler as a build's facts name it: its kind, as cc tells it (clang-cl and cl.exe
/// apart, so that no one reads one for the other), and its banner's version.
pub fn c_compiler(tool: &cc::Tool) -> String {
    let kind = if tool.is_like_clang_cl() {
        CLANG_CL
    } else if tool.is_like_msvc() {
        CL_EXE
    } else if tool.is_like_clang() {
        "clang"
    } else {
        "gcc"
    };
    let out = std::process::Command::new(tool.path()).arg("-v").env("LC_ALL", "C").output();
    let banner = out.map(|o| {
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    });
    describe(kind, banner.ok().as_deref().and_then(banner::c_compiler_version).as_deref())
}

/// Which syntax a build assembles: the one the user named, else the target's default.
pub fn syntax_for(choice: Option<AssemblerChoice>, target: &Target) -> Result<AsmSyntax> {
    let syntax = match choice {
        None => return Ok(target.default_syntax),
        Some(AssemblerChoice::Nasm) => AsmSyntax::Nasm,
        Some(_) => AsmSyntax::Gas,
    };
    if !target.syntaxes.contains(&syntax) {
        let accepted: Vec<&str> = match target.syntaxes {
            [AsmSyntax::Nasm] => vec!["nasm"],
            _ => vec!["gas", "clang"],
        };
        bail!(
            "CRYPTO_SYS_ASSEMBLER={}: {} has no {}-syntax asm; accepted here: {}",
            choice.unwrap().name(),
            target.name,
            syntax.name(),
            accepted.join(", ")
        );
    }
    Ok(syntax)
}

/// The assembler a build uses, identified and probed. `nasm` is the NASM variable's value,
/// if set. When the asm is not `needed` (an explicit no_asm build), a missing nasm is no
/// error.
pub fn assembler(
    choice: Option<AssemblerChoice>,
    c_compiler: &cc::Tool,
    target: &Target,
    nasm: Option<&Path>,
    needed: bool,
    cache_dir: &Path,
) -> Result<Assembler> {
    match syntax_for(choice, target)? {
        // cl.exe assembles no GNU-syntax asm: clang-cl does (VC-WIN64-CLANGASM-ARM's `AS`).
        AsmSyntax::Gas if c_compiler.is_like_msvc() && !c_compiler.is_like_clang_cl() => {
            match which::which("clang-cl") {
                Ok(driver) => {
                    // A VC-* row serves one triple, which clang-cl is told as cc tells it.
                    let args = vec![format!("--target={}", target.triples[0]).into()];
                    Ok(detect(&driver, &args, target.arch, cache_dir))
                }
                Err(_) if !needed => Ok(detect(Path::new("clang-cl"), &[], target.arch, cache_dir)),
                Err(_) => bail!(
                    "clang-cl not found: {} assembles OpenSSL's asm with clang-cl, as OpenSSL's \
                     Configure does; install LLVM (winget install LLVM.LLVM), or build without \
                     asm explicitly with CRYPTO_SYS_ASM_SET=no_asm",
                    target.name
                ),
            }
        }
        AsmSyntax::Gas => {
            let (driver, args) = asm_driver(choice, c_compiler)?;
            Ok(detect(&driver, &args, target.arch, cache_dir))
        }
        AsmSyntax::Nasm => {
            let found = match nasm {
                Some(p) => which::which(p).ok(),
                None => which::which("nasm").ok(),
            };
            match found {
                Some(path) => Ok(detect_nasm(&path, target, cache_dir)),
                None if !needed => Ok(detect_nasm(Path::new("nasm"), target, cache_dir)),
                None => bail!(
                    "nasm not found ({}): {} assembles OpenSSL's asm with nasm; install nasm \
                     2.16 or later (Debian/Ubuntu: apt install nasm; Windows: winget install \
                     nasm), or build without asm explicitly with CRYPTO_SYS_ASM_SET=no_asm",
                    nasm.map_or("looked for `nasm` on PATH".into(), |p| format!(
                        "NASM={} does not exist",
                        p.display()
                    )),
                    target.name
                ),
            }
        }
    }
}

/// A tool's versioned names, newest first (`clang-30` ... `clang-10`): Debian installs clang
/// and lld-link (as `lld-link-19`) only under them, and gcc under them too.
pub fn versioned_names(name: &str) -> impl Iterator<Item = String> + '_ {
    (10..=30).rev().map(move |v| format!("{name}-{v}"))
}

/// The C compiler driver that assembles the `.s` files, with its arguments: the C compiler,
/// unless the user named another assembler, which then gets only the C compiler's `-m` flags.
fn asm_driver(
    choice: Option<AssemblerChoice>,
    c_compiler: &cc::Tool,
) -> Result<(PathBuf, Vec<OsString>)> {
    use AssemblerChoice as A;
    let (name, matches) = match choice {
        None | Some(A::Nasm) => {
            return Ok((c_compiler.path().to_path_buf(), c_compiler.args().to_vec()))
        }
        Some(A::Gas) => ("gcc", c_compiler.is_like_gnu() && !c_compiler.is_like_clang()),
        Some(A::Clang) => ("clang", c_compiler.is_like_clang()),
    };
    if matches {
        return Ok((c_compiler.path().to_path_buf(), c_compiler.args().to_vec()));
    }
    // Another driver keeps the C compiler's machine flags, and its target for clang.
    let portable: Vec<OsString> = c_compiler
        .args()
        .iter()
        .filter(|a| {
            let a = a.to_string_lossy();
            a.starts_with("-m") || a.starts_with("--target")
        })
        .cloned()
        .collect();
    // A cross gcc is named after its target (x86_64-w64-mingw32-gcc); Debian installs clang
    // only under versioned names.
    let c_name = c_compiler.path().file_name().map(|n| n.to_string_lossy().into_owned());
    let cross = c_name.and_then(|n| n.rsplit_once('-').map(|(p, _)| format!("{p}-{name}")));
    let found = cross
        .into_iter()
        .chain(std::iter::once(name.to_string()))
        .chain(versioned_names(name))
        .find_map(|n| which::which(n).ok());
    found.map(|driver| (driver, portable)).ok_or_else(|| {
        anyhow::anyhow!(
            "CRYPTO_SYS_ASSEMBLER={}: no `{name}` on PATH; install it or unset the variable",
            choice.unwrap().name()
        )
    })
}

/// Identifies and probes a C compiler driver with the snippets of `arch`, caching the probes
/// in `cache_dir` per toolchain.
pub fn detect(driver: &Path, args: &[OsString], arch: Arch, cache_dir: &Path) -> Assembler {
    let (kind, version, banners) = banner::identify(driver, args);
    let snippets = probe::gas_probes(arch);
    let identity = format!("{arch:?}\n{args:?}\n{banners}");
    let probes = cached_probes(driver, &identity, snippets.len(), cache_dir, || {
        snippets
            .iter()
            .map(|(f, snippet)| (*f, probe::assembles(driver, args, snippet, cache_dir)))
            .collect()
    });
    let syntax = AsmSyntax::Gas;
    Assembler { syntax, driver: driver.to_path_buf(), args: args.to_vec(), kind, version, probes }
}

/// Identifies and probes nasm with the snippets of `target`'s architecture, in its output
/// format.
pub fn detect_nasm(nasm: &Path, target: &Target, cache_dir: &Path) -> Assembler {
    let (arch, format) = (target.arch, target.nasm_format);
    let banner = std::process::Command::new(nasm).arg("-v").env("LC_ALL", "C").output();
    let banner =
        banner.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let version = banner::nasm_version(&banner);
    let kind = if version.is_some() { AsmKind::Nasm } else { AsmKind::Unknown };
    let snippets = probe::nasm_probes(arch);
    let identity = format!("{arch:?}\n{format}\n{banner}");
    let probes = cached_probes(nasm, &identity, snippets.len(), cache_dir, || {
        let ok = |snippet| probe::nasm_assembles(nasm, arch, format, snippet, cache_dir);
        snippets.iter().map(|(f, snippet)| (*f, ok(snippet))).collect()
    });
    let syntax = AsmSyntax::Nasm;
    Assembler { syntax, driver: nasm.to_path_buf(), args: vec![], kind, version, probes }
}

/// Probe results keyed by the tool, its identity text and its binary's size and mtime.
fn cached_probes(
    tool: &Path,
    identity: &str,
    count: usize,
    cache_dir: &Path,
    run: impl FnOnce() -> Vec<(Feature, bool)>,
) -> Vec<(Feature, bool)> {
    let key = format!("{}\n{identity}\n{}", tool.display(), stamp(tool));
    let cache = cache_dir.join(format!("probes-{}.txt", &crate::sha256::hex(key.as_bytes())[..16]));
    read_cache(&cache).filter(|p| p.len() == count).unwrap_or_else(|| {
        let _ = fs::create_dir_all(cache_dir);
        let p = run();
        write_cache(&cache, &p);
        p
    })
}

/// What a compiler or assembler binary is, for caches keyed by it: its banners (`-v` and the
/// assembler's `-Wa,-v`) and its resolved binary's size and mtime. A tool upgraded in place
/// keeps its path but changes one or the other, so nothing cached for the old one is reused.
pub fn tool_identity(driver: &Path) -> String {
    let (_, _, banners) = banner::identify(driver, &[]);
    format!("{banners}\n{}", stamp(driver))
}

/// Size and mtime of the resolved driver, so an upgraded compiler is probed again.
fn stamp(driver: &Path) -> String {
    let resolved = which::which(driver).ok().and_then(|p| fs::canonicalize(p).ok());
    let meta = resolved.as_ref().and_then(|p| fs::metadata(p).ok());
    match meta {
        Some(m) => format!("{:?} {} {:?}", resolved, m.len(), m.modified().ok()),
        None => "unresolved".into(),
    }
}

fn read_cache(path: &Path) -> Option<Vec<(Feature, bool)>> {
    let text = fs::read_to_string(path).ok()?;
    let probes: Option<Vec<_>> = text
        .lines()
        .map(|l| {
            let (f, ok) = l.split_once('\t')?;
            Some((Feature::from_name(f)?, ok == "yes"))
        })
        .collect();
    probes
}

fn write_cache(path: &Path, probes: &[(Feature, bool)]) {
    let text: String =
        probes.iter().map(|(f, ok)| format!("{f}\t{}\n", if *ok { "yes" } else { "no" })).collect();
    let _ = crate::files::write_atomic(path, text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::installed;

    /// Probe results of a real toolchain this project supports.
    fn real(driver: &str, package: &str) -> Assembler {
        let cache = tempfile::tempdir().unwrap();
        detect(&installed(driver, package), &[], Arch::X86_64, cache.path())
    }

    fn unsupported(a: &Assembler) -> Vec<Feature> {
        a.probes.iter().filter(|(_, ok)| !ok).map(|(f, _)| *f).collect()
    }

    #[test]
    fn gcc_with_gnu_as_2_40_assembles_everything() {
        let a = real("gcc", "build-essential");
        assert_eq!(a.kind, AsmKind::Gas);
        assert_eq!(a.version.as_deref(), Some("2.40"), "{a:?}");
        assert_eq!(unsupported(&a), vec![], "{a:?}");
    }

    #[test]
    fn clang_14_lacks_only_avx_ifma() {
        let a = real("clang-14", "clang-14");
        assert_eq!(a.kind, AsmKind::Clang);
        assert!(a.version.as_deref().is_some_and(|v| v.starts_with("14.")), "{a:?}");
        assert_eq!(unsupported(&a), vec![Feature::AvxIfma], "{a:?}");
    }

    #[test]
    fn clang_16_and_19_assemble_everything() {
        for cc in ["clang-16", "clang-19"] {
            let a = real(cc, cc);
            assert_eq!(a.kind, AsmKind::Clang);
            let major = format!("{}.", &cc["clang-".len()..]);
            assert!(a.version.as_deref().is_some_and(|v| v.starts_with(&major)), "{a:?}");
            assert_eq!(unsupported(&a), vec![], "{a:?}");
            assert!(a.disagreements().is_empty(), "{:?}", a.disagreements());
        }
    }

    #[test]
    fn nasm_2_16_assembles_everything() {
        let scratch = tempfile::tempdir().unwrap();
        let (nasm, cache) = (installed("nasm", "nasm"), scratch.path());
        let linux = crate::data::target_by_name("linux-x86_64").unwrap();
        let a = detect_nasm(&nasm, linux, cache);
        assert_eq!(a.kind, AsmKind::Nasm);
        assert!(a.version.as_deref().is_some_and(|v| v.starts_with("2.16")), "{a:?}");
        assert_eq!(unsupported(&a), vec![], "{a:?}");
        assert!(a.disagreements().is_empty(), "{:?}", a.disagreements());
        // 32-bit x86's own snippets, under BITS 32, where x86_64's BMI2 one cannot assemble.
        let win32 = crate::data::target_by_name("VC-WIN32").unwrap();
        let a = detect_nasm(&nasm, win32, cache);
        assert_eq!(a.probes.len(), probe::X86_NASM_PROBES.len());
        assert_eq!(unsupported(&a), vec![], "{a:?}");
        let bmi2 = probe::NASM_PROBES.iter().find(|(f, _)| *f == Feature::AdxBmi2).unwrap().1;
        assert!(!probe::nasm_assembles(&nasm, Arch::X86, "win32", bmi2, cache));
    }

    /// i686 gcc assembles 32-bit x86's AT&T snippets, and refuses x86_64's BMI2 one.
    #[test]
    fn i686_gcc_assembles_the_32_bit_snippets() {
        let gcc = installed("i686-linux-gnu-gcc", "gcc-i686-linux-gnu");
        let scratch = tempfile::tempdir().unwrap();
        let a = detect(&gcc, &[], Arch::X86, scratch.path());
        assert_eq!(a.probes.len(), probe::X86_GAS_PROBES.len());
        assert_eq!(unsupported(&a), vec![], "{a:?}");
        let bmi2 = probe::GAS_PROBES.iter().find(|(f, _)| *f == Feature::AdxBmi2).unwrap().1;
        assert!(!probe::assembles(&gcc, &[], bmi2, scratch.path()), "%rax has no 32-bit encoding");
    }

    #[test]
    fn a_nasm_that_is_not_there_supports_nothing() {
        let cache = tempfile::tempdir().unwrap();
        let linux = crate::data::target_by_name("linux-x86_64").unwrap();
        let a = detect_nasm(Path::new("/nonexistent/nasm"), linux, cache.path());
        assert_eq!(a.kind, AsmKind::Unknown);
        assert_eq!(unsupported(&a).len(), probe::NASM_PROBES.len());
    }

    #[test]
    fn warm_detection_reuses_the_cached_probes() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let log = dir.join("calls.log");
        let cc = dir.join("logging-cc");
        let script = format!("#!/bin/sh\necho \"$*\" >> {}\nexec gcc \"$@\"\n", log.display());
        fs::write(&cc, script).unwrap();
        std::process::Command::new("chmod").arg("755").arg(&cc).status().unwrap();
        let calls = || fs::read_to_string(&log).unwrap_or_default().lines().count();
        let cold = detect(&cc, &[], Arch::X86_64, dir);
        let after_cold = calls();
        assert_eq!(after_cold, 2 + probe::GAS_PROBES.len(), "two banners, then one run per probe");
        let warm = detect(&cc, &[], Arch::X86_64, dir);
        assert_eq!(calls() - after_cold, 2, "warm detection reads only the banners");
        assert_eq!(warm, cold);
    }

    #[test]
    fn a_driver_that_rejects_everything_supports_nothing() {
        let a = real("false", "coreutils");
        assert_eq!(a.kind, AsmKind::Unknown);
        assert_eq!(unsupported(&a).len(), probe::GAS_PROBES.len());
    }
}
