/* Inside the harness: what driver.c, objects.c, persist.c and the rest share
 * and workloads do not see. */
#ifndef WL_HARNESS_H
#define WL_HARNESS_H

#include "gpm/run_id.h"
#include "wl.h"
#include "wl_dev.h"
#include "wl_check.h"
#include "wl_steps.h"
#include "wl_tx.h"

/* The run identity's format (libgpm) holds every object and mode. */
typedef char wl_run_id_fits[WL_MAX_OBJECTS <= GPM_RUN_ID_MAX_OBJECTS &&
                                    WL_MAX_MODES <= GPM_RUN_ID_MAX_MODES
                                ? 1
                                : -1];

#ifdef __cplusplus
extern "C" {
#endif

/* One PM object at run time: c->h->obj[i], i its index in the declaration. */
struct wl_obj {
    const char *name;
    enum wl_obj_kind kind;
    /* Sizes, set by layout() through wl_obj_region/checkpoint/log_*: */
    size_t bytes;          /* region: the file's size; checkpoint, log: data capacity */
    int nbuf;              /* checkpoint: registrations */
    uint32_t log_kind;     /* GPMLOG_HCL | GPMLOG_CONV */
    int log_parts, log_blocks, log_threads;
    /* Set up by the harness: */
    char path[4096];
    size_t file_bytes;     /* the file's size */
    int lock_fd;
    int created;           /* this run created the file */
    gpm_region region;     /* region: the mapping (host-only where the mode says) */
    gpm_cap_file cf;       /* region in cap-fs mode: the same file, for pwrite */
    int cf_open;
    void *dev_copy;        /* region, where kernels write device memory: the copy they
                              write (wl_dev_region) */
    void *shadow;          /* region in mode none: the device copy its commits snapshot */
    gpm_range *shadow_v;   /* and the ranges they put there since the last verification copy */
    int shadow_n, shadow_cap;
    gpmcp *cp;             /* checkpoint */
    int ncp;               /* checkpoint: buffers registered so far */
    size_t cp_bytes;       /* checkpoint: their bytes */
    void *rec, *rec_dev;   /* checkpoint: its record on the host, and staged on the GPU */
    struct wl_cp_snap *snap; /* checkpoint whose copy overlaps the next steps (wl_cp_start):
                                each registered buffer's device snapshot, which gpmcp copies */
    void *side;            /* and the stream (cudaStream_t) the copy runs on */
    struct wl_cp_pace *pace; /* and its block count's pacing (not with --cp-blocks) */
    int pending;           /* a copy started and not finished */
    size_t rec_size;
    gpmlog log;            /* log */
    int log_open;
    struct wl_tx_state *tx; /* a transactional log (WL_OBJ_TX): its batches (tx.c) */
};

struct wl_live;

/* --kill WHEN, parsed once (cli.c, whose usage says what each does). */
enum wl_kill_kind { WL_KILL_NONE, WL_KILL_TIME, WL_KILL_RANDOM, WL_KILL_PROGRESS,
                    WL_KILL_AFTER_PROGRESS, WL_KILL_COMMIT };
struct wl_kill {
    enum wl_kill_kind kind; /* time:S, random, progress:K, after-progress:S[@K], commit:N */
    double seconds;         /* S */
    long long unit, commit; /* K (0: none), N */
};

struct wl_opts {
    enum wl_mode mode;
    int op;                 /* index into the workload's ops (0 where it has none) */
    enum wl_scale scale;    /* the base scale (default small) */
    int custom;             /* a size flag overrode it: the row says "custom" */
    struct wl_value val[WL_MAX_PARAMS];
    int given[WL_MAX_PARAMS];
    int reps;
    const char *pm_dir;     /* NULL: GPM_PM_DIR or its default */
    int cpu_threads;        /* 0: best (calibrated) or, in cpu mode, every core */
    int cp_blocks;          /* --cp-blocks: the overlapping checkpoint copy's blocks (0: paced) */
    int sbrp;               /* --persistency sbrp (1; epoch 0): the kernels' SBRP variant */
    int recover;
    struct wl_kill kill;    /* --kill WHEN */
    unsigned long long seed;
    const char *out;        /* append rows here; NULL: stdout */
    int keep;               /* keep the PM files after a successful run */
    int progress_times;     /* note when the first and the last unit became durable */
    const char *trace;      /* record the run's PM stores and persist points here
                               (gpm/trace.h: what gpm-check reads); NULL: none */
    unsigned long long log_room, log_room_from; /* --log-room (tests): from batch
                                                   log_room_from on, a batch's undo log
                                                   holds log_room records (0: no limit) */
};

/* The harness's part of a run's context (c->h): what workloads do not see. */
struct wl_harness {
    struct wl_opts opt;      /* the command line (workloads: wl_seed, wl_op_index, ...) */
    int nobj;
    struct wl_obj obj[WL_MAX_OBJECTS];
    gpm_flusher *flusher;    /* CPU flush threads (gpm-ndp, cap-mm, cap-eadr) */
    char threads_how[32];    /* "best:8", "8", "all:16" */
    char gds_way[96];        /* cap-gds: how cuFile wrote ("gds", "compat:tmpfs", ...) */
    char setup_note[160];    /* "k=v" of choices made once in setup (wl_cap_chunk), in
                                every row */
    char *note;              /* extra "k=v" for the params column (wl_note, which grows
                                it); emptied before every repetition */
    size_t note_cap;
    uint64_t check_digest[3]; /* wl_check_digest: the two sums and the words so far */
    struct wl_live *live;    /* the counters during timed work (progress.c) */
};

/* A commit engine: one row of the mode table names one. */
struct wl_commit_engine {
    const char *name;
    const char *about;   /* what it does, for messages: "its output goes through pwrite" */
    int nothing_durable; /* mode none: commits are copies for verification, out of the time */
    int copies;          /* it copies device memory to PM (CAP): what --cap-chunk best times */
    int fence_only;      /* its CPU makes copies durable by a fence, not flushes (eADR) */
    int files;           /* it writes the file through the file system, not the mapping, */
    int file_flags;      /* opened with these gpm_cap_file_open flags (GPM_CAP_GDS) */
    /* wl_commit of the checked ranges V[0..N) of region O (the caller counts
     * their bytes). NULL: nothing to do (the kernels persisted and counted). */
    int (*commit)(struct wl_ctx *c, struct wl_obj *o, const gpm_range *v, int n,
                  const char *site);
    /* Optional: 0 where it cannot run here, and WHY (LEN bytes; NULL: none) says so. */
    int (*usable)(char *why, size_t len);
    /* Optional: each timed piece of work ends with it, inside the time; and
     * after each that succeeded, untimed. */
    int (*work_end)(struct wl_ctx *c);
    int (*after_work)(struct wl_ctx *c);
};
extern const struct wl_commit_engine wl_commit_kernels, wl_commit_flush, wl_commit_cap_mm,
    wl_commit_cap_eadr, wl_commit_cap_fs, wl_commit_cap_gds, wl_commit_volatile;

/* A transaction engine: one row of the mode table names one. */
struct wl_tx_engine {
    const char *name;       /* the row's tx= */
    int atomic;             /* committed batches survive a crash, and recovery undoes the rest */
    int in_flight;          /* its batch returns without waiting for APPLY's kernels */
    enum wl_obj_kind log;   /* what the WL_OBJ_TX object is: WL_OBJ_LOG, _REDO or _NONE */
    /* Optional, from wl_tx_setup: what its batches need (device buffers). */
    int (*setup)(struct wl_ctx *c, int tx,
                 int (*first_changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n));
    int (*reset)(struct wl_ctx *c, int tx);
    int (*batch)(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply);
    uint64_t (*committed)(struct wl_ctx *c, int tx);
    int (*recover)(struct wl_ctx *c, int tx, uint64_t *committed); /* atomic engines */
    /* Optional, mode none's: after each timed piece of work, untimed, called by
     * its commit engine (the table to the mapping, so that verification reads
     * what the kernels made). */
    int (*end)(struct wl_ctx *c, int tx);
};
extern const struct wl_tx_engine wl_tx_undo_fenced, wl_tx_undo_flushed, wl_tx_cap_chunks,
    wl_tx_redo_cpu, wl_tx_undo_cpu, wl_tx_volatile;
/* For engines (and their tests): the batch's device handle, with nothing
 * set but the mode's wl_out and the device counters. */
wl_txdev wl_tx_dev_base(struct wl_ctx *c, int tx);
/* --kill commit:N: the engines call it just before a batch commits. */
void wl_tx_commit_point(struct wl_ctx *c);

/* ---- the mode table (mode.c) ---- */
/* Adds a mode: ROW (kept by the caller) becomes a mode of its own, run by
 * every workload that runs ROW->like. Returns its number, or -1 with a
 * message (a name taken, the table full). Before wl_main. */
int wl_mode_add(const struct wl_mode_info *row);
/* The number of the mode named NAME, or -1. */
int wl_mode_by_name(const char *name);
/* Does W run mode M (its own modes, or one registered like them)? */
int wl_runs_mode(const struct wl_workload *w, enum wl_mode m);
const char *wl_mode_name(enum wl_mode m);
const char *wl_scale_name(enum wl_scale s);

/* ---- command line (cli.c), objects (objects.c), CAP chunks (cap_chunk.c),
 * digests (digest.cu): the harness's side ---- */
/* Parses ARGV for W. Returns 0, 1 for --help (usage printed to HELP_OUT),
 * or -1 with a one-line message naming the flag and the fix (exit 2). */
int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out);
/* Fills P from the options (scale values unless a flag overrode them). */
void wl_resolve_params(const struct wl_workload *w, const struct wl_opts *o,
                       struct wl_value *p);
/* "n=...,iters=..." of the resolved params. */
void wl_params_string(const struct wl_ctx *c, char *out, size_t len);
/* Each harness flag given, against the mode: 0, or -1 with a message
 * naming the flag and the fix. */
int wl_check_flags(const struct wl_ctx *c);

void wl_obj_log_hcl(struct wl_ctx *c, int i, size_t bytes, int blocks, int threads);
void wl_obj_log_conv(struct wl_ctx *c, int i, size_t bytes, int partitions);

gpmlog *wl_log(struct wl_ctx *c, int i);

/* --cap-chunk (a WL_STR parameter: "best" or a power of two, 128 to 2^30)
 * into *CHUNK, from setup(); the rows note cap_chunk=. Only "best" in a CAP
 * mode (cap_chunk.c) calls CHANGES, for the changes to size the chunk for
 * (*OFFSETS, malloc'd, *N byte offsets in the table; 0, or -1 with a message). */
int wl_cap_chunk(struct wl_ctx *c, int (*changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n),
                 size_t *chunk);
/* The --cap-chunk flag alone, checked (layout() calls it, so that a bad
 * value stops the run before any file is touched): *CHUNK its bytes, 0 for
 * best. */
int wl_cap_chunk_arg(const struct wl_ctx *c, size_t *chunk);
/* The prediction alone: over power-of-two chunks from 4 KiB until one holds
 * BYTES (at most 2^30), runs of touched chunks times PER_RANGE_S plus their
 * bytes over BYTES_PER_S; the fastest chunk, its time in *PREDICTED_S. */
size_t wl_cap_chunk_predict(uint64_t *offsets, size_t n, size_t bytes, double per_range_s,
                            double bytes_per_s, double *predicted_s);
/* The chunks of CHUNK bytes flagged in FLAGS[0..NFLAGS) as ranges clipped
 * to [LO, HI), adjacent ones merged into one copy; SRC (NULL: none) is the
 * device copy of offset LO. Returns how many it wrote to OUT (at most the
 * flags set). */
int wl_chunk_ranges(const uint32_t *flags, uint64_t nflags, size_t chunk, size_t lo, size_t hi,
                    const void *src, gpm_range *out);
/* The shift of a power-of-two CHUNK: a kernel flags the chunk of byte
 * offset OFF at OFF >> shift. */
uint32_t wl_chunk_shift(size_t chunk);

/* The digest of BYTES of device memory at P, added to A and B with word
 * indices from FIRST (digest.cu). */
int wl_dev_digest(const void *p, size_t bytes, uint64_t first, uint64_t *a, uint64_t *b);

/* One run of the program: wl_main without GPM_RECOVER_EACH. */
int wl_run(const struct wl_workload *w, int argc, char **argv);
/* From now on, wl_dev_alloc fills what it hands out with BYTE. */
void wl_dev_poison(unsigned char byte);

/* The identity file of a run and what opening the objects found. */
struct wl_run {
    gpm_region id;           /* W-TAG.id, mapped host-only */
    int id_lock;
    int id_created;
    int cur;                 /* slot holding the current identity, -1: none valid */
    struct gpm_run_id found; /* the identity the run started from (valid if found_valid) */
    int found_valid;
    int locked;              /* every file of the run is ours: safe to remove what we made */
    char tag[64];            /* "small", or "custom-<hash>" */
    char params[GPM_RUN_ID_PARAMS];
};

/* A transactional log's run-time state (tx.c, tx_engines.c). */
struct wl_tx_state {
    struct wl_tx_sizes sz;   /* from layout() */
    uint8_t *mirror;         /* the region's device copy (GPU modes) */
    size_t chunk;            /* bytes a flag stands for: gpm-ndp's unit, CAP's chunk */
    uint64_t nflags;
    uint32_t *flags_dev, *flags_host;
    gpm_range *ranges;       /* the flagged chunks as ranges, for a commit */
    void *ranges_dev;        /* gpm-ndp: the same, for the copy kernel */
    size_t ranges_dev_cap;
    void *delta_dev;         /* cap-delta: the gathered records, then their count */
    unsigned long long *fails_dev; /* undo records that did not fit */
    unsigned long long *fails_host; /* fails_dev[0], copied back (pinned) */
    /* --log-room RECORDS@BATCH, for tests only: from batch BATCH on, a
     * batch's log holds RECORDS undo records, so that it fills up on
     * demand (fails_dev[1] counts the device's, room_used the host's). */
    uint64_t room, room_now, room_from, room_used;
};
void wl_tx_free(struct wl_obj *o);
/* ---- checkpoints whose copy overlaps the next steps (cp.c) ----
 * Where the GPU copies a checkpoint with its own fenced stores (gpm,
 * gpm-eadr), the registered buffers are snapshot into device memory and
 * gpmcp copies the snapshot on a stream of its own while the steps go on:
 * wl_cp_start snapshots and queues the copy; wl_cp_finish waits for it and
 * makes it the consistent checkpoint (a no-op with none pending). Elsewhere
 * wl_cp_overlaps is 0 and wl_cp_checkpoint does both at once. */
struct wl_cp_snap {
    void *live, *copy;
    size_t size;
};
int wl_cp_overlaps(const struct wl_ctx *c);
int wl_cp_start(struct wl_ctx *c, int i);
int wl_cp_finish(struct wl_ctx *c, int i);

/* The overlapping copy's block count, paced: each paced checkpoint's
 * cp_blocks= for the row. */
void wl_cp_pace_note(struct wl_ctx *c);
/* The search, pure: init starts it at START blocks; next takes the
 * interval the count s->trial gave (INTERVAL_MS; one not positive is
 * ignored) and returns the next count to try, within 1..MAX, which is
 * s->best for good once the step falls below 1.1x. */
struct wl_pace_search {
    unsigned trial;  /* the count being timed */
    unsigned best;   /* the count of the shortest interval timed */
    float best_ms;   /* that interval (0: none yet) */
    float step;      /* the ratio between counts tried */
    int dir;         /* +1: trying above best, -1: below */
    int turned;      /* the other side of best was tried at this step */
};
void wl_pace_search_init(struct wl_pace_search *s, unsigned start);
unsigned wl_pace_search_next(struct wl_pace_search *s, float interval_ms, unsigned max);
void wl_cp_free(struct wl_obj *o);

/* ---- mode none's copies for verification (volatile.c) ----
 * Not the work's: begin waits for the work queued on c->stream (inside the
 * time) and starts the clock that end adds to c->excluded_s, which the
 * harness takes out of the repetition's time. */
int wl_exclude_begin(struct wl_ctx *c, double *t0);
void wl_exclude_end(struct wl_ctx *c, double t0);
void wl_volatile_free(struct wl_obj *o);
/* Copies the ranges V[0..N) from SRC to DST (device pointers of the same
 * layout) in one kernel, with plain stores (copy_ranges.cu). */
int wl_dev_copy_ranges(void *dst, const void *src, const gpm_range *v, int n, void **scratch,
                       size_t *scratch_cap);

/* Opens, locks and checks (--recover) or creates and resets (a new run)
 * the identity and every declared object, before any device allocation.
 * On failure removes what it created. */
int wl_objects_open(struct wl_ctx *c, struct wl_run *run);
/* Writes the identity with STATE and c->epoch (and the current mode). */
int wl_identity_write(struct wl_ctx *c, struct wl_run *run, enum gpm_run_state state);
enum wl_files { WL_FILES_KEEP, WL_FILES_REMOVE, WL_FILES_REMOVE_CREATED };
/* Closes and unlocks everything; removes the files as WHAT says. */
void wl_objects_close(struct wl_ctx *c, struct wl_run *run, enum wl_files what);
/* 1 if W's progress in mode M survives a crash and can be resumed. */
int wl_resumable(const struct wl_workload *w, enum wl_mode m);
/* May a run of mode M resume what a run of mode WRITTEN left? Both keep
 * durable progress, and in the same place. */
int wl_resumes(const struct wl_workload *w, enum wl_mode written, enum wl_mode m);

/* The PM directory (pm_dir.c). usable: 0 if PM files can be made in DIR,
 * else -1 with a message naming WHAT (the flag or variable) and the fix.
 * note: once per process, a line on stderr when R (a file in it) lies on
 * a disk file system without DAX. */
int wl_pm_dir_usable(const char *dir, const char *what);
void wl_pm_dir_note(const struct wl_workload *w, const gpm_region *r);

/* The flusher (persist.c): its thread count, calibrated for "best". */
int wl_flusher_setup(struct wl_ctx *c);

/* The GPU's PCIe transmit throughput over a timed run (pcie.c), sampled
 * through NVML every 20 ms where the driver offers it: start returns 1 if
 * it samples; stop notes pcie_tx_gbps= (or pcie_tx=unavailable) in GPU
 * modes. wl_pcie_why: why it is unavailable ("" if it is not). */
int wl_pcie_start(struct wl_ctx *c);
void wl_pcie_stop(struct wl_ctx *c, int started);
const char *wl_pcie_why(void);

/* The counters of timed work, and the kills on progress (progress.c). */
int wl_live_open(struct wl_ctx *c);
void wl_live_close(struct wl_ctx *c);
/* Before and after each timed piece of work; ARM: its kills apply. */
int wl_live_start(struct wl_ctx *c, int arm);
int wl_live_stop(struct wl_ctx *c);
/* Between the two: inside timed work, not prepare(). */
int wl_live_timing(const struct wl_ctx *c);

#ifdef __cplusplus
}
#endif

#endif
