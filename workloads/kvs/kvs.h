/* gpKVS: a persistent key-value store after MegaKV, updated in batches of
 * failure-atomic transactions (paper sections 4.1 and 6.1). */
#ifndef KVS_H
#define KVS_H

#include <stddef.h>
#include <stdint.h>

#include "batch_path.h"
#include "kvs_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_tx.h"
#include "ycsb.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KVS_TABLE, KVS_LOG }; /* the PM objects */
enum { KVS_OP_SET, KVS_OP_GET_SET, KVS_OP_YCSB };

/* The logging grid: the apply kernel runs with the log's HCL geometry, one
 * group of 8 lanes per run of a set's SETs; the CPU counterpart's threads
 * use slots 0..KVS_CPU_SLOTS-1. */
#define KVS_LOG_BLOCKS 256
#define KVS_LOG_THREADS 256
#define KVS_CPU_SLOTS 128
/* Batches whose times (events) are kept at once: a batch's are read when
 * its slot comes round again or when the batches end, so the host runs at
 * most this many batches ahead of the GPU where it waits for none. */
#define KVS_RING 16
enum { KVS_EV_GROUP0, KVS_EV_GROUP, KVS_EV_BEGIN, KVS_EV_GETS, KVS_EV_APPLY, KVS_EVS };

struct kvs_state {
    uint64_t nsets, n, batches, keyspace;
    uint32_t set_pct;        /* 100 (set) or 5 (get-set); --op ycsb: 0 */
    uint64_t load_batches;   /* --op ycsb: the load's batches, before the run (prepare()) */
    uint64_t load_ops, run_ops;
    uint64_t *h_keys;        /* every batch's keys, batch-major */
    uint8_t *h_op;           /* and operations (KVS_GET, KVS_SET, both, or KVS_NOP) */
    uint64_t *h_nsetops;     /* SETs in each batch */
    uint64_t *h_ngets;       /* GETs in each batch */
    double *lat;             /* each batch's latency (see kvs.c's batches()) */
    uint64_t *digest;        /* the GET digest of each batch this process ran */
    uint64_t first_batch;    /* the first batch this process ran (after a recovery) */
    int cpu_slots;           /* cpu mode: log slots, and so the most threads */
    /* GPU modes (device memory): */
    uint64_t *d_keys;
    uint8_t *d_op;
    kvs_set *d_table;        /* the table's device copy: serves GETs, mirrors PM */
    uint32_t *d_sets[2];     /* a batch's grouping keys (kvs_group_bits), */
    int group_bits;
    struct wl_group group[2]; /* and its SETs grouped by set: a pair, so that the next
                                 batch is grouped while this one's SETs apply */
    void *group_stream;      /* cudaStream_t: the groupings */
    uint64_t grouped;        /* the last batch whose grouping is queued (UINT64_MAX: none) */
    unsigned long long *d_digest; /* every batch's GET digest, copied back once */
    unsigned long long *d_pm; /* pairs the kernels stored to PM, and their bytes */
    void *stream;            /* cudaStream_t: every batch's GETs and SETs, in order */
    void *ev[KVS_RING][KVS_EVS]; /* cudaEvent_t: a batch's grouping's start and end, its
                                    begin and its phases' ends */
    uint64_t ev_batch[KVS_RING]; /* the batch each slot times, */
    int ev_busy[KVS_RING];       /* and whether its times are still to be read */
    int lat_gpu;             /* lat from the events: the engine waits for no batch */
    double gets_s, sort_s, apply_s; /* the batches' kernels, phase by phase (sort_s: the
                                       grouping, beside the batch before) */
    uint64_t pm_records, pm_record_bytes; /* d_pm, after the batches */
    /* cpu mode: */
    uint32_t *h_sets, *h_idx, *h_tmp_sets, *h_tmp_idx;
    /* cpu mode with --store pmemobj|rocksdb (Figure 1a): */
    const struct kvs_store_ops *store;
    void *store_priv;
    kvs_set *store_table;    /* pmemobj: the table in the pool (gpKVS's layout) */
};

/* Figure 1a's other CPU stores, fed the same batches as gpKVS's CPU
 * counterpart (kvs_pmemobj.c, kvs_rocksdb.c). */
struct kvs_store_ops {
    const char *name;
    const char *atomic;   /* what one transaction covers, for the row */
    int (*open)(struct wl_ctx *c, struct kvs_state *st);  /* setup() */
    int (*reset)(struct wl_ctx *c, struct kvs_state *st); /* prepare(): an empty store */
    /* Batch B: its GETs' digest, then its SETs, durable when it returns. */
    int (*batch)(struct wl_ctx *c, struct kvs_state *st, uint64_t b, uint64_t *digest);
    /* 0, or 1 with a message; NULL: store_table is compared with gpKVS's
     * reference. */
    int (*verify)(struct wl_ctx *c, struct kvs_state *st);
    void (*close)(struct kvs_state *st);
};
extern const struct kvs_store_ops kvs_pmemobj_store, kvs_rocksdb_store;

/* Host side (kvs_ref.c). */
/* Every batch's keys, uniform over KEYSPACE keys or Zipfian with THETA,
 * and its operations (SET_PCT of them SETs). */
int kvs_gen_keys(struct kvs_state *st, uint64_t seed, double theta);
/* Every batch's keys and operations from the YCSB stream Y (its load, then
 * its run from batch load_batches on): a read is a GET, an update or an
 * insert a SET, a read-modify-write both; a short batch is padded with
 * KVS_NOP. */
int kvs_gen_ycsb(struct kvs_state *st, struct wl_ycsb_stream *y);
/* Its sizes alone, for N operations a batch: load_ops, run_ops,
 * load_batches and batches (the load's and the run's). */
void kvs_size_ycsb(struct kvs_state *st, const struct wl_ycsb_stream *y);
/* Frees what either made. */
void kvs_free_stream(struct kvs_state *st);
/* YCSB's 8-byte key as gpKVS's: never 0 (the free mark), distinct for
 * distinct keys, and its top three bits (the victim way) spread. */
uint64_t kvs_ycsb_key(uint64_t key);
/* The SETs of batch B sorted by set, stable: SETS[k] and IDX[k] for k < the
 * batch's SET count (TMP_*: scratch of N each). */
void kvs_sort_host(const struct kvs_state *st, uint64_t b, uint32_t *sets, uint32_t *idx,
                   uint32_t *tmp_sets, uint32_t *tmp_idx);
/* The digest of batch B's GETs read from TABLE as it is. */
uint64_t kvs_gets_digest(const struct kvs_state *st, uint64_t b, const kvs_set *table);
/* Applies batch B to TABLE as the reference does (no logging, no persist),
 * returning its GET digest. */
uint64_t kvs_ref_batch(const struct kvs_state *st, uint64_t seed, uint64_t b, kvs_set *table);
/* The CPU counterpart's batch B on the PM table (OpenMP): its GET digest,
 * then its SETs, each way's old pair logged before it changes (wl_tx_*). */
int kvs_cpu_apply(struct wl_ctx *c, struct kvs_state *st, uint64_t b, uint64_t *digest);
/* Every set of TABLE holds each key at most once: 0, or 1 with a message. */
int kvs_check_unique(const kvs_set *table, uint64_t nsets);
/* The measure of verify: adds to W the keys either table holds (the
 * reference REF's, and those TABLE holds besides or twice) and those that
 * are wrong: missing from TABLE's set, holding another value there, or not
 * the reference's (a stray or second copy). */
void kvs_count_wrong_keys(const kvs_set *table, const kvs_set *ref, uint64_t nsets,
                          struct wl_wrong *w);

/* The GPU's batch path (kvs_kernels.cu). Not thread-safe: one host thread
 * drives it. */
/* The stream, events, grouping and counters, after d_keys and d_op; every
 * batch's digest zeroed. kvs_gpu_free frees what it made (and is safe on
 * what it did not). */
int kvs_gpu_alloc(struct kvs_state *st);
void kvs_gpu_free(struct kvs_state *st);
/* Before batches: their phase times and the PM counters from zero. */
int kvs_gpu_start(struct kvs_state *st);
/* Queues batch B on st->stream and returns without waiting: its GETs read
 * the device table as it is into the batch's digest (and its grouping keys
 * are made), its SETs are grouped by set (stable), then applied as a
 * transaction's batch (wl_tx_undo before each changed way, wl_tx_changed
 * after, and the store to D->pm where the mode has one). */
int kvs_gpu_batch(struct kvs_state *st, uint64_t seed, uint64_t b, const wl_txdev *d);
/* After batches FROM..TO-1: waits for them, reads every time still to be
 * read (lat from the events where lat_gpu), and copies back their digests
 * into st->digest and the PM counters. */
int kvs_gpu_finish(struct kvs_state *st, uint64_t from, uint64_t to);

#ifdef __cplusplus
}
#endif

#endif
