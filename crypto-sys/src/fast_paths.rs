//! Which fast paths are live on this CPU, telling "built without it" apart from "this CPU
//! lacks it". The CPU side is read from OPENSSL_ia32cap_P after OPENSSL_init_crypto, so an
//! OPENSSL_ia32cap mask in the environment is honoured, exactly as OpenSSL itself does.

use crate::{asm_set_of, OPENSSL_init_crypto};

/// Whether a fast path runs here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Built in, and this CPU (as OpenSSL sees it) has what it needs.
    Live,
    /// Built in, but the CPU lacks a feature (or OPENSSL_ia32cap masks it).
    CpuLacks,
    /// The asm file came from a set without this code, or there is no asm at all.
    NotBuilt,
}

/// One AVX-512-class code path and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastPath {
    pub name: &'static str,
    /// The asm file that holds it, relative to OpenSSL's tree.
    pub file: &'static str,
    pub status: Status,
}

/// (OPENSSL_ia32cap_P word, bit) pairs, as the asm's own capability checks test them.
struct Needs {
    name: &'static str,
    file: &'static str,
    bits: &'static [(usize, u32)],
}

// Word 2 is CPUID.7.0:EBX, word 3 CPUID.7.0:ECX, word 5 CPUID.7.1:EAX.
const F: (usize, u32) = (2, 16);
const DQ: (usize, u32) = (2, 17);
const IFMA: (usize, u32) = (2, 21);
const BW: (usize, u32) = (2, 30);
const VL: (usize, u32) = (2, 31);
const VAES: (usize, u32) = (3, 9);
const VPCLMULQDQ: (usize, u32) = (3, 10);
const AVX2: (usize, u32) = (2, 5);
const AVX_IFMA: (usize, u32) = (5, 23);

#[rustfmt::skip]
const PATHS: &[Needs] = &[
    Needs { name: "AES-GCM AVX-512 (VAES, VPCLMULQDQ)", file: "crypto/modes/aes-gcm-avx512.s", bits: &[F, DQ, BW, VL, VAES, VPCLMULQDQ] },
    Needs { name: "RSA AVX512-IFMA", file: "crypto/bn/rsaz-2k-avx512.s", bits: &[F, DQ, IFMA, VL] },
    Needs { name: "RSA AVX-IFMA", file: "crypto/bn/rsaz-2k-avxifma.s", bits: &[AVX2, AVX_IFMA] },
    Needs { name: "ChaCha20 AVX-512", file: "crypto/chacha/chacha-x86_64.s", bits: &[F] },
    Needs { name: "Poly1305 AVX-512", file: "crypto/poly1305/poly1305-x86_64.s", bits: &[F] },
];

#[cfg(crypto_sys_ia32cap)]
extern "C" {
    #[link_name = concat!(env!("CRYPTO_SYS_LINK_PREFIX"), "OPENSSL_ia32cap_P")]
    static OPENSSL_ia32cap_P: [core::ffi::c_uint; 10];
}

// x86_64's only (32-bit x86 has no AVX-512 code to ask about), each where the build links
// its file (the build script's cfg): an OpenSSL line may lack one (3.5 has no aes-cfb-avx512).
#[cfg(crypto_sys_asm)]
prefixed_extern! {
    #[cfg(crypto_sys_eligible = "ossl_vaes_vpclmulqdq_capable")]
    fn ossl_vaes_vpclmulqdq_capable() -> core::ffi::c_int;
    #[cfg(crypto_sys_eligible = "ossl_rsaz_avx512ifma_eligible")]
    fn ossl_rsaz_avx512ifma_eligible() -> core::ffi::c_int;
    #[cfg(crypto_sys_eligible = "ossl_rsaz_avxifma_eligible")]
    fn ossl_rsaz_avxifma_eligible() -> core::ffi::c_int;
    #[cfg(crypto_sys_eligible = "aesni_xts_avx512_eligible")]
    fn aesni_xts_avx512_eligible() -> core::ffi::c_int;
    #[cfg(crypto_sys_eligible = "ossl_aes_cfb128_vaes_eligible")]
    fn ossl_aes_cfb128_vaes_eligible() -> core::ffi::c_int;
}

/// OpenSSL's view of the CPU, after its initialisation.
fn ia32cap() -> Option<[u32; 10]> {
    unsafe { OPENSSL_init_crypto(0, core::ptr::null()) };
    #[cfg(crypto_sys_ia32cap)]
    return Some(unsafe { core::ptr::addr_of!(OPENSSL_ia32cap_P).read_volatile() });
    #[cfg(not(crypto_sys_ia32cap))]
    None
}

/// OPENSSL_ia32cap_P once OpenSSL has initialised (and so read `OPENSSL_ia32cap`); `None`
/// without asm, where OpenSSL neither reads the variable nor dispatches on the CPU.
pub fn openssl_ia32cap() -> Option<[u32; 10]> {
    ia32cap()
}

/// Every asm eligibility function the build links (the checks OpenSSL's C code makes before
/// calling an AVX-512-class routine) by symbol, and what it answers now; empty without asm.
pub fn asm_eligibility() -> Vec<(&'static str, bool)> {
    if ia32cap().is_none() {
        return Vec::new();
    }
    let checks: &[(&str, unsafe extern "C" fn() -> core::ffi::c_int)] = &[
        #[cfg(crypto_sys_eligible = "ossl_vaes_vpclmulqdq_capable")]
        ("ossl_vaes_vpclmulqdq_capable", ossl_vaes_vpclmulqdq_capable),
        #[cfg(crypto_sys_eligible = "ossl_rsaz_avx512ifma_eligible")]
        ("ossl_rsaz_avx512ifma_eligible", ossl_rsaz_avx512ifma_eligible),
        #[cfg(crypto_sys_eligible = "ossl_rsaz_avxifma_eligible")]
        ("ossl_rsaz_avxifma_eligible", ossl_rsaz_avxifma_eligible),
        #[cfg(crypto_sys_eligible = "aesni_xts_avx512_eligible")]
        ("aesni_xts_avx512_eligible", aesni_xts_avx512_eligible),
        #[cfg(crypto_sys_eligible = "ossl_aes_cfb128_vaes_eligible")]
        ("ossl_aes_cfb128_vaes_eligible", ossl_aes_cfb128_vaes_eligible),
    ];
    // SAFETY: each only reads OPENSSL_ia32cap_P, which OPENSSL_init_crypto has set.
    checks.iter().map(|&(name, f)| (name, unsafe { f() } != 0)).collect()
}

/// Every fast path of this target and its status here.
pub fn fast_paths() -> Vec<FastPath> {
    let cap = ia32cap();
    PATHS
        .iter()
        .map(|p| {
            let built = asm_set_of(p.file) == Some(crate::facts::AVX512_SET);
            let cpu = cap.is_some_and(|c| p.bits.iter().all(|&(w, b)| c[w] & (1 << b) != 0));
            let status = match (built, cpu) {
                (false, _) => Status::NotBuilt,
                (true, false) => Status::CpuLacks,
                (true, true) => Status::Live,
            };
            FastPath { name: p.name, file: p.file, status }
        })
        .collect()
}

/// What the AES-GCM AVX-512 file's own eligibility function answers; `None` without asm.
pub fn aes_gcm_avx512_live() -> Option<bool> {
    ia32cap()?;
    #[cfg(crypto_sys_eligible = "ossl_vaes_vpclmulqdq_capable")]
    return Some(unsafe { ossl_vaes_vpclmulqdq_capable() } != 0);
    #[cfg(not(crypto_sys_eligible = "ossl_vaes_vpclmulqdq_capable"))]
    None
}

/// What the RSAZ AVX512-IFMA file's own eligibility function answers; `None` without asm.
pub fn rsaz_avx512ifma_live() -> Option<bool> {
    ia32cap()?;
    #[cfg(crypto_sys_eligible = "ossl_rsaz_avx512ifma_eligible")]
    return Some(unsafe { ossl_rsaz_avx512ifma_eligible() } != 0);
    #[cfg(not(crypto_sys_eligible = "ossl_rsaz_avx512ifma_eligible"))]
    None
}

// Deprecated in OpenSSL 3 but still exported: the only way to see which EC_METHOD a curve got.
prefixed_extern! {
    fn EC_GROUP_new_by_curve_name(nid: core::ffi::c_int) -> *mut core::ffi::c_void;
    fn EC_GROUP_free(group: *mut core::ffi::c_void);
    fn EC_GROUP_method_of(group: *const core::ffi::c_void) -> *const core::ffi::c_void;
    fn EC_GFp_mont_method() -> *const core::ffi::c_void;
    fn EC_GFp_nist_method() -> *const core::ffi::c_void;
}

/// P-224, P-384 and P-521: the curves only the `ec_nistp_64_gcc_128` C variant speeds up.
const NISTP_CURVES: &[(&str, core::ffi::c_int)] = &[
    ("P-224", crate::NID_secp224r1),
    ("P-384", crate::NID_secp384r1),
    ("P-521", crate::NID_secp521r1),
];

/// For each curve the `ec_nistp_64_gcc_128` variant covers, whether OpenSSL gives it the
/// 64-bit nistp code (true) or its generic arithmetic (false): Montgomery where OpenSSL has
/// bn asm, the NIST fast reduction (`EC_GFp_nist_method`) in a no-asm build.
pub fn ec_nistp_curves() -> Vec<(&'static str, bool)> {
    NISTP_CURVES
        .iter()
        .map(|&(name, nid)| unsafe {
            let group = EC_GROUP_new_by_curve_name(nid);
            assert!(!group.is_null(), "OpenSSL has no {name} group");
            let method = EC_GROUP_method_of(group);
            let specialised = method != EC_GFp_mont_method() && method != EC_GFp_nist_method();
            EC_GROUP_free(group);
            (name, specialised)
        })
        .collect()
}
