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

/// Derives `a`'s shared secret with `peer` into `secret`; returns its length.
unsafe fn derive(a: *mut EVP_PKEY, peer: *mut EVP_PKEY, secret: &mut [u8]) -> usize {
    let ctx = EVP_PKEY_CTX_new(a, null_mut());
    let mut n = secret.len();
    assert_eq!(EVP_PKEY_derive_init(ctx), 1);
    assert_eq!(EVP_PKEY_derive_set_peer(ctx, peer), 1);
    assert_eq!(EVP_PKEY_derive(ctx, secret.as_mut_ptr(), &mut n), 1);
    EVP_PKEY_CTX_free(ctx);
    n
}

/// Both sides must agree before the derive is timed, or the figure measures nothing useful.
unsafe fn derive_figure(name: String, a: *mut EVP_PKEY, b: *mut EVP_PKEY, t: Duration) -> Figure {
    let (mut ab, mut ba) = ([0u8; 66], [0u8; 66]);
    let (n, m) = (derive(a, b, &mut ab), derive(b, a, &mut ba));
    assert!(n > 0 && ab[..n] == ba[..m], "{name}: sides disagree");
    (name, "op/s", rate(t, || _ = derive(a, b, &mut ab)))
}

type Figure = (String, &'static str, f64);

fn pkey_figures(t: Duration, out: &mut Vec<Figure>) {
    let msg = [1u8; 32];
    let mut sig = [0u8; 512];
    let mut scratch = [0u8; 512];
    unsafe {
        let rsa = keygen(EVP_PKEY_RSA, |c| EVP_PKEY_CTX_set_rsa_keygen_bits(c, 2048));
        let len = sign(rsa, &msg, &mut sig);
        out.push(("RSA-2048 sign".into(), "op/s", rate(t, || _ = sign(rsa, &msg, &mut scratch))));
        assert!(verify(rsa, &msg, &sig[..len]));
        out.push((
            "RSA-2048 verify".into(),
            "op/s",
            rate(t, || assert!(verify(rsa, &msg, &sig[..len]))),
        ));
        EVP_PKEY_free(rsa);
        let curves = [
            ("P-224", NID_SECP224R1),
            ("P-256", NID_X9_62_PRIME256V1),
            ("P-384", NID_SECP384R1),
            ("P-521", NID_SECP521R1),
        ];
        for (curve, nid) in curves {
            let ec_key = || keygen(EVP_PKEY_EC, |c| EVP_PKEY_CTX_set_ec_paramgen_curve_nid(c, nid));
            let (ec, peer) = (ec_key(), ec_key());
            let len = sign(ec, &msg, &mut sig);
            // A verify that accepts anything would time nothing: it must reject another message.
            assert!(verify(ec, &msg, &sig[..len]) && !verify(ec, &[2u8; 32], &sig[..len]));
            let signing = rate(t, || _ = sign(ec, &msg, &mut scratch));
            out.push((format!("ECDSA {curve} sign"), "op/s", signing));
            let verifying = rate(t, || assert!(verify(ec, &msg, &sig[..len])));
            out.push((format!("ECDSA {curve} verify"), "op/s", verifying));
            out.push(derive_figure(format!("ECDH {curve} derive"), ec, peer, t));
            EVP_PKEY_free(ec);
            EVP_PKEY_free(peer);
        }
        let (a, b) = (keygen(EVP_PKEY_X25519, |_| 1), keygen(EVP_PKEY_X25519, |_| 1));
        out.push(derive_figure("X25519 derive".into(), a, b, t));
        EVP_PKEY_free(a);
        EVP_PKEY_free(b);
    }
}

/// Poly1305 through EVP_MAC, keyed afresh per message as a one-time key must be.
fn mac_rate(len: usize, t: Duration) -> f64 {
    let key = [3u8; 32];
    let mut data = Buf::new(len, 0);
    let mut tag = [0u8; 16];
    unsafe {
        let mac = EVP_MAC_fetch(null_mut(), c"POLY1305".as_ptr(), null());
        assert!(!mac.is_null(), "no POLY1305 in EVP_MAC");
        let ctx = EVP_MAC_CTX_new(mac);
        assert!(!ctx.is_null());
        let mut one = || {
            let mut n = 0;
            EVP_MAC_init(ctx, key.as_ptr(), key.len(), null()) == 1
                && EVP_MAC_update(ctx, data.ptr(), len) == 1
                && EVP_MAC_final(ctx, tag.as_mut_ptr(), &mut n, tag.len()) == 1
                && n == 16
        };
        assert!(one(), "Poly1305 over {len} bytes failed");
        let per_sec = rate(t, || _ = one());
        EVP_MAC_CTX_free(ctx);
        EVP_MAC_free(mac);
        per_sec * len as f64 / 1e6
    }
}

fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0.3);
    let t = Duration::from_secs_f64(secs);
    let mut out: Vec<Figure> = Vec::new();
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
    out.push(("Poly1305 16 KiB".into(), "MB/s", mac_rate(16384, t)));
    out.push(("Poly1305 1 KiB".into(), "MB/s", mac_rate(1024, t)));
    pkey_figures(t, &mut out);
    for (figure, unit, value) in out {
        println!("{figure}\t{unit}\t{value:.1}");
    }
}
