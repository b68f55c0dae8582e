//! crypto-sys and the `openssl` crate (openssl-sys through the openssl-src patch) in one
//! binary: each names the same OpenSSL build, and each hashes with it.

fn main() {
    let info = crypto_sys::build_info();
    // SAFETY: OpenSSL_version returns a static C string for any type.
    let ours = unsafe { std::ffi::CStr::from_ptr(crypto_sys::OpenSSL_version(0)) };
    let ours = ours.to_str().unwrap();
    println!("crypto-sys: {ours}, set {} ({})", info.effective_set, info.assembler_kind);
    println!("openssl: {} | {}", openssl::version::version(), openssl::version::platform());
    assert_eq!(ours, openssl::version::version(), "one OpenSSL");
    let digest = openssl::sha::sha256(b"abc");
    assert_eq!(digest[..4], [0xba, 0x78, 0x16, 0xbf], "SHA-256 of abc");
    println!("both: ok");
}
