//! Exercises the bindings for real, with published known answers where they exist:
//! FIPS 202 (SHA3-256 "abc"), RFC 4231 (HMAC-SHA256 case 2), RFC 5869 (HKDF case 1),
//! NIST SP 800-38A (AES-128-CTR F.5.1/F.5.2, AES-256-CBC F.2.5/F.2.6), IEEE 1619 (XTS-AES-128
//! vector 2), RFC 7748 §6.1 (X25519) and RFC 8032 §7.1 test 1 (Ed25519); plus RSA-2048 and
//! EC keys (generate, sign, verify, encode, decode), random bytes, a self-signed certificate
//! and a TLS 1.3 handshake between a client and a server over a BIO pair.

use core::ffi::{c_char, c_int, c_long, c_void};
use core::ptr;
use crypto_sys as ffi;
use std::ffi::CStr;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn unhex(s: &str) -> Vec<u8> {
    let s: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    assert!(s.len() % 2 == 0, "odd-length hex");
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).expect("hex digit"))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Drains this thread's OpenSSL error queue into text.
fn errors() -> String {
    let mut out = Vec::new();
    loop {
        // SAFETY: reads this thread's error queue.
        let code = unsafe { ffi::ERR_get_error() };
        if code == 0 {
            break;
        }
        let mut buf = [0u8; 256];
        // SAFETY: `buf` is writable for its length; OpenSSL NUL-terminates within it.
        unsafe { ffi::ERR_error_string_n(code, buf.as_mut_ptr().cast(), buf.len()) };
        out.push(CStr::from_bytes_until_nul(&buf).unwrap().to_string_lossy().into_owned());
    }
    out.join("; ")
}

/// Asserts an OpenSSL status of 1.
#[track_caller]
fn check(rc: c_int, what: &str) {
    assert_eq!(rc, 1, "{what} failed: {}", errors());
}

/// Asserts a non-null pointer.
#[track_caller]
fn nn<T>(p: *mut T, what: &str) -> *mut T {
    assert!(!p.is_null(), "{what} returned null: {}", errors());
    p
}

/// An owned OpenSSL object, freed on drop.
struct Owned<T>(*mut T, unsafe extern "C" fn(*mut T));

impl<T> Owned<T> {
    #[track_caller]
    fn new(p: *mut T, free: unsafe extern "C" fn(*mut T), what: &str) -> Self {
        Self(nn(p, what), free)
    }

    fn get(&self) -> *mut T {
        self.0
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        // SAFETY: non-null, owned, and `self.1` is its destructor.
        unsafe { (self.1)(self.0) }
    }
}

fn c_len(b: &[u8]) -> c_int {
    c_int::try_from(b.len()).unwrap()
}

/// A `*mut c_char` for an input-only `OSSL_PARAM` string (OpenSSL does not write to it).
fn param_str(s: &CStr) -> *mut c_char {
    s.as_ptr().cast_mut()
}

fn digest(md: *const ffi::EVP_MD, data: &[u8]) -> Vec<u8> {
    let mut out = [0u8; ffi::EVP_MAX_MD_SIZE];
    let mut len = 0;
    // SAFETY: `out` holds EVP_MAX_MD_SIZE bytes; `data` is readable for its length.
    let rc = unsafe {
        ffi::EVP_Digest(
            data.as_ptr().cast(),
            data.len(),
            out.as_mut_ptr(),
            &mut len,
            md,
            ptr::null_mut(),
        )
    };
    check(rc, "EVP_Digest");
    out[..len as usize].to_vec()
}

/// One-shot cipher through `EVP_CipherInit_ex2` / `Update` / `Final_ex`.
fn cipher(
    c: *const ffi::EVP_CIPHER,
    key: &[u8],
    iv: &[u8],
    input: &[u8],
    enc: bool,
    padding: bool,
) -> Vec<u8> {
    unsafe {
        assert_eq!(ffi::EVP_CIPHER_get_key_length(c) as usize, key.len());
        assert_eq!(ffi::EVP_CIPHER_get_iv_length(c) as usize, iv.len());
        let ctx = Owned::new(ffi::EVP_CIPHER_CTX_new(), ffi::EVP_CIPHER_CTX_free, "CTX_new");
        check(
            ffi::EVP_CipherInit_ex2(
                ctx.get(),
                c,
                key.as_ptr(),
                iv.as_ptr(),
                c_int::from(enc),
                ptr::null(),
            ),
            "EVP_CipherInit_ex2",
        );
        check(ffi::EVP_CIPHER_CTX_set_padding(ctx.get(), c_int::from(padding)), "set_padding");
        let mut out = vec![0u8; input.len() + ffi::EVP_MAX_BLOCK_LENGTH];
        let (mut n1, mut n2) = (0, 0);
        check(
            ffi::EVP_CipherUpdate(
                ctx.get(),
                out.as_mut_ptr(),
                &mut n1,
                input.as_ptr(),
                c_len(input),
            ),
            "EVP_CipherUpdate",
        );
        check(
            ffi::EVP_CipherFinal_ex(ctx.get(), out.as_mut_ptr().add(n1 as usize), &mut n2),
            "Final",
        );
        out.truncate((n1 + n2) as usize);
        out
    }
}

// ---------------------------------------------------------------------------
// Library basics, random bytes
// ---------------------------------------------------------------------------

#[test]
fn version_and_init() {
    unsafe {
        check(
            ffi::OPENSSL_init_crypto(ffi::OPENSSL_INIT_LOAD_CRYPTO_STRINGS, ptr::null()),
            "init_crypto",
        );
        check(ffi::OPENSSL_init_ssl(ffi::OPENSSL_INIT_LOAD_SSL_STRINGS, ptr::null()), "init_ssl");
        let v = CStr::from_ptr(ffi::OpenSSL_version(ffi::OPENSSL_VERSION)).to_str().unwrap();
        let num = ffi::OpenSSL_version_num();
        assert_eq!(num, RELEASE.1, "{num:#x}");
        assert!(v.starts_with(&format!("OpenSSL {} ", RELEASE.0)), "{v}");
    }
}

/// The line's release, as its text and its OPENSSL_VERSION_NUMBER (0xMNN00PP0L).
// generated by `cargo xtask lines`: expected-release
#[cfg(not(any(feature = "openssl-3-5")))]
const RELEASE: (&str, std::ffi::c_ulong) = ("4.0.4", 0x4000_0040);
#[cfg(feature = "openssl-3-5")]
const RELEASE: (&str, std::ffi::c_ulong) = ("3.5.5", 0x3050_0050);
// end of expected-release

#[test]
fn error_queue() {
    unsafe {
        ffi::ERR_clear_error();
        assert_eq!(ffi::ERR_peek_error(), 0);
        // An unknown digest name fails and queues an error.
        let md = ffi::EVP_MD_fetch(ptr::null_mut(), c"NO-SUCH-DIGEST".as_ptr(), ptr::null());
        assert!(md.is_null());
        let peeked = ffi::ERR_peek_error();
        assert_ne!(peeked, 0);
        assert_eq!(ffi::ERR_get_error(), peeked);
        ffi::ERR_clear_error();
        assert_eq!(ffi::ERR_peek_error(), 0);
    }
}

#[test]
fn rand_bytes() {
    let (mut a, mut b, mut p) = ([0u8; 64], [0u8; 64], [0u8; 64]);
    unsafe {
        assert_eq!(ffi::RAND_bytes(a.as_mut_ptr(), c_len(&a)), 1);
        assert_eq!(ffi::RAND_bytes(b.as_mut_ptr(), c_len(&b)), 1);
        assert_eq!(ffi::RAND_priv_bytes(p.as_mut_ptr(), c_len(&p)), 1);
    }
    for buf in [&a, &b, &p] {
        assert!(buf.iter().any(|&x| x != 0), "all zeros");
    }
    assert_ne!(a, b);
    assert_ne!(a, p);
}

// ---------------------------------------------------------------------------
// Digests, MAC, KDF
// ---------------------------------------------------------------------------

#[test]
fn sha3_256_abc() {
    // FIPS 202 example / NIST SHA3-256 "abc".
    let want = "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532";
    unsafe {
        assert_eq!(hex(&digest(ffi::EVP_sha3_256(), b"abc")), want);
        // The same algorithm fetched by name from the default provider.
        let md = Owned::new(
            ffi::EVP_MD_fetch(ptr::null_mut(), c"SHA3-256".as_ptr(), ptr::null()),
            ffi::EVP_MD_free,
            "EVP_MD_fetch",
        );
        assert_eq!(ffi::EVP_MD_get_size(md.get()), 32);
        assert_eq!(ffi::EVP_MD_get_block_size(md.get()), 136);
        assert_eq!(hex(&digest(md.get(), b"abc")), want);
        // The streaming interface with EVP_DigestInit_ex2.
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free, "MD_CTX_new");
        check(ffi::EVP_DigestInit_ex2(ctx.get(), md.get(), ptr::null()), "DigestInit_ex2");
        for part in [&b"a"[..], b"bc"] {
            check(ffi::EVP_DigestUpdate(ctx.get(), part.as_ptr().cast(), part.len()), "Update");
        }
        let mut out = [0u8; 32];
        let mut n = 0;
        check(ffi::EVP_DigestFinal_ex(ctx.get(), out.as_mut_ptr(), &mut n), "Final");
        assert_eq!(hex(&out[..n as usize]), want);
    }
}

#[test]
fn digest_sizes() {
    unsafe {
        for (md, size) in [
            (ffi::EVP_sha224(), 28),
            (ffi::EVP_sha256(), 32),
            (ffi::EVP_sha384(), 48),
            (ffi::EVP_sha512(), 64),
            (ffi::EVP_sha3_256(), 32),
            (ffi::EVP_sha3_384(), 48),
            (ffi::EVP_sha3_512(), 64),
        ] {
            assert_eq!(ffi::EVP_MD_get_size(md), size);
            assert_eq!(digest(md, b"abc").len(), size as usize);
        }
        // FIPS 180-4 SHA-224("abc").
        assert_eq!(
            hex(&digest(ffi::EVP_sha224(), b"abc")),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
    }
}

#[test]
fn hmac_sha256_rfc4231_case2() {
    let key = b"Jefe";
    let data = b"what do ya want for nothing?";
    unsafe {
        let mac = Owned::new(
            ffi::EVP_MAC_fetch(ptr::null_mut(), ffi::OSSL_MAC_NAME_HMAC.as_ptr(), ptr::null()),
            ffi::EVP_MAC_free,
            "EVP_MAC_fetch",
        );
        let ctx = Owned::new(ffi::EVP_MAC_CTX_new(mac.get()), ffi::EVP_MAC_CTX_free, "MAC_CTX_new");
        let params = [
            ffi::OSSL_PARAM_construct_utf8_string(
                ffi::OSSL_MAC_PARAM_DIGEST.as_ptr(),
                param_str(c"SHA256"),
                0,
            ),
            ffi::OSSL_PARAM_construct_end(),
        ];
        assert!(params[1].key.is_null());
        assert_eq!(params[0].data_type, ffi::OSSL_PARAM_UTF8_STRING);
        assert_eq!(params[0].data_size, 6);
        check(ffi::EVP_MAC_init(ctx.get(), key.as_ptr(), key.len(), params.as_ptr()), "MAC_init");
        assert_eq!(ffi::EVP_MAC_CTX_get_mac_size(ctx.get()), 32);
        check(ffi::EVP_MAC_update(ctx.get(), data.as_ptr(), data.len()), "MAC_update");
        let mut out = [0u8; 32];
        let mut n = 0;
        check(ffi::EVP_MAC_final(ctx.get(), out.as_mut_ptr(), &mut n, out.len()), "MAC_final");
        assert_eq!(
            hex(&out[..n]),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}

fn hkdf(mode: Option<&CStr>, ikm: &[u8], salt: &[u8], info: &[u8], len: usize) -> Vec<u8> {
    unsafe {
        let kdf = Owned::new(
            ffi::EVP_KDF_fetch(ptr::null_mut(), ffi::OSSL_KDF_NAME_HKDF.as_ptr(), ptr::null()),
            ffi::EVP_KDF_free,
            "EVP_KDF_fetch",
        );
        let ctx = Owned::new(ffi::EVP_KDF_CTX_new(kdf.get()), ffi::EVP_KDF_CTX_free, "KDF_CTX_new");
        let octets = |k: &CStr, v: &[u8]| {
            ffi::OSSL_PARAM_construct_octet_string(
                k.as_ptr(),
                v.as_ptr().cast_mut().cast(),
                v.len(),
            )
        };
        let mut params = vec![
            ffi::OSSL_PARAM_construct_utf8_string(
                ffi::OSSL_KDF_PARAM_DIGEST.as_ptr(),
                param_str(ffi::OSSL_DIGEST_NAME_SHA2_256),
                0,
            ),
            octets(ffi::OSSL_KDF_PARAM_KEY, ikm),
            octets(ffi::OSSL_KDF_PARAM_SALT, salt),
            octets(ffi::OSSL_KDF_PARAM_INFO, info),
        ];
        if let Some(mode) = mode {
            params.push(ffi::OSSL_PARAM_construct_utf8_string(
                ffi::OSSL_KDF_PARAM_MODE.as_ptr(),
                param_str(mode),
                0,
            ));
        }
        params.push(ffi::OSSL_PARAM_construct_end());
        let mut out = vec![0u8; len];
        check(ffi::EVP_KDF_derive(ctx.get(), out.as_mut_ptr(), len, params.as_ptr()), "KDF_derive");
        out
    }
}

#[test]
fn hkdf_sha256_rfc5869_case1() {
    let ikm = [0x0b; 22];
    let salt = unhex("000102030405060708090a0b0c");
    let info = unhex("f0f1f2f3f4f5f6f7f8f9");
    assert_eq!(
        hex(&hkdf(None, &ikm, &salt, &info, 42)),
        "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
    );
    assert_eq!(
        hex(&hkdf(Some(c"EXTRACT_ONLY"), &ikm, &salt, &info, 32)),
        "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5"
    );
}

#[test]
fn param_constructors() {
    let mut i: c_int = -7;
    let mut z: usize = 99;
    unsafe {
        let p = ffi::OSSL_PARAM_construct_int(c"i".as_ptr(), &mut i);
        assert_eq!((p.data_type, p.data_size), (ffi::OSSL_PARAM_INTEGER, size_of::<c_int>()));
        assert_eq!(p.data, (&mut i as *mut c_int).cast::<c_void>());
        assert_eq!(p.return_size, ffi::OSSL_PARAM_UNMODIFIED);
        let p = ffi::OSSL_PARAM_construct_size_t(c"z".as_ptr(), &mut z);
        assert_eq!(
            (p.data_type, p.data_size),
            (ffi::OSSL_PARAM_UNSIGNED_INTEGER, size_of::<usize>())
        );
        assert_eq!(CStr::from_ptr(p.key), c"z");
    }
}

// ---------------------------------------------------------------------------
// Ciphers
// ---------------------------------------------------------------------------

#[test]
fn aes_128_ctr_sp800_38a_f51() {
    let key = unhex("2b7e151628aed2a6abf7158809cf4f3c");
    let ctr = unhex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    let pt = unhex("6bc1bee22e409f96e93d7e117393172a");
    let ct = "874d6191b620e3261bef6864990db6ce";
    unsafe {
        let c = ffi::EVP_aes_128_ctr();
        assert_eq!(ffi::EVP_CIPHER_get_block_size(c), 1);
        assert_eq!(hex(&cipher(c, &key, &ctr, &pt, true, true)), ct);
        assert_eq!(cipher(c, &key, &ctr, &unhex(ct), false, true), pt); // F.5.2
                                                                        // Fetched by name.
        let f = Owned::new(
            ffi::EVP_CIPHER_fetch(ptr::null_mut(), c"AES-128-CTR".as_ptr(), ptr::null()),
            ffi::EVP_CIPHER_free,
            "EVP_CIPHER_fetch",
        );
        assert_eq!(hex(&cipher(f.get(), &key, &ctr, &pt, true, true)), ct);
        assert_eq!(ffi::EVP_CIPHER_get_key_length(ffi::EVP_aes_256_ctr()), 32);
    }
}

#[test]
fn aes_256_cbc_sp800_38a_f25() {
    let key = unhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4");
    let iv = unhex("000102030405060708090a0b0c0d0e0f");
    let pt = unhex("6bc1bee22e409f96e93d7e117393172a");
    let ct = "f58c4c04d6e5f1ba779eabfb5f7bfbd6";
    unsafe {
        let c = ffi::EVP_aes_256_cbc();
        assert_eq!(ffi::EVP_CIPHER_get_block_size(c), 16);
        assert_eq!(hex(&cipher(c, &key, &iv, &pt, true, false)), ct);
        assert_eq!(cipher(c, &key, &iv, &unhex(ct), false, false), pt); // F.2.6
                                                                        // With PKCS#7 padding a full block of padding follows.
        let padded = cipher(c, &key, &iv, &pt, true, true);
        assert_eq!(padded.len(), 32);
        assert_eq!(hex(&padded[..16]), ct);
        assert_eq!(cipher(c, &key, &iv, &padded, false, true), pt);
        let c128 = ffi::EVP_aes_128_cbc();
        assert_eq!(
            (ffi::EVP_CIPHER_get_key_length(c128), ffi::EVP_CIPHER_get_block_size(c128)),
            (16, 16)
        );
    }
}

#[test]
fn aes_xts_ieee1619_vector2() {
    let key = [[0x11u8; 16], [0x22; 16]].concat();
    let tweak = unhex("33333333330000000000000000000000");
    let pt = [0x44u8; 32];
    let ct = "c454185e6a16936e39334038acef838bfb186fff7480adc4289382ecd6d394f0";
    unsafe {
        let c = ffi::EVP_aes_128_xts();
        assert_eq!(hex(&cipher(c, &key, &tweak, &pt, true, true)), ct);
        assert_eq!(cipher(c, &key, &tweak, &unhex(ct), false, true), pt);
        let c256 = ffi::EVP_aes_256_xts();
        assert_eq!(ffi::EVP_CIPHER_get_key_length(c256), 64);
        let key256: Vec<u8> = (0u8..64).collect();
        let data: Vec<u8> = (0u8..48).collect();
        let enc = cipher(c256, &key256, &tweak, &data, true, true);
        assert_ne!(enc, data);
        assert_eq!(cipher(c256, &key256, &tweak, &enc, false, true), data);
    }
}

#[test]
fn aead_ciphers_have_expected_parameters() {
    unsafe {
        for (c, key, iv) in [
            (ffi::EVP_aes_128_gcm(), 16, 12),
            (ffi::EVP_aes_256_gcm(), 32, 12),
            (ffi::EVP_chacha20_poly1305(), 32, 12),
        ] {
            assert_eq!(ffi::EVP_CIPHER_get_key_length(c), key);
            assert_eq!(ffi::EVP_CIPHER_get_iv_length(c), iv);
            assert_eq!(ffi::EVP_CIPHER_get_block_size(c), 1);
        }
    }
}

// ---------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------

type Pkey = Owned<ffi::EVP_PKEY>;

fn raw_key(private: bool, id: c_int, bytes: &[u8]) -> Pkey {
    unsafe {
        let p = if private {
            ffi::EVP_PKEY_new_raw_private_key(id, ptr::null_mut(), bytes.as_ptr(), bytes.len())
        } else {
            ffi::EVP_PKEY_new_raw_public_key(id, ptr::null_mut(), bytes.as_ptr(), bytes.len())
        };
        Owned::new(p, ffi::EVP_PKEY_free, "EVP_PKEY_new_raw_*_key")
    }
}

fn raw_public(k: &Pkey) -> Vec<u8> {
    let mut buf = [0u8; 64];
    let mut n = buf.len();
    check(
        unsafe { ffi::EVP_PKEY_get_raw_public_key(k.get(), buf.as_mut_ptr(), &mut n) },
        "raw pub",
    );
    buf[..n].to_vec()
}

fn derive(ours: &Pkey, peer: &Pkey) -> Vec<u8> {
    unsafe {
        let ctx = Owned::new(
            ffi::EVP_PKEY_CTX_new(ours.get(), ptr::null_mut()),
            ffi::EVP_PKEY_CTX_free,
            "CTX",
        );
        check(ffi::EVP_PKEY_derive_init(ctx.get()), "derive_init");
        check(ffi::EVP_PKEY_derive_set_peer(ctx.get(), peer.get()), "derive_set_peer");
        let mut n = 0;
        check(ffi::EVP_PKEY_derive(ctx.get(), ptr::null_mut(), &mut n), "derive (size)");
        let mut out = vec![0u8; n];
        check(ffi::EVP_PKEY_derive(ctx.get(), out.as_mut_ptr(), &mut n), "derive");
        out.truncate(n);
        out
    }
}

#[test]
fn x25519_rfc7748_section_6_1() {
    let a_priv = unhex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    let a_pub = "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
    let b_priv = unhex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    let b_pub = unhex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

    let alice = raw_key(true, ffi::EVP_PKEY_X25519, &a_priv);
    let bob = raw_key(true, ffi::EVP_PKEY_X25519, &b_priv);
    let bob_pub = raw_key(false, ffi::NID_X25519, &b_pub);
    let alice_pub = raw_key(false, ffi::NID_X25519, &unhex(a_pub));
    unsafe {
        assert_eq!(ffi::EVP_PKEY_get_id(alice.get()), ffi::EVP_PKEY_X25519);
        assert_eq!(ffi::EVP_PKEY_get_bits(alice.get()), 253);
        let mut priv_ = [0u8; 32];
        let mut n = priv_.len();
        check(
            ffi::EVP_PKEY_get_raw_private_key(alice.get(), priv_.as_mut_ptr(), &mut n),
            "raw priv",
        );
        assert_eq!(&priv_[..n], &a_priv[..]);
        assert_eq!(ffi::EVP_PKEY_eq(bob.get(), bob_pub.get()), 1);
    }
    assert_eq!(hex(&raw_public(&alice)), a_pub);
    assert_eq!(raw_public(&bob), b_pub);
    assert_eq!(hex(&derive(&alice, &bob_pub)), shared);
    assert_eq!(hex(&derive(&bob, &alice_pub)), shared);
}

/// `EVP_DigestSign` with `md` (null for Ed25519).
fn sign(key: &Pkey, md: *const ffi::EVP_MD, msg: &[u8]) -> Vec<u8> {
    unsafe {
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free, "MD_CTX_new");
        check(
            ffi::EVP_DigestSignInit(ctx.get(), ptr::null_mut(), md, ptr::null_mut(), key.get()),
            "DigestSignInit",
        );
        let mut n = 0;
        check(
            ffi::EVP_DigestSign(ctx.get(), ptr::null_mut(), &mut n, msg.as_ptr(), msg.len()),
            "size",
        );
        let mut sig = vec![0u8; n];
        check(
            ffi::EVP_DigestSign(ctx.get(), sig.as_mut_ptr(), &mut n, msg.as_ptr(), msg.len()),
            "sign",
        );
        sig.truncate(n);
        sig
    }
}

fn verify(key: &Pkey, md: *const ffi::EVP_MD, msg: &[u8], sig: &[u8]) -> bool {
    unsafe {
        let ctx = Owned::new(ffi::EVP_MD_CTX_new(), ffi::EVP_MD_CTX_free, "MD_CTX_new");
        check(
            ffi::EVP_DigestVerifyInit(ctx.get(), ptr::null_mut(), md, ptr::null_mut(), key.get()),
            "DigestVerifyInit",
        );
        let rc = ffi::EVP_DigestVerify(ctx.get(), sig.as_ptr(), sig.len(), msg.as_ptr(), msg.len());
        ffi::ERR_clear_error();
        rc == 1
    }
}

#[test]
fn ed25519_rfc8032_test1() {
    let sk = unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    let pk = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    let want = "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065\
                224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";
    let key = raw_key(true, ffi::EVP_PKEY_ED25519, &sk);
    assert_eq!(hex(&raw_public(&key)), pk);
    let sig = sign(&key, ptr::null(), b"");
    assert_eq!(hex(&sig), want);
    let public = raw_key(false, ffi::NID_ED25519, &unhex(pk));
    assert!(verify(&public, ptr::null(), b"", &sig));
    let mut bad = sig.clone();
    bad[10] ^= 1;
    assert!(!verify(&public, ptr::null(), b"", &bad));
    assert!(!verify(&public, ptr::null(), b"x", &sig));
    unsafe { assert_eq!(ffi::EVP_PKEY_get_id(key.get()), ffi::EVP_PKEY_ED25519) };
    encodings_round_trip(&key);
}

fn generate(id: c_int, setup: impl FnOnce(*mut ffi::EVP_PKEY_CTX), use_generate: bool) -> Pkey {
    unsafe {
        let ctx = Owned::new(
            ffi::EVP_PKEY_CTX_new_id(id, ptr::null_mut()),
            ffi::EVP_PKEY_CTX_free,
            "new_id",
        );
        check(ffi::EVP_PKEY_keygen_init(ctx.get()), "keygen_init");
        setup(ctx.get());
        let mut key = ptr::null_mut();
        let rc = if use_generate {
            ffi::EVP_PKEY_generate(ctx.get(), &mut key)
        } else {
            ffi::EVP_PKEY_keygen(ctx.get(), &mut key)
        };
        check(rc, "keygen");
        Owned::new(key, ffi::EVP_PKEY_free, "keygen")
    }
}

fn p256() -> Pkey {
    generate(
        ffi::EVP_PKEY_EC,
        |ctx| unsafe {
            check(
                ffi::EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, ffi::NID_X9_62_prime256v1),
                "curve",
            )
        },
        false,
    )
}

/// DER (`i2d`/`d2i`) and PEM (via memory BIOs) encodings of a key pair give back the key.
fn encodings_round_trip(key: &Pkey) {
    unsafe {
        // Private key DER.
        let mut der =
            vec![0u8; usize::try_from(ffi::i2d_PrivateKey(key.get(), ptr::null_mut())).unwrap()];
        let mut w = der.as_mut_ptr();
        assert_eq!(ffi::i2d_PrivateKey(key.get(), &mut w) as usize, der.len());
        let mut r = der.as_ptr();
        let back = Owned::new(
            ffi::d2i_AutoPrivateKey(ptr::null_mut(), &mut r, der.len() as c_long),
            ffi::EVP_PKEY_free,
            "d2i_AutoPrivateKey",
        );
        assert_eq!(r, der.as_ptr().add(der.len()));
        assert_eq!(ffi::EVP_PKEY_eq(key.get(), back.get()), 1);

        // Public key DER (SubjectPublicKeyInfo).
        let mut spki =
            vec![0u8; usize::try_from(ffi::i2d_PUBKEY(key.get(), ptr::null_mut())).unwrap()];
        let mut w = spki.as_mut_ptr();
        assert_eq!(ffi::i2d_PUBKEY(key.get(), &mut w) as usize, spki.len());
        let mut r = spki.as_ptr();
        let public = Owned::new(
            ffi::d2i_PUBKEY(ptr::null_mut(), &mut r, spki.len() as c_long),
            ffi::EVP_PKEY_free,
            "d2i_PUBKEY",
        );
        assert_eq!(ffi::EVP_PKEY_eq(key.get(), public.get()), 1);

        // PEM.
        let pem_priv = write_pem(|b| {
            ffi::PEM_write_bio_PrivateKey(
                b,
                key.get(),
                ptr::null(),
                ptr::null(),
                0,
                None,
                ptr::null_mut(),
            )
        });
        assert!(pem_priv.starts_with("-----BEGIN PRIVATE KEY-----\n"), "{pem_priv}");
        let pem_pub = write_pem(|b| ffi::PEM_write_bio_PUBKEY(b, key.get()));
        assert!(pem_pub.starts_with("-----BEGIN PUBLIC KEY-----\n"), "{pem_pub}");
        let bio = read_bio(&pem_priv);
        let back = Owned::new(
            ffi::PEM_read_bio_PrivateKey(bio.get(), ptr::null_mut(), None, ptr::null_mut()),
            ffi::EVP_PKEY_free,
            "PEM_read_bio_PrivateKey",
        );
        assert_eq!(ffi::EVP_PKEY_eq(key.get(), back.get()), 1);
        let bio = read_bio(&pem_pub);
        let back = Owned::new(
            ffi::PEM_read_bio_PUBKEY(bio.get(), ptr::null_mut(), None, ptr::null_mut()),
            ffi::EVP_PKEY_free,
            "PEM_read_bio_PUBKEY",
        );
        assert_eq!(ffi::EVP_PKEY_eq(key.get(), back.get()), 1);
    }
}

/// Runs `write` on a fresh memory BIO and returns what it wrote.
fn write_pem(write: impl FnOnce(*mut ffi::BIO) -> c_int) -> String {
    unsafe {
        let bio = Owned::new(ffi::BIO_new(ffi::BIO_s_mem()), ffi::BIO_free_all, "BIO_new");
        check(write(bio.get()), "PEM_write_bio_*");
        let mut data: *mut c_char = ptr::null_mut();
        let len = ffi::BIO_get_mem_data(bio.get(), &mut data);
        assert_eq!(usize::try_from(len).unwrap(), ffi::BIO_ctrl_pending(bio.get()));
        let text = std::slice::from_raw_parts(data.cast::<u8>(), len as usize).to_vec();
        // Reading consumes the same bytes.
        let mut buf = vec![0u8; text.len()];
        assert_eq!(ffi::BIO_read(bio.get(), buf.as_mut_ptr().cast(), c_len(&buf)), c_len(&buf));
        assert_eq!(buf, text);
        assert_eq!(ffi::BIO_ctrl_pending(bio.get()), 0);
        String::from_utf8(text).unwrap()
    }
}

/// A read-only memory BIO over `text` (which must outlive it).
fn read_bio(text: &str) -> Owned<ffi::BIO> {
    let b = text.as_bytes();
    Owned::new(
        unsafe { ffi::BIO_new_mem_buf(b.as_ptr().cast(), c_len(b)) },
        ffi::BIO_free_all,
        "mem_buf",
    )
}

#[test]
fn rsa_2048_keygen_sign_verify() {
    let key = generate(
        ffi::EVP_PKEY_RSA,
        |ctx| unsafe { check(ffi::EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048), "keygen_bits") },
        true,
    );
    unsafe {
        assert_eq!(ffi::EVP_PKEY_get_id(key.get()), ffi::EVP_PKEY_RSA);
        assert_eq!(ffi::EVP_PKEY_get_bits(key.get()), 2048);
        assert_eq!(ffi::EVP_PKEY_get_size(key.get()), 256);
    }
    let msg = b"attack at dawn";
    let sig = sign(&key, unsafe { ffi::EVP_sha256() }, msg);
    assert_eq!(sig.len(), 256);
    assert!(verify(&key, unsafe { ffi::EVP_sha256() }, msg, &sig));
    assert!(!verify(&key, unsafe { ffi::EVP_sha256() }, b"attack at dusk", &sig));
    encodings_round_trip(&key);
}

#[test]
fn ec_keygen_sign_verify_derive() {
    let key = p256();
    unsafe {
        assert_eq!(ffi::EVP_PKEY_get_id(key.get()), ffi::EVP_PKEY_EC);
        assert_eq!(ffi::EVP_PKEY_get_bits(key.get()), 256);
    }
    let sha256 = unsafe { ffi::EVP_sha256() };
    let msg = b"hello, world";
    let sig = sign(&key, sha256, msg);
    assert!(verify(&key, sha256, msg, &sig));
    let mut bad = sig.clone();
    *bad.last_mut().unwrap() ^= 0x80;
    assert!(!verify(&key, sha256, msg, &bad));

    // EVP_PKEY_sign / EVP_PKEY_verify over a precomputed digest.
    let dgst = digest(sha256, msg);
    unsafe {
        let ctx = Owned::new(
            ffi::EVP_PKEY_CTX_new(key.get(), ptr::null_mut()),
            ffi::EVP_PKEY_CTX_free,
            "CTX",
        );
        check(ffi::EVP_PKEY_sign_init(ctx.get()), "sign_init");
        let mut n = 0;
        check(
            ffi::EVP_PKEY_sign(ctx.get(), ptr::null_mut(), &mut n, dgst.as_ptr(), dgst.len()),
            "size",
        );
        let mut raw = vec![0u8; n];
        check(
            ffi::EVP_PKEY_sign(ctx.get(), raw.as_mut_ptr(), &mut n, dgst.as_ptr(), dgst.len()),
            "sign",
        );
        raw.truncate(n);
        check(ffi::EVP_PKEY_verify_init(ctx.get()), "verify_init");
        check(
            ffi::EVP_PKEY_verify(ctx.get(), raw.as_ptr(), raw.len(), dgst.as_ptr(), dgst.len()),
            "verify",
        );
        // Both signature forms verify through either interface.
        check(
            ffi::EVP_PKEY_verify(ctx.get(), sig.as_ptr(), sig.len(), dgst.as_ptr(), dgst.len()),
            "verify",
        );
        assert!(verify(&key, sha256, msg, &raw));
    }

    // ECDH between two P-256 keys agrees both ways.
    let other = p256();
    let k1 = derive(&key, &other);
    assert_eq!(k1.len(), 32);
    assert_eq!(k1, derive(&other, &key));

    let p384 = generate(
        ffi::EVP_PKEY_EC,
        |ctx| unsafe {
            check(ffi::EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, ffi::NID_secp384r1), "curve")
        },
        true,
    );
    unsafe { assert_eq!(ffi::EVP_PKEY_get_bits(p384.get()), 384) };
    encodings_round_trip(&key);
}

// ---------------------------------------------------------------------------
// X.509 and TLS
// ---------------------------------------------------------------------------

/// A self-signed P-256 certificate for CN=localhost, valid for an hour.
fn self_signed(key: &Pkey) -> Owned<ffi::X509> {
    unsafe {
        let x = Owned::new(ffi::X509_new(), ffi::X509_free, "X509_new");
        check(ffi::X509_set_version(x.get(), ffi::X509_VERSION_3), "set_version");
        check(ffi::ASN1_INTEGER_set(ffi::X509_get_serialNumber(x.get()), 1), "serial");
        nn(ffi::X509_gmtime_adj(ffi::X509_getm_notBefore(x.get()), 0), "notBefore");
        nn(ffi::X509_gmtime_adj(ffi::X509_getm_notAfter(x.get()), 3600), "notAfter");
        check(ffi::X509_set_pubkey(x.get(), key.get()), "set_pubkey");
        // A name of its own for subject and issuer: since OpenSSL 4.0 the certificate's
        // (X509_get_subject_name) is read-only.
        let name = nn(ffi::X509_NAME_new(), "X509_NAME_new");
        let cn = b"localhost";
        check(
            ffi::X509_NAME_add_entry_by_txt(
                name,
                c"CN".as_ptr(),
                ffi::MBSTRING_ASC,
                cn.as_ptr(),
                c_len(cn),
                -1,
                0,
            ),
            "add CN",
        );
        check(ffi::X509_set_subject_name(x.get(), name), "set_subject_name");
        check(ffi::X509_set_issuer_name(x.get(), name), "set_issuer_name");
        ffi::X509_NAME_free(name);
        assert!(
            ffi::X509_sign(x.get(), key.get(), ffi::EVP_sha256()) > 0,
            "X509_sign: {}",
            errors()
        );
        x
    }
}

fn cert_der(x: *mut ffi::X509) -> Vec<u8> {
    unsafe {
        let mut der = vec![0u8; usize::try_from(ffi::i2d_X509(x, ptr::null_mut())).unwrap()];
        let mut w = der.as_mut_ptr();
        assert_eq!(ffi::i2d_X509(x, &mut w) as usize, der.len());
        der
    }
}

#[test]
fn self_signed_certificate() {
    let key = p256();
    let cert = self_signed(&key);
    unsafe {
        assert_eq!(ffi::X509_verify(cert.get(), key.get()), 1);
        let public = Owned::new(ffi::X509_get_pubkey(cert.get()), ffi::EVP_PKEY_free, "get_pubkey");
        assert_eq!(ffi::EVP_PKEY_eq(public.get(), key.get()), 1);

        let der = cert_der(cert.get());
        let mut r = der.as_ptr();
        let back = Owned::new(
            ffi::d2i_X509(ptr::null_mut(), &mut r, der.len() as c_long),
            ffi::X509_free,
            "d2i",
        );
        assert_eq!(cert_der(back.get()), der);

        let pem = write_pem(|b| ffi::PEM_write_bio_X509(b, cert.get()));
        assert!(pem.starts_with("-----BEGIN CERTIFICATE-----\n"), "{pem}");
        let bio = read_bio(&pem);
        let back = Owned::new(
            ffi::PEM_read_bio_X509(bio.get(), ptr::null_mut(), None, ptr::null_mut()),
            ffi::X509_free,
            "PEM_read_bio_X509",
        );
        assert_eq!(cert_der(back.get()), der);
        // Issuer == subject.
        let (s, i) =
            (ffi::X509_get_subject_name(back.get()), ffi::X509_get_issuer_name(back.get()));
        assert!(!s.is_null() && !i.is_null());
        check(ffi::X509_set_subject_name(back.get(), i), "set_subject_name");
    }
}

/// Runs `SSL_connect` (client) and `SSL_do_handshake` (server) in turn until both finish.
fn handshake(client: *mut ffi::SSL, server: *mut ffi::SSL) {
    let (mut c_done, mut s_done) = (false, false);
    for _ in 0..100 {
        unsafe {
            if !c_done {
                let rc = ffi::SSL_connect(client);
                c_done = rc == 1;
                if !c_done {
                    let e = ffi::SSL_get_error(client, rc);
                    assert!(
                        matches!(e, ffi::SSL_ERROR_WANT_READ | ffi::SSL_ERROR_WANT_WRITE),
                        "client: {e}: {}",
                        errors()
                    );
                }
            }
            if !s_done {
                let rc = ffi::SSL_do_handshake(server);
                s_done = rc == 1;
                if !s_done {
                    let e = ffi::SSL_get_error(server, rc);
                    assert!(
                        matches!(e, ffi::SSL_ERROR_WANT_READ | ffi::SSL_ERROR_WANT_WRITE),
                        "server: {e}: {}",
                        errors()
                    );
                }
            }
        }
        if c_done && s_done {
            return;
        }
    }
    panic!("handshake did not finish");
}

fn ssl_read(ssl: *mut ffi::SSL, n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    let rc = unsafe { ffi::SSL_read(ssl, buf.as_mut_ptr().cast(), c_len(&buf)) };
    assert!(rc > 0, "SSL_read: {} {}", unsafe { ffi::SSL_get_error(ssl, rc) }, errors());
    buf.truncate(rc as usize);
    buf
}

#[test]
fn tls13_handshake_over_bio_pair() {
    unsafe {
        check(ffi::OPENSSL_init_ssl(0, ptr::null()), "OPENSSL_init_ssl");
        let key = p256();
        let cert = self_signed(&key);

        let server_ctx =
            Owned::new(ffi::SSL_CTX_new(ffi::TLS_server_method()), ffi::SSL_CTX_free, "CTX");
        check(ffi::SSL_CTX_set_min_proto_version(server_ctx.get(), ffi::TLS1_3_VERSION), "min");
        check(ffi::SSL_CTX_set_max_proto_version(server_ctx.get(), ffi::TLS1_3_VERSION), "max");
        assert_eq!(
            ffi::SSL_CTX_ctrl(
                server_ctx.get(),
                ffi::SSL_CTRL_GET_MIN_PROTO_VERSION,
                0,
                ptr::null_mut()
            ),
            c_long::from(ffi::TLS1_3_VERSION)
        );
        check(ffi::SSL_CTX_use_certificate(server_ctx.get(), cert.get()), "use_certificate");
        check(ffi::SSL_CTX_use_PrivateKey(server_ctx.get(), key.get()), "use_PrivateKey");
        check(ffi::SSL_CTX_check_private_key(server_ctx.get()), "check_private_key");

        let client_ctx =
            Owned::new(ffi::SSL_CTX_new(ffi::TLS_client_method()), ffi::SSL_CTX_free, "CTX");
        let rc = ffi::SSL_CTX_ctrl(
            client_ctx.get(),
            ffi::SSL_CTRL_SET_MIN_PROTO_VERSION,
            c_long::from(ffi::TLS1_3_VERSION),
            ptr::null_mut(),
        );
        assert_eq!(rc, 1);
        // A generic-method context works as well; it is only created and freed here.
        drop(Owned::new(ffi::SSL_CTX_new(ffi::TLS_method()), ffi::SSL_CTX_free, "CTX"));

        let client = Owned::new(ffi::SSL_new(client_ctx.get()), ffi::SSL_free, "SSL_new");
        let server = Owned::new(ffi::SSL_new(server_ctx.get()), ffi::SSL_free, "SSL_new");
        let (mut cb, mut sb) = (ptr::null_mut(), ptr::null_mut());
        check(ffi::BIO_new_bio_pair(&mut cb, 0, &mut sb, 0), "BIO_new_bio_pair");
        // Each SSL takes ownership of its end; SSL_free frees it.
        ffi::SSL_set_bio(client.get(), cb, cb);
        ffi::SSL_set_bio(server.get(), sb, sb);
        ffi::SSL_set_connect_state(client.get());
        ffi::SSL_set_accept_state(server.get());

        handshake(client.get(), server.get());
        for ssl in [client.get(), server.get()] {
            assert_eq!(ffi::SSL_is_init_finished(ssl), 1);
            assert_eq!(ffi::SSL_version(ssl), ffi::TLS1_3_VERSION);
            assert_eq!(CStr::from_ptr(ffi::SSL_get_version(ssl)), c"TLSv1.3");
        }
        let peer =
            Owned::new(ffi::SSL_get1_peer_certificate(client.get()), ffi::X509_free, "peer cert");
        assert_eq!(cert_der(peer.get()), cert_der(cert.get()));

        // One message each way with SSL_write / SSL_read.
        let ping = b"ping from client";
        assert_eq!(ffi::SSL_write(client.get(), ping.as_ptr().cast(), c_len(ping)), c_len(ping));
        assert_eq!(ssl_read(server.get(), 64), ping);
        let pong = b"pong from server";
        assert_eq!(ffi::SSL_write(server.get(), pong.as_ptr().cast(), c_len(pong)), c_len(pong));
        assert_eq!(ssl_read(client.get(), 64), pong);

        // And again with the _ex variants.
        let msg = b"second message";
        let mut n = 0;
        check(ffi::SSL_write_ex(server.get(), msg.as_ptr().cast(), msg.len(), &mut n), "write_ex");
        assert_eq!(n, msg.len());
        let mut buf = [0u8; 4];
        check(
            ffi::SSL_read_ex(client.get(), buf.as_mut_ptr().cast(), buf.len(), &mut n),
            "read_ex",
        );
        assert_eq!((&buf[..n], ffi::SSL_pending(client.get())), (&msg[..4], 10));
        let mut rest = [0u8; 32];
        check(
            ffi::SSL_read_ex(client.get(), rest.as_mut_ptr().cast(), rest.len(), &mut n),
            "read_ex",
        );
        assert_eq!(&rest[..n], &msg[4..]);
        assert_eq!(ffi::BIO_ctrl_pending(cb), 0);

        // Orderly shutdown: client sends close_notify, server sees EOF and answers.
        assert_eq!(ffi::SSL_shutdown(client.get()), 0);
        let mut b = [0u8; 8];
        let rc = ffi::SSL_read(server.get(), b.as_mut_ptr().cast(), c_len(&b));
        assert_eq!(rc, 0);
        assert_eq!(ffi::SSL_get_error(server.get(), rc), ffi::SSL_ERROR_ZERO_RETURN);
        assert_eq!(ffi::SSL_shutdown(server.get()), 1);
        assert_eq!(ffi::SSL_shutdown(client.get()), 1);
        assert_eq!(ffi::ERR_peek_error(), 0, "{}", errors());
    }
}

#[test]
fn bio_pair_moves_bytes() {
    unsafe {
        let (mut a, mut b) = (ptr::null_mut(), ptr::null_mut());
        check(ffi::BIO_new_bio_pair(&mut a, 64, &mut b, 64), "BIO_new_bio_pair");
        let (a, b) = (Owned(a, ffi::BIO_free_all), Owned(b, ffi::BIO_free_all));
        let data = b"hello across the pair";
        assert_eq!(ffi::BIO_write(a.get(), data.as_ptr().cast(), c_len(data)), c_len(data));
        assert_eq!(ffi::BIO_ctrl_pending(b.get()), data.len());
        let mut buf = [0u8; 64];
        assert_eq!(ffi::BIO_read(b.get(), buf.as_mut_ptr().cast(), c_len(&buf)), c_len(data));
        assert_eq!(&buf[..data.len()], data);
        assert_eq!(ffi::BIO_ctrl_pending(b.get()), 0);
        assert_eq!(ffi::BIO_ctrl(b.get(), ffi::BIO_CTRL_PENDING, 0, ptr::null_mut()), 0);
    }
}

// ---------------------------------------------------------------------------
// The legacy provider, built in as openssl-sys's `vendored` build has it. Each test uses its
// own library context, so that loading a provider in one cannot help another.
// ---------------------------------------------------------------------------

/// A library context with the named built-in providers loaded.
struct LibCtx(*mut ffi::OSSL_LIB_CTX);

impl LibCtx {
    fn with(providers: &[&CStr]) -> Self {
        let ctx = Self(nn(unsafe { ffi::OSSL_LIB_CTX_new() }, "OSSL_LIB_CTX_new"));
        for name in providers {
            nn(unsafe { ffi::OSSL_PROVIDER_load(ctx.0, name.as_ptr()) }, "OSSL_PROVIDER_load");
            assert_eq!(unsafe { ffi::OSSL_PROVIDER_available(ctx.0, name.as_ptr()) }, 1);
        }
        ctx
    }

    fn fetch(&self, name: &CStr) -> Option<Owned<ffi::EVP_CIPHER>> {
        let c = unsafe { ffi::EVP_CIPHER_fetch(self.0, name.as_ptr(), ptr::null()) };
        if c.is_null() {
            errors();
            return None;
        }
        Some(Owned::new(c, ffi::EVP_CIPHER_free, "EVP_CIPHER_fetch"))
    }

    /// Runs `f` with this context as the thread's default, for APIs that take none.
    fn as_default<R>(&self, f: impl FnOnce() -> R) -> R {
        let previous = unsafe { ffi::OSSL_LIB_CTX_set0_default(self.0) };
        let r = f();
        unsafe { ffi::OSSL_LIB_CTX_set0_default(previous) };
        r
    }
}

impl Drop for LibCtx {
    fn drop(&mut self) {
        // SAFETY: owned; frees the providers loaded into it too.
        unsafe { ffi::OSSL_LIB_CTX_free(self.0) }
    }
}

const LEGACY: &CStr = c"legacy";
const DEFAULT: &CStr = c"default";

#[cfg(feature = "legacy")]
#[test]
fn legacy_provider_is_built_in_and_serves_des_and_rc4() {
    assert!(crypto_sys::build_info().legacy_provider);
    let ctx = LibCtx::with(&[DEFAULT, LEGACY]);
    // The textbook DES example (key 133457799BBCDFF1), as FIPS 46-3 defines the cipher.
    let des = ctx.fetch(c"DES-ECB").expect("DES-ECB from the legacy provider");
    let key = unhex("133457799BBCDFF1");
    let ct = cipher(des.get(), &key, &[], &unhex("0123456789ABCDEF"), true, false);
    assert_eq!(hex(&ct), "85e813540f0ab405");
    assert_eq!(cipher(des.get(), &key, &[], &ct, false, false), unhex("0123456789ABCDEF"));
    // RFC 6229, 128-bit key 0x0102…10, keystream bytes 0–31.
    let rc4 = ctx.fetch(c"RC4").expect("RC4 from the legacy provider");
    let key = unhex("0102030405060708090a0b0c0d0e0f10");
    assert_eq!(
        hex(&cipher(rc4.get(), &key, &[], &[0u8; 32], true, false)),
        "9ac7cc9a609d1ef7b2932899cde41b975248c4959014126a6e8a84f11d1a9e1c"
    );
    // Neither is in the default provider alone, so the answers above came from legacy.
    let plain = LibCtx::with(&[DEFAULT]);
    assert!(plain.fetch(c"DES-ECB").is_none() && plain.fetch(c"RC4").is_none());
}

#[test]
fn triple_des_sp800_67_example() {
    // NIST SP 800-67 Rev. 1, appendix B: three distinct keys, ECB ("The qufck brown fox jump").
    let key = unhex("0123456789ABCDEF 23456789ABCDEF01 456789ABCDEF0123");
    let pt = b"The qufck brown fox jump";
    let ctx = LibCtx::with(&[DEFAULT]);
    let ecb = ctx.fetch(c"DES-EDE3-ECB").expect("DES-EDE3-ECB");
    let ct = cipher(ecb.get(), &key, &[], pt, true, false);
    assert_eq!(hex(&ct), "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900");
    // CBC with a zero IV is ECB on the first block.
    let cbc = ctx.fetch(c"DES-EDE3-CBC").expect("DES-EDE3-CBC");
    let c2 = cipher(cbc.get(), &key, &[0u8; 8], pt, true, false);
    assert_eq!(c2[..8], ct[..8]);
    assert_eq!(cipher(cbc.get(), &key, &[0u8; 8], &c2, false, false), pt);
}

/// Built without the `legacy` feature, as with Configure's `no-legacy`: the provider cannot be
/// loaded, the legacy-only ciphers are not there, and only modern PKCS#12 files parse.
#[cfg(not(feature = "legacy"))]
#[test]
fn without_the_legacy_feature_the_provider_is_left_out() {
    assert!(!crypto_sys::build_info().legacy_provider);
    let ctx = LibCtx::with(&[DEFAULT]);
    assert!(unsafe { ffi::OSSL_PROVIDER_load(ctx.0, LEGACY.as_ptr()) }.is_null());
    errors();
    assert!(ctx.fetch(c"DES-ECB").is_none() && ctx.fetch(c"RC4").is_none());
    assert!(parse_p12(&ctx, include_bytes!("data/pkcs12/legacy.p12"), P12_PASSWORD).is_none());
    check_p12(&ctx, include_bytes!("data/pkcs12/modern.p12"));
}

const P12_PASSWORD: &CStr = c"crypto-sys";
/// SHA-256 of the fixtures' certificate (tests/data/pkcs12/README.md).
const P12_CERT_SHA256: &str = "88ee4c5a54e2c2189087680bd9a285779363912bec3bdb61039243800d651ee2";

/// The key and certificate of a PKCS#12 file, parsed in `ctx`; None if parsing fails.
fn parse_p12(
    ctx: &LibCtx,
    der: &[u8],
    password: &CStr,
) -> Option<(Owned<ffi::EVP_PKEY>, Owned<ffi::X509>)> {
    ctx.as_default(|| unsafe {
        let mut p = der.as_ptr();
        let p12 = Owned::new(
            ffi::d2i_PKCS12(ptr::null_mut(), &mut p, der.len() as c_long),
            ffi::PKCS12_free,
            "d2i_PKCS12",
        );
        let (mut pkey, mut cert) = (ptr::null_mut(), ptr::null_mut());
        let rc =
            ffi::PKCS12_parse(p12.get(), password.as_ptr(), &mut pkey, &mut cert, ptr::null_mut());
        if rc != 1 {
            errors();
            return None;
        }
        Some((
            Owned::new(pkey, ffi::EVP_PKEY_free, "PKCS12_parse key"),
            Owned::new(cert, ffi::X509_free, "PKCS12_parse certificate"),
        ))
    })
}

fn check_p12(ctx: &LibCtx, der: &[u8]) -> (Owned<ffi::EVP_PKEY>, Owned<ffi::X509>) {
    let (key, cert) = parse_p12(ctx, der, P12_PASSWORD).expect("PKCS12_parse");
    assert_eq!(hex(&digest(unsafe { ffi::EVP_sha256() }, &cert_der(cert.get()))), P12_CERT_SHA256);
    assert_eq!(unsafe { ffi::X509_check_private_key(cert.get(), key.get()) }, 1, "{}", errors());
    assert!(parse_p12(ctx, der, c"wrong password").is_none(), "a wrong password must fail");
    (key, cert)
}

#[cfg(feature = "legacy")]
#[test]
fn pkcs12_files_with_legacy_and_modern_protection_parse() {
    let legacy_p12 = include_bytes!("data/pkcs12/legacy.p12");
    let modern_p12 = include_bytes!("data/pkcs12/modern.p12");
    let ctx = LibCtx::with(&[DEFAULT, LEGACY]);
    check_p12(&ctx, legacy_p12);
    check_p12(&ctx, modern_p12);
    // Without the legacy provider the RC2-40 certificate bag cannot be decrypted: the
    // fixture really exercises it.
    let plain = LibCtx::with(&[DEFAULT]);
    assert!(parse_p12(&plain, legacy_p12, P12_PASSWORD).is_none());
    check_p12(&plain, modern_p12);
}

/// The memory BIO's contents.
fn bio_bytes(bio: &Owned<ffi::BIO>) -> Vec<u8> {
    unsafe {
        let mut data: *mut c_char = ptr::null_mut();
        let len = ffi::BIO_get_mem_data(bio.get(), &mut data);
        std::slice::from_raw_parts(data.cast::<u8>(), usize::try_from(len).unwrap()).to_vec()
    }
}

/// A CMS structure through DER and back.
fn cms_round_trip(cms: Owned<ffi::CMS_ContentInfo>) -> Owned<ffi::CMS_ContentInfo> {
    unsafe {
        let len = ffi::i2d_CMS_ContentInfo(cms.get(), ptr::null_mut());
        let mut der = vec![0u8; usize::try_from(len).unwrap()];
        let mut p = der.as_mut_ptr();
        assert_eq!(ffi::i2d_CMS_ContentInfo(cms.get(), &mut p), len);
        let mut q = der.as_ptr();
        Owned::new(
            ffi::d2i_CMS_ContentInfo(ptr::null_mut(), &mut q, c_long::from(len)),
            ffi::CMS_ContentInfo_free,
            "d2i_CMS_ContentInfo",
        )
    }
}

#[cfg(feature = "legacy")]
#[test]
fn cms_encrypt_decrypt_sign_verify_with_a_legacy_pkcs12_key() {
    let ctx = LibCtx::with(&[DEFAULT, LEGACY]);
    let (key, cert) = check_p12(&ctx, include_bytes!("data/pkcs12/legacy.p12"));
    let message = "CMS through crypto-sys, with the key of an RC2/3DES PKCS#12 file";
    ctx.as_default(|| unsafe {
        let certs = Owned::new(ffi::OPENSSL_sk_new_null(), ffi::OPENSSL_sk_free, "sk_new_null");
        assert!(ffi::OPENSSL_sk_push(certs.get(), cert.get().cast()) > 0);
        let certs = certs.get().cast::<ffi::stack_st_X509>();

        let enc = Owned::new(
            ffi::CMS_encrypt(
                certs,
                read_bio(message).get(),
                ffi::EVP_aes_256_cbc(),
                ffi::CMS_BINARY,
            ),
            ffi::CMS_ContentInfo_free,
            "CMS_encrypt",
        );
        let enc = cms_round_trip(enc);
        let out = Owned::new(ffi::BIO_new(ffi::BIO_s_mem()), ffi::BIO_free_all, "BIO_new");
        check(
            ffi::CMS_decrypt(enc.get(), key.get(), cert.get(), ptr::null_mut(), out.get(), 0),
            "CMS_decrypt",
        );
        assert_eq!(bio_bytes(&out), message.as_bytes());

        // Detached, so that verification is told the content and can be told other content.
        let flags = ffi::CMS_BINARY | ffi::CMS_DETACHED;
        let signed = Owned::new(
            ffi::CMS_sign(cert.get(), key.get(), ptr::null_mut(), read_bio(message).get(), flags),
            ffi::CMS_ContentInfo_free,
            "CMS_sign",
        );
        let signed = cms_round_trip(signed);
        let flags = ffi::CMS_BINARY | ffi::CMS_NO_SIGNER_CERT_VERIFY;
        let verify = |content: &str| {
            let dcont = read_bio(content);
            let rc = ffi::CMS_verify(
                signed.get(),
                certs,
                ptr::null_mut(),
                dcont.get(),
                ptr::null_mut(),
                flags,
            );
            let errs = errors();
            (rc, errs)
        };
        let (rc, errs) = verify(message);
        assert_eq!(rc, 1, "CMS_verify: {errs}");
        let (rc, errs) = verify("a different message");
        assert_ne!(rc, 1, "a signature over other content verified");
        assert!(
            errs.contains("content verify error") || errs.contains("verification failure"),
            "{errs}"
        );
    });
}
