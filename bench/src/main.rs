//! One benchmark run: every figure of `cargo xtask bench`, printed as `figure<TAB>unit<TAB>value`.
//! The same source links crypto-sys (feature `ours`) or openssl-src's build (`vendored`).

mod ffi;

#[cfg(feature = "ours")]
use crypto_sys as _;
#[cfg(all(feature = "vendored", not(feature = "ours")))]
use openssl_sys as _;

use ffi::*;
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

/// Calls `op` in growing batches until `budget` has passed; returns calls per second.
fn rate(budget: Duration, mut op: impl FnMut()) -> f64 {
    let start = Instant::now();
    let (mut calls, mut batch) = (0u64, 1u64);
    while start.elapsed() < budget {
        for _ in 0..batch {
            op();
        }
        calls += batch;
        batch = (batch * 2).min(1 << 16);
    }
    calls as f64 / start.elapsed().as_secs_f64()
}

/// A buffer whose data starts `offset` bytes past a 64-byte boundary.
struct Buf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buf {
    fn new(len: usize, offset: usize) -> Buf {
        let raw = vec![0x5au8; len + 128];
        let start = (64 - (raw.as_ptr() as usize % 64)) % 64 + offset;
        Buf { raw, start, len }
    }
    fn ptr(&mut self) -> *mut u8 {
        self.raw[self.start..].as_mut_ptr()
    }
}

fn seal_rate(
    cipher: *const EVP_CIPHER,
    key_len: usize,
    len: usize,
    offset: usize,
    t: Duration,
) -> f64 {
    let key = vec![7u8; key_len];
    let iv = [9u8; 12];
    let (mut inp, mut out) = (Buf::new(len, offset), Buf::new(len + 16, offset));
    let mut tag = [0u8; 16];
    unsafe {
        let ctx = EVP_CIPHER_CTX_new();
        assert_eq!(EVP_EncryptInit_ex(ctx, cipher, null_mut(), key.as_ptr(), iv.as_ptr()), 1);
        let per_sec = rate(t, || {
            let mut n = 0;
            EVP_EncryptInit_ex(ctx, null(), null_mut(), null(), iv.as_ptr());
            EVP_EncryptUpdate(ctx, out.ptr(), &mut n, inp.ptr(), inp.len as i32);
            EVP_EncryptFinal_ex(ctx, out.ptr().add(n as usize), &mut n);
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast());
        });
        EVP_CIPHER_CTX_free(ctx);
        per_sec * len as f64 / 1e6
    }
}

fn digest_rate(md: *const EVP_MD, t: Duration) -> f64 {
    let mut data = Buf::new(16384, 0);
    let mut out = [0u8; 64];
    let per_sec = rate(t, || unsafe {
        let mut n = 0;
        EVP_Digest(data.ptr().cast(), 16384, out.as_mut_ptr(), &mut n, md, null_mut());
    });
    per_sec * 16384.0 / 1e6
}

unsafe fn keygen(id: i32, param: impl Fn(*mut EVP_PKEY_CTX) -> i32) -> *mut EVP_PKEY {
    let ctx = EVP_PKEY_CTX_new_id(id, null_mut());
    let mut key = null_mut();
    assert_eq!(EVP_PKEY_keygen_init(ctx), 1);
    assert_eq!(param(ctx), 1);
    assert_eq!(EVP_PKEY_keygen(ctx, &mut key), 1);
    EVP_PKEY_CTX_free(ctx);
    key
}

unsafe fn sign(key: *mut EVP_PKEY, msg: &[u8], sig: &mut [u8]) -> usize {
    let md = EVP_MD_CTX_new();
    let mut len = sig.len();
    EVP_DigestSignInit(md, null_mut(), EVP_sha256(), null_mut(), key);
    assert_eq!(EVP_DigestSign(md, sig.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len()), 1);
    EVP_MD_CTX_free(md);
    len
}

unsafe fn verify(key: *mut EVP_PKEY, msg: &[u8], sig: &[u8]) -> bool {
    let md = EVP_MD_CTX_new();
    EVP_DigestVerifyInit(md, null_mut(), EVP_sha256(), null_mut(), key);
    let ok = EVP_DigestVerify(md, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len()) == 1;
    EVP_MD_CTX_free(md);
    ok
}

fn pkey_figures(t: Duration, out: &mut Vec<(String, &'static str, f64)>) {
    let msg = [1u8; 32];
    let mut sig = [0u8; 512];
    unsafe {
        let rsa = keygen(EVP_PKEY_RSA, |c| EVP_PKEY_CTX_set_rsa_keygen_bits(c, 2048));
        let len = sign(rsa, &msg, &mut sig);
        let mut scratch = [0u8; 512];
        out.push(("RSA-2048 sign".into(), "op/s", rate(t, || _ = sign(rsa, &msg, &mut scratch))));
        assert!(verify(rsa, &msg, &sig[..len]));
        out.push((
            "RSA-2048 verify".into(),
            "op/s",
            rate(t, || assert!(verify(rsa, &msg, &sig[..len]))),
        ));
        EVP_PKEY_free(rsa);
        for (name, nid) in
            [("ECDSA P-256 sign", NID_X9_62_PRIME256V1), ("ECDSA P-384 sign", NID_SECP384R1)]
        {
            let ec = keygen(EVP_PKEY_EC, |c| EVP_PKEY_CTX_set_ec_paramgen_curve_nid(c, nid));
            out.push((name.into(), "op/s", rate(t, || _ = sign(ec, &msg, &mut scratch))));
            EVP_PKEY_free(ec);
        }
        let (a, b) = (keygen(EVP_PKEY_X25519, |_| 1), keygen(EVP_PKEY_X25519, |_| 1));
        let derive = || {
            let ctx = EVP_PKEY_CTX_new(a, null_mut());
            let (mut secret, mut n) = ([0u8; 32], 32usize);
            EVP_PKEY_derive_init(ctx);
            EVP_PKEY_derive_set_peer(ctx, b);
            assert_eq!(EVP_PKEY_derive(ctx, secret.as_mut_ptr(), &mut n), 1);
            EVP_PKEY_CTX_free(ctx);
        };
        out.push(("X25519 derive".into(), "op/s", rate(t, derive)));
        EVP_PKEY_free(a);
        EVP_PKEY_free(b);
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.3);
    let t = Duration::from_secs_f64(secs);
    let mut out: Vec<(String, &'static str, f64)> = Vec::new();
    let aeads: [(&str, *const EVP_CIPHER, usize); 3] = unsafe {
        [
            ("AES-256-GCM", EVP_aes_256_gcm(), 32),
            ("AES-128-GCM", EVP_aes_128_gcm(), 16),
            ("ChaCha20-Poly1305", EVP_chacha20_poly1305(), 32),
        ]
    };
    for (name, cipher, key_len) in aeads {
        for (len, label) in [(16384, "16 KiB"), (1024, "1 KiB")] {
            for (offset, align) in [(0, "aligned"), (1, "misaligned")] {
                let v = seal_rate(cipher, key_len, len, offset, t);
                out.push((format!("{name} seal {label} {align}"), "MB/s", v));
            }
        }
    }
    out.push(("SHA-256 16 KiB".into(), "MB/s", unsafe { digest_rate(EVP_sha256(), t) }));
    out.push(("SHA-512 16 KiB".into(), "MB/s", unsafe { digest_rate(EVP_sha512(), t) }));
    pkey_figures(t, &mut out);
    for (figure, unit, value) in out {
        println!("{figure}\t{unit}\t{value:.1}");
    }
}
