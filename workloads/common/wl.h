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
 * (wl_pm_persist, wl_commit in cpu mode, wl_progress_add; wl_tx.h's
 * wl_tx_host_undo). */
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
    WL_CAP_DELTA, /* kernels gather their changes; the CPU persists them as a redo log */
    WL_CPU,      /* the CPU counterpart (OpenMP + libpmem), where a workload has one */
    WL_NONE,     /* nothing made durable: the roofline's volatile baseline V */
    WL_CAP_GDS,  /* kernels write device memory; cuFile writes it to the file, then fsync */
    WL_NMODES    /* the built-in modes; wl_mode_add registers more, up to WL_MAX_MODES */
};
#define WL_MAX_MODES 16
#define WL_MODE_BIT(m) (1u << (m))
/* The modes every GPU workload runs: all built-in ones but cpu and cap-delta. */
#define WL_MODES_GPU \
    ((WL_MODE_BIT(WL_NMODES) - 1) & ~(WL_MODE_BIT(WL_CPU) | WL_MODE_BIT(WL_CAP_DELTA)))

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
    int model;              /* the persistency model (gpm_model) its PM follows, which a
                               traced run declares for gpm-check (0: strict) */
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

/* What the harness hands a workload's callbacks. */
struct wl_ctx {
    const struct wl_workload *wl;
    const struct wl_mode_info *m;    /* the mode's row of the table (wl_mode) */
    struct wl_value p[WL_MAX_PARAMS]; /* resolved parameter values (use wl_int & co) */

    /* Filled by the workload's layout(): */
    size_t data_bytes;       /* the PM-resident data (size_bytes column) */
    double expected_s;       /* rough duration of one repetition, for --kill random */
    size_t calib_bytes;      /* bytes one CAP persist writes, for --cpu-threads best */

    /* Set up by the harness: */
    struct wl_harness *h;    /* its own state (harness.h) */
    int threads;             /* flush threads, or the cpu mode's OpenMP threads (0 where none) */
    void *stream;            /* cudaStream_t the helpers order against (NULL: the legacy
                                default stream); a workload with a stream of its own sets
                                it in setup() and back to NULL in teardown() */
    int fresh;               /* 1: a new run; 0: --recover resuming durable progress */
    uint32_t epoch;          /* the run in progress: new for every repetition and fresh run */

    /* Updated by the workload while it runs: */
    double bytes_persisted;  /* per repetition: counted by the harness's helpers and
                                the kernels' wl_store_* where they persist in-kernel */
    double excluded_s;       /* per repetition: time that is not the work's (mode none's
                                verification copies), taken out of its time */
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

/* A workload computed in marked blocks (wl_blocks.h). */
struct wl_blocks;

/* A workload. Optional callbacks may be NULL. */
struct wl_workload {
    const char *name;        /* "ps": the binary's name and the row's workload */
    const char *about;       /* one line for --help */
    unsigned modes;          /* WL_MODE_BIT set */
    /* Its operations where it has several (gpDB's "insert", "update"),
     * NULL-terminated, the first the default: --op picks one, a row's op
     * column. NULL: one, op=run. */
    const char *const *ops;
    enum wl_progress_by progress_by; /* decides the modes that resume (wl_resumable) */
    /* 1: its kernels have an SBRP variant (--persistency sbrp): wl_persist
     * and the log's fences become oFences, wl_dfence a dFence. */
    int sbrp;
    const struct wl_obj_decl *objects; /* terminated by a NULL name */
    const struct wl_param *params;     /* terminated by a NULL flag */
    /* Settings whose persists the default run does not reach (a reset only
     * a load makes, a zeroing only inserts depend on), each "NAME FLAGS...",
     * that persistency checks (make mutants) cover too; NULL-terminated. */
    const char *const *check_also;
    const struct wl_blocks *blocks; /* a workload computed in marked blocks (wl_blocks.h) */
    size_t state_bytes;      /* its own state, c->priv: zeroed before layout(), freed
                                after teardown() */
    int (*layout)(struct wl_ctx *c);   /* sizes of objects from the params; rejects bad ones */
    int (*setup)(struct wl_ctx *c);    /* inputs, device memory, registrations: untimed, once */
    int (*prepare)(struct wl_ctx *c);  /* untimed, before every repetition */
    int (*run)(struct wl_ctx *c);      /* one timed repetition of epoch c->epoch */
    /* Timed: resumes the interrupted run of epoch c->epoch from what is
     * durable (only where its progress was; else the harness reruns). Sets
     * c->progress.total and .durable from PM first, .redone to what it
     * computed: redoing more than was missing fails the recovery. */
    int (*recover)(struct wl_ctx *c);
    int (*verify)(struct wl_ctx *c);   /* 0 ok, 1 wrong (message set), -1 error */
    void (*teardown)(struct wl_ctx *c);
};

/* The workload linked into this binary. */
extern const struct wl_workload WORKLOAD;

/* ---- command line (cli.c) ---- */
/* The harness flags a workload reads: --op (by name, "run" where it has
 * none; by index), --seed, --persistency sbrp (1), --cpu-threads (0: best,
 * or in cpu mode every core), and --kill or --recover given. */
const char *wl_op(const struct wl_ctx *c);
int wl_op_index(const struct wl_ctx *c);
unsigned long long wl_seed(const struct wl_ctx *c);
int wl_sbrp(const struct wl_ctx *c);
int wl_cpu_threads(const struct wl_ctx *c);
int wl_crash_asked(const struct wl_ctx *c);
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
/* Object I's file (for messages) and the bytes layout() gave it. */
const char *wl_obj_path(const struct wl_ctx *c, int i);
size_t wl_obj_bytes(const struct wl_ctx *c, int i);
/* Region I's mapping: ->host, ->dev (NULL where the mode maps host-only). */
gpm_region *wl_region(struct wl_ctx *c, int i);
/* Checkpoint I's handle, for reading what it holds (gpm/cp.h). */
gpmcp *wl_checkpoint(struct wl_ctx *c, int i);

/* ---- persistence, for the timed region (persist.c) ---- */
/* GPM modes: bracket kernel launches that persist (DDIO off/on where the
 * mode table says so). */
int wl_persist_begin(struct wl_ctx *c);
int wl_persist_end(struct wl_ctx *c);
/* Makes the ranges V[0..N) of region I durable the mode's way, with one
 * drain or fsync for the list: CAP modes copy each V[k].src there first,
 * gpm-ndp and cpu flush, gpm and gpm-eadr do nothing (the kernels did).
 * Counts the bytes. (wl_commit, wl_pm_write and wl_pm_persist are persist
 * points named by their call sites: gpm/trace.h.) */
int wl_commit_at(struct wl_ctx *c, int i, const gpm_range *v, int n, const char *site);
#define wl_commit(c, i, v, n) wl_commit_at((c), (i), (v), (n), GPM_SITE)
/* Does the mode make anything durable? Not mode none, whose commits are
 * the copies that feed verification. */
int wl_durable(const struct wl_ctx *c);
/* The CPU counterpart's persist of LEN bytes at P inside region I, counted.
 * Thread-safe, as wl_commit is in cpu mode. */
int wl_pm_persist_at(struct wl_ctx *c, int i, const void *p, size_t len, const char *site);
#define wl_pm_persist(c, i, p, len) wl_pm_persist_at((c), (i), (p), (len), GPM_SITE)
/* Region I's device pointer where the mode's kernels store into PM, else
 * NULL. */
void *wl_pm_dev(struct wl_ctx *c, int i);
/* Region I where the mode's kernels write it: the PM mapping (the CPU
 * counterpart's host one), else a device copy the harness loads at the
 * first call (in setup()), commits from and frees. NULL where memory runs
 * out (message set). */
void *wl_dev_region(struct wl_ctx *c, int i);

/* ---- progress (progress.c): units of c->progress as they become durable,
 * where --kill progress:K lands. The harness counts batches (wl_tx_batch)
 * and wl_steps' checkpoints; a workload with units of its own counts each
 * once durable: here on the host, with wl_progressed (wl.cuh) in a kernel. */
void wl_progress_add(struct wl_ctx *c, uint64_t units); /* thread-safe */

/* Writes LEN host bytes at OFF of region I and makes them durable, in any
 * mode (state words, headers). Counts the bytes. */
int wl_pm_write_at(struct wl_ctx *c, int i, size_t off, const void *src, size_t len,
                   const char *site);
#define wl_pm_write(c, i, off, src, len) wl_pm_write_at((c), (i), (off), (src), (len), GPM_SITE)

/* ---- helpers ---- */
double wl_now(void); /* CLOCK_MONOTONIC seconds */
/* Appends "k=v" text (printf-style) to the run's notes, comma-separated:
 * the row's params column after the parameters. */
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

/* The whole program: what main() calls. Returns the exit status. */
int wl_main(const struct wl_workload *w, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
