//! Uses crypto-sys as built from its published package: known answer, set and fast path.

fn main() {
    let mut md = [0u8; 32];
    let mut len = 0u32;
    let ok = unsafe {
        crypto_sys::EVP_Digest(
            b"abc".as_ptr().cast(),
            3,
            md.as_mut_ptr(),
            &mut len,
            crypto_sys::EVP_sha256(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!((ok, len), (1, 32));
    let hex: String = md.iter().map(|b| format!("{b:02x}")).collect();
    // FIPS 180-2, appendix B.1.
    assert_eq!(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    let info = crypto_sys::build_info();
    assert_eq!(info.effective_set, "asm", "{info:?}");
    // The workspace's own build of the same commit, as the package step read it.
    let expect: usize = std::env::var("CRYPTO_SYS_EXPECT_ASM_FILES")
        .expect("CRYPTO_SYS_EXPECT_ASM_FILES: run by `cargo xtask test`'s package step")
        .parse()
        .expect("CRYPTO_SYS_EXPECT_ASM_FILES is a count");
    assert!(expect > 0, "the workspace's build linked no asm file");
    assert_eq!(info.asm_files.len(), expect, "{info:?}");
    println!(
        "package consumer: OpenSSL {} ({} set), SHA-256 known answer ok",
        info.openssl_version, info.effective_set
    );
}
