/* A minimal test framework for the suite's C and CUDA tests.
 *
 * Each test binary runs named cases; each case prints "ok - NAME" or
 * "not ok - NAME: FILE:LINE: what failed". scripts/run-tests.sh counts these
 * lines across all binaries. A case that finds no GPU where it needs one
 * prints "skip - NAME: why" and counts as neither. */
#ifndef GPM_CHECK_H
#define GPM_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int check_case_failed;
static int check_any_failed;

/* Fails the current case with a message and returns from the case function. */
#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            check_fail(__FILE__, __LINE__, "%s", #cond);                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

#define CHECKF(cond, ...)                                                              \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            check_fail(__FILE__, __LINE__, __VA_ARGS__);                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* Each side is evaluated once (a side may run a program). */
#define CHECK_EQ_INT(a, b)                                                             \
    do {                                                                               \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                \
        CHECKF(check_a_ == check_b_, "%s == %s (%lld vs %lld)", #a, #b, check_a_,       \
               check_b_);                                                              \
    } while (0)

/* CHECK that an error message contains NEEDLE. */
#define CHECK_MSG(msg, needle)                                                         \
    CHECKF(strstr((msg), (needle)) != NULL, "message \"%s\" lacks \"%s\"", (msg), (needle))

static char check_msg[1024];

static void check_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#include <stdarg.h>
static void check_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(check_msg, sizeof check_msg, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vsnprintf(check_msg + n, sizeof check_msg - (size_t)n, fmt, ap);
    va_end(ap);
    check_case_failed = 1;
}

static int check_skipped;
static char check_skip_why[256];

/* Marks the current case skipped (e.g. no GPU) and returns from it. */
#define SKIP(why)                                                                      \
    do {                                                                               \
        check_skipped = 1;                                                             \
        snprintf(check_skip_why, sizeof check_skip_why, "%s", (why));                  \
        return;                                                                        \
    } while (0)

#define RUN(fn)                                                                        \
    do {                                                                               \
        check_case_failed = 0;                                                         \
        check_skipped = 0;                                                             \
        fn();                                                                          \
        if (check_skipped)                                                             \
            printf("skip - %s: %s\n", #fn, check_skip_why);                            \
        else if (check_case_failed) {                                                  \
            printf("not ok - %s: %s\n", #fn, check_msg);                               \
            check_any_failed = 1;                                                      \
        } else                                                                         \
            printf("ok - %s\n", #fn);                                                  \
        fflush(stdout);                                                                \
    } while (0)

#define CHECK_EXIT() return check_any_failed ? 1 : 0

/* A fixed-seed xorshift stream for fuzz-style tests: every run corrupts
 * the same bytes, so a failure can be replayed. */
static uint64_t check_rand_state = 0x2545f4914f6cdd1dull;
static inline uint64_t check_rand(void)
{
    check_rand_state ^= check_rand_state << 13;
    check_rand_state ^= check_rand_state >> 7;
    check_rand_state ^= check_rand_state << 17;
    return check_rand_state;
}

/* A byte pattern of SEED over P[0..N), and whether P still holds it: for
 * tests that check a persist left every byte as written. */
static inline void check_fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed);
}

static inline int check_same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(i * 31 + seed))
            return 0;
    return 1;
}

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole file at PATH, read with read() (not through any mapping), in a
 * malloc'd buffer with one spare byte; *LEN gets its size. NULL when it
 * cannot be opened or read whole. */
static inline unsigned char *check_read_file(const char *path, size_t *len)
{
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    int fd = open(path, O_RDONLY);
    *len = 0;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0)
        buf = (unsigned char *)malloc((size_t)st.st_size + 1);
    while (buf && got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (buf && got != (size_t)st.st_size) {
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

/* Writes TEXT as the whole file at PATH (made or emptied first): 0, or -1
 * when it cannot be written. */
static inline int check_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

#endif
