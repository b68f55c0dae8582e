/*
 * Vector files and bookkeeping. xtask/src/driver/vectors.rs writes one file per check family,
 * `<family>.txt`, in this line format (values never contain spaces):
 *
 *   # comment
 *   file <name> <number of tests the Wycheproof file declares>
 *   group <key>=<value> ...
 *   test <tcId> valid|invalid|acceptable <key>=<value> ...
 *   end
 *
 * Byte strings are lower-case hex (empty for no bytes), numbers decimal, digests by their
 * Wycheproof names. A test belongs to the last group line before it.
 */
#include "driver.h"

#include <openssl/err.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failure lines printed per family; the rest are only counted (a broken build fails them all). */
#define MAX_PRINTED_FAILURES 30

void die(const char *fmt, ...)
{
    va_list ap;
    fputs("FATAL ", stdout);
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
    fputs("\nresult FAIL\n", stdout);
    fflush(stdout);
    exit(2);
}

void clear_errors(void)
{
    ERR_clear_error();
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

struct bytes hex_decode(const char *hex)
{
    size_t len = strlen(hex), i;
    struct bytes b;
    if (len % 2 != 0)
        die("odd-length hex string: %.40s", hex);
    b.n = len / 2;
    b.p = malloc(b.n + 1);
    if (b.p == NULL)
        die("out of memory");
    for (i = 0; i < b.n; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            die("bad hex digit in: %.40s", hex);
        b.p[i] = (unsigned char)(hi << 4 | lo);
    }
    return b;
}

void bytes_free(struct bytes *b)
{
    free(b->p);
    b->p = NULL;
    b->n = 0;
}

int bytes_eq(const struct bytes *a, const unsigned char *p, size_t n)
{
    return a->n == n && (n == 0 || memcmp(a->p, p, n) == 0);
}

const char *field(const struct record *r, const char *key)
{
    int i;
    for (i = 0; i < r->nfields; i++)
        if (strcmp(r->key[i], key) == 0)
            return r->val[i];
    die("vector line lacks `%s`: %.80s", key, r->line);
    return NULL;
}

long field_num(const struct record *r, const char *key)
{
    const char *v = field(r, key);
    char *end;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || *end != '\0')
        die("`%s` is not a number: %.80s", key, v);
    return n;
}

struct bytes field_hex(const struct record *r, const char *key)
{
    return hex_decode(field(r, key));
}

/* Reads one line of any length into *buf (grown as needed); 0 at end of file. */
static int read_line(FILE *f, char **buf, size_t *cap)
{
    size_t len = 0;
    if (*buf == NULL) {
        *cap = 4096;
        if ((*buf = malloc(*cap)) == NULL)
            die("out of memory");
    }
    for (;;) {
        if (fgets(*buf + len, (int)(*cap - len), f) == NULL)
            return len > 0;
        len += strlen(*buf + len);
        if (len > 0 && (*buf)[len - 1] == '\n') {
            (*buf)[len - 1] = '\0';
            return 1;
        }
        *cap *= 2;
        if ((*buf = realloc(*buf, *cap)) == NULL)
            die("out of memory");
    }
}

/* Splits `line` in place: the first `positional` words, then `key=value` fields. */
static int split(char *line, struct record *r, char **words, int positional)
{
    char *tok = strtok(line, " ");
    int i;
    r->nfields = 0;
    for (i = 0; i < positional; i++) {
        if (tok == NULL)
            return 0;
        words[i] = tok;
        tok = strtok(NULL, " ");
    }
    for (; tok != NULL; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        if (eq == NULL || r->nfields == MAX_FIELDS)
            return 0;
        *eq = '\0';
        r->key[r->nfields] = tok;
        r->val[r->nfields++] = eq + 1;
    }
    return 1;
}

static enum result parse_result(const char *s, const char *line)
{
    if (strcmp(s, "valid") == 0)
        return VALID;
    if (strcmp(s, "invalid") == 0)
        return INVALID;
    if (strcmp(s, "acceptable") == 0)
        return ACCEPTABLE;
    die("unknown result `%s`: %.80s", s, line);
    return INVALID;
}

static long visited(const struct run *run)
{
    return run->valid + run->invalid + run->acceptable_accepted + run->acceptable_rejected +
           run->skipped + run->errors;
}

/* State of one pass over a vector file. */
struct reader {
    const char *path;
    long lineno;
    char file_name[128];
    long declared;   /* the Wycheproof file's own test count; -1 outside a file */
    long before;     /* vectors visited before this file */
    char *group;     /* the current group line (a copy; split again for each test) */
};

static void begin_file(struct reader *rd, struct run *run, char *line)
{
    char *words[3];
    struct record r;
    char *end;
    if (rd->declared >= 0 || !split(line, &r, words, 3))
        die("%s:%ld: bad `file` line", rd->path, rd->lineno);
    if (strlen(words[1]) >= sizeof rd->file_name)
        die("%s:%ld: file name too long", rd->path, rd->lineno);
    strcpy(rd->file_name, words[1]);
    rd->declared = strtol(words[2], &end, 10);
    if (*end != '\0' || rd->declared < 0)
        die("%s:%ld: bad test count", rd->path, rd->lineno);
    rd->before = visited(run);
    run->file = rd->file_name;
}

static void end_file(struct reader *rd, struct run *run)
{
    long seen = visited(run) - rd->before;
    if (rd->declared < 0)
        die("%s:%ld: `end` outside a file", rd->path, rd->lineno);
    if (seen != rd->declared)
        fail(run, -1, "visited %ld of the %ld vectors the file declares", seen, rd->declared);
    rd->declared = -1;
    free(rd->group);
    rd->group = NULL;
}

static void one_test(struct reader *rd, struct run *run, char *line, test_fn test)
{
    char *words[3], *gwords[1], *gcopy, *end;
    struct record t, g;
    if (rd->declared < 0 || rd->group == NULL || !split(line, &t, words, 3))
        die("%s:%ld: bad `test` line (or no group before it)", rd->path, rd->lineno);
    t.line = words[0];
    t.tc_id = strtol(words[1], &end, 10);
    if (*end != '\0')
        die("%s:%ld: bad tcId", rd->path, rd->lineno);
    t.result = parse_result(words[2], rd->path);
    if ((gcopy = malloc(strlen(rd->group) + 1)) == NULL)
        die("out of memory");
    strcpy(gcopy, rd->group);
    if (!split(gcopy, &g, gwords, 1))
        die("%s: bad `group` line before line %ld", rd->path, rd->lineno);
    g.line = rd->group;
    test(run, &g, &t);
    clear_errors();
    free(gcopy);
}

void read_vectors(const char *dir, struct run *run, test_fn test)
{
    struct reader rd = { NULL, 0, "", -1, 0, NULL };
    char *path, *buf = NULL;
    size_t cap = 0;
    FILE *f;
    if ((path = malloc(strlen(dir) + strlen(run->family) + 8)) == NULL)
        die("out of memory");
    sprintf(path, "%s/%s.txt", dir, run->family);
    rd.path = path;
    if ((f = fopen(path, "r")) == NULL)
        die("cannot open %s (written by xtask/src/driver/vectors.rs)", path);
    while (read_line(f, &buf, &cap)) {
        rd.lineno++;
        if (buf[0] == '#' || buf[0] == '\0')
            continue;
        if (strncmp(buf, "file ", 5) == 0) {
            begin_file(&rd, run, buf);
        } else if (strncmp(buf, "group", 5) == 0 && (buf[5] == ' ' || buf[5] == '\0')) {
            free(rd.group);
            if ((rd.group = malloc(strlen(buf) + 1)) == NULL)
                die("out of memory");
            strcpy(rd.group, buf);
        } else if (strncmp(buf, "test ", 5) == 0) {
            one_test(&rd, run, buf, test);
        } else if (strcmp(buf, "end") == 0) {
            end_file(&rd, run);
        } else {
            die("%s:%ld: unknown line: %.40s", path, rd.lineno, buf);
        }
    }
    if (ferror(f) || rd.declared >= 0)
        die("%s: read error or truncated file (no `end` after `file %s`)", path, rd.file_name);
    fclose(f);
    free(buf);
    free(path);
    run->file = "(all files)";
}

void fail(struct run *run, long tc_id, const char *fmt, ...)
{
    va_list ap;
    if (++run->failures > MAX_PRINTED_FAILURES) {
        if (run->failures == MAX_PRINTED_FAILURES + 1)
            printf("FAIL %s: more failures, counted but not printed\n", run->family);
        return;
    }
    if (tc_id >= 0)
        printf("FAIL %s: %s tcId %ld: ", run->family, run->file, tc_id);
    else
        printf("FAIL %s: %s: ", run->family, run->file);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

void record_outcome(struct run *run, const struct record *t, int accepted)
{
    static const char *names[] = { "valid", "invalid", "acceptable" };
    int bad = 0;
    switch (t->result) {
    case VALID:
        run->valid++;
        bad = !accepted;
        break;
    case INVALID:
        run->invalid++;
        bad = accepted;
        break;
    case ACCEPTABLE:
        if (accepted)
            run->acceptable_accepted++;
        else
            run->acceptable_rejected++;
        break;
    }
    if (bad)
        fail(run, t->tc_id, "expected %s, got %s", names[t->result],
             accepted ? "accepted" : "rejected");
}

void set_up_failed(struct run *run, const struct record *t, const char *what)
{
    run->errors++;
    fail(run, t->tc_id, "%s failed", what);
}

void skip(struct run *run)
{
    run->skipped++;
}

long elapsed_ms(clock_t since)
{
    return (long)((double)(clock() - since) * 1000.0 / CLOCKS_PER_SEC);
}

long finish(struct run *run, struct bounds min)
{
    long acceptable = run->acceptable_accepted + run->acceptable_rejected;
    if (run->valid < min.valid)
        fail(run, -1, "only %ld valid vectors checked, expected at least %ld", run->valid,
             min.valid);
    if (run->invalid < min.invalid)
        fail(run, -1, "only %ld invalid vectors checked, expected at least %ld", run->invalid,
             min.invalid);
    if (acceptable < min.acceptable)
        fail(run, -1, "only %ld acceptable vectors checked, expected at least %ld", acceptable,
             min.acceptable);
    printf("count %s valid=%ld invalid=%ld acceptable_accepted=%ld acceptable_rejected=%ld "
           "skipped=%ld errors=%ld failures=%ld ms=%ld\n",
           run->family, run->valid, run->invalid, run->acceptable_accepted,
           run->acceptable_rejected, run->skipped, run->errors, run->failures,
           elapsed_ms(run->started));
    return run->failures;
}
