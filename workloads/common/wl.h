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
 * are called from the thread that runs the callbacks, except those a CPU
 * counterpart's OpenMP threads call at once, each said thread-safe below
 * (wl_pm_persist, wl_commit in cpu mode, wl_tx_host_undo, wl_progress_add). */
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
    WL_NONE,     /* no persistence: kernels write device memory and nothing is made durable;
                    the copies that feed verification are left out of the time (the
                    volatile baseline V of the persistence roofline) */
    WL_CAP_GDS,  /* kernels write device memory; GPUDirect Storage (cuFile) writes it to
                    the file, then fsync; where libcufile loads */
    WL_NMODES    /* the built-in modes; wl_mode_add registers more, up to WL_MAX_MODES */
};
#define WL_MAX_MODES 16
#define WL_MODE_BIT(m) (1u << (m))
#define WL_MODES_GPU                                                                   \
    (WL_MODE_BIT(WL_GPM) | WL_MODE_BIT(WL_GPM_NDP) | WL_MODE_BIT(WL_GPM_EADR) |         \
     WL_MODE_BIT(WL_CAP_MM) | WL_MODE_BIT(WL_CAP_FS) | WL_MODE_BIT(WL_CAP_EADR) |         \
     WL_MODE_BIT(WL_NONE) | WL_MODE_BIT(WL_CAP_GDS))

/* How a batch of a transactional workload becomes failure-atomic: one
 * engine per way (tx_engines.c), named by the mode table's tx column. */
struct wl_tx_engine;
/* How wl_commit makes a mode's output durable: one engine per way
 * (persist.c, volatile.c), named by the mode table's commit column. */
struct wl_commit_engine;
struct wl_workload;

/* What a mode means, in one place (mode.c); everything else reads this. */
struct wl_mode_info {
    const char *name;
    int kernels_write_pm;   /* kernels store into the PM mapping (else device memory) */
    int fences;             /* kernels persist their stores in-kernel */
    int ddio_bracket;       /* launches bracketed by gpm_persist_begin/end */
    int flusher;            /* CPU flush threads (chosen by --cpu-threads) */
    const struct wl_commit_engine *commit; /* what wl_commit does */
    const struct wl_tx_engine *tx; /* what a transaction's batch does (wl_tx_batch) */
    int durable_progress;   /* what kernels mark done as they go is durable at once */
    int needs_gpu;
    int map_host_only;      /* regions mapped without CUDA registration */
    gpmcp_mode cp_how;      /* how a checkpoint reaches PM */
    enum wl_mode like;      /* a mode wl_mode_add registers: the built-in mode whose
                               workloads run it too (their code reads the columns, never
                               the mode's name or number) */
};
const struct wl_mode_info *wl_mode(enum wl_mode m);
/* Adds a mode: ROW (kept by the caller) becomes a mode of its own, run by
 * every workload that runs ROW->like. Returns its number, or -1 with a
 * message (a name taken, the table full). Before wl_main. */
int wl_mode_add(const struct wl_mode_info *row);
/* The number of the mode named NAME, or -1. */
int wl_mode_by_name(const char *name);
/* Does W run mode M (its own modes, or one registered like them)? */
int wl_runs_mode(const struct wl_workload *w, enum wl_mode m);

enum wl_scale { WL_TINY, WL_SMALL, WL_PAPER, WL_CUSTOM };

/* A parameter of one workload: --FLAG VALUE. */
enum wl_ptype { WL_INT = 0, WL_FLOAT, WL_STR };
struct wl_param {
    const char *flag;       /* without the dashes: "n", "checkpoint-every" */
    const char *help;
    long long scale[3];     /* WL_INT: value at tiny, small, paper */
    long long min, max;     /* WL_INT: accepted range */
    int pow2;               /* WL_INT: 1: only powers of two (MIN and MAX should be) */
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

#define WL_MAX_PARAMS 24
#define WL_MAX_OBJECTS 4

/* The PM objects a workload needs, declared by name in its descriptor. */
enum wl_obj_kind {
    WL_OBJ_REGION,     /* a file of the workload's own layout, mapped for kernels */
    WL_OBJ_CHECKPOINT, /* a gpmcp checkpoint of registered device buffers */
    WL_OBJ_LOG,        /* a libgpm undo log (HCL or conventional) */
    WL_OBJ_TX,         /* a transactional workload's log: whatever the mode's transaction
                          engine keeps, which the harness makes one of the kinds below */
    WL_OBJ_REDO,       /* (from WL_OBJ_TX) a redo log of libgpm (gpm/redo.h), mapped */
    WL_OBJ_NONE        /* (from WL_OBJ_TX) nothing: the engine keeps no log, no file */
};
struct wl_obj_decl {
    const char *name;  /* the file is W-SCALE.NAME in the PM directory */
    enum wl_obj_kind kind;
};

/* Units of work a recovery found durable and redid (see recover()). */
struct wl_progress {
    uint64_t total;    /* units of the whole run */
    uint64_t durable;  /* found complete on PM before recovery did anything */
    uint64_t redone;   /* computed by the recovery */
};

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
    int cpu_threads_given;
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
};

/* What the harness hands a workload's callbacks. */
struct wl_ctx {
    const struct wl_workload *wl;
    struct wl_opts opt;
    const struct wl_mode_info *m;    /* wl_mode(opt.mode) */
    struct wl_value p[WL_MAX_PARAMS]; /* resolved parameter values (use wl_int & co) */

    /* Filled by the workload's layout(): */
    size_t data_bytes;       /* the PM-resident data (size_bytes column) */
    double expected_s;       /* rough duration of one repetition, for --kill random */
    size_t calib_bytes;      /* bytes one CAP persist writes, for --cpu-threads best */

    /* Set up by the harness: */
    struct wl_harness *h;    /* its own state (harness.h) */
    int threads;             /* flush threads, or the cpu mode's OpenMP threads (0 where none) */
    void *stream;            /* cudaStream_t the helpers order against (NULL: the legacy
                                default stream). A workload whose kernels run on a
                                blocking stream of its own sets it in setup() (and back
                                to NULL in teardown()): the transaction engines then
                                queue their zeroings, copies and log resets there and
                                wait for it alone */
    int fresh;               /* 1: a new run; 0: --recover resuming durable progress */
    uint32_t epoch;          /* the run in progress: new for every repetition and fresh run */

    /* Updated by the workload while it runs: */
    double bytes_persisted;  /* reset before each repetition: counted by the harness
                                (wl_commit, wl_pm_write, wl_pm_persist, checkpoints, logs,
                                and the kernels' wl_store_* where they persist in-kernel) */
    double excluded_s;       /* reset before each repetition: time inside it that is not
                                the work's (mode none's verification copies), taken out of
                                its time by the harness) */
    double restore_s;        /* --recover: the restoration part; < 0: whole operation */
    struct wl_progress progress; /* --recover: what it found and redid */
    int rep;
    void *priv;              /* the workload's own state (state_bytes of it) */
};

/* How a workload's progress (c->progress's units) becomes durable. */
enum wl_progress_by {
    WL_BY_MARKERS,      /* its kernels mark units done as they go: durable where the mode
                           table says durable_progress (the kernels persist in-kernel, or
                           the CPU counterpart persists before it marks) */
    WL_BY_COMMITS,      /* each unit is committed (wl_commit, wl_pm_write, a checkpoint):
                           durable in every mode */
    WL_BY_TRANSACTIONS, /* each unit is a batch of wl_tx_batch: durable where the mode's
                           transaction engine is failure-atomic */
    WL_BY_MARKERS_OR_TX /* WL_BY_MARKERS where the mode's kernels persist in-kernel (and
                           the CPU counterpart); in the other modes WL_BY_TRANSACTIONS: a
                           workload that needs no log where it can fence (GPHash) */
};
/* WL_BY_MARKERS_OR_TX: is each batch of mode M a transaction? Not where
 * what kernels mark is durable at once, nor where nothing is durable. */
int wl_batches_in_tx(const struct wl_mode_info *m);

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
    /* How its progress becomes durable as it runs, which decides the modes
     * in which a crashed run resumes (wl_resumable). */
    enum wl_progress_by progress_by;
    /* 1: its kernels have an SBRP variant (--persistency sbrp, in the modes
     * that fence): they read wl_out's sbrp, and wl_persist and the log's
     * fences become oFences, wl_dfence a dFence. */
    int sbrp;
    const struct wl_obj_decl *objects; /* terminated by a NULL name */
    const struct wl_param *params;     /* terminated by a NULL flag */
    /* Settings whose persists the default run does not reach (a reset only
     * a load makes, a zeroing only inserts depend on), each "NAME FLAGS...",
     * that persistency checks (make mutants) cover too; NULL-terminated. */
    const char *const *check_also;
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
/* Whether the command line gave FLAG. */
int wl_given(const struct wl_ctx *c, const char *flag);
/* From layout(): FLAG's value where the command line did not give it, for
 * a default that depends on other parameters; the row and the run's
 * identity show it. */
void wl_default_int(struct wl_ctx *c, const char *flag, long long v);
void wl_default_float(struct wl_ctx *c, const char *flag, double v);

/* ---- PM objects (objects.c) ---- */
/* Sizes of object I, for layout(). */
void wl_obj_region(struct wl_ctx *c, int i, size_t bytes);
void wl_obj_checkpoint(struct wl_ctx *c, int i, size_t bytes, int nbuf);
void wl_obj_log_hcl(struct wl_ctx *c, int i, size_t bytes, int blocks, int threads);
void wl_obj_log_conv(struct wl_ctx *c, int i, size_t bytes, int partitions);
/* Object I's file (for messages) and the bytes layout() gave it. */
const char *wl_obj_path(const struct wl_ctx *c, int i);
size_t wl_obj_bytes(const struct wl_ctx *c, int i);
/* Region I's mapping: ->host, ->dev (NULL where the mode maps host-only). */
gpm_region *wl_region(struct wl_ctx *c, int i);
/* Checkpoint I's handle, for reading what it holds (gpm/cp.h). */
gpmcp *wl_checkpoint(struct wl_ctx *c, int i);
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
/* (wl_commit, wl_pm_write and wl_pm_persist are persist points named by
 * their call sites: gpm/trace.h.)
 * Makes the ranges V[0..N) of region I durable, the mode's way, with one
 * drain or one fsync for the whole list: CAP modes copy each range's
 * device source (V[k].src) to its offset first; gpm-ndp and cpu flush what
 * was stored there; gpm and gpm-eadr do nothing (the kernels persisted,
 * and their wl_store_* counted the bytes). Counts the bytes it made
 * durable. */
int wl_commit_at(struct wl_ctx *c, int i, const gpm_range *v, int n, const char *site);
#define wl_commit(c, i, v, n) wl_commit_at((c), (i), (v), (n), GPM_SITE)
/* Does the mode make anything durable? Not mode none, whose commits are
 * the copies that feed verification. */
int wl_durable(const struct wl_ctx *c);
/* (In cpu mode wl_commit is thread-safe: the calling thread flushes.)
 * The CPU's persist of LEN bytes at P inside region I (the CPU counterpart's
 * stores), counted. Thread-safe: OpenMP threads call it at once. */
int wl_pm_persist_at(struct wl_ctx *c, int i, const void *p, size_t len, const char *site);
#define wl_pm_persist(c, i, p, len) wl_pm_persist_at((c), (i), (p), (len), GPM_SITE)
/* The device pointer of region I where the mode's kernels store into PM
 * (kernels_write_pm), else NULL: where a kernel writes PM as well as its
 * device copy. */
void *wl_pm_dev(struct wl_ctx *c, int i);

/* ---- progress (progress.c): the units c->progress counts, as they become
 * durable. The harness counts each transaction's batch (wl_tx_batch) and
 * each checkpoint of wl_steps itself; a workload whose units are its own
 * (levels, iterations, blocks) counts each once it is durable: on the host
 * with wl_progress_add, in a kernel with wl_progressed (wl.cuh). Crash
 * tests kill at a unit (--kill progress:K: just after the K-th is
 * durable), campaigns at a moment after the first (--kill after-progress:S),
 * and --progress-times notes when the first and the last came. */
void wl_progress_add(struct wl_ctx *c, uint64_t units); /* thread-safe */

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
int wl_pm_write_at(struct wl_ctx *c, int i, size_t off, const void *src, size_t len,
                   const char *site);
#define wl_pm_write(c, i, off, src, len) wl_pm_write_at((c), (i), (off), (src), (len), GPM_SITE)

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
 * steps its state holds. BLK, HS, CFD and DNN are such runs. Each
 * checkpoint is a unit of progress (progress_by WL_BY_COMMITS). */
struct wl_steps {
    int cp;
    uint64_t total, every;
    uint64_t *done;
    const char *unit;         /* what a step is, for messages ("iteration") */
    int (*step)(struct wl_ctx *c, uint64_t s); /* computes step S (0-based) */
    /* Optional: brings what steps FROM..TO-1 made into the checkpointed
     * buffers and record before they are saved. */
    int (*before_checkpoint)(struct wl_ctx *c, uint64_t from, uint64_t to);
    /* Optional: right after a restore: 0 if the record is this run's, or
     * -1 with a message naming the flags to pass (a checkpoint of another
     * run is never resumed). */
    int (*record_check)(struct wl_ctx *c);
    /* Optional: after a restore that passed, outside the restoration's
     * time: checks of what was restored, resets of what depends on it. */
    int (*after_restore)(struct wl_ctx *c);
};
/* Steps FROM..total-1 and their checkpoints (noted as checkpoints=N and
 * checkpoint_s=S, the seconds they took apart from the steps: the GPU is
 * synchronised before each). */
int wl_steps_run(struct wl_ctx *c, const struct wl_steps *s, uint64_t from);
/* The last consistent checkpoint, restored and its record checked: 0, 1
 * when there is none yet (the record is left as it was), -1. */
int wl_steps_restore(struct wl_ctx *c, const struct wl_steps *s);
/* The whole recovery of such a run: the restore or, without a checkpoint,
 * RESET to step 0; the restoration is the row's restore time; progress is
 * counted in steps (noted as resumed_from=D); then the remaining steps. */
int wl_steps_recover(struct wl_ctx *c, const struct wl_steps *s, int (*reset)(struct wl_ctx *));
/* For verify(): the last checkpoint restored (and after_restore run) must
 * hold every step: 0, 1 (not so: message set, and wrong_marks=1/1 noted:
 * the output is not compared), -1. */
int wl_steps_final(struct wl_ctx *c, const struct wl_steps *s);

/* ---- transactions (tx.c, tx_engines.c): batches of updates to a region,
 * each failure-atomic the way the mode's transaction engine makes it (the
 * mode table's tx column) ----
 * A transactional workload declares a WL_OBJ_TX object (its log: an undo
 * log, a redo log or nothing, as the engine needs) and WL_TX_PARAMS among
 * its parameters, sets progress_by = WL_BY_TRANSACTIONS, and:
 *
 *   layout():  wl_tx_layout(c, TX, &sizes)    the log, the changes' sizes
 *   setup():   wl_tx_setup(c, TX, mirror, first_changes)
 *   prepare(): wl_tx_reset(c, TX)             no batch committed
 *   run():     wl_tx_batch(c, TX, b, apply)   for each batch B
 *   recover(): wl_tx_recover(c, TX, &done)    then the batches after DONE
 *
 * APPLY(c, b, d) makes batch B's changes, once, when the engine says:
 *   GPU modes (d->gpu): its kernels change MIRROR, the device copy of the
 *     region (same offsets), and for every change call wl_tx_undo before
 *     it and wl_tx_changed after it; where d->pm is not NULL they also
 *     store the new bytes there with wl_store_* (d->o) and wl_persist
 *     (wl.cuh). Nothing else: the engine logs, copies, flushes, commits.
 *     APPLY may return with its kernels queued and not waited for, on
 *     c->stream (NULL: the legacy stream): the engine waits where it must.
 *   the CPU counterpart (!d->gpu): it logs each change's old bytes with
 *     wl_tx_host_undo before making it in the region, and makes its
 *     changes durable with wl_pm_persist before it returns.
 * The engines: undo records in-kernel with fences (gpm, gpm-eadr); undo
 * records unfenced, flushed by the CPU before the changes are copied to PM
 * (gpm-ndp); no log, the CAP copy of the changed chunks (the paper's CAP:
 * not failure-atomic, rows say atomic=no); redo records gathered on the
 * GPU, logged and applied by the CPU (cap-delta); the CPU counterpart's
 * undo records (cpu). */
#define WL_TX_PARAMS                                                                    \
    {.flag = "log", .help = "undo log: hcl (a lock-free slot per logging thread) or conv " \
     "(partitions appended under locks)", .type = WL_STR, .sscale = {"hcl", "hcl", "hcl"}},  \
    {.flag = "partitions", .help = "partitions of the conventional log (--log conv)",     \
     .scale = {64, 64, 64}, .min = 1, .max = 1 << 20},                                    \
    {.flag = "cap-chunk", .help = "CAP: bytes persisted around each change: best "         \
     "(measured) or a power of two", .type = WL_STR, .sscale = {"best", "best", "best"}}

/* The sizes of a transactional log, for wl_tx_layout. */
struct wl_tx_sizes {
    int region;           /* the region the batches change */
    size_t undo_bytes;    /* undo logs: the records one batch may log, in bytes, in all */
    int blocks, threads;  /* the logging grid: an HCL slot a thread (a CPU counterpart: one
                             block of its threads, rounded up to 32); --log conv:
                             --partitions slots */
    size_t change_bytes;  /* the bytes one change sets (a multiple of 8): what wl_tx_changed
                             takes, and a redo record holds */
    uint64_t max_changes; /* redo: the most changes one batch makes */
    size_t unit;          /* gpm-ndp: the bytes around a change that are copied to PM and
                             flushed (a power of two, at least change_bytes) */
};
/* Sizes log object TX (WL_OBJ_TX) for the mode's engine, and checks
 * --log, --partitions and --cap-chunk. In layout(). */
int wl_tx_layout(struct wl_ctx *c, int tx, const struct wl_tx_sizes *s);
/* In layout(), instead of wl_tx_layout: this mode's batches do not go
 * through transactions (WL_BY_MARKERS_OR_TX's marker modes), so object TX
 * keeps nothing and makes no file, and --log, --partitions and --cap-chunk
 * are refused, naming the mode. */
int wl_tx_unused(struct wl_ctx *c, int tx);

/* What a batch's kernels get (by value: wl.cuh's wl_tx_undo, wl_tx_changed). */
typedef struct wl_delta {
    uint8_t *buf;              /* records: an 8-byte offset, then the bytes set there */
    unsigned long long *count; /* records put; those past cap are dropped, and counted */
    uint32_t record_bytes;
    uint64_t cap;
} wl_delta;
/* The device's counters of what the kernels persisted: WL_ACCT_SLOTS of
 * bytes, then as many of persists (spread so warps do not queue on one). */
#define WL_ACCT_SLOTS 64
typedef struct wl_out {
    int fence;                      /* store with gpm_store_* and persist (gpm, gpm-eadr) */
    int sbrp;                       /* and with SBRP's operations (--persistency sbrp) */
    unsigned long long *acct;       /* the harness's counts of bytes and persists (NULL: none) */
    unsigned long long *progress;   /* the kernels' units of progress (NULL: none) */
    unsigned long long *signal;     /* mapped host words: [0] the first unit came, [1] unit
                                       stall_at came */
    unsigned long long stall_at;    /* --kill progress:K: the unit whose kernel thread
                                       waits to be killed (0: none) */
} wl_out;
typedef struct wl_txdev {
    int gpu;                  /* 1: kernels apply the batch; 0: the CPU counterpart does */
    wl_out o;                 /* how stores to d.pm are made (fenced or not) and counted */
    uint8_t *pm;              /* the region on PM, where the kernels store each change as
                                 well (gpm, gpm-eadr); NULL: they do not */
    gpmlog_dev log;           /* the undo log (log.pm NULL: none) */
    uint32_t *flags;          /* flags[off >> shift] = 1 for each change (gpm-ndp's units,
                                 CAP's chunks); NULL: none */
    uint32_t shift;
    wl_delta delta;           /* cap-delta: each change as a redo record (buf NULL: none) */
    unsigned long long *fails; /* undo records that did not fit, counted by wl_tx_undo */
    uint64_t change_bytes;
    uint64_t room;            /* tests only: the undo records the batch holds (0: no limit), */
    unsigned long long *used; /* and those taken so far */
} wl_txdev;
typedef int (*wl_tx_apply)(struct wl_ctx *c, uint64_t b, const wl_txdev *d);

/* GPU modes: MIRROR is the region's device copy that the kernels keep
 * (the engines copy changes from it); FIRST_CHANGES lists the first
 * batch's changes for --cap-chunk best (see wl_cap_chunk; called only in
 * CAP modes). The CPU counterpart: both NULL. In setup(). */
int wl_tx_setup(struct wl_ctx *c, int tx, void *mirror,
                int (*first_changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n));
/* A fresh table: no transaction, committed count 0 (prepare()); notes the
 * engine and its log in the row. */
int wl_tx_reset(struct wl_ctx *c, int tx);
/* Batch B through the mode's engine, which calls APPLY once. On success
 * the batch is committed (durable, where the engine is atomic) and counted
 * as a unit of progress. A batch whose undo records did not all fit fails
 * with its changes unmade or logged, its transaction left for recovery. */
int wl_tx_batch(struct wl_ctx *c, int tx, uint64_t b, wl_tx_apply apply);
/* Batches committed since the reset (0 where the engine is not atomic). */
uint64_t wl_tx_committed(struct wl_ctx *c, int tx);
/* Is this mode's engine failure-atomic? */
int wl_tx_atomic(const struct wl_ctx *c);
/* May wl_tx_batch return with the batch's kernels still running (on
 * c->stream)? Only where the engine needs nothing back from them (mode
 * none); every other engine waits for them once a batch. */
int wl_tx_in_flight(const struct wl_ctx *c);
/* After a crash (recover()): puts the region back as it was after the
 * last committed batch, gives their number, and notes what it did. */
int wl_tx_recover(struct wl_ctx *c, int tx, uint64_t *committed);
/* The CPU counterpart: logs the LEN old bytes at offset OFF of the region
 * in log slot SLOT (one a thread), durably, before they change; nothing
 * where the engine keeps no log. 0, or -1 (the slot is full: leave them). */
int wl_tx_host_undo(struct wl_ctx *c, int tx, uint32_t slot, uint64_t off, const void *old,
                    uint32_t len); /* thread-safe for distinct slots */


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
/* The same on STREAM (a cudaStream_t; NULL: the legacy stream, as
 * wl_dev_sync), and the queueing of a zeroing or a copy there, in its
 * order and without a wait (a copy to the host: into pinned memory, or
 * CUDA makes it wait). */
int wl_dev_wait(void *stream, const char *what);
int wl_dev_zero_on(void *d, size_t bytes, void *stream);
int wl_dev_copy_on(void *dst, const void *src, size_t bytes, int to_device, void *stream);
/* Pinned host memory, for copies queued on a stream. */
int wl_pinned_alloc(void **p, size_t bytes); /* *p = NULL on failure */
void wl_pinned_free(void *p);                /* NULL is fine */

/* What a kernel needs of the mode to write its output (see wl.cuh). */
wl_out wl_out_of(const struct wl_ctx *c);

/* ---- helpers ---- */
double wl_now(void); /* CLOCK_MONOTONIC seconds */
/* Appends "k=v" text (printf-style) to c->h->note, comma-separated: what the
 * row's params column says besides the parameters. The note grows as
 * needed: nothing is cut. */
void wl_note(struct wl_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Notes batch_p50_us and batch_p99_us of the N batch wall times LAT
 * (seconds; sorted in place): a batched workload's latency. */
void wl_note_batch_latency(struct wl_ctx *c, double *lat, uint64_t n);
/* The directory of downloaded datasets and of caches made from inputs
 * (parsed graphs, generated grids): $GPM_DATA_DIR, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/gpmbench, created 0700 if missing. NULL
 * with the message set if it cannot be made. Shared with datasets/fetch.sh. */
const char *wl_data_dir(void);
/* ---- checks made once (check_cache.c) ----
 * A workload whose check is costly (it recomputes the whole run) digests
 * its output once restored, then asks whether a process of the same code
 * (this executable's bytes and the shared libraries it was linked with:
 * code_key.h), workload, parameters, input files and seed, in any mode,
 * already checked output with that digest: Figure 9 runs three or four
 * modes whose outputs must be the same bytes, and only the first need pay
 * for the check. Any change to the code, committed or not, is another key,
 * so a changed reference never meets a verdict of the old one; so is an
 * input file (or a file of an input folder) that a string parameter names,
 * rewritten in place (its size, inode or times). Verdicts are kept in
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

/* ---- verification ----
 * A verify returns 0, or 1 with gpm_set_error naming the first difference.
 * On a mismatch it also says how wrong the output is, in the workload's own
 * error measure, with wl_note_wrong: one format for every workload, in the
 * row's params (gpm-check reads it from a wrong restart's row):
 *   wrong_units=B/T,units=WORD  B of the T units of the output differ from
 *       the reference; WORD, plural, names a unit (sums, pixels, nodes,
 *       keys, rows, cells, options, elements, images)
 *   wrong_max_err=X,wrong_err=abs|rel  where the output is floating point:
 *       the largest error of any element, absolute or relative as the
 *       workload's tolerance measures it (inf for a NaN)
 *   wrong_marks=M/N  M of the N progress markers the check reads (done
 *       markers, a durable count, the last checkpoint's record, the log's
 *       committed count) are missing or not the run's: a failed check of
 *       its own kind, kept out of wrong_units; the output is compared
 *       whatever the markers say
 * The check helpers below add what they compared to a struct wl_wrong. */
struct wl_wrong {
    const char *units;       /* what a unit is; NULL: the output was not compared */
    uint64_t bad, total;     /* units wrong, of those compared */
    const char *err;         /* "abs" or "rel" where max_err is measured, else NULL */
    double max_err;          /* the largest error, of every element compared */
    uint64_t marks_bad, marks; /* progress markers wrong, of those read */
};
/* Notes what W measured (above): wrong_units where W->units is set,
 * wrong_max_err where W->err is, wrong_marks where W->marks is not 0. */
void wl_note_wrong(struct wl_ctx *c, const struct wl_wrong *w);
/* The end of a transactional workload's verify. RC is its check of the
 * output (0 right, 1 wrong, -1 not checked). Where the output is right but
 * W counts the log's marker wrong (the log counts COMMITTED of ALL UNITS,
 * "batches"), the verify fails, saying so; where it fails, W is noted.
 * Returns the verify's result. */
int wl_tx_verified(struct wl_ctx *c, int rc, const struct wl_wrong *w, uint64_t committed,
                   uint64_t all, const char *units);
/* Every one of the N elements of GOT against WANT: 0 if all are equal,
 * else 1 with the first difference in the message ("WHAT: element I is G,
 * expected E"). Adds the elements that differ to W->bad and N to W->total
 * (W may be NULL). Compared in parallel. */
int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n,
                 struct wl_wrong *w);
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
/* wl_close for every element: 0 if all are close, else 1 with the first
 * that is not in the message. Adds those that are not to W->bad, N to
 * W->total, and raises W->max_err to the largest error of any element:
 * absolute where REL_TOL is 0 (W->err "abs"), else relative to |WANT|
 * (W->err "rel"; absolute where WANT is 0). W may be NULL. */
int wl_check_close_f32(const char *what, const float *got, const double *want, size_t n,
                       double abs_tol, double rel_tol, struct wl_wrong *w);

/* The whole program: what main() calls. Returns the exit status. */
int wl_main(const struct wl_workload *w, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
