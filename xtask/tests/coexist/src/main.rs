//! crypto-sys beside another OpenSSL in one binary (the `openssl` crate, on the system's
//! libssl or on its `vendored` build): each reports its own version, each seals AES-256-GCM
//! with the published answer, and each opens what the other sealed.

use core::ffi::c_int;
use openssl::symm::{decrypt_aead, encrypt_aead, Cipher};
use std::ffi::CStr;

// The GCM specification's test case 14 (McGrew and Viega): AES-256, a zero key and 96-bit
// IV, one zero block.
const KEY: [u8; 32] = [0; 32];
const IV: [u8; 12] = [0; 12];
const PLAIN: [u8; 16] = [0; 16];
const CIPHER: &str = "cea7403d4d606b6e074ec5d3baf39d18";
const TAG: &str = "d0d1c8a799996bf0265b98b5d48ab919";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// AES-256-GCM through crypto-sys's bindings: sealing (`encrypt`) returns the ciphertext and
/// sets `tag`; opening checks `tag` and returns the plaintext, or `None`.
fn ours(encrypt: bool, input: &[u8], tag: &mut [u8; 16]) -> Option<Vec<u8>> {
    use crypto_sys::*;
    let mut out = vec![0u8; input.len() + 16];
    let (mut n, mut fin) = (0 as c_int, 0 as c_int);
    unsafe {
        let ctx = EVP_CIPHER_CTX_new();
        let ok = if encrypt {
            EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), std::ptr::null_mut(), KEY.as_ptr(), IV.as_ptr()) == 1
                && EVP_EncryptUpdate(ctx, out.as_mut_ptr(), &mut n, input.as_ptr(), input.len() as c_int) == 1
                && EVP_EncryptFinal_ex(ctx, out.as_mut_ptr().add(n as usize), &mut fin) == 1
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast()) == 1
        } else {
            EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), std::ptr::null_mut(), KEY.as_ptr(), IV.as_ptr()) == 1
                && EVP_DecryptUpdate(ctx, out.as_mut_ptr(), &mut n, input.as_ptr(), input.len() as c_int) == 1
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.as_mut_ptr().cast()) == 1
                && EVP_DecryptFinal_ex(ctx, out.as_mut_ptr().add(n as usize), &mut fin) == 1
        };
        EVP_CIPHER_CTX_free(ctx);
        ok.then(|| {
            out.truncate((n + fin) as usize);
            out
        })
    }
}

fn main() {
    let ours_version = unsafe { CStr::from_ptr(crypto_sys::OpenSSL_version(0)) };
    println!("crypto-sys: {}", ours_version.to_str().unwrap());
    println!("openssl: {}", openssl::version::version());
    println!("prefix: {:?}", crypto_sys::build_info().symbol_prefix);

    let mut tag = [0u8; 16];
    let sealed = ours(true, &PLAIN, &mut tag).expect("crypto-sys seals");
    assert_eq!((hex(&sealed), hex(&tag)), (CIPHER.into(), TAG.into()), "crypto-sys's seal");
    let opened = decrypt_aead(Cipher::aes_256_gcm(), &KEY, Some(&IV), &[], &sealed, &tag)
        .expect("the openssl crate opens what crypto-sys sealed");
    assert_eq!(opened, PLAIN);

    let mut tag = [0u8; 16];
    let sealed = encrypt_aead(Cipher::aes_256_gcm(), &KEY, Some(&IV), &[], &PLAIN, &mut tag)
        .expect("the openssl crate seals");
    assert_eq!((hex(&sealed), hex(&tag)), (CIPHER.into(), TAG.into()), "the openssl crate's seal");
    let opened = ours(false, &sealed, &mut tag).expect("crypto-sys opens what the openssl crate sealed");
    assert_eq!(opened, PLAIN);
    let mut bad = tag;
    bad[0] ^= 1;
    assert!(ours(false, &sealed, &mut bad).is_none(), "crypto-sys refuses a wrong tag");
    println!("aes-256-gcm: each opens the other's: ok");
}
