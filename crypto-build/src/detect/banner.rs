//! What a toolchain's banners say: kind and version, read in the C locale. Reported, and
//! compared with the probes, never used to decide.

use crate::data::{AppleClangRelease, Feature, APPLE_CLANG_RELEASES, VERSION_THRESHOLDS};
use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::process::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsmKind {
    /// GNU as, behind gcc or another driver.
    Gas,
    /// clang's integrated assembler.
    Clang,
    AppleClang,
    /// Intel's oneAPI icx (LLVM-based).
    Icx,
    Nasm,
    Unknown,
}

impl AsmKind {
    /// The key used in the thresholds table.
    pub fn key(self) -> &'static str {
        match self {
            AsmKind::Gas => "gas",
            AsmKind::Clang | AsmKind::Icx => "clang",
            AsmKind::AppleClang => "apple-clang",
            AsmKind::Nasm => "nasm",
            AsmKind::Unknown => "unknown",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AsmKind::Gas => "GNU as",
            AsmKind::Clang => "clang integrated assembler",
            AsmKind::AppleClang => "Apple clang integrated assembler",
            AsmKind::Icx => "Intel icx integrated assembler",
            AsmKind::Nasm => "nasm",
            AsmKind::Unknown => "unknown assembler",
        }
    }
}

/// Kind, version and the raw banners of a C compiler driver (with its own arguments).
pub fn identify(driver: &Path, args: &[OsString]) -> (AsmKind, Option<String>, String) {
    let run = |extra: &[&str]| -> String {
        let out = Command::new(driver).args(args).args(extra).env("LC_ALL", "C").output();
        out.map(|o| {
            format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
        })
        .unwrap_or_default()
    };
    let driver_banner = run(&["-v"]);
    let as_banner = run(&["-Wa,-v", "-c", "-o", "/dev/null", "-x", "assembler", "/dev/null"]);
    let (kind, version) = parse_banners(&driver_banner, &as_banner);
    (kind, version, format!("{driver_banner}\n{as_banner}"))
}

/// What the version alone would promise, per feature class, from the thresholds table.
pub fn expected_support(kind: AsmKind, version: Option<&str>) -> Vec<(Feature, bool)> {
    let Some(v) = version else { return vec![] };
    VERSION_THRESHOLDS
        .iter()
        .filter(|t| t.kind == kind.key())
        .map(|t| (t.feature, crate::version::at_least(v, t.min)))
        .collect()
}

/// Reads kind and version from `cc -v` and `cc -Wa,-v` output.
pub fn parse_banners(driver: &str, assembler: &str) -> (AsmKind, Option<String>) {
    if let Some(v) = version_after(assembler, "GNU assembler version ") {
        return (AsmKind::Gas, Some(v));
    }
    if let Some(apple) = AppleBanner::parse(driver) {
        return (AsmKind::AppleClang, Some(apple.to_string()));
    }
    if driver.contains("Intel(R) oneAPI") {
        return (AsmKind::Icx, version_after(driver, "Compiler "));
    }
    if let Some(v) = version_after(driver, "clang version ") {
        return (AsmKind::Clang, Some(v));
    }
    (AsmKind::Unknown, None)
}

/// An Apple clang banner: `Apple clang version 15.0.0 (clang-1500.3.9.4)`, or before Xcode 11
/// `Apple LLVM version 10.0.0 (clang-1000.11.45.5)`. Its version is Apple's, not LLVM's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AppleBanner {
    version: String,
    /// The `clang-…` build number, without `clang-`.
    build: Option<String>,
    /// The table's row for that build, if the build and version both match one.
    release: Option<&'static AppleClangRelease>,
}

impl AppleBanner {
    const MARKERS: [&'static str; 2] = ["Apple clang version ", "Apple LLVM version "];

    fn parse(driver: &str) -> Option<AppleBanner> {
        let (line, marker) = driver
            .lines()
            .find_map(|l| Self::MARKERS.iter().find(|m| l.contains(**m)).map(|m| (l, *m)))?;
        let version = version_after(line, marker)?;
        let build = line.split_once("(clang-").map(|(_, rest)| {
            rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect::<String>()
        });
        let build = build.map(|b| b.trim_end_matches('.').to_string()).filter(|b| !b.is_empty());
        let release = build.as_deref().and_then(|b| apple_release(b, &version));
        Some(AppleBanner { version, build, release })
    }
}

/// `15.0.0 (clang-1500.3.9.4, ≈ LLVM 16, Xcode 15.x)`: the LLVM is said unknown rather than
/// guessed when the table has no row for the build.
impl fmt::Display for AppleBanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (", self.version)?;
        if let Some(b) = &self.build {
            write!(f, "clang-{b}, ")?;
        }
        match self.release {
            Some(r) => write!(f, "≈ LLVM {}, Xcode {})", r.llvm, r.xcode),
            None => write!(f, "LLVM equivalent unknown)"),
        }
    }
}

/// The row whose build is a component-wise prefix of `build` (the longest, should rows nest)
/// and whose Apple version is the banner's; a build the table knows under another version is
/// no match.
fn apple_release(build: &str, version: &str) -> Option<&'static AppleClangRelease> {
    let parts: Vec<&str> = build.split('.').collect();
    APPLE_CLANG_RELEASES
        .iter()
        .filter(|r| {
            let row: Vec<&str> = r.build.split('.').collect();
            parts.starts_with(&row) && r.apple_version == version
        })
        .max_by_key(|r| r.build.split('.').count())
}

/// The version in `nasm -v` output ("NASM version 2.16.01 compiled on ...").
pub fn nasm_version(banner: &str) -> Option<String> {
    version_after(banner, "NASM version ")
}

/// A C compiler's version from its `-v` banner: gcc's, clang's (clang-cl's too), or cl.exe's
/// (`Microsoft (R) C/C++ Optimizing Compiler Version 19.40.33811 for x64`).
pub fn c_compiler_version(banner: &str) -> Option<String> {
    ["gcc version ", "clang version ", "Compiler Version "]
        .iter()
        .find_map(|m| version_after(banner, m))
}

/// The dotted version number that follows `marker`, skipping a parenthesised distro tag.
fn version_after(text: &str, marker: &str) -> Option<String> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.split_once(')').map_or(r, |(_, after)| after).trim_start(),
        None => rest,
    };
    let v: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
    (!v.is_empty()).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_c_compiler_versions() {
        let gcc = "Using built-in specs.\nTarget: x86_64-linux-gnu\ngcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(c_compiler_version(gcc).as_deref(), Some("12.2.0"));
        let clang = "Debian clang version 19.1.7 (3~deb12u1)\nTarget: x86_64-pc-windows-msvc\n";
        assert_eq!(c_compiler_version(clang).as_deref(), Some("19.1.7"));
        let cl = "Microsoft (R) C/C++ Optimizing Compiler Version 19.40.33811 for x64\n";
        assert_eq!(c_compiler_version(cl).as_deref(), Some("19.40.33811"));
        assert_eq!(c_compiler_version("tcc: error: no input files\n"), None);
    }

    #[test]
    fn reads_real_banners() {
        let gas = "GNU assembler version 2.40 (x86_64-linux-gnu) using BFD version (GNU Binutils for Debian) 2.40";
        assert_eq!(parse_banners("gcc version 12.2.0", gas), (AsmKind::Gas, Some("2.40".into())));
        let clang = "Debian clang version 16.0.6 (15~deb12u1)\nTarget: x86_64-pc-linux-gnu";
        assert_eq!(parse_banners(clang, "clang: error"), (AsmKind::Clang, Some("16.0.6".into())));
        let apple = "Apple clang version 15.0.0 (clang-1500.3.9.4)";
        let reported = "15.0.0 (clang-1500.3.9.4, ≈ LLVM 16, Xcode 15.x)";
        assert_eq!(parse_banners(apple, ""), (AsmKind::AppleClang, Some(reported.into())));
        assert_eq!(parse_banners("", ""), (AsmKind::Unknown, None));
        let french = "GNU assembleur version 2.40 (x86_64-linux-gnu)";
        assert_eq!(parse_banners("gcc version 12", french).0, AsmKind::Unknown);
    }

    /// `-Wa,-v` as Apple clang answers it: its integrated assembler takes no `-v`.
    const WA_V: &str = "clang: error: unsupported argument '-v' to option '-Wa,'";

    /// Each fixture file (a real `clang -v`) and what it is reported as.
    #[rustfmt::skip]
    const FIXTURES: &[(&str, AsmKind, &str)] = &[
        ("xcode-9.2.txt", A, "9.0.0 (clang-900.0.39.2, ≈ LLVM 4, Xcode 9.0–9.2)"),
        ("xcode-9.4.1.txt", A, "9.1.0 (clang-902.0.39.2, ≈ LLVM 5, Xcode 9.3–9.4)"),
        ("xcode-10.1.txt", A, "10.0.0 (clang-1000.11.45.5, ≈ LLVM 6, Xcode 10.0–10.1)"),
        ("xcode-10.3.txt", A, "10.0.1 (clang-1001.0.46.4, ≈ LLVM 7, Xcode 10.2–10.3)"),
        ("xcode-11.3.txt", A, "11.0.0 (clang-1100.0.33.16, ≈ LLVM 8, Xcode 11.0–11.3)"),
        ("xcode-11.7.txt", A, "11.0.3 (clang-1103.0.32.62, ≈ LLVM 9, Xcode 11.4–11.7)"),
        ("xcode-12.4.txt", A, "12.0.0 (clang-1200.0.32.29, ≈ LLVM 10, Xcode 12.0–12.4)"),
        ("xcode-12.5.1.txt", A, "12.0.5 (clang-1205.0.22.11, ≈ LLVM 11, Xcode 12.5)"),
        ("xcode-13.2.1.txt", A, "13.0.0 (clang-1300.0.29.30, ≈ LLVM 12, Xcode 13.0–13.2)"),
        ("xcode-13.4.1.txt", A, "13.1.6 (clang-1316.0.21.2.5, ≈ LLVM 13, Xcode 13.3–13.4)"),
        ("xcode-14.2.txt", A, "14.0.0 (clang-1400.0.29.202, ≈ LLVM 14, Xcode 14.0–14.2)"),
        ("xcode-14.3.1.txt", A, "14.0.3 (clang-1403.0.22.14.1, ≈ LLVM 15, Xcode 14.3)"),
        ("xcode-15.3.txt", A, "15.0.0 (clang-1500.3.9.4, ≈ LLVM 16, Xcode 15.x)"),
        ("xcode-16.0.txt", A, "16.0.0 (clang-1600.0.26.3, ≈ LLVM 17, Xcode 16.0–16.2)"),
        ("xcode-16.3.txt", A, "17.0.0 (clang-1700.0.13.3, ≈ LLVM 19, Xcode 16.3–16.4)"),
        ("xcode-26.4.txt", A, "21.0.0 (clang-2100.1.1.101, LLVM equivalent unknown)"),
        ("homebrew-llvm-18.1.8.txt", AsmKind::Clang, "18.1.8"),
        ("llvm-19.1.7.txt", AsmKind::Clang, "19.1.7"),
    ];
    const A: AsmKind = AsmKind::AppleClang;

    fn fixture_dir() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apple-banners")
    }

    #[test]
    fn xcode_banners_are_reported_with_their_llvm() {
        for (file, kind, reported) in FIXTURES {
            let text = std::fs::read_to_string(fixture_dir().join(file)).unwrap();
            let want = (*kind, Some(reported.to_string()));
            assert_eq!(parse_banners(&text, WA_V), want, "{file}");
            // Whatever `-Wa,-v` printed, the driver's banner decides.
            assert_eq!(parse_banners(&text, &format!("{text}{WA_V}")), want, "{file}");
        }
    }

    #[test]
    fn detect_reports_apple_clang_with_its_llvm() {
        let text = std::fs::read_to_string(fixture_dir().join("xcode-15.3.txt")).unwrap();
        let (kind, version) = parse_banners(&text, WA_V);
        let asm = crate::detect::Assembler {
            syntax: crate::data::AsmSyntax::Gas,
            driver: "clang".into(),
            args: vec![],
            kind,
            version,
            probes: vec![],
        };
        assert_eq!(
            asm.describe(),
            "Apple clang integrated assembler 15.0.0 (clang-1500.3.9.4, ≈ LLVM 16, Xcode 15.x)"
        );
    }

    #[test]
    fn every_fixture_is_checked() {
        let mut files: Vec<String> = std::fs::read_dir(fixture_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        let mut listed: Vec<String> = FIXTURES.iter().map(|(f, ..)| f.to_string()).collect();
        listed.sort();
        assert_eq!(files, listed);
    }

    #[test]
    fn apple_banners_read_their_parts() {
        let text = std::fs::read_to_string(fixture_dir().join("xcode-10.1.txt")).unwrap();
        let b = AppleBanner::parse(&text).unwrap();
        assert_eq!((b.version.as_str(), b.build.as_deref()), ("10.0.0", Some("1000.11.45.5")));
        assert_eq!(b.release.map(|r| (r.llvm, r.xcode)), Some((6, "10.0–10.1")));
        let b = AppleBanner::parse("Apple clang version 15.0.0 (clang-1500.3.9.4)").unwrap();
        assert_eq!((b.build.as_deref(), b.release.map(|r| r.llvm)), (Some("1500.3.9.4"), Some(16)));
    }

    #[test]
    fn an_unknown_apple_build_says_so() {
        let report = |banner: &str| AppleBanner::parse(banner).unwrap().to_string();
        // Xcode 26's clang-1700.3 is not the 1700.0 row.
        assert_eq!(
            report("Apple clang version 17.0.0 (clang-1700.3.19.1)"),
            "17.0.0 (clang-1700.3.19.1, LLVM equivalent unknown)"
        );
        // A known build under another version is no match either.
        assert_eq!(
            report("Apple clang version 16.1.0 (clang-1600.0.26.3)"),
            "16.1.0 (clang-1600.0.26.3, LLVM equivalent unknown)"
        );
        // Swift's toolchains build Apple clang without a clang- build.
        let swift = "Apple clang version 17.0.0 (https://github.com/swiftlang/llvm-project.git 901f89886dcd5d1eaf07c8504d58c90f37b0cfdf)";
        assert_eq!(report(swift), "17.0.0 (LLVM equivalent unknown)");
        assert_eq!(AppleBanner::parse("Homebrew clang version 18.1.8"), None);
    }

    #[test]
    fn apple_table_rows_agree_with_themselves() {
        let mut last_llvm = 0;
        for r in APPLE_CLANG_RELEASES {
            // Apple's build numbers are its major version times 100 and up.
            let build: u32 = r.build.split('.').next().unwrap().parse().unwrap();
            let major: u32 = r.apple_version.split('.').next().unwrap().parse().unwrap();
            assert_eq!(build / 100, major, "{r:?}");
            assert!(r.llvm > last_llvm, "{r:?}");
            last_llvm = r.llvm;
        }
    }

    #[test]
    fn apple_thresholds_compare_the_apple_version_only() {
        let reported = |file: &str| {
            let text = std::fs::read_to_string(fixture_dir().join(file)).unwrap();
            parse_banners(&text, WA_V).1.unwrap()
        };
        let by = |v: &str| expected_support(AsmKind::AppleClang, Some(v));
        assert!(by(&reported("xcode-10.3.txt")).contains(&(Feature::Vaes512, true)));
        assert!(by(&reported("xcode-10.1.txt")).contains(&(Feature::Vaes512, false)));
        assert!(by(&reported("xcode-14.3.1.txt")).contains(&(Feature::AvxIfma, false)));
        assert!(by(&reported("xcode-15.3.txt")).contains(&(Feature::AvxIfma, true)));
    }

    #[test]
    fn versions_compare_numerically() {
        let by = |kind, v| expected_support(kind, Some(v));
        assert!(by(AsmKind::Clang, "10.0.0").contains(&(Feature::Avx512, true)));
        assert!(by(AsmKind::Clang, "14.0.6").contains(&(Feature::AvxIfma, false)));
        assert!(by(AsmKind::Gas, "2.23").contains(&(Feature::Avx512, false)));
        assert!(by(AsmKind::Gas, "2.40").contains(&(Feature::Vaes512, true)));
    }
}
