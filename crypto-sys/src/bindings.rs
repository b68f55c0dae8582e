//! Hand-written `extern "C"` bindings to the OpenSSL 3 libcrypto APIs this crate exposes.
//!
//! Covered: version/init, the error queue, AEAD ciphers (AES-GCM, ChaCha20-Poly1305),
//! message digests, and RSA signing/verification through `EVP_PKEY`, including
//! building a key from its integers with `OSSL_PARAM_BLD` + `EVP_PKEY_fromdata`.
//!
//! Every signature mirrors the C prototype in OpenSSL 3.6.3's `include/openssl/*.h`
//! (`crypto.h.in`, `err.h.in`, `evp.h`, `bn.h`, `param_build.h`, `params.h`,
//! `rsa.h`, `rand.h`, `x509.h.in`). C type mapping: `int` -> `c_int`,
//! `unsigned int` -> `c_uint`, `long` -> `c_long`, `unsigned long` -> `c_ulong`,
//! `size_t` -> `usize`, `uint64_t` -> `u64`, `unsigned char` -> `c_uchar`.
//! Macros in the C API (`OPENSSL_free`, `EVP_PKEY_size`, ...) are not symbols;
//! bind the function they expand to instead (`CRYPTO_free`, `EVP_PKEY_get_size`).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]
#![allow(missing_docs)]

use core::ffi::{c_char, c_int, c_long, c_uchar, c_uint, c_ulong, c_void};

macro_rules! opaque {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[repr(C)]
        pub struct $name {
            _p: [u8; 0],
            _m: core::marker::PhantomData<(*mut u8, core::marker::PhantomPinned)>,
        }
    )*};
}

opaque! {
    /// `EVP_CIPHER_CTX`: symmetric cipher context (`EVP_CIPHER_CTX_new`/`_free`).
    EVP_CIPHER_CTX;
    /// `EVP_CIPHER`: cipher method, e.g. from `EVP_aes_256_gcm()` (static, never freed).
    EVP_CIPHER;
    /// `EVP_MD_CTX`: message digest / DigestSign / DigestVerify context.
    EVP_MD_CTX;
    /// `EVP_MD`: digest method, e.g. from `EVP_sha256()` (static, never freed).
    EVP_MD;
    /// `EVP_PKEY`: public or private key (`EVP_PKEY_free`).
    EVP_PKEY;
    /// `EVP_PKEY_CTX`: public key algorithm context (`EVP_PKEY_CTX_free`).
    EVP_PKEY_CTX;
    /// `ENGINE`: legacy engine handle; always pass null.
    ENGINE;
    /// `BIGNUM`: arbitrary-precision integer (`BN_free`).
    BIGNUM;
    /// `OSSL_PARAM`: element of a parameter array (`OSSL_PARAM_free` for built arrays).
    OSSL_PARAM;
    /// `OSSL_PARAM_BLD`: parameter array builder (`OSSL_PARAM_BLD_free`).
    OSSL_PARAM_BLD;
    /// `OSSL_LIB_CTX`: library context; null means the default one.
    OSSL_LIB_CTX;
    /// `OPENSSL_INIT_SETTINGS`: settings for `OPENSSL_init_crypto`; may be null.
    OPENSSL_INIT_SETTINGS;
}

// ---- crypto.h: `OpenSSL_version` types ----
pub const OPENSSL_VERSION: c_int = 0;
pub const OPENSSL_CFLAGS: c_int = 1;
pub const OPENSSL_BUILT_ON: c_int = 2;
pub const OPENSSL_PLATFORM: c_int = 3;
pub const OPENSSL_DIR: c_int = 4;
pub const OPENSSL_ENGINES_DIR: c_int = 5;
pub const OPENSSL_VERSION_STRING: c_int = 6;
pub const OPENSSL_FULL_VERSION_STRING: c_int = 7;
pub const OPENSSL_MODULES_DIR: c_int = 8;

// ---- crypto.h: `OPENSSL_init_crypto` options (uint64_t) ----
pub const OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS: u64 = 0x0000_0001;
pub const OPENSSL_INIT_LOAD_CRYPTO_STRINGS: u64 = 0x0000_0002;
pub const OPENSSL_INIT_ADD_ALL_CIPHERS: u64 = 0x0000_0004;
pub const OPENSSL_INIT_ADD_ALL_DIGESTS: u64 = 0x0000_0008;
pub const OPENSSL_INIT_NO_ADD_ALL_CIPHERS: u64 = 0x0000_0010;
pub const OPENSSL_INIT_NO_ADD_ALL_DIGESTS: u64 = 0x0000_0020;
pub const OPENSSL_INIT_LOAD_CONFIG: u64 = 0x0000_0040;
pub const OPENSSL_INIT_NO_LOAD_CONFIG: u64 = 0x0000_0080;

// ---- evp.h: sizes ----
pub const EVP_MAX_MD_SIZE: usize = 64;
pub const EVP_MAX_KEY_LENGTH: usize = 64;
pub const EVP_MAX_IV_LENGTH: usize = 16;
pub const EVP_GCM_TLS_TAG_LEN: usize = 16;
pub const EVP_CHACHAPOLY_TLS_TAG_LEN: usize = 16;

// ---- evp.h: `EVP_CIPHER_CTX_ctrl` commands for AEAD modes ----
pub const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
pub const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
pub const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;
pub const EVP_CTRL_AEAD_SET_IV_FIXED: c_int = 0x12;
pub const EVP_CTRL_GCM_SET_IVLEN: c_int = EVP_CTRL_AEAD_SET_IVLEN;
pub const EVP_CTRL_GCM_GET_TAG: c_int = EVP_CTRL_AEAD_GET_TAG;
pub const EVP_CTRL_GCM_SET_TAG: c_int = EVP_CTRL_AEAD_SET_TAG;

// ---- core_dispatch.h / evp.h: key selections for `EVP_PKEY_fromdata` ----
pub const OSSL_KEYMGMT_SELECT_PRIVATE_KEY: c_int = 0x01;
pub const OSSL_KEYMGMT_SELECT_PUBLIC_KEY: c_int = 0x02;
pub const OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS: c_int = 0x04;
pub const OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS: c_int = 0x80;
/// `EVP_PKEY_KEY_PARAMETERS` = `OSSL_KEYMGMT_SELECT_ALL_PARAMETERS` = 0x84.
pub const EVP_PKEY_KEY_PARAMETERS: c_int =
    OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS;
/// 0x85.
pub const EVP_PKEY_PRIVATE_KEY: c_int = EVP_PKEY_KEY_PARAMETERS | OSSL_KEYMGMT_SELECT_PRIVATE_KEY;
/// 0x86.
pub const EVP_PKEY_PUBLIC_KEY: c_int = EVP_PKEY_KEY_PARAMETERS | OSSL_KEYMGMT_SELECT_PUBLIC_KEY;
/// 0x87.
pub const EVP_PKEY_KEYPAIR: c_int = EVP_PKEY_PUBLIC_KEY | OSSL_KEYMGMT_SELECT_PRIVATE_KEY;

// ---- evp.h / obj_mac.h: key type ids (for `d2i_PrivateKey`) ----
/// `EVP_PKEY_RSA` = `NID_rsaEncryption`.
pub const EVP_PKEY_RSA: c_int = 6;

// ---- rsa.h: padding modes (for `EVP_PKEY_CTX_set_rsa_padding`) ----
pub const RSA_PKCS1_PADDING: c_int = 1;
pub const RSA_NO_PADDING: c_int = 3;
pub const RSA_PKCS1_OAEP_PADDING: c_int = 4;
pub const RSA_PKCS1_PSS_PADDING: c_int = 6;

// ---- core_names.h: RSA `OSSL_PARAM` key names (NUL-terminated) ----
pub const OSSL_PKEY_PARAM_RSA_N: &core::ffi::CStr = c"n";
pub const OSSL_PKEY_PARAM_RSA_E: &core::ffi::CStr = c"e";
pub const OSSL_PKEY_PARAM_RSA_D: &core::ffi::CStr = c"d";
pub const OSSL_PKEY_PARAM_RSA_FACTOR1: &core::ffi::CStr = c"rsa-factor1";
pub const OSSL_PKEY_PARAM_RSA_FACTOR2: &core::ffi::CStr = c"rsa-factor2";
pub const OSSL_PKEY_PARAM_RSA_EXPONENT1: &core::ffi::CStr = c"rsa-exponent1";
pub const OSSL_PKEY_PARAM_RSA_EXPONENT2: &core::ffi::CStr = c"rsa-exponent2";
pub const OSSL_PKEY_PARAM_RSA_COEFFICIENT1: &core::ffi::CStr = c"rsa-coefficient1";

extern "C" {
    // ---- crypto.h ----
    pub fn OpenSSL_version_num() -> c_ulong;
    pub fn OpenSSL_version(type_: c_int) -> *const c_char;
    pub fn OPENSSL_init_crypto(opts: u64, settings: *const OPENSSL_INIT_SETTINGS) -> c_int;
    /// What the `OPENSSL_free(ptr)` macro expands to (`file` may be null, `line` 0).
    pub fn CRYPTO_free(ptr: *mut c_void, file: *const c_char, line: c_int);
    pub fn OPENSSL_cleanse(ptr: *mut c_void, len: usize);

    // ---- err.h ----
    pub fn ERR_get_error() -> c_ulong;
    pub fn ERR_peek_error() -> c_ulong;
    pub fn ERR_error_string_n(e: c_ulong, buf: *mut c_char, len: usize);
    pub fn ERR_clear_error();

    // ---- rand.h ----
    pub fn RAND_bytes(buf: *mut c_uchar, num: c_int) -> c_int;

    // ---- evp.h: cipher contexts ----
    pub fn EVP_CIPHER_CTX_new() -> *mut EVP_CIPHER_CTX;
    pub fn EVP_CIPHER_CTX_reset(c: *mut EVP_CIPHER_CTX) -> c_int;
    pub fn EVP_CIPHER_CTX_free(c: *mut EVP_CIPHER_CTX);
    pub fn EVP_CIPHER_CTX_set_padding(c: *mut EVP_CIPHER_CTX, pad: c_int) -> c_int;
    pub fn EVP_CIPHER_CTX_ctrl(
        ctx: *mut EVP_CIPHER_CTX,
        type_: c_int,
        arg: c_int,
        ptr: *mut c_void,
    ) -> c_int;
    pub fn EVP_CIPHER_get_key_length(cipher: *const EVP_CIPHER) -> c_int;
    pub fn EVP_CIPHER_get_iv_length(cipher: *const EVP_CIPHER) -> c_int;

    // ---- evp.h: AEAD ciphers ----
    pub fn EVP_aes_128_gcm() -> *const EVP_CIPHER;
    pub fn EVP_aes_192_gcm() -> *const EVP_CIPHER;
    pub fn EVP_aes_256_gcm() -> *const EVP_CIPHER;
    pub fn EVP_chacha20_poly1305() -> *const EVP_CIPHER;

    // ---- evp.h: encrypt / decrypt ----
    pub fn EVP_EncryptInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
    ) -> c_int;
    pub fn EVP_EncryptUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_EncryptFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;
    pub fn EVP_DecryptInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
    ) -> c_int;
    pub fn EVP_DecryptUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_DecryptFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        outm: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;
    pub fn EVP_CipherInit_ex(
        ctx: *mut EVP_CIPHER_CTX,
        cipher: *const EVP_CIPHER,
        impl_: *mut ENGINE,
        key: *const c_uchar,
        iv: *const c_uchar,
        enc: c_int,
    ) -> c_int;
    pub fn EVP_CipherUpdate(
        ctx: *mut EVP_CIPHER_CTX,
        out: *mut c_uchar,
        outl: *mut c_int,
        in_: *const c_uchar,
        inl: c_int,
    ) -> c_int;
    pub fn EVP_CipherFinal_ex(
        ctx: *mut EVP_CIPHER_CTX,
        outm: *mut c_uchar,
        outl: *mut c_int,
    ) -> c_int;

    // ---- evp.h: digests ----
    pub fn EVP_sha1() -> *const EVP_MD;
    pub fn EVP_sha224() -> *const EVP_MD;
    pub fn EVP_sha256() -> *const EVP_MD;
    pub fn EVP_sha384() -> *const EVP_MD;
    pub fn EVP_sha512() -> *const EVP_MD;
    pub fn EVP_MD_get_size(md: *const EVP_MD) -> c_int;
    pub fn EVP_MD_CTX_new() -> *mut EVP_MD_CTX;
    pub fn EVP_MD_CTX_reset(ctx: *mut EVP_MD_CTX) -> c_int;
    pub fn EVP_MD_CTX_free(ctx: *mut EVP_MD_CTX);
    pub fn EVP_DigestInit_ex(
        ctx: *mut EVP_MD_CTX,
        type_: *const EVP_MD,
        impl_: *mut ENGINE,
    ) -> c_int;
    pub fn EVP_DigestUpdate(ctx: *mut EVP_MD_CTX, d: *const c_void, cnt: usize) -> c_int;
    pub fn EVP_DigestFinal_ex(ctx: *mut EVP_MD_CTX, md: *mut c_uchar, s: *mut c_uint) -> c_int;
    pub fn EVP_Digest(
        data: *const c_void,
        count: usize,
        md: *mut c_uchar,
        size: *mut c_uint,
        type_: *const EVP_MD,
        impl_: *mut ENGINE,
    ) -> c_int;

    // ---- evp.h: signatures ----
    pub fn EVP_DigestSignInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        type_: *const EVP_MD,
        e: *mut ENGINE,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestSignUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, dsize: usize) -> c_int;
    pub fn EVP_DigestSignFinal(
        ctx: *mut EVP_MD_CTX,
        sigret: *mut c_uchar,
        siglen: *mut usize,
    ) -> c_int;
    pub fn EVP_DigestSign(
        ctx: *mut EVP_MD_CTX,
        sigret: *mut c_uchar,
        siglen: *mut usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;
    pub fn EVP_DigestVerifyInit(
        ctx: *mut EVP_MD_CTX,
        pctx: *mut *mut EVP_PKEY_CTX,
        type_: *const EVP_MD,
        e: *mut ENGINE,
        pkey: *mut EVP_PKEY,
    ) -> c_int;
    pub fn EVP_DigestVerifyUpdate(ctx: *mut EVP_MD_CTX, data: *const c_void, dsize: usize)
        -> c_int;
    pub fn EVP_DigestVerifyFinal(ctx: *mut EVP_MD_CTX, sig: *const c_uchar, siglen: usize)
        -> c_int;
    pub fn EVP_DigestVerify(
        ctx: *mut EVP_MD_CTX,
        sigret: *const c_uchar,
        siglen: usize,
        tbs: *const c_uchar,
        tbslen: usize,
    ) -> c_int;

    // ---- evp.h: keys ----
    pub fn EVP_PKEY_up_ref(pkey: *mut EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_free(pkey: *mut EVP_PKEY);
    pub fn EVP_PKEY_get_bits(pkey: *const EVP_PKEY) -> c_int;
    pub fn EVP_PKEY_get_size(pkey: *const EVP_PKEY) -> c_int;
    pub fn d2i_PrivateKey(
        type_: c_int,
        a: *mut *mut EVP_PKEY,
        pp: *mut *const c_uchar,
        length: c_long,
    ) -> *mut EVP_PKEY;
    pub fn d2i_AutoPrivateKey(
        a: *mut *mut EVP_PKEY,
        pp: *mut *const c_uchar,
        length: c_long,
    ) -> *mut EVP_PKEY;
    pub fn i2d_PrivateKey(a: *const EVP_PKEY, pp: *mut *mut c_uchar) -> c_int;
    // x509.h: DECLARE_ASN1_ENCODE_FUNCTIONS_only(EVP_PKEY, PUBKEY)
    pub fn d2i_PUBKEY(
        a: *mut *mut EVP_PKEY,
        in_: *mut *const c_uchar,
        len: c_long,
    ) -> *mut EVP_PKEY;
    pub fn i2d_PUBKEY(a: *const EVP_PKEY, out: *mut *mut c_uchar) -> c_int;

    // ---- evp.h: key contexts and import from parameters ----
    pub fn EVP_PKEY_CTX_new(pkey: *mut EVP_PKEY, e: *mut ENGINE) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_new_from_name(
        libctx: *mut OSSL_LIB_CTX,
        name: *const c_char,
        propquery: *const c_char,
    ) -> *mut EVP_PKEY_CTX;
    pub fn EVP_PKEY_CTX_free(ctx: *mut EVP_PKEY_CTX);
    pub fn EVP_PKEY_fromdata_init(ctx: *mut EVP_PKEY_CTX) -> c_int;
    pub fn EVP_PKEY_fromdata(
        ctx: *mut EVP_PKEY_CTX,
        ppkey: *mut *mut EVP_PKEY,
        selection: c_int,
        param: *mut OSSL_PARAM,
    ) -> c_int;
    // rsa.h
    pub fn EVP_PKEY_CTX_set_rsa_padding(ctx: *mut EVP_PKEY_CTX, pad_mode: c_int) -> c_int;
    pub fn EVP_PKEY_CTX_set_signature_md(ctx: *mut EVP_PKEY_CTX, md: *const EVP_MD) -> c_int;

    // ---- bn.h ----
    pub fn BN_new() -> *mut BIGNUM;
    pub fn BN_free(a: *mut BIGNUM);
    pub fn BN_clear_free(a: *mut BIGNUM);
    pub fn BN_bin2bn(s: *const c_uchar, len: c_int, ret: *mut BIGNUM) -> *mut BIGNUM;
    pub fn BN_bn2bin(a: *const BIGNUM, to: *mut c_uchar) -> c_int;
    pub fn BN_bn2binpad(a: *const BIGNUM, to: *mut c_uchar, tolen: c_int) -> c_int;
    pub fn BN_num_bits(a: *const BIGNUM) -> c_int;

    // ---- param_build.h / params.h ----
    pub fn OSSL_PARAM_BLD_new() -> *mut OSSL_PARAM_BLD;
    pub fn OSSL_PARAM_BLD_to_param(bld: *mut OSSL_PARAM_BLD) -> *mut OSSL_PARAM;
    pub fn OSSL_PARAM_BLD_free(bld: *mut OSSL_PARAM_BLD);
    pub fn OSSL_PARAM_BLD_push_int(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        val: c_int,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_BN(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        bn: *const BIGNUM,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_utf8_string(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        buf: *const c_char,
        bsize: usize,
    ) -> c_int;
    pub fn OSSL_PARAM_BLD_push_octet_string(
        bld: *mut OSSL_PARAM_BLD,
        key: *const c_char,
        buf: *const c_void,
        bsize: usize,
    ) -> c_int;
    pub fn OSSL_PARAM_free(p: *mut OSSL_PARAM);
}
