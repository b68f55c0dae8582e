//! A Rust target triple, parsed once into its fields: what runs its programs, what clang
//! calls it. Nothing else matches triples as strings.

use anyhow::{bail, Result};

/// A Rust target triple, parsed once into its fields (`arch-vendor-os[-env]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Triple<'a> {
    pub arch: &'a str,
    pub vendor: &'a str,
    pub os: &'a str,
    pub env: &'a str,
}

impl<'a> Triple<'a> {
    pub fn parse(triple: &'a str) -> Result<Triple<'a>> {
        let mut parts = triple.splitn(4, '-');
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(arch), Some(vendor), Some(os), env) if !arch.is_empty() && !os.is_empty() => {
                Ok(Triple { arch, vendor, os, env: env.unwrap_or("") })
            }
            _ => bail!("`{triple}` is not a target triple (arch-vendor-os[-env])"),
        }
    }

    pub fn is_windows(&self) -> bool {
        self.os == "windows"
    }

    /// Whether a machine of `host` runs this target's programs itself: the same OS and C
    /// library, and the same architecture, or 32-bit x86 on x86_64.
    pub fn runs_natively_on(&self, host: &Triple) -> bool {
        let arch = self.arch == host.arch || (self.arch == "i686" && host.arch == "x86_64");
        arch && (self.os, self.env) == (host.os, host.env)
    }

    /// What clang's `--target` calls this target: Debian's cross sysroots for Linux, mingw's
    /// for Windows (MSVC's as Rust spells it), and macOS 11 (the first with arm64) for Apple;
    /// Rust's `riscv64gc` is clang's `riscv64`, whose default for Linux is rv64gc.
    pub fn clang_target(&self) -> String {
        match (self.os, self.env) {
            ("windows", "gnu") => format!("{}-w64-mingw32", self.arch),
            ("windows", "msvc") => format!("{}-pc-windows-msvc", self.arch),
            ("darwin", _) => {
                let arch = if self.arch == "aarch64" { "arm64" } else { self.arch };
                format!("{arch}-apple-macos11")
            }
            (os, env) => {
                let arch = if self.arch == "riscv64gc" { "riscv64" } else { self.arch };
                format!("{arch}-{os}-{env}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triples_parse_into_their_fields() {
        let t = Triple::parse("aarch64-unknown-linux-gnu").unwrap();
        assert_eq!((t.arch, t.vendor, t.os, t.env), ("aarch64", "unknown", "linux", "gnu"));
        assert_eq!(t.clang_target(), "aarch64-linux-gnu");
        let rv = Triple::parse("riscv64gc-unknown-linux-gnu").unwrap();
        assert_eq!(rv.clang_target(), "riscv64-linux-gnu");
        let mac = Triple::parse("aarch64-apple-darwin").unwrap();
        assert_eq!(
            (mac.os, mac.env, mac.clang_target().as_str()),
            ("darwin", "", "arm64-apple-macos11")
        );
        assert_eq!(
            Triple::parse("x86_64-pc-windows-gnu").unwrap().clang_target(),
            "x86_64-w64-mingw32"
        );
        assert_eq!(
            Triple::parse("aarch64-pc-windows-msvc").unwrap().clang_target(),
            "aarch64-pc-windows-msvc"
        );
        assert_eq!(
            Triple::parse("armv7-unknown-linux-gnueabihf").unwrap().clang_target(),
            "armv7-linux-gnueabihf"
        );
        assert!(Triple::parse("x86_64").is_err());
        let win64 = Triple::parse("x86_64-pc-windows-msvc").unwrap();
        assert!(Triple::parse("i686-pc-windows-msvc").unwrap().runs_natively_on(&win64));
        assert!(!Triple::parse("i686-pc-windows-gnu").unwrap().runs_natively_on(&win64));
        assert!(!Triple::parse("aarch64-pc-windows-msvc").unwrap().runs_natively_on(&win64));
        assert!(!win64.runs_natively_on(&Triple::parse("i686-pc-windows-msvc").unwrap()));
    }
}
