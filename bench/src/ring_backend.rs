//! The figures through ring's own API. ring has no P-224 or P-521, no Poly1305 on its own, no
//! RSA key generation (the key is a fixed one) and no agreement key that can be used twice,
//! so those figures are `n/a`.

use crate::{aead_figures, missing, rate, Buf, Figure, AEADS};
use ring::agreement::{self, EphemeralPrivateKey};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair, UnparsedPublicKey};
use ring::{aead, digest};
use std::time::Duration;

/// A fixed RSA-2048 key in PKCS#8 DER, made once by `openssl genpkey -algorithm RSA
/// -pkeyopt rsa_keygen_bits:2048 | openssl pkcs8 -topk8 -nocrypt -outform DER`; a test key.
const RSA_2048_PKCS8: &[u8] = include_bytes!("rsa-2048.pk8");

fn seal_rate(alg: &'static aead::Algorithm, len: usize, offset: usize, t: Duration) -> f64 {
    let key = vec![7u8; alg.key_len()];
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(alg, &key).expect("AEAD key"));
    // ring seals in place; the buffer keeps the alignment under test.
    let mut buf = Buf::new(len, offset);
    let per_sec = rate(t, || {
        let nonce = aead::Nonce::assume_unique_for_key([9u8; 12]);
        let sealed = key.seal_in_place_separate_tag(nonce, aead::Aad::empty(), buf.bytes());
        _ = sealed.expect("seal");
    });
    per_sec * len as f64 / 1e6
}

fn digest_rate(alg: &'static digest::Algorithm, t: Duration) -> f64 {
    let mut data = Buf::new(16384, 0);
    let per_sec = rate(t, || _ = digest::digest(alg, data.bytes()));
    per_sec * 16384.0 / 1e6
}

/// Signing and verifying through `sign`, after checking that verification rejects another
/// message (a verify that accepts anything would time nothing).
fn sign_verify(
    name: &str,
    sign: impl Fn(&[u8]) -> Vec<u8>,
    public: UnparsedPublicKey<&[u8]>,
    t: Duration,
    out: &mut Vec<Figure>,
) {
    let msg = [1u8; 32];
    let sig = sign(&msg);
    assert!(public.verify(&msg, &sig).is_ok() && public.verify(&[2u8; 32], &sig).is_err());
    out.push((format!("{name} sign"), "op/s", Some(rate(t, || _ = sign(&msg)))));
    let verifying = rate(t, || public.verify(&msg, &sig).expect("verify"));
    out.push((format!("{name} verify"), "op/s", Some(verifying)));
}

/// A fresh key, its public key (what a handshake sends) and one derive: ring's agreement keys
/// are ephemeral, so this is the only agreement figure it has.
fn ephemeral(
    name: &str,
    alg: &'static agreement::Algorithm,
    rng: &SystemRandom,
    t: Duration,
) -> Figure {
    let peer = EphemeralPrivateKey::generate(alg, rng).expect("keygen");
    let peer = peer.compute_public_key().expect("public key");
    let peer = agreement::UnparsedPublicKey::new(alg, peer.as_ref());
    let per_sec = rate(t, || {
        let key = EphemeralPrivateKey::generate(alg, rng).expect("keygen");
        key.compute_public_key().expect("public key");
        agreement::agree_ephemeral(key, &peer, |_| ()).expect("agree");
    });
    (format!("{name} keygen + derive"), "op/s", Some(per_sec))
}

pub fn figures(t: Duration) -> Vec<Figure> {
    let rng = SystemRandom::new();
    let mut out = Vec::new();
    for (name, _) in AEADS {
        let alg = match name {
            "AES-256-GCM" => &aead::AES_256_GCM,
            "AES-128-GCM" => &aead::AES_128_GCM,
            _ => &aead::CHACHA20_POLY1305,
        };
        out.extend(aead_figures(name, |len, offset| seal_rate(alg, len, offset, t)));
    }
    out.push(("SHA-256 16 KiB".into(), "MB/s", Some(digest_rate(&digest::SHA256, t))));
    out.push(("SHA-512 16 KiB".into(), "MB/s", Some(digest_rate(&digest::SHA512, t))));
    out.push(missing("Poly1305 16 KiB", "MB/s"));
    out.push(missing("Poly1305 1 KiB", "MB/s"));

    let rsa = RsaKeyPair::from_pkcs8(RSA_2048_PKCS8).expect("RSA key");
    let rsa_sign = |msg: &[u8]| {
        let mut sig = vec![0u8; rsa.public().modulus_len()];
        rsa.sign(&signature::RSA_PKCS1_SHA256, &rng, msg, &mut sig).expect("sign");
        sig
    };
    let public =
        UnparsedPublicKey::new(&signature::RSA_PKCS1_2048_8192_SHA256, rsa.public_key().as_ref());
    sign_verify("RSA-2048", rsa_sign, public, t, &mut out);

    // ring signs P-384 with SHA-384 only (OpenSSL's figure uses SHA-256): over a 32-byte
    // message the digest is well under 1% of the signature's cost.
    let curves = [
        (
            "P-256",
            &signature::ECDSA_P256_SHA256_ASN1_SIGNING,
            &signature::ECDSA_P256_SHA256_ASN1,
            &agreement::ECDH_P256,
        ),
        (
            "P-384",
            &signature::ECDSA_P384_SHA384_ASN1_SIGNING,
            &signature::ECDSA_P384_SHA384_ASN1,
            &agreement::ECDH_P384,
        ),
    ];
    for (curve, signing, verifying, ecdh) in curves {
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).expect("keygen");
        let key = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &rng).expect("EC key");
        let sign = |msg: &[u8]| key.sign(&rng, msg).expect("sign").as_ref().to_vec();
        let public = UnparsedPublicKey::new(verifying, key.public_key().as_ref());
        sign_verify(&format!("ECDSA {curve}"), sign, public, t, &mut out);
        out.push(missing(&format!("ECDH {curve} derive"), "op/s"));
        out.push(ephemeral(&format!("ECDH {curve}"), ecdh, &rng, t));
    }
    for curve in ["P-224", "P-521"] {
        for figure in ["ECDSA {} sign", "ECDSA {} verify", "ECDH {} derive"] {
            out.push(missing(&figure.replace("{}", curve), "op/s"));
        }
    }
    out.push(missing("X25519 derive", "op/s"));
    out.push(ephemeral("X25519", &agreement::X25519, &rng, t));

    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).expect("keygen");
    let ed = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("Ed25519 key");
    let public = UnparsedPublicKey::new(&signature::ED25519, ed.public_key().as_ref());
    sign_verify("Ed25519", |msg| ed.sign(msg).as_ref().to_vec(), public, t, &mut out);
    out
}
