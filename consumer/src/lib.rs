//! A small safe wrapper of the kind downstream crates write over crypto-sys: one digest through
//! the Rust bindings, one through C compiled against `DEP_CRYPTO_SYS_INCLUDE`.

use core::ffi::c_int;

extern "C" {
    fn consumer_sha256(data: *const u8, len: usize, out: *mut u8) -> c_int;
}

/// OpenSSL version and asm set as crypto-sys reported them to this crate's build script.
pub const SEEN_VERSION: &str = env!("CONSUMER_SAW_VERSION");
pub const SEEN_ASM_SET: &str = env!("CONSUMER_SAW_ASM_SET");
pub const SEEN_C_VARIANT: &str = env!("CONSUMER_SAW_C_VARIANT");
pub const SEEN_LEGACY: &str = env!("CONSUMER_SAW_LEGACY");
pub const SEEN_SYMBOL_PREFIX: &str = env!("CONSUMER_SAW_SYMBOL_PREFIX");
/// The `DEP_CRYPTO_SYS_*` keys this crate's build script saw, and those crypto-sys documents
/// (`crypto_build::build_script::LINK_METADATA`, docs/configuration.md's table), each sorted.
pub const SEEN_KEYS: &str = env!("CONSUMER_SAW_KEYS");
pub const DOCUMENTED_KEYS: &str = env!("CONSUMER_DOCUMENTED_KEYS");

/// SHA-256 through crypto-sys's Rust bindings.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut len = 0u32;
    let ok = unsafe {
        crypto_sys::EVP_Digest(
            data.as_ptr().cast(),
            data.len(),
            out.as_mut_ptr(),
            &mut len,
            crypto_sys::EVP_sha256(),
            core::ptr::null_mut(),
        )
    };
    assert!(ok == 1 && len == 32, "EVP_Digest failed");
    out
}

/// SHA-256 through this crate's own C.
pub fn sha256_via_c(data: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    assert_eq!(unsafe { consumer_sha256(data.as_ptr(), data.len(), out.as_mut_ptr()) }, 1);
    out
}
