//! The C test driver (`driver/`) for targets where Rust tests cannot run: writes the vectors it
//! reads, builds it with a target's C compiler against an OpenSSL prefix, runs it (natively,
//! under wine or under qemu-aarch64) with a timeout, and parses its report.

mod report;
mod vectors;

pub use crate::runner::{Invocation, RunOutput, Runner};
pub use report::{diagnostics, hex_words, parse_report, tail, PathReport, Report};
pub use vectors::{count_names, families, write_vectors};

use crypto_build::data::{Arch, DriverFamilies, WineRuntime};
use crypto_build::facts::BuildFacts;

use anyhow::{bail, ensure, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;
use xshell::{cmd, Shell};

/// Each driver build (program, vectors, run logs) gets a directory here, under the project root.
pub const DRIVER_DIR: &str = "target/driver";
/// The -D that compiles in an architecture's asm symbols (its capability words; on x86_64
/// also the eligibility functions), as `driver/main.c` names it: `-DDRIVER_X86_64_ASM`.
pub fn asm_define(arch: Arch) -> String {
    format!("-DDRIVER_{}_ASM", arch.name().to_ascii_uppercase())
}

/// The -D per eligibility function (`data::ELIGIBILITIES`) whose file `facts`' build links,
/// as `driver/main.c` names it (`-DDRIVER_HAS_OSSL_AES_CFB128_VAES_ELIGIBLE`); every one
/// without facts (sources compiled alone). A release may lack one's file.
pub fn eligibility_defines(facts: Option<&BuildFacts>) -> Vec<String> {
    let linked = |file: &str| facts.is_none_or(|f| f.set_of(file).is_some());
    let eligible = crypto_build::data::ELIGIBILITIES.iter().filter(|e| linked(e.file));
    eligible.map(|e| format!("-DDRIVER_HAS_{}", e.symbol.to_ascii_uppercase())).collect()
}

/// A C toolchain the driver is built with, and how its programs run here (a matrix row's,
/// `matrix::Row::driver`).
#[derive(Debug, Clone)]
pub struct Toolchain {
    /// Names its build directories and its lines in the report.
    pub name: String,
    pub cc: &'static str,
    /// The Debian package that provides `cc`, named in the error when it is missing.
    pub package: &'static str,
    /// Compiler flags besides CFLAGS, on the compile and the link line (clang's target,
    /// sanitizers).
    pub flags: Vec<String>,
    /// Added to the environment of every run (sanitizer options).
    pub env: &'static [(&'static str, &'static str)],
    pub exe: &'static str,
    /// The asm whose symbols its programs can report, when the prefix has asm.
    /// Whose asm symbols the driver reports with an asm prefix (`None`: the target has none).
    pub asm: Option<Arch>,
    pub runner: Runner,
    /// An MSVC-ABI toolchain's C runtime: the driver is compiled by `cc` against it and
    /// linked by lld-link (`crypto_build::msvc::link`), not by `cc`.
    pub msvc: Option<&'static WineRuntime>,
}

/// Strict C99 and no warnings: the driver must build unchanged with every target's compiler.
const CFLAGS: &[&str] = &["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"];

pub fn require_cc(tc: &Toolchain) -> Result<()> {
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
    let out_dir = crate::cargo::project_root().join(DRIVER_DIR).join(name);
    fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let exe = out_dir.join(tc.exe);
    let (cc, flags) = (tc.cc, &tc.flags);
    let facts = crate::prefix::facts(prefix)?;
    let mut define: Vec<String> = tc.asm.filter(|_| asm).map(asm_define).into_iter().collect();
    if asm {
        define.extend(eligibility_defines(Some(&facts)));
    }
    let target = crypto_build::data::target_for(&facts.target)?;
    let libcrypto = prefix.join("lib").join(target.archive_file("crypto"));
    ensure!(libcrypto.exists(), "{} not found: not an OpenSSL prefix", libcrypto.display());
    // The prefix's own pkg-config files say how to compile and link against it, the system
    // libraries of its target included: the driver is their first consumer.
    let (cflags, libs) = pkg_config(sh, prefix, "libcrypto")?;
    let built = match tc.msvc {
        Some(rt) => {
            let words = [&define[..], &cflags].concat();
            let srcs = sources(&crate::cargo::project_root())?;
            let srcs: Vec<_> = srcs.into_iter().map(|s| (s, words.clone())).collect();
            compile_objects(sh, tc, &srcs, &out_dir)
                .and_then(|objs| link_msvc(rt, &objs, &libs, &exe))
        }
        None => {
            let srcs = sources(&crate::cargo::project_root())?;
            let cmd = cmd!(
                sh,
                "{cc} {CFLAGS...} {flags...} {define...} {cflags...} {srcs...} {libs...} -o {exe}"
            );
            cmd.run().map_err(anyhow::Error::from)
        }
    };
    built.with_context(|| format!("building the driver with {cc} against {}", prefix.display()))?;
    if !matches!(tc.runner, Runner::Wine(_)) {
        check_linkage(sh, tc, &exe)?;
    }
    write_vectors(&out_dir.join("vectors"))?;
    Ok(exe)
}

/// Each source, compiled with `tc` and its own words into an object in `out_dir`, and for an
/// MSVC toolchain the program's entry point (`crypto_build::msvc::ENTRY_C`) besides: the
/// driver's sources and every other small program's.
fn compile_objects(
    sh: &Shell,
    tc: &Toolchain,
    sources: &[(PathBuf, Vec<String>)],
    out_dir: &Path,
) -> Result<Vec<PathBuf>> {
    let entry = match tc.msvc {
        Some(_) => Some((crypto_build::msvc::write_entry(out_dir)?, vec![])),
        None => None,
    };
    let (cc, flags) = (tc.cc, &tc.flags);
    let mut objs = Vec::new();
    // By place and name: a program may compile one source twice, with other words.
    for (i, (src, words)) in sources.iter().chain(entry.as_ref()).enumerate() {
        let stem = src.file_stem().context("a source file name")?.to_string_lossy();
        let obj = out_dir.join(format!("{i}-{stem}.obj"));
        cmd!(sh, "{cc} {CFLAGS...} {flags...} {words...} -c {src} -o {obj}")
            .run()
            .with_context(|| format!("compiling {} with {cc}", src.display()))?;
        objs.push(obj);
    }
    Ok(objs)
}

/// A small C program other than the driver, built with `tc` into `exe`: each source compiled
/// with its own words (defines, include directories), then linked with `libs` (archives by
/// path, `-L`/`-l` words as pkg-config gives them) as the driver is: by `cc`, or for an MSVC
/// toolchain by lld-link with the C runtime's entry point.
pub fn build_program(
    sh: &Shell,
    tc: &Toolchain,
    sources: &[(PathBuf, Vec<String>)],
    libs: &[String],
    exe: &Path,
) -> Result<()> {
    require_cc(tc)?;
    let dir = exe.parent().context("the program's directory")?;
    fs::create_dir_all(dir)?;
    let objs = compile_objects(sh, tc, sources, dir)?;
    let (cc, flags) = (tc.cc, &tc.flags);
    match tc.msvc {
        Some(rt) => {
            let archives = libs.iter().filter(|l| !l.starts_with('-')).map(PathBuf::from);
            let rest: Vec<String> = libs.iter().filter(|l| l.starts_with('-')).cloned().collect();
            let objs: Vec<PathBuf> = objs.into_iter().chain(archives).collect();
            link_msvc(rt, &objs, &rest, exe)
        }
        None => cmd!(sh, "{cc} {flags...} {objs...} {libs...} -o {exe}")
            .quiet()
            .run()
            .with_context(|| format!("linking {} with {cc}", exe.display())),
    }
}

/// Links the driver's objects with lld-link, as its prefix's pkg-config `libs` say: each
/// `-l` a static library of the prefix (`-L`'s `<name>.lib`) or the C runtime's import library.
fn link_msvc(
    rt: &'static WineRuntime,
    objs: &[PathBuf],
    libs: &[String],
    exe: &Path,
) -> Result<()> {
    let dirs: Vec<&str> = libs.iter().filter_map(|l| l.strip_prefix("-L")).collect();
    let (mut statics, mut system) = (Vec::new(), Vec::new());
    for name in libs.iter().filter_map(|l| l.strip_prefix("-l")) {
        let lib =
            dirs.iter().map(|d| Path::new(d).join(format!("{name}.lib"))).find(|p| p.exists());
        match lib {
            Some(lib) => statics.push(lib),
            None => system.push(name.to_string()),
        }
    }
    let scratch = exe.parent().context("the driver's directory")?;
    let program = crypto_build::msvc::Program {
        runtime: rt,
        out: exe,
        objects: objs,
        libs: &statics,
        system: &system,
    };
    crypto_build::msvc::link(&program, scratch)
}

/// A Linux driver needs no shared libatomic, whatever its prefix's ex_libs say (its link line
/// takes `data::STATIC_EX_LIBS` from their archives: rust-openssl#1779, #2043), and one linked
/// `-static` needs no shared library at all; either is said in one line.
fn check_linkage(sh: &Shell, tc: &Toolchain, exe: &Path) -> Result<()> {
    ensure!(which::which("readelf").is_ok(), "readelf not found: install binutils");
    let dynamic = cmd!(sh, "readelf -d {exe}").quiet().read()?;
    let needed = needed_libraries(&dynamic);
    let atomic = needed.iter().find(|l| l.starts_with("libatomic"));
    ensure!(atomic.is_none(), "{}: the driver needs {atomic:?} at run time", tc.name);
    if tc.flags.iter().any(|f| f == "-static") {
        ensure!(needed.is_empty(), "{}: the static driver needs {needed:?}", tc.name);
        println!("driver ({}): fully static, no shared library needed", tc.name);
    } else {
        println!("driver ({}): needs {}, no libatomic", tc.name, needed.join(", "));
    }
    Ok(())
}

/// The NEEDED entries of `readelf -d`'s output (`(NEEDED) Shared library: [libc.so.6]`).
fn needed_libraries(dynamic: &str) -> Vec<String> {
    dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| Some(l.split_once('[')?.1.split_once(']')?.0.to_string()))
        .collect()
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
    let out_dir = crate::cargo::project_root().join(DRIVER_DIR).join(format!("{}-objects", tc.cc));
    fs::create_dir_all(&out_dir)?;
    let mut define: Vec<String> = tc.asm.filter(|_| asm).map(asm_define).into_iter().collect();
    if asm {
        define.extend(eligibility_defines(None));
    }
    let define = define.as_slice();
    let (cc, flags) = (tc.cc, &tc.flags);
    for src in sources(&crate::cargo::project_root())? {
        let obj = out_dir.join(src.file_stem().context("a source file name")?).with_extension("o");
        cmd!(sh, "{cc} {CFLAGS...} {flags...} {define...} -I{include} -c {src} -o {obj}")
            .run()
            .with_context(|| format!("compiling {} with {cc}", src.display()))?;
    }
    Ok(())
}

/// The Wycheproof families a code path's runs check, in the driver's order.
pub fn requested(families: DriverFamilies) -> Vec<&'static str> {
    match families {
        DriverFamilies::All => self::families().collect(),
        DriverFamilies::Only(only, _) => self::families().filter(|f| only.contains(f)).collect(),
    }
}

/// The families a run of `requested` leaves out.
pub fn left_out(requested: &[&str]) -> Vec<&'static str> {
    families().filter(|f| !requested.contains(f)).collect()
}

/// The driver's arguments: its vectors, then the families when not all of them.
fn driver_args(vectors: &str, requested: &[&str]) -> Vec<String> {
    let mut args = vec![vectors.to_string()];
    if !left_out(requested).is_empty() {
        args.push(requested.join(","));
    }
    args
}

/// Runs a driver `build` made on the vectors beside it (`vectors`, or the tampered copy),
/// checking only the `requested` Wycheproof families, with the toolchain's `env` and then
/// `env` added, its output logged beside it as `<label>.stdout.txt`.
pub fn run_raw(
    tc: &Toolchain,
    exe: &Path,
    (vectors, label): (&str, &str),
    env: &[(&str, &str)],
    requested: &[&str],
    timeout: Duration,
) -> Result<RunOutput> {
    let (dir, log) = (exe.parent().context("the driver's directory")?, exe.with_file_name(label));
    // A relative path, so that wine and qemu need no path translation.
    let env: Vec<(&str, &str)> = tc.env.iter().chain(env).copied().collect();
    let args = driver_args(vectors, requested);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let inv = Invocation { exe, args: &args, cwd: dir, env: &env, log: &log, timeout };
    tc.runner.run(&inv)
}

/// What a run of [`run_raw`] on the vectors printed: an error, carrying every failure line,
/// unless all checks passed and exactly the requested families and the known answers
/// reported their counts.
pub fn check_output(exe: &Path, out: &RunOutput, requested: &[&str]) -> Result<Report> {
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
    check_counts(&report, requested)?;
    Ok(report)
}

/// The report's `count` lines are exactly those of the `requested` families and the known
/// answers: none missing (a family that checked nothing), none extra (a selection ignored).
pub fn check_counts(report: &Report, requested: &[&str]) -> Result<()> {
    let want = count_names(requested);
    let missing: Vec<&str> =
        want.iter().filter(|f| !report.counts.contains_key(**f)).copied().collect();
    ensure!(missing.is_empty(), "the driver reported no counts for {missing:?}");
    let extra: Vec<&str> =
        report.counts.keys().map(String::as_str).filter(|f| !want.contains(f)).collect();
    ensure!(extra.is_empty(), "the driver reported counts for {extra:?}, which were not requested");
    Ok(())
}

/// `run` on each item, up to this machine's cores at once (each is one program, mostly
/// waiting on it), or as an inherited jobserver allows; the results in the items' order.
pub fn side_by_side<T: Sync, R: Send>(items: &[T], run: impl Fn(&T) -> R + Sync) -> Vec<R> {
    crypto_build::par_map(items, crypto_build::jobs::count(), run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_toolchain_reports_its_own_asm() {
        use crate::matrix::{How, ROWS};
        let run = |r: &&crate::matrix::Row| {
            matches!(r.how, How::Wine | How::Qemu | How::ThisCpu | How::Static)
        };
        for row in ROWS.iter().filter(run) {
            let want = match row.triple().arch {
                "x86_64" => Arch::X86_64,
                "i686" => Arch::X86,
                "powerpc64le" => Arch::Ppc64le,
                "s390x" => Arch::S390x,
                "riscv64gc" => Arch::Riscv64,
                "armv7" => Arch::Arm,
                "mips64el" => Arch::Mips64,
                _ => Arch::Aarch64,
            };
            assert_eq!(row.driver().unwrap().asm, Some(want), "{row:?}");
        }
        // The names driver/main.c tests: an eligibility function only where its file is
        // linked (the sample links aes-gcm-avx512 alone), each without facts.
        let linked = eligibility_defines(Some(&crate::prefix::sample_facts()));
        assert_eq!(linked, ["-DDRIVER_HAS_OSSL_VAES_VPCLMULQDQ_CAPABLE"]);
        let main = fs::read_to_string(crate::cargo::project_root().join("driver/main.c")).unwrap();
        for define in eligibility_defines(None) {
            let name = define.strip_prefix("-D").unwrap();
            assert_eq!(main.matches(&format!("#ifdef {name}\n")).count(), 2, "{name}");
        }
        assert_eq!(eligibility_defines(None).len(), crypto_build::data::ELIGIBILITIES.len());
        assert_eq!(asm_define(Arch::X86_64), "-DDRIVER_X86_64_ASM");
        assert_eq!(asm_define(Arch::Aarch64), "-DDRIVER_AARCH64_ASM");
        assert_eq!(asm_define(Arch::Ppc64le), "-DDRIVER_PPC64LE_ASM");
        assert_eq!(asm_define(Arch::S390x), "-DDRIVER_S390X_ASM");
        assert_eq!(asm_define(Arch::Riscv64), "-DDRIVER_RISCV64_ASM");
        assert_eq!(asm_define(Arch::X86), "-DDRIVER_X86_ASM");
        assert_eq!(asm_define(Arch::Arm), "-DDRIVER_ARM_ASM");
        assert_eq!(asm_define(Arch::Mips64), "-DDRIVER_MIPS64_ASM");
    }

    #[test]
    fn reads_the_needed_libraries() {
        let out = "Dynamic section at offset 0x1 contains 3 entries:\n  Tag        Type                         Name/Value\n 0x00000001 (NEEDED)                     Shared library: [libatomic.so.1]\n 0x00000001 (NEEDED)                     Shared library: [libc.so.6]\n 0x0000000c (INIT)                       0x4f4\n";
        assert_eq!(needed_libraries(out), ["libatomic.so.1", "libc.so.6"]);
        assert!(needed_libraries("\nThere is no dynamic section in this file.\n").is_empty());
    }

    /// clang links what it is told (gcc's Debian default drops an unused library): named as
    /// `ex_lib_flag` names it, libatomic is no shared dependency, which the check would refuse.
    #[test]
    fn libatomic_from_the_prefixs_link_line_is_no_shared_dependency() {
        let row =
            crate::matrix::Row::find(crypto_build::data::triples::ARMV7_LINUX, "clang-19", None);
        let tc = row.unwrap().driver().unwrap();
        require_cc(&tc).unwrap_or_else(|e| panic!("{e} (.ci/install installs it)"));
        let libc = Path::new("/usr/arm-linux-gnueabihf/lib/libc.so.6");
        assert!(
            libc.exists(),
            "armv7's libc: apt install libc6-dev-armhf-cross (.ci/install does)"
        );
        let dir = crate::cargo::project_root().join(DRIVER_DIR).join("unit-tests/libatomic");
        fs::create_dir_all(&dir).unwrap();
        let src = dir.join("main.c");
        fs::write(&src, "int main(void) { return 0; }\n").unwrap();
        let sh = Shell::new().unwrap();
        let (cc, flags) = (tc.cc, &tc.flags);
        for (lib, shared) in
            [(crypto_build::data::ex_lib_flag("atomic"), false), ("-latomic".into(), true)]
        {
            let exe = dir.join("main");
            cmd!(sh, "{cc} {flags...} {src} {lib} -o {exe}").quiet().run().unwrap();
            let checked = check_linkage(&sh, &tc, &exe);
            assert_eq!(checked.is_err(), shared, "{lib}: {checked:?}");
        }
    }

    /// Every family a code path names is one the driver has, once; the default path (the
    /// first row) runs them all.
    #[test]
    fn code_paths_name_driver_families() {
        use crypto_build::data::Arch;
        for &arch in Arch::ALL {
            for p in arch.code_paths() {
                let (name, f) = (p.name, p.families);
                if let DriverFamilies::Only(only, why) = f {
                    assert!(!only.is_empty() && !why.is_empty(), "{name}");
                    for fam in only {
                        assert!(families().any(|f| f == *fam), "{name}: no driver family {fam}");
                        assert_eq!(only.iter().filter(|f| *f == fam).count(), 1, "{name}: {fam}");
                    }
                    assert_eq!(requested(f).len(), only.len(), "{name}");
                }
            }
        }
        assert_eq!(requested(DriverFamilies::All).len(), 12);
        assert!(left_out(&requested(DriverFamilies::All)).is_empty());
    }

    #[test]
    fn the_driver_gets_the_families_only_when_not_all() {
        assert_eq!(driver_args("vectors", &requested(DriverFamilies::All)), ["vectors"]);
        let only = DriverFamilies::Only(&["hmac", "aes_gcm"], "why");
        // In the driver's order, whatever the row's.
        assert_eq!(driver_args("tampered", &requested(only)), ["tampered", "aes_gcm,hmac"]);
    }

    const KNOWN_ANSWERS: &str = "count kat_sha2 checked=8 failures=0 ms=1\n\
        count kat_aes checked=6 failures=0 ms=0\ncount kat_gcm checked=6 failures=0 ms=0\n\
        count digests checked=10 failures=0 ms=40\n";

    fn report(counts: &str) -> Report {
        parse_report(&format!("openssl 3.6.3\n{KNOWN_ANSWERS}{counts}result ok\n")).unwrap()
    }

    #[test]
    fn a_run_reports_exactly_the_requested_families() {
        let hmac = "count hmac valid=132 invalid=216 acceptable_accepted=0 \
                    acceptable_rejected=0 skipped=0 errors=0 failures=0 ms=5\n";
        let x25519 = "count x25519_zero_secret rejected=31\ncount x25519 valid=264 invalid=0 \
                      acceptable_accepted=223 acceptable_rejected=31 skipped=0 errors=0 \
                      failures=0 ms=9\n";
        check_counts(&report(hmac), &["hmac"]).unwrap();
        check_counts(&report(&format!("{hmac}{x25519}")), &["x25519", "hmac"]).unwrap();
        let e = check_counts(&report(hmac), &["hmac", "aes_gcm"]).unwrap_err().to_string();
        assert_eq!(e, r#"the driver reported no counts for ["aes_gcm"]"#);
        let e = check_counts(&report(&format!("{hmac}{x25519}")), &["hmac"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"the driver reported counts for ["x25519", "x25519_zero_secret"], which were not requested"#
        );
        check_counts(&report(""), &[]).unwrap();
        let e = check_counts(&report(""), &["hmac"]).unwrap_err().to_string();
        assert_eq!(e, r#"the driver reported no counts for ["hmac"]"#);
        let kats = parse_report("count kat_sha2 checked=8 failures=0\nresult ok\n").unwrap();
        let e = check_counts(&kats, &[]).unwrap_err().to_string();
        assert_eq!(e, r#"the driver reported no counts for ["digests", "kat_aes", "kat_gcm"]"#);
    }

    #[test]
    fn side_by_side_keeps_the_order() {
        let items: Vec<u64> = (0..9).collect();
        let out = side_by_side(&items, |&i| {
            std::thread::sleep(Duration::from_millis(10 * (9 - i)));
            i * 2
        });
        assert_eq!(out, (0..9).map(|i| i * 2).collect::<Vec<_>>());
        assert!(side_by_side(&[] as &[u8], |_| 0).is_empty());
    }

    #[test]
    fn a_missing_compiler_is_one_line_naming_its_package() {
        let host = crate::matrix::workspace_row();
        let tc = Toolchain {
            cc: "no-such-cc-for-the-driver",
            package: "gcc-example",
            ..host.driver().unwrap()
        };
        let e = format!("{:#}", require_cc(&tc).unwrap_err());
        assert_eq!(e, "no-such-cc-for-the-driver not found: install gcc-example");
    }
}
