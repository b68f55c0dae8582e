/*
 * The C test driver: declarations shared by its files. It checks an OpenSSL build where Rust
 * tests cannot run (Windows under wine, aarch64 under qemu), so it uses nothing beyond C99's
 * stdio/stdlib/string and OpenSSL's public API; xtask/src/driver/ builds it and ci/driver_paths.rs runs it.
 */
#ifndef CRYPTO_SYS_DRIVER_H
#define CRYPTO_SYS_DRIVER_H

#include <openssl/evp.h>
#include <stddef.h>
#include <time.h>

/* A decoded byte string. `p` is never NULL (OpenSSL rejects NULL even for 0 bytes). */
struct bytes {
    unsigned char *p;
    size_t n;
};

enum result { VALID, INVALID, ACCEPTABLE };

/* One line of a vector file split into `key=value` fields (see reader.c for the format). */
#define MAX_FIELDS 16
struct record {
    char *line;
    int nfields;
    char *key[MAX_FIELDS];
    char *val[MAX_FIELDS];
    long tc_id;            /* test lines only */
    enum result result;    /* test lines only */
};

/* Counts for one check family; every Wycheproof vector lands in exactly one bucket. */
struct run {
    const char *family;
    const char *file;      /* the Wycheproof file being read */
    long valid, invalid, acceptable_accepted, acceptable_rejected;
    long skipped;          /* outside what the Rust tests check either (counted, not run) */
    long errors;           /* vectors whose set-up failed (each also a failure) */
    long failures;
    clock_t started;       /* for the `ms=` field of its count line */
};

/* Lower bounds (valid, invalid, acceptable) on what a family must have checked. */
struct bounds {
    long valid, invalid, acceptable;
};

/* Field access; a missing or malformed field is fatal (the vector file is broken). */
const char *field(const struct record *r, const char *key);
long field_num(const struct record *r, const char *key);
struct bytes field_hex(const struct record *r, const char *key);
void bytes_free(struct bytes *b);
int bytes_eq(const struct bytes *a, const unsigned char *p, size_t n);

/* Bookkeeping. `record_outcome` checks an accept/reject decision against `t->result`. */
void record_outcome(struct run *run, const struct record *t, int accepted);
void fail(struct run *run, long tc_id, const char *fmt, ...);
void set_up_failed(struct run *run, const struct record *t, const char *what);
void skip(struct run *run);
void die(const char *fmt, ...);

/* `driver bench MILLISECONDS`: speed figures, one `bench <name> <value>` line each. */
int bench_all(long milliseconds);

/* Reads `<dir>/<run->family>.txt`, calling `test` for each test line with its group line. */
typedef void (*test_fn)(struct run *run, const struct record *group, const struct record *t);
void read_vectors(const char *dir, struct run *run, test_fn test);
/* Prints the family's `count` line and checks its lower bounds; returns its failures. */
long finish(struct run *run, struct bounds min);

/* Milliseconds of processor time since `since` (clock(): C99, and under qemu the emulated
 * process's own time), the `ms=` field of every family's count line. */
long elapsed_ms(clock_t since);

/* Check families. Each returns its number of failures. `only`: NULL for every Wycheproof
 * family, else a comma-separated list of the ones to check (an unknown name is fatal). */
long wycheproof_all(const char *dir, const char *only);
long kat_all(void);
/* The differential digests of across_paths.rs over `<dir>/digests.txt`. */
long digests_all(const char *dir);
void path_report(void);

/* Shared helpers (wycheproof.c). */
const EVP_MD *md_by_name(const char *name);
void clear_errors(void);
struct bytes hex_decode(const char *hex);

#endif
