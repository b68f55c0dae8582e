//! Uses openssl-sys, linked statically against our prefix, and checks what it got.

use std::ffi::CStr;

fn main() {
    openssl_sys::init();
    let version =
        unsafe { CStr::from_ptr(openssl_sys::OpenSSL_version(openssl_sys::OPENSSL_VERSION)) };
    let version = version.to_str().unwrap();
    assert!(version.starts_with("OpenSSL 3.6.3 "), "linked {version}");
    assert_eq!(unsafe { openssl_sys::OpenSSL_version_num() }, 0x3060_0030);
    // FIPS 180-2 "abc".
    let mut md = [0u8; 32];
    unsafe { openssl_sys::SHA256(b"abc".as_ptr(), 3, md.as_mut_ptr()) };
    let hex: String = md.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    println!("prefix consumer: {version}, SHA-256 known answer ok");
}
