//! What a toolchain's banners say: kind and version, read in the C locale. Reported, and
//! compared with the probes, never used to decide.

use crate::data::{Feature, VERSION_THRESHOLDS};
use std::ffi::OsString;
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
    let Some(v) = version.map(parse_version) else { return vec![] };
    VERSION_THRESHOLDS
        .iter()
        .filter(|t| t.kind == kind.key())
        .map(|t| (t.feature, v >= parse_version(t.min)))
        .collect()
}

fn parse_version(v: &str) -> Vec<u32> {
    v.split('.').map(|p| p.parse().unwrap_or(0)).collect()
}

/// Reads kind and version from `cc -v` and `cc -Wa,-v` output.
pub fn parse_banners(driver: &str, assembler: &str) -> (AsmKind, Option<String>) {
    if let Some(v) = version_after(assembler, "GNU assembler version ") {
        return (AsmKind::Gas, Some(v));
    }
    if let Some(v) = version_after(driver, "Apple clang version ") {
        return (AsmKind::AppleClang, Some(v));
    }
    if driver.contains("Intel(R) oneAPI") {
        return (AsmKind::Icx, version_after(driver, "Compiler "));
    }
    if let Some(v) = version_after(driver, "clang version ") {
        return (AsmKind::Clang, Some(v));
    }
    (AsmKind::Unknown, None)
}

/// The version in `nasm -v` output ("NASM version 2.16.01 compiled on ...").
pub fn nasm_version(banner: &str) -> Option<String> {
    version_after(banner, "NASM version ")
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
    fn reads_real_banners() {
        let gas = "GNU assembler version 2.40 (x86_64-linux-gnu) using BFD version (GNU Binutils for Debian) 2.40";
        assert_eq!(parse_banners("gcc version 12.2.0", gas), (AsmKind::Gas, Some("2.40".into())));
        let clang = "Debian clang version 16.0.6 (15~deb12u1)\nTarget: x86_64-pc-linux-gnu";
        assert_eq!(parse_banners(clang, "clang: error"), (AsmKind::Clang, Some("16.0.6".into())));
        let apple = "Apple clang version 15.0.0 (clang-1500.3.9.4)";
        assert_eq!(parse_banners(apple, ""), (AsmKind::AppleClang, Some("15.0.0".into())));
        assert_eq!(parse_banners("", ""), (AsmKind::Unknown, None));
        let french = "GNU assembleur version 2.40 (x86_64-linux-gnu)";
        assert_eq!(parse_banners("gcc version 12", french).0, AsmKind::Unknown);
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
