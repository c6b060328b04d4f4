/* YCSB's operations for the key-value workloads: its core workloads
 * (LOAD, A, B, C, D, F) and micro-benchmarks, drawn as YCSB's CoreWorkload
 * draws them, so that gpKVS and GPHash run the same work; and YCSB's own
 * traces, so that users can feed real YCSB output.
 *
 * A key is YCSB's: key number K (0, 1, ... in insert order) becomes the
 * record "user" followed by the decimal digits of FNV-1a-64 of K's eight
 * bytes, made non-negative (YCSB's hashed inserts). Those 64 bits are the
 * 8-byte key; the name, zero-padded, the 32-byte key. The first key a load
 * inserts is user6284781860667377211. */
#ifndef WL_YCSB_H
#define WL_YCSB_H

#include <stddef.h>
#include <stdint.h>

#include "zipf.h"

#ifdef __cplusplus
extern "C" {
#endif

enum wl_ycsb_op { WL_YCSB_READ, WL_YCSB_UPDATE, WL_YCSB_INSERT, WL_YCSB_RMW, WL_YCSB_DELETE,
                  WL_YCSB_NOPS };
/* How read, update, read-modify-write and delete pick their key: YCSB's
 * scrambled Zipfian, uniform over the keys inserted, or the latest
 * inserted most often (workload D). Inserts always take the next key. */
enum wl_ycsb_dist { WL_YCSB_ZIPFIAN, WL_YCSB_UNIFORM, WL_YCSB_LATEST };

struct wl_ycsb_mix {
    const char *name;
    const char *about;
    double p[WL_YCSB_NOPS]; /* each operation's proportion */
    enum wl_ycsb_dist dist;
    int miss;               /* reads of keys never inserted (a negative search) */
};

/* The workload NAME: load, a, b, c, d, f (YCSB's core workloads; E scans,
 * which no store here does), or the micro-benchmarks search, search-miss,
 * insert, update, delete. NULL with the message set (naming them all). */
const struct wl_ycsb_mix *wl_ycsb_mix(const char *name);
/* The names, comma-separated, for help and error text. */
const char *wl_ycsb_mix_names(void);

struct wl_ycsb {
    const struct wl_ycsb_mix *mix;
    enum wl_ycsb_dist dist;
    uint64_t records;  /* keys loaded before the run */
    uint64_t inserted; /* keys inserted so far: the next insert's key number */
    uint64_t seed, pos, deleted;
    uint64_t stride;     /* deletes: prime to RECORDS, so that K * STRIDE visits each key */
    struct wl_zipf zipf; /* zipfian: over 10^10 items (scrambled); latest: over inserted */
};

/* A stream of MIX's operations after a load of RECORDS keys (the load
 * itself: RECORDS = 0), its keys drawn with DIST (MIX's own unless
 * overridden: WL_YCSB_UNIFORM for a uniform A, say; -1: MIX's) and Zipfian
 * skew THETA (YCSB's 0.99). The same SEED gives the same stream. 0, or -1
 * with the message set. */
int wl_ycsb_init(struct wl_ycsb *y, const struct wl_ycsb_mix *mix, int dist, uint64_t records,
                 double theta, uint64_t seed);
/* The next operation and its key. */
void wl_ycsb_next(struct wl_ycsb *y, enum wl_ycsb_op *op, uint64_t *key);

/* YCSB's key of key number K. */
uint64_t wl_ycsb_key(uint64_t k);
/* KEY's record name, "user" and its digits, NUL-padded to LEN bytes (32:
 * a 32-byte key); -1 where it does not fit in LEN. */
int wl_ycsb_key_name(uint64_t key, char *out, size_t len);

/* YCSB's own trace: the lines its basic binding prints with
 * -p basicdb.verbose=true (READ, UPDATE, INSERT and DELETE TABLE KEY
 * [...]); other lines (properties, status) are skipped. A read-modify-
 * write is its READ and its UPDATE. KEY must be YCSB's user<digits>: the
 * digits are the 8-byte key. */
struct wl_ycsb_trace {
    uint8_t *op;  /* enum wl_ycsb_op */
    uint64_t *key;
    uint64_t n;
};
/* 0, or -1 with a message naming PATH and the line (SCAN, a key of
 * another form, an unreadable file, no operation at all). */
int wl_ycsb_trace_read(struct wl_ycsb_trace *t, const char *path);
void wl_ycsb_trace_free(struct wl_ycsb_trace *t);

/* ---- A workload's whole stream (ycsb_stream.c) ---- */

/* The parameters of a YCSB-driven workload: a descriptor lists
 * WL_YCSB_PARAMS among its own, beside its --zipf and --batch. */
#define WL_YCSB_PARAMS                                                                    \
    {.flag = "workload", .help = "the YCSB workload: load, a, b, c, d, f, or a "           \
     "micro-benchmark: search, search-miss, insert, update, delete", .type = WL_STR,      \
     .sscale = {"a", "a", "a"}},                                                          \
    {.flag = "records", .help = "keys loaded before the run", .sizes = 1,                 \
     .scale = {16384, 1 << 20, 16 << 20}, .min = 1, .max = 1ll << 31},                    \
    {.flag = "ops", .help = "operations of the run (--workload load: the load is the run)", \
     .sizes = 1, .scale = {32768, 4 << 20, 64 << 20}, .min = 1, .max = 1ll << 31},        \
    {.flag = "dist", .help = "how reads and writes pick keys: mix (the workload's own), "  \
     "zipfian, uniform or latest", .type = WL_STR, .sscale = {"mix", "mix", "mix"}},      \
    {.flag = "ycsb-trace", .help = "none, or a trace of YCSB's run (its basic binding's "  \
     "verbose output) that replaces the generated run", .type = WL_STR,                   \
     .sscale = {"none", "none", "none"}}

/* What those parameters ask for. */
struct wl_ycsb_args {
    const struct wl_ycsb_mix *mix;
    int dist;              /* enum wl_ycsb_dist, or -1: the mix's own */
    uint64_t records, ops;
    double theta;          /* the Zipfian skew */
    const char *trace;     /* NULL: the generated run */
};
struct wl_ctx;
/* Reads them from C's parameters, with Zipfian skew THETA: 0, or -1 with a
 * message naming the flag. */
int wl_ycsb_args(const struct wl_ctx *c, double theta, struct wl_ycsb_args *a);

/* The stream: the load (inserts of key numbers 0, 1, ... as YCSB's load,
 * so that a trace of YCSB's run reads its keys), then the run (the mix's
 * operations, or the trace's). For --workload load without a trace the
 * load is the run and nothing comes before it. */
struct wl_ycsb_stream {
    struct wl_ycsb_args a;
    uint64_t seed;
    uint64_t load, run;    /* operations before the run (untimed), and of the run */
    uint64_t keys;         /* most keys it inserts (a generated run's: its expected share, + 1) */
    struct wl_ycsb_trace t;
};
/* 0, or -1 with the message set (an unreadable trace, a skew out of range,
 * a run that reads keys with nothing loaded). */
int wl_ycsb_stream_open(struct wl_ycsb_stream *s, const struct wl_ycsb_args *a, uint64_t seed);
/* Calls PUT for operations 0 .. load + run - 1 in order: its operation and
 * its 8-byte key (wl_ycsb_key of its key number). */
void wl_ycsb_stream_fill(struct wl_ycsb_stream *s,
                         void (*put)(void *arg, uint64_t i, enum wl_ycsb_op op, uint64_t key),
                         void *arg);
void wl_ycsb_stream_close(struct wl_ycsb_stream *s);

#ifdef __cplusplus
}
#endif

#endif
