/*
 * `driver bench MILLISECONDS`: the figures the Windows speed check compares (AES-256-GCM and
 * ChaCha20-Poly1305 on 16 KiB, RSA-2048 signing), each run for about that long of CPU time.
 * xtask interleaves runs of several builds and compares their ratios; a single figure means
 * little on a shared machine.
 */
#ifndef _WIN32
/* clock_gettime and CLOCK_PROCESS_CPUTIME_ID are POSIX's, which C99 alone does not declare
 * (musl's <time.h> keeps them behind this; glibc's happen to show them). */
#define _POSIX_C_SOURCE 199309L
#endif
#include "driver.h"

#include <openssl/rsa.h>
#include <stdio.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

#define BUF_LEN 16384
/*
 * Work between clock readings, so that reading the clock (a system call natively, more under
 * wine) stays well under 1% of what is measured: 16 MiB of AEAD, 32 signatures.
 */
#define AEAD_BATCH 1024
#define RSA_BATCH 32

/*
 * This process's CPU time. Not clock(): Windows' clock() is wall time, which on a shared
 * machine would charge the Windows builds for whatever else runs.
 */
static double cpu_seconds(void)
{
#ifdef _WIN32
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        die("bench: GetProcessTimes failed");
    return ((double)kernel.dwLowDateTime + (double)kernel.dwHighDateTime * 4294967296.0
            + (double)user.dwLowDateTime + (double)user.dwHighDateTime * 4294967296.0)
        * 1e-7;
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        die("bench: clock_gettime failed");
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

static double seconds_since(double start)
{
    return cpu_seconds() - start;
}

/* MB/s of sealing BUF_LEN-byte messages with `cipher` for about `budget` seconds. */
static double aead_rate(const EVP_CIPHER *cipher, double budget)
{
    static unsigned char in[BUF_LEN], out[BUF_LEN + 16];
    unsigned char key[32] = { 1 }, iv[12] = { 2 }, tag[16];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    long n = 0;
    int len;
    double start;
    if (ctx == NULL || !EVP_EncryptInit_ex(ctx, cipher, NULL, key, iv))
        die("bench: cipher set-up failed");
    start = cpu_seconds();
    do {
        for (int i = 0; i < AEAD_BATCH; i++) {
            if (!EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv)
                || !EVP_EncryptUpdate(ctx, out, &len, in, BUF_LEN)
                || !EVP_EncryptFinal_ex(ctx, out + len, &len)
                || !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag))
                die("bench: seal failed");
            iv[0] ^= tag[0]; /* each message depends on the last, so none can be skipped */
        }
        n += AEAD_BATCH;
    } while (seconds_since(start) < budget);
    EVP_CIPHER_CTX_free(ctx);
    return (double)n * BUF_LEN / seconds_since(start) / 1e6;
}

/* RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second, for about `budget` seconds. */
static double rsa_rate(double budget)
{
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    unsigned char msg[32] = { 3 }, sig[256];
    size_t sig_len;
    long n = 0;
    double start;
    if (key == NULL)
        die("bench: RSA-2048 key generation failed");
    start = cpu_seconds();
    do {
        for (int i = 0; i < RSA_BATCH; i++) {
            EVP_MD_CTX *md = EVP_MD_CTX_new();
            sig_len = sizeof sig;
            if (md == NULL || !EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key)
                || !EVP_DigestSign(md, sig, &sig_len, msg, sizeof msg))
                die("bench: RSA sign failed");
            EVP_MD_CTX_free(md);
            msg[0] ^= sig[0];
        }
        n += RSA_BATCH;
    } while (seconds_since(start) < budget);
    EVP_PKEY_free(key);
    return (double)n / seconds_since(start);
}

int bench_all(long milliseconds)
{
    double budget = (double)milliseconds / 1000.0;
    printf("bench aes-256-gcm-16k %.1f\n", aead_rate(EVP_aes_256_gcm(), budget));
    printf("bench chacha20-poly1305-16k %.1f\n", aead_rate(EVP_chacha20_poly1305(), budget));
    printf("bench rsa2048-sign %.1f\n", rsa_rate(budget));
    return 0;
}
