/* The workload harness: one command line, one timing rule, one result row,
 * one set of PM objects and one crash protocol for every workload.
 *
 * A workload defines `const struct wl_workload WORKLOAD`: its name, its
 * parameters, the PM objects it needs (regions, checkpoints, logs), and its
 * callbacks. The harness's main() parses the command line, creates or
 * reopens and locks the PM objects, runs and times the repetitions,
 * verifies, and writes the row. A workload never parses flags, opens
 * files, picks a CAP engine or starts a clock: it calls the wl_* helpers.
 *
 * Usable from C11 and CUDA. Functions return 0 / -1 and leave a one-line
 * message in gpm_last_error(). The harness is single-threaded: its helpers
 * are called from the thread that runs the callbacks. */
#ifndef WL_H
#define WL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpm/cap.h"
#include "gpm/cp.h"
#include "gpm/gpm.h"
#include "gpm/log.h"

#ifdef __cplusplus
extern "C" {
#endif

enum wl_mode {
    WL_GPM,      /* kernels store to PM and persist in-kernel, DDIO bracketed */
    WL_GPM_NDP,  /* kernels store to PM without persists; the CPU flushes after */
    WL_GPM_EADR, /* as WL_GPM without the DDIO bracket (fences kept) */
    WL_CAP_MM,   /* kernels write device memory; cudaMemcpy into PM + CPU flush */
    WL_CAP_FS,   /* kernels write device memory; staged pwrite + fsync */
    WL_CAP_EADR, /* as WL_CAP_MM with a fence instead of flushes */
    WL_CAP_DELTA, /* kernels write device memory and gather their changes; the CPU
                     persists them as a redo log, then applies them (wl_tx_*) */
    WL_CPU,      /* the CPU counterpart (OpenMP + libpmem), where a workload has one */
    WL_NMODES
};
#define WL_MODE_BIT(m) (1u << (m))
#define WL_MODES_GPU                                                                   \
    (WL_MODE_BIT(WL_GPM) | WL_MODE_BIT(WL_GPM_NDP) | WL_MODE_BIT(WL_GPM_EADR) |         \
     WL_MODE_BIT(WL_CAP_MM) | WL_MODE_BIT(WL_CAP_FS) | WL_MODE_BIT(WL_CAP_EADR))

/* How wl_commit makes a mode's output durable. */
enum wl_engine {
    WL_ENGINE_NONE,     /* the kernels persisted it themselves */
    WL_ENGINE_FLUSH,    /* the CPU flushes what the kernels stored in PM */
    WL_ENGINE_CAP_MM,   /* device -> PM mapping by cudaMemcpy, then CPU flush */
    WL_ENGINE_CAP_FS,   /* device -> pinned staging -> pwrite, then fsync */
    WL_ENGINE_CAP_EADR, /* device -> PM mapping by cudaMemcpy, then a fence */
    WL_ENGINE_CPU,      /* the CPU wrote the mapping: it flushes */
    WL_ENGINE_DELTA     /* transactions: the gathered changes through a redo log (wl_tx_*);
                           anything else as WL_ENGINE_CAP_MM */
};

/* What a mode means, in one place (mode.c); everything else reads this. */
struct wl_mode_info {
    const char *name;
    int kernels_write_pm;   /* kernels store into the PM mapping (else device memory) */
    int fences;             /* kernels persist their stores in-kernel */
    int ddio_bracket;       /* launches bracketed by gpm_persist_begin/end */
    int flusher;            /* CPU flush threads (chosen by --cpu-threads) */
    enum wl_engine engine;  /* what wl_commit does */
    int durable_progress;   /* what a run persists as it goes survives a crash */
    int needs_gpu;
    int map_host_only;      /* regions mapped without CUDA registration */
    gpmcp_mode cp_how;      /* how a checkpoint reaches PM */
};
const struct wl_mode_info *wl_mode(enum wl_mode m);

enum wl_scale { WL_TINY, WL_SMALL, WL_PAPER, WL_CUSTOM };

/* A parameter of one workload: --FLAG VALUE. */
enum wl_ptype { WL_INT = 0, WL_FLOAT, WL_STR };
struct wl_param {
    const char *flag;       /* without the dashes: "n", "checkpoint-every" */
    const char *help;
    long long scale[3];     /* WL_INT: value at tiny, small, paper */
    long long min, max;     /* WL_INT: accepted range */
    int sizes;              /* 1: it changes the data size (the row's scale becomes custom) */
    enum wl_ptype type;     /* WL_INT unless set */
    double fscale[3];       /* WL_FLOAT: value at tiny, small, paper */
    double fmin, fmax;
    const char *sscale[3];  /* WL_STR: value at tiny, small, paper (a dataset path, ...) */
};
struct wl_value {
    long long i;
    double f;
    const char *s;
};

#define WL_MAX_PARAMS 12
#define WL_MAX_OBJECTS 4

/* The PM objects a workload needs, declared by name in its descriptor. */
enum wl_obj_kind {
    WL_OBJ_REGION,     /* a file of the workload's own layout, mapped for kernels */
    WL_OBJ_CHECKPOINT, /* a gpmcp checkpoint of registered device buffers */
    WL_OBJ_LOG         /* a libgpm undo log (HCL or conventional) */
};
struct wl_obj_decl {
    const char *name;  /* the file is W-SCALE.NAME in the PM directory */
    enum wl_obj_kind kind;
};

/* One PM object at run time: c->obj[i], i its index in the declaration. */
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
    gpmcp *cp;             /* checkpoint */
    int ncp;               /* checkpoint: buffers registered so far */
    size_t cp_bytes;       /* checkpoint: their bytes */
    void *rec, *rec_dev;   /* checkpoint: its record on the host, and staged on the GPU */
    size_t rec_size;
    gpmlog log;            /* log */
    int log_open;
    /* A log in cap-delta mode (wl_tx_delta_layout): a redo log, a region. */
    size_t delta_data;     /* bytes a record sets (0: not a redo log) */
    uint64_t delta_cap;    /* records a batch may have */
    int delta_table;       /* the region the records change */
    void *delta_dev;       /* on the GPU: the gathered records, then their count */
};

/* Units of work a recovery found durable and redid (see recover()). */
struct wl_progress {
    uint64_t total;    /* units of the whole run */
    uint64_t durable;  /* found complete on PM before recovery did anything */
    uint64_t redone;   /* computed by the recovery */
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
    int cpu_threads_given;
    int recover;
    double crash_after;     /* seconds; < 0: no crash */
    int crash_random;       /* a random moment within the expected run */
    unsigned long long seed;
    const char *out;        /* append rows here; NULL: stdout */
    int keep;               /* keep the PM files after a successful run */
    long long crash_before_commit; /* SIGKILL before this commit (1-based) of the first
                                      repetition's transactions; 0: none */
};

/* What the harness hands a workload's callbacks. */
struct wl_ctx {
    const struct wl_workload *wl;
    struct wl_opts opt;
    const struct wl_mode_info *m;    /* wl_mode(opt.mode) */
    struct wl_value p[WL_MAX_PARAMS]; /* resolved parameter values (use wl_int & co) */

    /* Filled by the workload's layout(): */
    size_t data_bytes;       /* the PM-resident data (size_bytes column) */
    double expected_s;       /* rough duration of one repetition, for --crash-after random */
    size_t calib_bytes;      /* bytes one CAP persist writes, for --cpu-threads best */

    /* Set up by the harness: */
    int nobj;
    struct wl_obj obj[WL_MAX_OBJECTS];
    gpm_flusher *flusher;    /* CPU flush threads (gpm-ndp, cap-mm, cap-eadr) */
    int threads;             /* flush threads, or the cpu mode's OpenMP threads (0 where none) */
    char threads_how[32];    /* "best:8", "8", "all:16" */
    char setup_note[160];    /* "k=v" of choices made once in setup (wl_cap_chunk), in
                                every row */
    void *stream;            /* cudaStream_t the helpers order against (NULL: the default) */
    int fresh;               /* 1: a new run; 0: --recover resuming durable progress */
    uint32_t epoch;          /* the run in progress: new for every repetition and fresh run */

    /* Updated by the workload while it runs: */
    double bytes_persisted;  /* reset before each repetition */
    double restore_s;        /* --recover: the restoration part; < 0: whole operation */
    struct wl_progress progress; /* --recover: what it found and redid */
    char note[512];          /* extra "k=v" for the params column (wl_note); cleared
                                before every repetition */
    int rep;
    uint64_t check_digest[3]; /* wl_check_digest: the two sums and the words so far */
    void *priv;              /* the workload's own state (state_bytes of it) */
};

/* A workload. Optional callbacks may be NULL. */
struct wl_workload {
    const char *name;        /* "ps": the binary's name and the row's workload */
    const char *about;       /* one line for --help */
    unsigned modes;          /* WL_MODE_BIT set */
    /* Its operations, when it has several (gpDB's "insert" and "update"),
     * NULL-terminated, the first the default: --op picks one, and each is
     * a result of its own (the row's op column, a bar of each figure).
     * NULL: one operation, whose rows say op=run. */
    const char *const *ops;
    /* Modes in which what a run persists as it goes can be resumed (its
     * checkpoints, or CAP writes at the same points as GPM's); 0: those
     * whose mode table says durable_progress (gpm, gpm-eadr, cpu). */
    unsigned resume_modes;
    const struct wl_obj_decl *objects; /* terminated by a NULL name */
    const struct wl_param *params;     /* terminated by a NULL flag */
    size_t state_bytes;      /* its own state, c->priv: zeroed before layout(), freed
                                after teardown() */
    int (*layout)(struct wl_ctx *c);   /* sizes of objects from the params; rejects bad ones */
    int (*setup)(struct wl_ctx *c);    /* inputs, device memory, registrations: untimed, once */
    int (*prepare)(struct wl_ctx *c);  /* untimed, before every repetition */
    int (*run)(struct wl_ctx *c);      /* one timed repetition of epoch c->epoch */
    /* Timed: resumes the interrupted run of epoch c->epoch from what is
     * durable. Sets c->progress.total and .durable from PM before doing
     * any work, and .redone to what it computed; the harness fails the
     * recovery if it redid more than was missing. Called only where the
     * run's progress was durable; otherwise the harness reruns. */
    int (*recover)(struct wl_ctx *c);
    int (*verify)(struct wl_ctx *c);   /* 0 ok, 1 wrong (message set), -1 error */
    void (*teardown)(struct wl_ctx *c);
};

/* The workload linked into this binary. */
extern const struct wl_workload WORKLOAD;

/* ---- command line (cli.c) ---- */
const char *wl_mode_name(enum wl_mode m);
/* The operation this run performs: its --op, or "run" for a workload
 * without ops. */
const char *wl_op(const struct wl_ctx *c);
const char *wl_scale_name(enum wl_scale s);
/* Parses ARGV for W. Returns 0, 1 for --help (usage printed to HELP_OUT),
 * or -1 with a one-line message naming the flag and the fix (exit 2). */
int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out);
/* Fills P from the options (scale values unless a flag overrode them). */
void wl_resolve_params(const struct wl_workload *w, const struct wl_opts *o,
                       struct wl_value *p);
/* Index of FLAG among W's params, or -1. */
int wl_param_index(const struct wl_workload *w, const char *flag);
/* "n=...,iters=..." of the resolved params. */
void wl_params_string(const struct wl_ctx *c, char *out, size_t len);
/* A parameter's resolved value by name; naming one the workload does not
 * declare (or of another type) is a programming error: it aborts. */
long long wl_int(const struct wl_ctx *c, const char *flag);
double wl_float(const struct wl_ctx *c, const char *flag);
const char *wl_str(const struct wl_ctx *c, const char *flag);

/* ---- PM objects (objects.c) ---- */
/* Sizes of object I, for layout(). */
void wl_obj_region(struct wl_ctx *c, int i, size_t bytes);
void wl_obj_checkpoint(struct wl_ctx *c, int i, size_t bytes, int nbuf);
void wl_obj_log_hcl(struct wl_ctx *c, int i, size_t bytes, int blocks, int threads);
void wl_obj_log_conv(struct wl_ctx *c, int i, size_t bytes, int partitions);
/* Region I's mapping: ->host, ->dev (NULL where the mode maps host-only). */
gpm_region *wl_region(struct wl_ctx *c, int i);
/* Log I, and the handle its kernels take (unfenced where the mode does
 * not fence: gpm-ndp then calls wl_log_flush between its phases). */
gpmlog *wl_log(struct wl_ctx *c, int i);
gpmlog_dev wl_log_dev(struct wl_ctx *c, int i);
int wl_log_flush(struct wl_ctx *c, int i);

/* ---- persistence, for the timed region (persist.c) ---- */
/* GPM modes: bracket kernel launches that persist (DDIO off/on where the
 * mode table says so). */
int wl_persist_begin(struct wl_ctx *c);
int wl_persist_end(struct wl_ctx *c);
/* Makes the ranges V[0..N) of region I durable, the mode's way, with one
 * drain or one fsync for the whole list: CAP modes copy each range's
 * device source (V[k].src) to its offset first; gpm-ndp and cpu flush what
 * was stored there; gpm and gpm-eadr do nothing (the kernels persisted, and
 * count their own bytes). Counts the bytes it made durable. */
int wl_commit(struct wl_ctx *c, int i, const gpm_range *v, int n);

/* --cap-chunk (a WL_STR parameter: "best" or a power of two, 128 to 2^30),
 * for CAP modes that persist the chunks of a table an update touched:
 * "best" times the mode's CAP engine on a scratch file (a cost per copy and
 * a bandwidth) and takes the chunk predicted fastest for the changes that
 * CHANGES lists (say the first batch's: *OFFSETS, malloc'd, *N byte offsets
 * in the table; 0, or -1 with a message). CHANGES is called only then, in a
 * CAP mode with "best". Sets *CHUNK; the rows note cap_chunk=. Call it from
 * setup(). */
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
/* Writes LEN host bytes at OFF of region I and makes them durable, in any
 * mode (state words, headers). Counts the bytes. */
int wl_pm_write(struct wl_ctx *c, int i, size_t off, const void *src, size_t len);

/* ---- checkpoints (cp.c): object I of kind WL_OBJ_CHECKPOINT ---- */
/* Adds a device buffer, in setup(); the same buffers in the same order
 * every run (the file records their sizes). */
int wl_cp_register(struct wl_ctx *c, int i, void *dev, size_t size);
/* Adds a small host record (the iteration reached, the run's sizes) as the
 * checkpoint's last element, after its buffers: saved with every checkpoint
 * and restored with it, so it always belongs to the same checkpoint as the
 * buffers. The harness stages it through device memory where the mode
 * needs the GPU. One per checkpoint; RECORD stays the workload's. */
int wl_cp_register_record(struct wl_ctx *c, int i, void *record, size_t size);
/* Saves the registered buffers (and the record as it is now), the mode's
 * way; counts the bytes. */
int wl_cp_checkpoint(struct wl_ctx *c, int i);
/* Restores the last consistent checkpoint into the buffers and the record:
 * 0 done, 1 there is none yet (the record is then left as it was). */
int wl_cp_restore(struct wl_ctx *c, int i);

/* ---- iterative workloads that checkpoint (steps.c) ----
 * A run of TOTAL steps saving checkpoint object CP every EVERY steps and
 * after the last; DONE points into the checkpoint's record and counts the
 * steps its state holds. BLK, HS, CFD and DNN are such runs. */
struct wl_steps {
    int cp;
    uint64_t total, every;
    uint64_t *done;
    int (*step)(struct wl_ctx *c, uint64_t s); /* computes step S (0-based) */
    /* Optional: brings what steps FROM..TO-1 made into the checkpointed
     * buffers and record before they are saved. */
    int (*before_checkpoint)(struct wl_ctx *c, uint64_t from, uint64_t to);
    /* Optional: after a restore, outside the restoration's time: checks of
     * what was restored, resets of what depends on it. */
    int (*after_restore)(struct wl_ctx *c);
};
/* Steps FROM..total-1 and their checkpoints (noted as checkpoints=N and
 * checkpoint_s=S, the seconds they took apart from the steps: the GPU is
 * synchronised before each). */
int wl_steps_run(struct wl_ctx *c, const struct wl_steps *s, uint64_t from);
/* The whole recovery of such a run: RESTORE (wl_cp_restore and the
 * workload's own checks of the record: 0, 1 when there is no checkpoint, -1)
 * or, without a checkpoint, RESET to step 0; the restoration is the row's
 * restore time; progress is counted in steps (noted as resumed_from=D); then
 * the remaining steps. */
int wl_steps_recover(struct wl_ctx *c, const struct wl_steps *s, int (*restore)(struct wl_ctx *),
                     int (*reset)(struct wl_ctx *));

/* ---- transactions (tx.c): batches of updates to a region, undo-logged in a
 * log object and failure-atomic by libgpm's commit protocol (gpm/tx.h) ----
 * A transactional workload declares WL_TX_PARAMS among its parameters (--log
 * hcl|conv, --partitions) and a WL_OBJ_LOG object, sizes the log in layout
 * with wl_tx_layout, and runs each batch the same way in every mode:
 *
 *   wl_tx_begin(c, L);      gpm, gpm-eadr, cpu: the transaction is active
 *   log the old values      (gpmtx_log_undo in a kernel, gpmtx_host_log_undo
 *                           on the CPU); gpm, gpm-eadr: and store the new ones
 *   wl_tx_logged(c, L);     gpm-ndp: the CPU flushes the log, then begins
 *   store the new values    (gpm-ndp, CAP: a kernel of its own)
 *   wl_commit(c, R, ...);   gpm-ndp, cpu: flush them; CAP: copy them to PM
 *   wl_tx_commit(c, L);     the batch is durable: committed count + 1
 *
 * The CAP modes log nothing and are not failure-atomic, as in the paper:
 * their rows say atomic=no, and the begin/commit calls do nothing.
 *
 * cap-delta (a workload that lists it also calls wl_tx_delta_layout) is
 * failure-atomic through a redo log instead: the kernels store the new
 * values in device memory and put each change (its offset in the region
 * and its new bytes) into wl_tx_delta_dev's buffer (wl_delta_put);
 * wl_tx_begin empties the buffer, wl_tx_logged makes its records durable
 * in the log, and wl_tx_commit commits them, applies them to the region
 * and flushes the lines they touched (gpm/redo.h). */
#define WL_TX_PARAMS                                                                    \
    {.flag = "log", .help = "undo log: hcl (a lock-free slot per logging thread) or conv " \
     "(partitions appended under locks)", .type = WL_STR, .sscale = {"hcl", "hcl", "hcl"}},  \
    {.flag = "partitions", .help = "partitions of the conventional log (--log conv)",     \
     .scale = {64, 64, 64}, .min = 1, .max = 1 << 20}
/* Does this mode log (every mode but the paper's CAP ones)? */
int wl_tx_atomic(const struct wl_ctx *c);
/* Sizes log object LOG: BYTES of records in all, in BLOCKS x THREADS HCL
 * slots, or in --partitions slots with --log conv. In layout(). */
int wl_tx_layout(struct wl_ctx *c, int log, size_t bytes, int blocks, int threads);
/* A fresh table: no transaction, committed count 0 (prepare()); notes the
 * log in the row. */
int wl_tx_reset(struct wl_ctx *c, int log);
int wl_tx_begin(struct wl_ctx *c, int log);
int wl_tx_logged(struct wl_ctx *c, int log);
int wl_tx_commit(struct wl_ctx *c, int log);
/* Batches committed since the reset. */
uint64_t wl_tx_committed(struct wl_ctx *c, int log);
/* After a crash (recover()): undoes the interrupted batch in region REGION
 * (on the GPU where the log and region are registered, else on the CPU)
 * and gives the batches committed, so the run resumes after them; notes
 * what it undid. */
int wl_tx_recover(struct wl_ctx *c, int log, int region, uint64_t *committed);
/* A batch's changes gathered on the GPU in cap-delta mode (wl.cuh:
 * wl_delta_put). */
typedef struct wl_delta {
    uint8_t *buf;              /* records: an 8-byte offset, then the bytes set there */
    unsigned long long *count; /* records put; those past cap are dropped, and counted */
    uint32_t record_bytes;
    uint64_t cap;
} wl_delta;
/* cap-delta: log object LOG is a redo log of at most CAPACITY records a
 * batch, each setting DATA_BYTES (a multiple of 8) of region REGION; in
 * layout(), after wl_tx_layout. Other modes: nothing. */
int wl_tx_delta_layout(struct wl_ctx *c, int log, int region, size_t data_bytes,
                       uint64_t capacity);
/* The buffer the kernels gather a batch's changes into (cap-delta; every
 * other mode: one whose buf is NULL, which wl_delta_put ignores). */
wl_delta wl_tx_delta_dev(struct wl_ctx *c, int log);

/* ---- device memory, for the workloads' host code (dev.c) ---- */
int wl_dev_alloc(void **p, size_t bytes); /* *p = NULL on failure */
void wl_dev_free(void *p);                /* NULL is fine */
int wl_dev_zero(void *d, size_t bytes);
int wl_dev_fill(void *d, unsigned char byte, size_t bytes);
/* Device to device, BYTES from SRC to DST. */
int wl_dev_copy_within(void *dst, const void *src, size_t bytes);
int wl_dev_copy(void *dst, const void *src, size_t bytes, int to_device);
/* After kernel launches: waits for them and reports a launch or execution
 * error as "WHAT failed (why)". */
int wl_dev_sync(const char *what);

/* What a kernel needs of the mode to write its output (see wl.cuh). */
typedef struct wl_out {
    int fence; /* store with gpm_store_* and persist (gpm, gpm-eadr) */
} wl_out;
wl_out wl_out_of(const struct wl_ctx *c);

/* ---- helpers ---- */
double wl_now(void); /* CLOCK_MONOTONIC seconds */
/* Appends "k=v" text (printf-style) to c->note, comma-separated: what the
 * row's params column says besides the parameters. */
void wl_note(struct wl_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The directory of downloaded datasets and of caches made from inputs
 * (parsed graphs, generated grids): $GPM_DATA_DIR, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/gpmbench, created 0700 if missing. NULL
 * with the message set if it cannot be made. Shared with datasets/fetch.sh. */
const char *wl_data_dir(void);
/* ---- checks made once (check_cache.c) ----
 * A workload whose check is costly (it recomputes the whole run) digests
 * its output once restored, then asks whether a process of the same code
 * (this executable's bytes and the shared libraries it was linked with:
 * code_key.h), workload, parameters and seed, in any mode, already checked
 * output with that digest: Figure 9 runs three or four modes whose outputs
 * must be the same bytes, and only the first need pay for the check. Any
 * change to the code, committed or not, is another key, so a changed
 * reference never meets a verdict of the old one. Verdicts are kept in
 * wl_data_dir()/checked.tsv. GPM_CHECK_CACHE=off checks every time (on,
 * the default, caches; another value is an error).
 *   wl_check_digest(c, p, bytes, on_device)  adds BYTES at P to the digest
 *   wl_check_known(c)   1: that digest passed before (the row notes
 *                       check=cached), 0: check it, -1: error
 *   wl_check_passed(c)  after the check passed: records the digest */
int wl_check_digest(struct wl_ctx *c, const void *p, size_t bytes, int on_device);
int wl_check_known(struct wl_ctx *c);
int wl_check_passed(struct wl_ctx *c);
/* The digest of BYTES of device memory at P, added to A and B with word
 * indices from FIRST (digest.cu). */
int wl_dev_digest(const void *p, size_t bytes, uint64_t first, uint64_t *a, uint64_t *b);

/* Verification: the first mismatch is reported in the error message. */
int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n);
/* The first of the N records of SIZE bytes at A and B that differ, or N;
 * compared in parallel (a paper-scale table holds gigabytes). */
size_t wl_first_difference(const void *a, const void *b, size_t n, size_t size);
/* The closeness rule of the float checks: |got - want| <= abs_tol +
 * rel_tol * |want| (a NaN is never close). */
static inline int wl_close(double got, double want, double abs_tol, double rel_tol)
{
    double d = got - want, a = want < 0 ? -want : want;
    return (d < 0 ? -d : d) <= abs_tol + rel_tol * a;
}
/* wl_close for every element. */
int wl_check_close_f32(const char *what, const float *got, const double *want, size_t n,
                       double abs_tol, double rel_tol);

/* The whole program: what main() calls. Returns the exit status. */
int wl_main(const struct wl_workload *w, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
