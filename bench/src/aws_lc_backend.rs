//! The figures through aws-lc-rs's own API (ring's, extended). It has no P-224 and no
//! Poly1305 on its own, so those figures are `n/a`.

use crate::{aead_figures, missing, rate, Buf, Figure, AEADS};
use aws_lc_rs::agreement::{self, EphemeralPrivateKey, PrivateKey};
use aws_lc_rs::error::Unspecified;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, ParsedPublicKey};
use aws_lc_rs::signature::{RsaKeyPair, VerificationAlgorithm};
use aws_lc_rs::{aead, digest};
use std::time::Duration;

/// The same fixed RSA-2048 key as ring's figures use (ring cannot generate one).
const RSA_2048_PKCS8: &[u8] = include_bytes!("rsa-2048.pk8");

fn seal_rate(alg: &'static aead::Algorithm, len: usize, offset: usize, t: Duration) -> f64 {
    let key = vec![7u8; alg.key_len()];
    let key = aead::LessSafeKey::new(aead::UnboundKey::new(alg, &key).expect("AEAD key"));
    // Sealed in place, as with ring; the buffer keeps the alignment under test.
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
/// message (a verify that accepts anything would time nothing). The public key is parsed
/// once, as OpenSSL's figures hold an `EVP_PKEY`.
fn sign_verify(
    name: &str,
    sign: impl Fn(&[u8]) -> Vec<u8>,
    alg: &'static dyn VerificationAlgorithm,
    public: &[u8],
    t: Duration,
    out: &mut Vec<Figure>,
) {
    let public = ParsedPublicKey::new(alg, public).expect("public key");
    let msg = [1u8; 32];
    let sig = sign(&msg);
    assert!(public.verify_sig(&msg, &sig).is_ok() && public.verify_sig(&[2u8; 32], &sig).is_err());
    out.push((format!("{name} sign"), "op/s", Some(rate(t, || _ = sign(&msg)))));
    let verifying = rate(t, || public.verify_sig(&msg, &sig).expect("verify"));
    out.push((format!("{name} verify"), "op/s", Some(verifying)));
}

/// One derive with a key used again and again, the figure OpenSSL's harness gives, after
/// checking that both sides agree.
fn derive(name: &str, alg: &'static agreement::Algorithm, t: Duration) -> Figure {
    let (a, b) =
        (PrivateKey::generate(alg).expect("keygen"), PrivateKey::generate(alg).expect("keygen"));
    let public = |k: &PrivateKey| k.compute_public_key().expect("public key").as_ref().to_vec();
    let (a_pub, b_pub) = (public(&a), public(&b));
    let (a_pub, b_pub) = (
        agreement::UnparsedPublicKey::new(alg, a_pub),
        agreement::UnparsedPublicKey::new(alg, b_pub),
    );
    let secret = |k: &PrivateKey, peer| agreement::agree(k, peer, Unspecified, |s| Ok(s.to_vec()));
    assert_eq!(
        secret(&a, &b_pub).expect("agree"),
        secret(&b, &a_pub).expect("agree"),
        "{name}: sides disagree"
    );
    let per_sec = rate(t, || {
        agreement::agree(&a, &b_pub, Unspecified, |_| Ok(())).expect("agree");
    });
    (format!("{name} derive"), "op/s", Some(per_sec))
}

/// A fresh key, its public key (what a handshake sends) and one derive, as ring must do.
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
        agreement::agree_ephemeral(key, peer, Unspecified, |_| Ok(())).expect("agree");
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
        let mut sig = vec![0u8; rsa.public_modulus_len()];
        rsa.sign(&signature::RSA_PKCS1_SHA256, &rng, msg, &mut sig).expect("sign");
        sig
    };
    let rsa_public = rsa.public_key().as_ref();
    sign_verify(
        "RSA-2048",
        rsa_sign,
        &signature::RSA_PKCS1_2048_8192_SHA256,
        rsa_public,
        t,
        &mut out,
    );

    // aws-lc-rs signs P-384 with SHA-384 only (OpenSSL's figure uses SHA-256): over a 32-byte
    // message the digest is well under 1% of the signature's cost. P-521 takes SHA-256.
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
        (
            "P-521",
            &signature::ECDSA_P521_SHA256_ASN1_SIGNING,
            &signature::ECDSA_P521_SHA256_ASN1,
            &agreement::ECDH_P521,
        ),
    ];
    for (curve, signing, verifying, ecdh) in curves {
        let key = EcdsaKeyPair::generate(signing).expect("keygen");
        let sign = |msg: &[u8]| key.sign(&rng, msg).expect("sign").as_ref().to_vec();
        sign_verify(
            &format!("ECDSA {curve}"),
            sign,
            verifying,
            key.public_key().as_ref(),
            t,
            &mut out,
        );
        out.push(derive(&format!("ECDH {curve}"), ecdh, t));
        if curve != "P-521" {
            out.push(ephemeral(&format!("ECDH {curve}"), ecdh, &rng, t));
        }
    }
    for figure in ["ECDSA P-224 sign", "ECDSA P-224 verify", "ECDH P-224 derive"] {
        out.push(missing(figure, "op/s"));
    }
    out.push(derive("X25519", &agreement::X25519, t));
    out.push(ephemeral("X25519", &agreement::X25519, &rng, t));

    let ed = Ed25519KeyPair::generate().expect("keygen");
    let sign = |msg: &[u8]| ed.sign(msg).as_ref().to_vec();
    sign_verify("Ed25519", sign, &signature::ED25519, ed.public_key().as_ref(), t, &mut out);
    out
}
