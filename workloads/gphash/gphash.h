/* GPHash: a lock-free, log-free persistent hash index driven by YCSB
 * (Chen et al., FAST'25, after GPM). The layout and the one-key state
 * machine are gphash_layout.h; the kernels gphash_kernels.cu; the CPU
 * counterpart gphash_cpu.c; the reference gphash_ref.c. */
#ifndef GPHASH_H
#define GPHASH_H

#include <stddef.h>
#include <stdint.h>

#include "batch_path.h"
#include "gphash_layout.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_tx.h"
#include "ycsb.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { GPH_TABLE, GPH_LOG }; /* the table; the log of the modes that take transactions */
#define GPH_COUNTS 12
/* The undo logging kernel's grid (an HCL slot a thread). */
#define GPH_LOG_BLOCKS 64
#define GPH_LOG_THREADS 256

/* A set of BktCache's entries (gphash_kernels.cu). */
struct gph_cache_set {
    uint32_t *entry;             /* each bucket's entry, or none */
    uint32_t *bucket_of;         /* each entry's bucket, or none */
    uint64_t *state, *key, *ref; /* the entries' slots */
};

struct gph_state {
    struct gph_geom g;
    const struct wl_ycsb_mix *mix;
    uint64_t batch;               /* operations a batch */
    uint64_t load_ops, run_ops;   /* the stream: the load (prepare, untimed), then the run */
    uint64_t load_batches, batches; /* batches of the load, of the whole stream */
    uint8_t *h_op;                /* the stream's operations (GPH_READ ...) */
    uint64_t *h_key;              /* and keys, kw words each */
    uint64_t *h_ans;              /* each operation's answer: sequence number, value fold */
    uint64_t first_checked;       /* answers from this batch on are this process's own */
    double *lat;                  /* the run's batches' wall times */
    double kernel_s;              /* the run's kernels' time, apart from the transfers */
    uint64_t full;                /* inserts that found no free slot */
    uint64_t retries;             /* claims by CAS that another key's insert won */
    uint64_t lookups, hits;       /* buckets looked up, and those the cache served */
    int mirror;                   /* d_table mirrors PM for the lookups (gpm, gpm-eadr) */
    uint64_t key_runs;            /* runs of one key's operations, a lookup each; */
    uint64_t inserts, updates, deletes; /* and the runs' net changes */
    uint64_t cache_entries;       /* BktCache: buckets it holds (0: none) */
    uint64_t cache_every;         /* batches between its loading phases */
    uint64_t cache_loads;         /* loading phases begun, */
    uint64_t cache_swaps;         /* and those whose entries the lookups then read */
    uint64_t cache_refetched;     /* entries fetched again: written while they loaded */
    double cache_load_s;          /* the batches' wait for loading phases */
    int cache_concurrent;         /* --cache-loading concurrent */
    /* GPU modes (device memory): */
    struct wl_pipe pipe;          /* the batches' inputs in, answers out, times */
    struct wl_group group[2];     /* a batch's operations grouped by key, */
    uint32_t *d_fp[2];            /* from each operation's grouping key: a pair each of
                                     the pipe's two buffers, so that a batch is grouped
                                     while the batch before runs */
    uint32_t *d_taken;            /* a batch's positions whose key took its turn (run()), */
    uint64_t stamp;               /* marked with the batch's stamp: one a launch */
    unsigned long long *d_count;  /* the kernels' counts (gphash_kernels.cu), GPH_COUNTS */
    uint8_t *d_table;             /* the table in GPU memory: the mirror lookups read (gpm,
                                     gpm-eadr unless --mirror 0), the copy a transaction's
                                     batch or mode none changes; NULL: lookups read PM */
    unsigned long long *d_lists;  /* a transaction's batch: the changes listed, the deletes */
    void *d_chg, *d_del;          /* (gphash_kernels.cu) */
    /* BktCache (gphash_kernels.cu): two sets of entries, the one lookups
     * read (ACTIVE) and the one a loading phase fills, in turn. */
    struct gph_cache_set set[2];
    int active, loading;          /* LOADING: a phase is filling the other set */
    uint32_t *d_freq, *d_freq_snap, *d_freq_sorted, *d_ids, *d_ids_sorted;
    uint8_t *d_dirty;             /* buckets written since the phase began */
    void *side, *loaded;          /* the phase's stream, and its end's event */
    void *d_cache_tmp;
    size_t cache_tmp_bytes;
    /* cpu mode: */
    struct gph_pair *h_pairs;     /* a batch's fingerprints and places, sorted */
    uint64_t *h_heads;            /* where each run of one fingerprint starts */
};
struct gph_pair {
    uint64_t fp, i;
};

/* Operations in batch B (the last may be short). */
uint64_t gph_batch_ops(const struct gph_state *st, uint64_t b);

/* Kernels (gphash_kernels.cu). */
int gph_gpu_alloc(struct gph_state *st);
/* Zeroes the kernels' counts (full, retries) before a phase. */
int gph_gpu_zero_counts(struct gph_state *st);
void gph_gpu_free(struct gph_state *st);
/* Pins the stream's host arrays for the batches' copies (and unpins). */
int gph_gpu_pin(struct gph_state *st);
void gph_gpu_unpin(struct gph_state *st);
/* Batch B, put in the pipe: lookups read d_table where there is one, else
 * PM (through BktCache where CACHED); stores go to PM (NULL: none) the
 * mode's way (O) and to d_table. D: a transaction's batch, each change
 * given to D's engine, done when it returns (NULL: the kernels' own
 * persists make it durable). DONE: the header's count of batches done after
 * it, stored and persisted by the GPU once the batch's persists returned
 * (0: none). Waits only where WL_PIPE_DEPTH batches are in flight. */
int gph_gpu_batch(struct gph_state *st, uint8_t *pm, uint64_t b, int cached, wl_out o,
                  const wl_txdev *d, uint64_t done);
/* Waits for the batches in flight: their times in lat, kernel_s set. */
int gph_gpu_drain(struct gph_state *st);
/* BktCache: its memory, an empty cache, and a loading phase (the buckets
 * most looked up since the last one, copied from TABLE). */
int gph_gpu_cache_alloc(struct gph_state *st);
void gph_gpu_cache_free(struct gph_state *st);
int gph_gpu_cache_reset(struct gph_state *st);
/* A loading phase: begun on a stream of its own (concurrent), its entries
 * read by lookups once gph_gpu_cache_poll finds it done (the phase before
 * it waited for first, if still running); or (blocking) done and in use
 * when it returns. */
int gph_gpu_cache_load(struct gph_state *st, uint8_t *table);
/* Before a batch: a phase that is done gives the lookups its entries,
 * those written while it loaded fetched again from TABLE first. */
int gph_gpu_cache_poll(struct gph_state *st, uint8_t *table);
/* Waits for a phase still running, and drops it (the run's end). */
int gph_gpu_cache_settle(struct gph_state *st);
/* Recovery: every slot of PM still INSERT back to EMPTY, persisted;
 * *CLEARED counts them and *ITEMS the valid items. */
int gph_gpu_scan(struct gph_state *st, uint8_t *pm, wl_out o, uint64_t *cleared,
                 uint64_t *items);

/* The CPU counterpart (gphash_cpu.c): batch B on the mapping, OpenMP
 * threads taking the runs of one key, persisted with libpmem as the
 * kernels persist; and its recovery scan. */
int gph_cpu_alloc(struct gph_state *st);
int gph_cpu_batch(struct wl_ctx *c, struct gph_state *st, uint64_t b, int timed);
int gph_cpu_scan(struct wl_ctx *c, struct gph_state *st, uint64_t *cleared, uint64_t *items);

/* The reference (gphash_ref.c). */
/* The stream A asks for (wl_ycsb_stream): sets the counts and fills h_op,
 * h_key. */
int gph_make_stream(struct gph_state *st, const struct wl_ycsb_args *a, uint64_t seed);
/* YCSB's 8-byte key of a key's words (its record name's digits for 32-byte
 * keys): 0, or -1 where the words are not a record name. */
int gph_key_number(const uint64_t *words, uint32_t kw, uint64_t *k);
/* Replays the stream in a map of every key's value, checks every answer
 * from batch FIRST on and then TABLE (the region's bytes) against the map:
 * every valid slot a key present once, its fingerprint and its whole value
 * right, and every key present in a slot. 0, or 1 with a message naming the
 * first difference (a wrong answer first), or -1. Adds to W (NULL: not
 * wanted) the keys present in the reference and the slots that hold another
 * (a key absent, not a record name, held twice, or a claim left), and those
 * not held rightly once: missing, of another value or fingerprint, or
 * such a slot. */
int gph_check(const struct gph_state *st, const uint8_t *table, uint64_t first,
              struct wl_wrong *w);

#ifdef __cplusplus
}
#endif

#endif
