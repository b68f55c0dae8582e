//! The figures through OpenSSL's C API, linked from crypto-sys (feature `ours`) or from
//! openssl-src's build (`vendored-default`, or another line's scratch project, linked by the
//! build script).

#[cfg(feature = "ours")]
use crypto_sys as _;

use crate::ffi::*;
use crate::{aead_figures, rate, Buf, Figure, AEADS};
use std::ptr::{null, null_mut};
use std::time::Duration;

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

/// Signs with SHA-256, or with no digest for `EVP_PKEY_ED25519`, which hashes the message itself.
unsafe fn sign(key: *mut EVP_PKEY, msg: &[u8], sig: &mut [u8]) -> usize {
    let md = EVP_MD_CTX_new();
    let mut len = sig.len();
    assert_eq!(EVP_DigestSignInit(md, null_mut(), digest_for(key), null_mut(), key), 1);
    assert_eq!(EVP_DigestSign(md, sig.as_mut_ptr(), &mut len, msg.as_ptr(), msg.len()), 1);
    EVP_MD_CTX_free(md);
    len
}

unsafe fn verify(key: *mut EVP_PKEY, msg: &[u8], sig: &[u8]) -> bool {
    let md = EVP_MD_CTX_new();
    assert_eq!(EVP_DigestVerifyInit(md, null_mut(), digest_for(key), null_mut(), key), 1);
    let ok = EVP_DigestVerify(md, sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len()) == 1;
    EVP_MD_CTX_free(md);
    ok
}

unsafe fn digest_for(key: *mut EVP_PKEY) -> *const EVP_MD {
    if EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 {
        null()
    } else {
        EVP_sha256()
    }
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
    (name, "op/s", Some(rate(t, || _ = derive(a, b, &mut ab))))
}

/// A fresh key pair (its public key included, as a handshake sends it) and one derive with it:
/// the whole of one side's ephemeral key agreement.
unsafe fn ephemeral_figure(name: &str, gen: impl Fn() -> *mut EVP_PKEY, t: Duration) -> Figure {
    let peer = gen();
    let mut secret = [0u8; 66];
    let per_sec = rate(t, || {
        let a = gen();
        assert!(derive(a, peer, &mut secret) > 0);
        EVP_PKEY_free(a);
    });
    EVP_PKEY_free(peer);
    (format!("{name} keygen + derive"), "op/s", Some(per_sec))
}

/// Signing and verifying `msg`, after checking that verification rejects another message (a
/// verify that accepts anything would time nothing).
unsafe fn sign_verify_figures(name: &str, key: *mut EVP_PKEY, t: Duration, out: &mut Vec<Figure>) {
    let msg = [1u8; 32];
    let (mut sig, mut scratch) = ([0u8; 512], [0u8; 512]);
    let len = sign(key, &msg, &mut sig);
    assert!(verify(key, &msg, &sig[..len]) && !verify(key, &[2u8; 32], &sig[..len]));
    out.push((format!("{name} sign"), "op/s", Some(rate(t, || _ = sign(key, &msg, &mut scratch)))));
    let verifying = rate(t, || assert!(verify(key, &msg, &sig[..len])));
    out.push((format!("{name} verify"), "op/s", Some(verifying)));
}

fn pkey_figures(t: Duration, out: &mut Vec<Figure>) {
    unsafe {
        let rsa = keygen(EVP_PKEY_RSA, |c| EVP_PKEY_CTX_set_rsa_keygen_bits(c, 2048));
        sign_verify_figures("RSA-2048", rsa, t, out);
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
            sign_verify_figures(&format!("ECDSA {curve}"), ec, t, out);
            out.push(derive_figure(format!("ECDH {curve} derive"), ec, peer, t));
            if matches!(curve, "P-256" | "P-384") {
                out.push(ephemeral_figure(&format!("ECDH {curve}"), ec_key, t));
            }
            EVP_PKEY_free(ec);
            EVP_PKEY_free(peer);
        }
        let x25519 = || keygen(EVP_PKEY_X25519, |_| 1);
        let (a, b) = (x25519(), x25519());
        out.push(derive_figure("X25519 derive".into(), a, b, t));
        out.push(ephemeral_figure("X25519", x25519, t));
        EVP_PKEY_free(a);
        EVP_PKEY_free(b);
        let ed = keygen(EVP_PKEY_ED25519, |_| 1);
        sign_verify_figures("Ed25519", ed, t, out);
        EVP_PKEY_free(ed);
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

pub fn figures(t: Duration) -> Vec<Figure> {
    let mut out: Vec<Figure> = Vec::new();
    for (name, key_len) in AEADS {
        let cipher = unsafe {
            match name {
                "AES-256-GCM" => EVP_aes_256_gcm(),
                "AES-128-GCM" => EVP_aes_128_gcm(),
                _ => EVP_chacha20_poly1305(),
            }
        };
        out.extend(aead_figures(name, |len, offset| seal_rate(cipher, key_len, len, offset, t)));
    }
    out.push(("SHA-256 16 KiB".into(), "MB/s", Some(unsafe { digest_rate(EVP_sha256(), t) })));
    out.push(("SHA-512 16 KiB".into(), "MB/s", Some(unsafe { digest_rate(EVP_sha512(), t) })));
    out.push(("Poly1305 16 KiB".into(), "MB/s", Some(mac_rate(16384, t))));
    out.push(("Poly1305 1 KiB".into(), "MB/s", Some(mac_rate(1024, t))));
    pkey_figures(t, &mut out);
    out
}
