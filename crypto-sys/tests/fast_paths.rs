//! The AVX-512 code is really linked and really runs where the set and the CPU allow it.

use crypto_sys::{
    aes_gcm_avx512_live, asm_set_of, build_info, ec_nistp_curves, rsaz_avx512ifma_live,
};
#[cfg(target_arch = "x86")]
use std::arch::x86::__cpuid_count;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::__cpuid_count;

fn cpu_has_vaes_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512dq")
        && std::is_x86_feature_detected!("vaes")
        && std::is_x86_feature_detected!("vpclmulqdq")
}

fn cpu_has_avx512ifma() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma")
}

/// What a live check must report for a file, given the set it came from.
fn expected(file: &str, cpu: bool) -> Option<bool> {
    match asm_set_of(file) {
        Some("asm") => Some(cpu),
        Some(_) => Some(false), // the slower sets hold a stub that returns 0
        None => None,
    }
}

#[test]
fn aes_gcm_avx512_is_live_exactly_when_built_in_and_supported() {
    let info = build_info();
    let want = expected("crypto/modes/aes-gcm-avx512.s", cpu_has_vaes_avx512());
    assert_eq!(aes_gcm_avx512_live(), want, "set {}", info.effective_set);
    // 32-bit x86's asm has no AVX-512 file.
    let has_file = asm_set_of("crypto/modes/aes-gcm-avx512.s").is_some();
    if info.effective_set == "asm" && info.downgrades.is_empty() && cpu_has_vaes_avx512() {
        assert_eq!(aes_gcm_avx512_live(), Some(true).filter(|_| has_file));
    }
}

#[test]
fn rsaz_avx512ifma_is_live_exactly_when_built_in_and_supported() {
    let want = expected("crypto/bn/rsaz-2k-avx512.s", cpu_has_avx512ifma());
    assert_eq!(rsaz_avx512ifma_live(), want);
}

#[test]
fn build_info_matches_the_requested_set() {
    let info = build_info();
    #[cfg(not(feature = "openssl-3-5"))]
    assert_eq!(info.openssl_version, "4.0.4");
    #[cfg(feature = "openssl-3-5")]
    assert_eq!(info.openssl_version, "3.5.5");
    let requested = std::env::var("CRYPTO_SYS_ASM_SET").unwrap_or_else(|_| "auto".into());
    assert_eq!(info.requested_set, requested);
    match info.effective_set {
        "no_asm" => assert!(info.asm_files.is_empty()),
        set => {
            // 4.0 dropped the engines, and with them e_padlock-x86_64 and e_padlock-x86; 3.5
            // has neither aes-cfb-avx512 nor sm3-x86_64 and sm4-x86_64 (the update reports).
            // 32-bit x86 has its own files.
            let all = match (cfg!(target_arch = "x86"), cfg!(feature = "openssl-3-5")) {
                (false, false) => 40,
                (false, true) => 38,
                (true, false) => 22,
                (true, true) => 23,
            };
            assert_eq!(info.asm_files.len(), all, "every asm file of the target is linked");
            if info.downgrades.is_empty() && requested != "auto" {
                assert!(info.asm_files.iter().all(|(_, s)| *s == set));
            }
        }
    }
}

/// `cargo xtask test` says what its toolchain table expects for the CC in use, and runs this
/// with `--include-ignored`; a plain `cargo test` lists it as ignored, not passed.
#[test]
#[ignore = "needs CRYPTO_SYS_EXPECT_DOWNGRADED, which cargo xtask test sets"]
fn downgrades_match_the_toolchain_table() {
    let expected = std::env::var("CRYPTO_SYS_EXPECT_DOWNGRADED")
        .expect("CRYPTO_SYS_EXPECT_DOWNGRADED: the downgrades expected, comma-separated");
    let expected: Vec<&str> = expected.split(',').filter(|s| !s.is_empty()).collect();
    let info = build_info();
    let actual: Vec<&str> = info.downgrades.iter().map(|d| d.path).collect();
    assert_eq!(actual, expected);
    for d in info.downgrades {
        assert_eq!((d.from, d.to), ("asm", "asm_avx2"));
        assert_eq!(asm_set_of(d.path), Some("asm_avx2"));
    }
    // The AVX-512 AES-GCM path survives any AVX-IFMA downgrade.
    if std::env::var("CRYPTO_SYS_ASM_SET").is_err() {
        assert_eq!(asm_set_of("crypto/modes/aes-gcm-avx512.s"), Some("asm"));
    }
}

#[test]
fn the_fast_path_report_agrees_with_the_asm_eligibility_functions() {
    let paths = crypto_sys::fast_paths();
    let gcm = paths.iter().find(|p| p.file == "crypto/modes/aes-gcm-avx512.s").unwrap();
    let rsa = paths.iter().find(|p| p.file == "crypto/bn/rsaz-2k-avx512.s").unwrap();
    let live = |p: &crypto_sys::FastPath| p.status == crypto_sys::Status::Live;
    assert_eq!(aes_gcm_avx512_live().unwrap_or(false), live(gcm), "{gcm:?}");
    assert_eq!(rsaz_avx512ifma_live().unwrap_or(false), live(rsa), "{rsa:?}");
    for p in &paths {
        let built = asm_set_of(p.file) == Some("asm");
        assert_eq!(p.status == crypto_sys::Status::NotBuilt, !built, "{p:?}");
    }
    // This machine has AVX-512 but no AVX-IFMA: when built in, that path must say so.
    if std::is_x86_feature_detected!("avx512f")
        && asm_set_of("crypto/bn/rsaz-2k-avxifma.s") == Some("asm")
    {
        let avxifma = paths.iter().find(|p| p.file == "crypto/bn/rsaz-2k-avxifma.s").unwrap();
        // SAFETY: CPUID leaf 7 exists on every CPU with AVX-512F.
        #[allow(unused_unsafe)]
        let has_avxifma = unsafe { __cpuid_count(7, 1) }.eax & (1 << 23) != 0;
        let want =
            if has_avxifma { crypto_sys::Status::Live } else { crypto_sys::Status::CpuLacks };
        assert_eq!(avxifma.status, want);
    }
}

/// The C variant `cargo xtask test` expects for this build, when it says.
const EXPECT_C_VARIANT: &str = "CRYPTO_SYS_EXPECT_C_VARIANT";

#[test]
fn the_nistp_code_runs_exactly_when_its_c_variant_was_built() {
    let info = build_info();
    let built = info.c_variant == Some("ec_nistp_64_gcc_128");
    for (curve, nistp) in ec_nistp_curves() {
        assert_eq!(nistp, built, "{curve}: C variant {:?}", info.c_variant);
    }
    if info.c_variant_refused.is_some() {
        assert!(info.c_variant.is_none() && info.requested_c_variant != "none");
    }
    if let Ok(want) = std::env::var(EXPECT_C_VARIANT) {
        assert_eq!(info.c_variant.unwrap_or("none"), want);
    }
}
