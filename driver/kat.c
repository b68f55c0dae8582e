/*
 * Known answers typed in from the published documents: FIPS 180-2 appendices B and C
 * (SHA-256, SHA-512), FIPS-197 appendices B and C (AES block), and test case 16 of McGrew and
 * Viega's GCM specification (NIST SP 800-38D's test vectors; the one kat.rs uses).
 */
#include "driver.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long kat_failures;

static void kat_fail(const char *family, const char *name, const char *why)
{
    kat_failures++;
    printf("FAIL %s: %s: %s\n", family, name, why);
}

/* ---------------------------------------------------------------------------------------- */
/* SHA-2                                                                                      */
/* ---------------------------------------------------------------------------------------- */

static const char ONE_BLOCK[] = "abc";
static const char SHA256_448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char SHA512_896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                                 "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

/* `data` fed `times` times through EVP_DigestUpdate, compared with the hex `expected`. */
static int sha2_case(const char *name, const EVP_MD *md, const void *data, size_t len,
                     long times, const char *expected)
{
    struct bytes want = hex_decode(expected);
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int out_len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestInit_ex(ctx, md, NULL) == 1;
    long i;
    for (i = 0; ok && i < times; i++)
        ok = EVP_DigestUpdate(ctx, data, len) == 1;
    ok = ok && EVP_DigestFinal_ex(ctx, out, &out_len) == 1;
    if (!ok)
        kat_fail("kat_sha2", name, "EVP_Digest* failed");
    else if (!bytes_eq(&want, out, out_len))
        kat_fail("kat_sha2", name, "wrong digest");
    EVP_MD_CTX_free(ctx);
    bytes_free(&want);
    return 1;
}

/* One million 'a': streamed 1000 bytes at a time, and in a single call. */
static int million_a(const char *name, const EVP_MD *md, const char *expected)
{
    char *a = malloc(1000000);
    struct bytes want = hex_decode(expected);
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int out_len = 0;
    if (a == NULL)
        die("out of memory");
    memset(a, 'a', 1000000);
    sha2_case(name, md, a, 1000, 1000, expected);
    if (EVP_Digest(a, 1000000, out, &out_len, md, NULL) != 1 || !bytes_eq(&want, out, out_len))
        kat_fail("kat_sha2", name, "wrong one-shot digest");
    free(a);
    bytes_free(&want);
    return 2;
}

static void kat_sha2(void)
{
    long before = kat_failures, checked = 0;
    clock_t started = clock();
    checked += sha2_case("SHA-256 abc", EVP_sha256(), ONE_BLOCK, 3, 1,
                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    checked += sha2_case("SHA-256 448-bit message", EVP_sha256(), SHA256_448, 56, 1,
                         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    checked += million_a("SHA-256 one million a", EVP_sha256(),
                         "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    checked += sha2_case("SHA-512 abc", EVP_sha512(), ONE_BLOCK, 3, 1,
                         "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                         "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
    checked += sha2_case("SHA-512 896-bit message", EVP_sha512(), SHA512_896, 112, 1,
                         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                         "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
    checked += million_a("SHA-512 one million a", EVP_sha512(),
                         "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                         "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
    printf("count kat_sha2 checked=%ld failures=%ld ms=%ld\n", checked, kat_failures - before,
           elapsed_ms(started));
}

/* ---------------------------------------------------------------------------------------- */
/* AES block (FIPS-197)                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* One block through `cipher` (ECB, no padding) in direction `enc`; 1 if it gave `want`. */
static int aes_block(const EVP_CIPHER *cipher, int enc, const struct bytes *key,
                     const struct bytes *in, const struct bytes *want)
{
    unsigned char out[32];
    int n = 0, m = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && EVP_CipherInit_ex(ctx, cipher, NULL, key->p, NULL, enc) == 1 &&
             EVP_CIPHER_CTX_set_padding(ctx, 0) == 1 &&
             EVP_CipherUpdate(ctx, out, &n, in->p, (int)in->n) == 1 &&
             EVP_CipherFinal_ex(ctx, out + n, &m) == 1 && bytes_eq(want, out, (size_t)(n + m));
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static void kat_aes(void)
{
    static const struct {
        const char *name;
        const EVP_CIPHER *(*cipher)(void);
        const char *key, *pt, *ct;
    } cases[] = {
        { "FIPS-197 B (AES-128)", EVP_aes_128_ecb, "2b7e151628aed2a6abf7158809cf4f3c",
          "3243f6a8885a308d313198a2e0370734", "3925841d02dc09fbdc118597196a0b32" },
        { "FIPS-197 C.1 (AES-128)", EVP_aes_128_ecb, "000102030405060708090a0b0c0d0e0f",
          "00112233445566778899aabbccddeeff", "69c4e0d86a7b0430d8cdb78070b4c55a" },
        { "FIPS-197 C.2 (AES-192)", EVP_aes_192_ecb,
          "000102030405060708090a0b0c0d0e0f1011121314151617",
          "00112233445566778899aabbccddeeff", "dda97ca4864cdfe06eaf70a0ec0d7191" },
        { "FIPS-197 C.3 (AES-256)", EVP_aes_256_ecb,
          "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
          "00112233445566778899aabbccddeeff", "8ea2b7ca516745bfeafc49904b496089" },
    };
    long before = kat_failures, checked = 0;
    clock_t started = clock();
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct bytes key = hex_decode(cases[i].key), pt = hex_decode(cases[i].pt);
        struct bytes ct = hex_decode(cases[i].ct);
        if (!aes_block(cases[i].cipher(), 1, &key, &pt, &ct))
            kat_fail("kat_aes", cases[i].name, "encryption gave a different block");
        if (!aes_block(cases[i].cipher(), 0, &key, &ct, &pt))
            kat_fail("kat_aes", cases[i].name, "decryption gave a different block");
        checked += 2;
        bytes_free(&key), bytes_free(&pt), bytes_free(&ct);
    }
    printf("count kat_aes checked=%ld failures=%ld ms=%ld\n", checked, kat_failures - before,
           elapsed_ms(started));
}

/* ---------------------------------------------------------------------------------------- */
/* AES-256-GCM, test case 16                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Opens `ct` under `tag`; 1 if it authenticates and gives `pt`. */
static int gcm_open(const struct bytes *key, const struct bytes *iv, const struct bytes *aad,
                    const struct bytes *ct, const struct bytes *tag, const struct bytes *pt)
{
    unsigned char out[64];
    int n = 0, m = 0;
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int ok = ctx != NULL && ct->n <= sizeof out &&
             EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key->p, iv->p) == 1 &&
             EVP_DecryptUpdate(ctx, NULL, &n, aad->p, (int)aad->n) == 1 &&
             EVP_DecryptUpdate(ctx, out, &n, ct->p, (int)ct->n) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)tag->n, tag->p) == 1 &&
             EVP_DecryptFinal_ex(ctx, out + n, &m) == 1 && bytes_eq(pt, out, (size_t)(n + m));
    EVP_CIPHER_CTX_free(ctx);
    clear_errors();
    return ok;
}

static void kat_gcm(void)
{
    struct bytes key = hex_decode("feffe9928665731c6d6a8f9467308308"
                                  "feffe9928665731c6d6a8f9467308308");
    struct bytes iv = hex_decode("cafebabefacedbaddecaf888");
    struct bytes aad = hex_decode("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    struct bytes pt = hex_decode("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                                 "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39");
    struct bytes ct = hex_decode("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
                                 "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662");
    struct bytes tag = hex_decode("76fc6ece0f4e1768cddf8853bb2d551b");
    const char *name = "GCM test case 16 (AES-256)";
    unsigned char out[64], got_tag[16];
    int n = 0, m = 0, ok;
    long before = kat_failures;
    clock_t started = clock();
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    ok = ctx != NULL && EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key.p, iv.p) == 1 &&
         EVP_EncryptUpdate(ctx, NULL, &n, aad.p, (int)aad.n) == 1 &&
         EVP_EncryptUpdate(ctx, out, &n, pt.p, (int)pt.n) == 1 &&
         EVP_EncryptFinal_ex(ctx, out + n, &m) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, got_tag) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok || !bytes_eq(&ct, out, (size_t)(n + m)))
        kat_fail("kat_gcm", name, "seal gave a different ciphertext");
    if (!ok || !bytes_eq(&tag, got_tag, 16))
        kat_fail("kat_gcm", name, "seal gave a different tag");
    if (!gcm_open(&key, &iv, &aad, &ct, &tag, &pt))
        kat_fail("kat_gcm", name, "did not open");
    /* Any flipped bit of tag, AAD or ciphertext must make it fail to open. */
    tag.p[15] ^= 1;
    if (gcm_open(&key, &iv, &aad, &ct, &tag, &pt))
        kat_fail("kat_gcm", name, "opened with a modified tag");
    tag.p[15] ^= 1;
    aad.p[0] ^= 1;
    if (gcm_open(&key, &iv, &aad, &ct, &tag, &pt))
        kat_fail("kat_gcm", name, "opened with modified AAD");
    aad.p[0] ^= 1;
    ct.p[59] ^= 1;
    if (gcm_open(&key, &iv, &aad, &ct, &tag, &pt))
        kat_fail("kat_gcm", name, "opened a modified ciphertext");
    printf("count kat_gcm checked=6 failures=%ld ms=%ld\n", kat_failures - before,
           elapsed_ms(started));
    bytes_free(&key), bytes_free(&iv), bytes_free(&aad);
    bytes_free(&pt), bytes_free(&ct), bytes_free(&tag);
}

long kat_all(void)
{
    kat_sha2();
    kat_aes();
    kat_gcm();
    return kat_failures;
}
