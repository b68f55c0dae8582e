/*
 * The differential digests of crypto-sys/tests/across_paths.rs, in C: the same SplitMix64
 * inputs of every length 0..=2048 bytes plus 16 KiB and 64 KiB, the same calls, each
 * algorithm's outputs hashed into one SHA-256 and compared with the stored row of
 * `<vectors>/digests.txt` (xtask copies crypto-sys/tests/data/across_paths_digests.txt, the
 * file the Rust test reads). Equal digests from both prove both ports of the inputs.
 */
#include "driver.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LONGEST (64 * 1024)
#define TAG_LEN 16

/* SplitMix64 (Steele, Lea, Flood 2014), as across_paths.rs has it: `n` bytes of the stream
 * of `seed`, each 64-bit word little-endian. */
static unsigned char *splitmix64(uint64_t seed, size_t n)
{
    unsigned char *out = malloc(n + 8);
    size_t i, j;
    if (out == NULL)
        die("out of memory");
    for (i = 0; i < n; i += 8) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        for (j = 0; j < 8; j++)
            out[i + j] = (unsigned char)(z >> (8 * j));
    }
    return out;
}

/* The lengths of across_paths.rs's `lengths()`, in order: 0..=2048, 16 KiB, 64 KiB. */
#define NLENGTHS (2049 + 2)
static size_t length_at(size_t i)
{
    return i <= 2048 ? i : i == 2049 ? 16 * 1024 : LONGEST;
}

enum kind { AEAD, CIPHER, DIGEST, POLY1305 };

struct algorithm {
    const char *name; /* as in the digests file */
    enum kind kind;
    const EVP_CIPHER *(*cipher)(void);
    const EVP_MD *(*md)(void);
    size_t key_len;
};

static const struct algorithm ALGORITHMS[] = {
    { "AES-128-GCM", AEAD, EVP_aes_128_gcm, NULL, 16 },
    { "AES-256-GCM", AEAD, EVP_aes_256_gcm, NULL, 32 },
    { "ChaCha20-Poly1305", AEAD, EVP_chacha20_poly1305, NULL, 32 },
    /* XTS refuses data units under one block: those lengths add nothing. */
    { "AES-256-XTS", CIPHER, EVP_aes_256_xts, NULL, 64 },
    { "AES-128-CFB128", CIPHER, EVP_aes_128_cfb128, NULL, 16 },
    { "AES-256-CFB128", CIPHER, EVP_aes_256_cfb128, NULL, 32 },
    { "SHA-256", DIGEST, NULL, EVP_sha256, 0 },
    { "SHA-512", DIGEST, NULL, EVP_sha512, 0 },
    { "SHA3-256", DIGEST, NULL, EVP_sha3_256, 0 },
    { "Poly1305", POLY1305, NULL, NULL, 32 },
};
#define NALGORITHMS (sizeof ALGORITHMS / sizeof ALGORITHMS[0])

/* One algorithm's fixed inputs: message stream (seed 1), key (2), nonce (3), AAD (4), IV (5). */
struct inputs {
    unsigned char *msg, *key, *nonce, *aad, *iv;
};

/* A cipher context keyed like across_paths.rs's `cipher_ctx`; NULL if OpenSSL refuses. */
static EVP_CIPHER_CTX *cipher_ctx(const EVP_CIPHER *cipher, const unsigned char *key,
                                  size_t key_len, const unsigned char *iv, size_t iv_len,
                                  int enc)
{
    EVP_CIPHER_CTX *ctx;
    if (EVP_CIPHER_get_key_length(cipher) != (int)key_len ||
        EVP_CIPHER_get_iv_length(cipher) != (int)iv_len)
        return NULL;
    ctx = EVP_CIPHER_CTX_new();
    if (ctx != NULL && EVP_CipherInit_ex(ctx, cipher, NULL, key, iv, enc) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* One EVP_CipherUpdate over `in` then EVP_CipherFinal_ex into `out` (room for len + 32);
 * the bytes written, or -1 where OpenSSL refuses (XTS under 16 bytes, a bad tag). */
static long update_final(EVP_CIPHER_CTX *ctx, const unsigned char *in, size_t len,
                         unsigned char *out)
{
    int n = 0, m = 0;
    if (EVP_CipherUpdate(ctx, out, &n, in, (int)len) != 1 ||
        EVP_CipherFinal_ex(ctx, out + n, &m) != 1)
        return -1;
    return (long)n + m;
}

/* AEAD seal (`ciphertext || tag`) or open (of `len` bytes including the tag) with the 12-byte
 * nonce and 20-byte AAD; the bytes written to `out`, or -1. */
static long aead(const struct algorithm *a, const struct inputs *in, int enc,
                 const unsigned char *data, size_t len, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = cipher_ctx(a->cipher(), in->key, a->key_len, in->nonce, 12, enc);
    unsigned char tag[TAG_LEN];
    long n = -1;
    int aad_len = 0;
    if (ctx == NULL || EVP_CipherUpdate(ctx, NULL, &aad_len, in->aad, 20) != 1)
        goto done;
    if (!enc) {
        if (len < TAG_LEN)
            goto done;
        len -= TAG_LEN;
        memcpy(tag, data + len, TAG_LEN);
        if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, tag) != 1)
            goto done;
    }
    n = update_final(ctx, data, len, out);
    if (enc && n >= 0) {
        if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, out + n) != 1)
            n = -1;
        else
            n += TAG_LEN;
    }
done:
    EVP_CIPHER_CTX_free(ctx);
    return n;
}

/* Encrypts or decrypts with the 16-byte IV in one call each; the bytes written, or -1. */
static long crypt(const struct algorithm *a, const struct inputs *in, int enc,
                  const unsigned char *data, size_t len, unsigned char *out)
{
    EVP_CIPHER_CTX *ctx = cipher_ctx(a->cipher(), in->key, a->key_len, in->iv, 16, enc);
    long n = ctx == NULL ? -1 : update_final(ctx, data, len, out);
    EVP_CIPHER_CTX_free(ctx);
    return n;
}

static long poly1305(const struct inputs *in, const unsigned char *data, size_t len,
                     unsigned char *out)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    EVP_MAC_CTX *ctx = mac == NULL ? NULL : EVP_MAC_CTX_new(mac);
    size_t n = 0;
    int ok = ctx != NULL && EVP_MAC_init(ctx, in->key, 32, NULL) == 1 &&
             EVP_MAC_update(ctx, data, len) == 1 && EVP_MAC_final(ctx, out, &n, 16) == 1;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok ? (long)n : -1;
}

/* A round trip that went wrong: `what` says how. */
static long broken(const char **why, const char *what)
{
    *why = what;
    return -2;
}

/*
 * The output for one length, as across_paths.rs's closures: AEADs seal, must open back and
 * must refuse a flipped tag bit; ciphers must decrypt back (or be refused both ways). Writes
 * into `out` (room for len + 64) and returns its length, -1 for a length the mode refuses,
 * or -2 (with `why` set) when a round trip went wrong.
 */
static long output(const struct algorithm *a, const struct inputs *in, size_t len,
                   unsigned char *out, unsigned char *back, const char **why)
{
    unsigned int md_len = 0;
    long n, m;
    switch (a->kind) {
    case AEAD:
        if ((n = aead(a, in, 1, in->msg, len, out)) < 0)
            return broken(why, "does not seal");
        m = aead(a, in, 0, out, (size_t)n, back);
        if (m != (long)len || memcmp(back, in->msg, len) != 0)
            return broken(why, "does not open back");
        out[n - 1] ^= 1;
        m = aead(a, in, 0, out, (size_t)n, back);
        out[n - 1] ^= 1;
        clear_errors();
        return m >= 0 ? broken(why, "opens with a flipped tag bit") : n;
    case CIPHER:
        n = crypt(a, in, 1, in->msg, len, out);
        clear_errors();
        if (n < 0)
            return -1;
        m = crypt(a, in, 0, out, (size_t)n, back);
        if (m != (long)len || memcmp(back, in->msg, len) != 0)
            return broken(why, "does not decrypt back");
        return n;
    case DIGEST:
        if (EVP_Digest(in->msg, len, out, &md_len, a->md(), NULL) != 1)
            return broken(why, "EVP_Digest failed");
        return (long)md_len;
    case POLY1305:
        if ((n = poly1305(in, in->msg, len, out)) < 0)
            return broken(why, "EVP_MAC failed");
        return n;
    }
    return broken(why, "unknown kind");
}

/* SHA-256 over `len (u64 LE) || output` for every length into `got`; 0, after a FAIL line,
 * when a round trip went wrong or OpenSSL failed. */
static int digest_of(const struct algorithm *a, const struct inputs *in, unsigned char *got)
{
    unsigned char *out = malloc(LONGEST + 64), *back = malloc(LONGEST + 64), le[8];
    EVP_MD_CTX *sha = EVP_MD_CTX_new();
    const char *why = NULL;
    size_t i, j;
    int ok = out != NULL && back != NULL && sha != NULL &&
             EVP_DigestInit_ex(sha, EVP_sha256(), NULL) == 1;
    for (i = 0; ok && i < NLENGTHS; i++) {
        size_t len = length_at(i);
        long n = output(a, in, len, out, back, &why);
        if (n == -2) {
            printf("FAIL digests: %s: length %lu: %s\n", a->name, (unsigned long)len, why);
            free(out), free(back), EVP_MD_CTX_free(sha);
            return 0;
        }
        for (j = 0; j < 8; j++)
            le[j] = (unsigned char)((uint64_t)len >> (8 * j));
        ok = n == -1 ||
             (EVP_DigestUpdate(sha, le, 8) == 1 && EVP_DigestUpdate(sha, out, (size_t)n) == 1);
    }
    ok = ok && EVP_DigestFinal_ex(sha, got, NULL) == 1;
    if (!ok)
        printf("FAIL digests: %s: could not hash the outputs\n", a->name);
    free(out), free(back), EVP_MD_CTX_free(sha);
    return ok;
}

/* The stored rows: `NAME HEX` lines, `#` comments. Every row must name an algorithm here and
 * every algorithm must have exactly one row. */
static void read_stored(const char *dir, char stored[NALGORITHMS][65])
{
    char path[1024], line[256], name[64], hex[128];
    FILE *f;
    size_t i;
    snprintf(path, sizeof path, "%s/digests.txt", dir);
    if ((f = fopen(path, "r")) == NULL)
        die("cannot open %s", path);
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (sscanf(line, "%63s %127s", name, hex) != 2 || strlen(hex) != 64)
            die("%s: not a `NAME HEX` row: %s", path, line);
        for (i = 0; i < NALGORITHMS && strcmp(ALGORITHMS[i].name, name) != 0; i++)
            ;
        if (i == NALGORITHMS)
            die("%s: %s is no algorithm of driver/digests.c", path, name);
        if (stored[i][0] != '\0')
            die("%s: %s has two rows", path, name);
        memcpy(stored[i], hex, 65);
    }
    fclose(f);
    for (i = 0; i < NALGORITHMS; i++)
        if (stored[i][0] == '\0')
            die("%s: no row for %s", path, ALGORITHMS[i].name);
}

long digests_all(const char *dir)
{
    char stored[NALGORITHMS][65] = { { 0 } }, hex[65];
    unsigned char got[32];
    struct inputs in;
    long failures = 0;
    size_t i, j;
    clock_t started = clock();
    read_stored(dir, stored);
    in.msg = splitmix64(1, LONGEST);
    in.nonce = splitmix64(3, 12);
    in.aad = splitmix64(4, 20);
    in.iv = splitmix64(5, 16);
    for (i = 0; i < NALGORITHMS; i++) {
        /* Each key is a prefix of one stream, as across_paths.rs's `key(bytes)`. */
        in.key = splitmix64(2, ALGORITHMS[i].key_len);
        if (!digest_of(&ALGORITHMS[i], &in, got)) {
            failures++;
        } else {
            for (j = 0; j < 32; j++)
                snprintf(hex + 2 * j, 3, "%02x", got[j]);
            if (strcmp(hex, stored[i]) != 0) {
                printf("FAIL digests: %s: outputs over lengths 0..=2048, 16 KiB, 64 KiB give "
                       "%s, not the no_asm reference %s\n",
                       ALGORITHMS[i].name, hex, stored[i]);
                failures++;
            }
        }
        free(in.key);
    }
    free(in.msg), free(in.nonce), free(in.aad), free(in.iv);
    printf("count digests checked=%lu failures=%ld ms=%ld\n", (unsigned long)NALGORITHMS,
           failures, elapsed_ms(started));
    return failures;
}
