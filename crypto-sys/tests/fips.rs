//! FIPS mode through the module this build linked (the `fips` feature), in one process, in
//! order: the module with one byte flipped is refused with its integrity error and FIPS mode
//! stays off; the module itself turns it on; AES-256-GCM then comes from the FIPS provider and
//! seals the GCM specification's test case 14; SHA-256 gives FIPS 180's answer; MD5, which
//! the module does not provide, cannot be fetched.
#![cfg(feature = "fips")]

use core::ffi::{c_char, c_int};
use crypto_sys as ffi;
use std::ffi::CStr;
use std::ptr::null_mut;

crypto_sys::openssl_extern! {
    fn EVP_CIPHER_get0_provider(cipher: *const ffi::EVP_CIPHER) -> *const ffi::OSSL_PROVIDER;
    fn EVP_MD_get0_provider(md: *const ffi::EVP_MD) -> *const ffi::OSSL_PROVIDER;
    fn OSSL_PROVIDER_get0_name(prov: *const ffi::OSSL_PROVIDER) -> *const c_char;
    fn EVP_default_properties_is_fips_enabled(libctx: *mut ffi::OSSL_LIB_CTX) -> c_int;
}

// The GCM specification's test case 14 (McGrew and Viega): AES-256, a zero key and 96-bit
// IV, one zero block.
const CIPHER_14: &str = "cea7403d4d606b6e074ec5d3baf39d18";
const TAG_14: &str = "d0d1c8a799996bf0265b98b5d48ab919";
// FIPS 180-2, appendix B.1.
const SHA256_ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn provider_name(p: *const ffi::OSSL_PROVIDER) -> String {
    assert!(!p.is_null(), "no provider");
    unsafe { CStr::from_ptr(OSSL_PROVIDER_get0_name(p)) }.to_string_lossy().into_owned()
}

fn fips_available() -> bool {
    unsafe { ffi::OSSL_PROVIDER_available(null_mut(), c"fips".as_ptr()) == 1 }
}

#[test]
fn fips_mode_is_the_modules_or_nothing() {
    let (module, config) = crypto_sys::fips::module_and_config();
    assert!(module.exists() && config.exists(), "{} and {}", module.display(), config.display());

    // A copy with one byte flipped: its HMAC no longer matches the configuration's.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fips-flipped");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let flipped = dir.join(module.file_name().unwrap());
    let mut bytes = std::fs::read(module).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x01;
    std::fs::write(&flipped, bytes).unwrap();
    let e = crypto_sys::fips::enable_with(&flipped, config).unwrap_err();
    let text = e.to_string().to_lowercase();
    assert!(text.contains("integrity"), "the refusal should name the integrity check: {e}");
    assert!(!fips_available(), "a module that failed its check is not loaded");
    assert_eq!(unsafe { EVP_default_properties_is_fips_enabled(null_mut()) }, 0);
    println!("refused, as it should be: {e}");

    crypto_sys::fips::enable().unwrap_or_else(|e| panic!("{e}"));
    assert!(fips_available());

    unsafe {
        let aes = ffi::EVP_CIPHER_fetch(null_mut(), c"AES-256-GCM".as_ptr(), std::ptr::null());
        assert_eq!(provider_name(EVP_CIPHER_get0_provider(aes)), "fips");
        let ctx = ffi::EVP_CIPHER_CTX_new();
        let (key, iv, plain) = ([0u8; 32], [0u8; 12], [0u8; 16]);
        let (mut out, mut tag, mut n, mut fin) = ([0u8; 32], [0u8; 16], 0 as c_int, 0 as c_int);
        assert_eq!(
            ffi::EVP_EncryptInit_ex2(ctx, aes, key.as_ptr(), iv.as_ptr(), std::ptr::null()),
            1
        );
        assert_eq!(ffi::EVP_EncryptUpdate(ctx, out.as_mut_ptr(), &mut n, plain.as_ptr(), 16), 1);
        assert_eq!(ffi::EVP_EncryptFinal_ex(ctx, out.as_mut_ptr().add(n as usize), &mut fin), 1);
        let get_tag = ffi::EVP_CTRL_AEAD_GET_TAG;
        assert_eq!(ffi::EVP_CIPHER_CTX_ctrl(ctx, get_tag, 16, tag.as_mut_ptr().cast()), 1);
        ffi::EVP_CIPHER_CTX_free(ctx);
        ffi::EVP_CIPHER_free(aes);
        assert_eq!((hex(&out[..(n + fin) as usize]), hex(&tag)), (CIPHER_14.into(), TAG_14.into()));

        let sha = ffi::EVP_MD_fetch(null_mut(), c"SHA2-256".as_ptr(), std::ptr::null());
        assert_eq!(provider_name(EVP_MD_get0_provider(sha)), "fips");
        let (mut digest, mut len) = ([0u8; 32], 0u32);
        let abc = b"abc";
        assert_eq!(
            ffi::EVP_Digest(abc.as_ptr().cast(), 3, digest.as_mut_ptr(), &mut len, sha, null_mut()),
            1
        );
        ffi::EVP_MD_free(sha);
        assert_eq!(hex(&digest), SHA256_ABC);

        let md5 = ffi::EVP_MD_fetch(null_mut(), c"MD5".as_ptr(), std::ptr::null());
        assert!(md5.is_null(), "MD5 must not be fetched in FIPS mode");
        ffi::ERR_clear_error();
    }
    println!("FIPS mode: AES-256-GCM and SHA-256 from the fips provider, MD5 refused");
}
