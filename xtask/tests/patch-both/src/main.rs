//! crypto-sys and the `openssl` crate (openssl-sys through the openssl-src patch) in one
//! binary: two copies of the same OpenSSL build, crypto-sys's under its symbol prefix; each
//! names the same release, and each hashes with its own copy.

fn main() {
    let info = crypto_sys::build_info();
    // SAFETY: OpenSSL_version returns a static C string for any type.
    let ours = unsafe { std::ffi::CStr::from_ptr(crypto_sys::OpenSSL_version(0)) };
    let ours = ours.to_str().unwrap();
    println!("crypto-sys: {ours}, set {} ({})", info.effective_set, info.assembler_kind);
    println!("openssl: {} | {}", openssl::version::version(), openssl::version::platform());
    assert_eq!(ours, openssl::version::version(), "one OpenSSL release");
    let digest = openssl::sha::sha256(b"abc");
    assert_eq!(digest[..4], [0xba, 0x78, 0x16, 0xbf], "SHA-256 of abc");
    let mut ours = [0u8; 32];
    let mut len = 0u32;
    // SAFETY: a 32-byte buffer for SHA-256, a null engine.
    let ok = unsafe {
        crypto_sys::EVP_Digest(
            b"abc".as_ptr().cast(),
            3,
            ours.as_mut_ptr(),
            &mut len,
            crypto_sys::EVP_sha256(),
            std::ptr::null_mut(),
        )
    };
    assert!(ok == 1 && ours == digest, "crypto-sys's copy hashes alike");
    println!("both: ok");
}
