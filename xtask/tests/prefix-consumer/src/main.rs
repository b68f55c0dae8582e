//! Uses the `openssl` crate (through openssl-sys), linked statically against our prefix:
//! a known-answer AES-256-GCM vector, RSA-2048 sign and verify, a TLS 1.3 handshake over
//! loopback TCP with a certificate made here, and what openssl-sys's `vendored` users get from
//! the legacy provider: DES and RC4 known answers, and PKCS#12 files protected with RC2-40
//! and 3DES (as most in the wild) and with the 3.x defaults.

use openssl::asn1::Asn1Time;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkcs12::Pkcs12;
use openssl::pkey::{PKey, Private};
use openssl::provider::Provider;
use openssl::rsa::Rsa;
use openssl::sign::{Signer, Verifier};
use openssl::ssl::{SslAcceptor, SslConnector, SslMethod, SslVerifyMode, SslVersion};
use openssl::symm::{encrypt, encrypt_aead, Cipher};
use openssl::x509::{X509NameBuilder, X509};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn main() {
    let version = openssl::version::version();
    assert!(version.starts_with("OpenSSL 4.0.4 "), "linked {version}");
    assert_eq!(openssl::version::number(), 0x4000_0040);
    sha256_known_answer();
    aes_256_gcm_known_answer();
    rsa_2048_sign_and_verify();
    tls13_handshake_over_loopback();
    legacy_provider();
    println!(
        "prefix consumer: {version}: SHA-256, AES-256-GCM, RSA-2048, TLS 1.3, and through the \
         legacy provider DES, RC4 and PKCS#12 (RC2-40/3DES and AES-256) ok"
    );
}

/// FIPS 180-2 "abc", through openssl-sys directly.
fn sha256_known_answer() {
    let mut md = [0u8; 32];
    unsafe { openssl_sys::SHA256(b"abc".as_ptr(), 3, md.as_mut_ptr()) };
    assert_eq!(
        md.to_vec(),
        unhex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    );
}

/// The GCM specification's (McGrew and Viega) test case 16.
fn aes_256_gcm_known_answer() {
    let key = unhex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308");
    let iv = unhex("cafebabefacedbaddecaf888");
    let aad = unhex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    let pt = unhex(concat!(
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
        "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
    ));
    let mut tag = [0u8; 16];
    let ct = encrypt_aead(Cipher::aes_256_gcm(), &key, Some(&iv), &aad, &pt, &mut tag).unwrap();
    let want = concat!(
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa",
        "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
    );
    assert_eq!(ct, unhex(want));
    assert_eq!(tag.to_vec(), unhex("76fc6ece0f4e1768cddf8853bb2d551b"));
}

fn rsa_2048_sign_and_verify() {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut signer = Signer::new(MessageDigest::sha256(), &key).unwrap();
    signer.update(b"message").unwrap();
    let sig = signer.sign_to_vec().unwrap();
    assert_eq!(sig.len(), 256);
    let verify = |msg: &[u8]| {
        let mut v = Verifier::new(MessageDigest::sha256(), &key).unwrap();
        v.update(msg).unwrap();
        v.verify(&sig).unwrap()
    };
    assert!(verify(b"message"));
    assert!(!verify(b"massage"));
}

/// A self-signed P-256 certificate for `localhost`.
fn certificate() -> (X509, PKey<Private>) {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let key = PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "localhost").unwrap();
    let name = name.build();
    let mut cert = X509::builder().unwrap();
    cert.set_version(2).unwrap();
    cert.set_subject_name(&name).unwrap();
    cert.set_issuer_name(&name).unwrap();
    cert.set_pubkey(&key).unwrap();
    cert.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
    cert.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
    cert.sign(&key, MessageDigest::sha256()).unwrap();
    (cert.build(), key)
}

fn tls13_handshake_over_loopback() {
    let (cert, key) = certificate();
    let mut acceptor = SslAcceptor::mozilla_modern_v5(SslMethod::tls()).unwrap();
    acceptor.set_certificate(&cert).unwrap();
    acceptor.set_private_key(&key).unwrap();
    let acceptor = acceptor.build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut tls = acceptor.accept(tcp).unwrap();
        let mut buf = [0u8; 4];
        tls.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ping");
        tls.write_all(b"pong").unwrap();
    });
    let mut connector = SslConnector::builder(SslMethod::tls()).unwrap();
    connector.set_min_proto_version(Some(SslVersion::TLS1_3)).unwrap();
    connector.cert_store_mut().add_cert(cert).unwrap();
    connector.set_verify(SslVerifyMode::PEER);
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = connector.build().connect("localhost", tcp).unwrap();
    assert_eq!(tls.ssl().version_str(), "TLSv1.3");
    tls.write_all(b"ping").unwrap();
    let mut buf = [0u8; 4];
    tls.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"pong");
    server.join().unwrap();
}

/// crypto-sys's fixtures: the same certificate and key, made by a real OpenSSL
/// (crypto-sys/tests/data/pkcs12/README.md).
const LEGACY_P12: &[u8] = include_bytes!("../../../../crypto-sys/tests/data/pkcs12/legacy.p12");
const MODERN_P12: &[u8] = include_bytes!("../../../../crypto-sys/tests/data/pkcs12/modern.p12");

fn parse_p12(der: &[u8]) -> Result<openssl::pkcs12::ParsedPkcs12_2, openssl::error::ErrorStack> {
    Pkcs12::from_der(der)?.parse2("crypto-sys")
}

fn legacy_provider() {
    // Without the legacy provider the RC2-40 bag cannot be decrypted: the fixture needs it.
    assert!(parse_p12(LEGACY_P12).is_err(), "RC2-40 decrypted without the legacy provider");
    // As openssl crate users load it; the default provider stays available.
    let _legacy = Provider::try_load(None, "legacy", true).expect("loading the legacy provider");
    // The textbook DES example (key 133457799BBCDFF1), as FIPS 46-3 defines the cipher.
    let des =
        encrypt(Cipher::des_ecb(), &unhex("133457799bbcdff1"), None, &unhex("0123456789abcdef"));
    assert_eq!(des.unwrap()[..8], unhex("85e813540f0ab405")[..]);
    // RFC 6229, 128-bit key 0x0102…10, keystream bytes 0–31.
    let rc4 = encrypt(Cipher::rc4(), &unhex("0102030405060708090a0b0c0d0e0f10"), None, &[0u8; 32]);
    let want = "9ac7cc9a609d1ef7b2932899cde41b975248c4959014126a6e8a84f11d1a9e1c";
    assert_eq!(rc4.unwrap(), unhex(want));
    for (name, der) in [("RC2-40/3DES", LEGACY_P12), ("AES-256/PBKDF2", MODERN_P12)] {
        let p12 = parse_p12(der).unwrap_or_else(|e| panic!("PKCS#12 {name}: {e}"));
        let (cert, key) = (p12.cert.unwrap(), p12.pkey.unwrap());
        let digest = cert.digest(MessageDigest::sha256()).unwrap();
        let want = "88ee4c5a54e2c2189087680bd9a285779363912bec3bdb61039243800d651ee2";
        assert_eq!(digest.to_vec(), unhex(want), "PKCS#12 {name}: certificate");
        assert!(cert.public_key().unwrap().public_eq(&key), "PKCS#12 {name}: key and cert");
    }
}
