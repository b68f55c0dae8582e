//! Which assembler the build will really use, and what its banner says. Banners are reported,
//! never trusted for decisions.

use std::path::{Path, PathBuf};
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

/// The assembler behind a C compiler driver, as its banners describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assembler {
    pub driver: PathBuf,
    pub kind: AsmKind,
    pub version: Option<String>,
}

impl Assembler {
    pub fn describe(&self) -> String {
        format!("{} {}", self.kind.name(), self.version.as_deref().unwrap_or("(version unknown)"))
    }
}

/// Asks the driver (with its own arguments, e.g. `-m64`) for its banners, in the C locale.
pub fn identify(driver: &Path, args: &[std::ffi::OsString]) -> Assembler {
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
    Assembler { driver: driver.to_path_buf(), kind, version }
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
    }
}
