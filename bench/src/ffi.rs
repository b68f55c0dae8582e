//! The few libcrypto calls the harness makes, declared here so the same code links against
//! either crypto-sys or openssl-src's own build.
#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_uchar, c_uint, c_void};

// crypto-sys's symbols carry its prefix: its macro names them; openssl-src's build keeps
// OpenSSL's own names.
#[cfg(feature = "ours")]
use crypto_sys::openssl_extern as declare;
#[cfg(not(feature = "ours"))]
macro_rules! declare {
    ($($items:tt)*) => { extern "C" { $($items)* } };
}

#[repr(C)]
pub struct Opaque {
    _p: [u8; 0],
}
pub type EVP_CIPHER = Opaque;
pub type EVP_CIPHER_CTX = Opaque;
pub type EVP_MD = Opaque;
pub type EVP_MD_CTX = Opaque;
pub type EVP_PKEY = Opaque;
pub type EVP_PKEY_CTX = Opaque;
pub type EVP_MAC = Opaque;
pub type EVP_MAC_CTX = Opaque;
pub type OSSL_LIB_CTX = Opaque;
pub type OSSL_PARAM = Opaque;

pub const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
pub const EVP_PKEY_RSA: c_int = 6;
pub const EVP_PKEY_EC: c_int = 408;
pub const EVP_PKEY_X25519: c_int = 1034;
pub const EVP_PKEY_ED25519: c_int = 1087;
pub const NID_SECP224R1: c_int = 713;
pub const NID_X9_62_PRIME256V1: c_int = 415;
pub const NID_SECP384R1: c_int = 715;
pub const NID_SECP521R1: c_int = 716;

declare! {
    pub fn EVP_aes_128_gcm() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_gcm() -> *const EVP_CIPHER;
    pub fn EVP_chacha20_poly1305() -> *const EVP_CIPHER;
    pub fn EVP_CIPHER_CTX_new() -> *mut EVP_CIPHER_CTX;
    pub fn EVP_CIPHER_CTX_free(ctx: *mut EVP_CIPHER_CTX);
    pub fn EVP_CIPHER_CTX_ctrl(
        ctx: *mut EVP_CIPHER_CTX,
        t: c_int,
        a: c_int,
        p: *mut c_void,
    ) -> c_int;
    pub fn EVP_EncryptInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        engine: *mut c_void,
        key: *const c_uchar,
        iv: *const c_uchar,
    ) -> c_int;
    pub fn EVP_EncryptUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        inp: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_EncryptFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;
    pub fn EVP_sha256() -> *const EVP_MD;
    pub fn EVP_sha512() -> *const EVP_MD;
    pub fn EVP_Digest(
        data: *const c_void,
        count: usize,
        md: *mut c_uchar,
        size: *mut c_uint,
        t: *const EVP_MD,
        engine: *mut c_void,
    ) -> c_int;
    pub fn EVP_MD_CTX_new() -> *mut EVP_MD_CTX;
    pub fn EVP_MD_CTX_free(ctx: *mut EVP_MD_CTX);
    pub fn EVP_DigestSignInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        t: *const EVP_MD,
        engine: *mut c_void,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestSign(
        ctx: *mut EVP_MD_CTX,
        sig: *mut c_uchar,
        siglen: *mut usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    pub fn EVP_DigestVerifyInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        t: *const EVP_MD,
        engine: *mut c_void,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestVerify(
        ctx: *mut EVP_MD_CTX,
        sig: *const c_uchar,
        siglen: usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    pub fn EVP_PKEY_CTX_new_id(id: c_int, engine: *mut c_void) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_new(pkey: *mut EVP_PKEY, engine: *mut c_void) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_free(ctx: *mut EVP_PKEY_CTX);
    pub fn EVP_PKEY_keygen_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_keygen(ctx: *mut EVP_PKEY_CTX, pkey: *mut *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_CTX_set_rsa_keygen_bits(ctx: *mut EVP_PKEY_CTX, bits: c_int) -> c_int;
    pub fn EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx: *mut EVP_PKEY_CTX, nid: c_int) -> c_int;
    pub fn EVP_PKEY_free(pkey: *mut EVP_PKEY);
    pub fn EVP_PKEY_get_base_id(pkey: *const EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_derive_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_derive_set_peer(ctx: *mut EVP_PKEY_CTX, peer: *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_derive(ctx: *mut EVP_PKEY_CTX, key: *mut c_uchar, keylen: *mut usize) -> c_int;
    pub fn EVP_MAC_fetch(
        libctx: *mut OSSL_LIB_CTX,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EVP_MAC;
    pub fn EVP_MAC_free(mac: *mut EVP_MAC);
    pub fn EVP_MAC_CTX_new(mac: *mut EVP_MAC) -> *mut EVP_MAC_CTX;
    pub fn EVP_MAC_CTX_free(ctx: *mut EVP_MAC_CTX);
    pub fn EVP_MAC_init(
        ctx: *mut EVP_MAC_CTX,
        key: *const c_uchar,
        keylen: usize,
        params: *const OSSL_PARAM,
    ) -> c_int;
    pub fn EVP_MAC_update(ctx: *mut EVP_MAC_CTX, data: *const c_uchar, datalen: usize) -> c_int;
    pub fn EVP_MAC_final(
        ctx: *mut EVP_MAC_CTX,
        out: *mut c_uchar,
        outl: *mut usize,
        outsize: usize,
    ) -> c_int;
}
