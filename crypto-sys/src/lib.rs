//! OpenSSL's libcrypto and libssl (the line's release: [`build_info`]), statically linked,
//! with its asm chosen file by file for the assembler that built it. Raw bindings, plus
//! `build_info()` to tell what was built.

#![allow(non_camel_case_types)]

/// Declares OpenSSL functions by their C names, each linked to its name under crypto-sys's
/// symbol prefix (the build's, `build_info().symbol_prefix`): crypto-sys's own declarations.
macro_rules! prefixed_extern {
    ($($(#[$m:meta])* $v:vis fn $name:ident($($args:tt)*) $(-> $r:ty)?;)*) => {
        extern "C" {
            $(
                $(#[$m])*
                #[link_name = concat!(env!("CRYPTO_SYS_LINK_PREFIX"), stringify!($name))]
                $v fn $name($($args)*) $(-> $r)?;
            )*
        }
    };
}

/// Declares OpenSSL functions crypto-sys does not bind, by their C names, linked to
/// crypto-sys's libraries, whose symbols carry its versioned prefix: a plain `extern "C"`
/// block would name OpenSSL's own symbols, which crypto-sys's libraries do not define.
///
/// ```
/// crypto_sys::openssl_extern! {
///     pub fn OPENSSL_version_major() -> core::ffi::c_uint;
/// }
/// assert!(unsafe { OPENSSL_version_major() } >= 3);
/// ```
#[macro_export]
macro_rules! openssl_extern {
    ($($(#[$m:meta])* $v:vis fn $name:ident($($args:tt)*) $(-> $r:ty)?;)*) => {
        extern "C" {
            $(
                $(#[$m])*
                #[link_name = concat!($crate::__link_prefix!(), stringify!($name))]
                $v fn $name($($args)*) $(-> $r)?;
            )*
        }
    };
}

mod bindings;
pub use bindings::*;

#[cfg(feature = "fips")]
pub mod fips;

mod facts {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}

/// One asm file that could not use the set it wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Downgrade {
    /// The asm file, relative to OpenSSL's tree, or `*` for the whole build.
    pub path: &'static str,
    pub from: &'static str,
    pub to: &'static str,
    /// Missing ISA features, joined with `+`.
    pub missing: &'static str,
}

/// What this build of OpenSSL is: version, target, sets, C variant and assembler.
#[derive(Debug, Clone, Copy)]
pub struct BuildInfo {
    pub openssl_version: &'static str,
    pub target: &'static str,
    /// `auto`, or the set that was asked for.
    pub requested_set: &'static str,
    /// The set whose C configuration was compiled (`no_asm` after a full fallback).
    pub effective_set: &'static str,
    /// The C compiler, its kind and version: `gcc 12.2.0`, `clang 19.1.7`, `cl.exe
    /// 19.40.33811`, or `clang-cl 19.1.7` (clang in MSVC mode, never to be read as cl.exe).
    pub c_compiler: &'static str,
    pub assembler_kind: &'static str,
    pub assembler_version: &'static str,
    /// Each asm file and the set it came from.
    pub asm_files: &'static [(&'static str, &'static str)],
    pub downgrades: &'static [Downgrade],
    /// `auto`, `none`, or the C variant that was asked for.
    pub requested_c_variant: &'static str,
    /// The C variant compiled (e.g. `ec_nistp_64_gcc_128`: OpenSSL's 64-bit P-224/P-256/
    /// P-384/P-521 code), or `None` for OpenSSL's default C configuration.
    pub c_variant: Option<&'static str>,
    /// A variant that was wanted but whose probe the C compiler failed (a reported downgrade).
    pub c_variant_refused: Option<&'static str>,
    /// The installed OpenSSL headers (`<include_dir>/openssl/*.h`) of this build.
    pub include_dir: &'static str,
    /// Whether the legacy provider is built into libcrypto (the `legacy` feature).
    pub legacy_provider: bool,
    /// The prefix every symbol of the linked libraries carries (`crypto_sys_0_1_0_`), so that
    /// another OpenSSL in the same binary never mixes with this one; empty when the build
    /// turned it off (`CRYPTO_SYS_SYMBOL_PREFIX=0`).
    pub symbol_prefix: &'static str,
    /// The FIPS provider module (`…/lib/ossl-modules/fips.so`) and its `fipsmodule.cnf`,
    /// with the `fips` feature ([`fips::enable`]).
    pub fips_module: Option<&'static str>,
    pub fips_config: Option<&'static str>,
}

/// The facts fixed when this crate was built.
pub fn build_info() -> BuildInfo {
    BuildInfo {
        openssl_version: facts::OPENSSL_VERSION,
        target: facts::TARGET,
        requested_set: facts::REQUESTED_SET,
        effective_set: facts::EFFECTIVE_SET,
        c_compiler: facts::C_COMPILER,
        assembler_kind: facts::ASSEMBLER_KIND,
        assembler_version: facts::ASSEMBLER_VERSION,
        asm_files: facts::ASM_FILES,
        downgrades: facts::DOWNGRADES,
        requested_c_variant: facts::REQUESTED_C_VARIANT,
        c_variant: facts::C_VARIANT,
        c_variant_refused: facts::C_VARIANT_REFUSED,
        include_dir: facts::INCLUDE_DIR,
        legacy_provider: facts::LEGACY_PROVIDER,
        symbol_prefix: facts::SYMBOL_PREFIX,
        fips_module: facts::FIPS_MODULE,
        fips_config: facts::FIPS_CONFIG,
    }
}

/// The set an asm file (e.g. `crypto/modes/aes-gcm-avx512.s`) was taken from, if it was linked.
pub fn asm_set_of(path: &str) -> Option<&'static str> {
    facts::ASM_FILES.iter().find(|(p, _)| *p == path).map(|(_, s)| *s)
}

mod fast_paths;
pub use fast_paths::{
    aes_gcm_avx512_live, asm_eligibility, ec_nistp_curves, fast_paths, openssl_ia32cap,
    rsaz_avx512ifma_live, FastPath, Status,
};
