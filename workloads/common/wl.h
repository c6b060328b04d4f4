/* The workload harness: one command line, one timing rule, one result row
 * and one crash hook for every workload of the suite.
 *
 * A workload defines `const struct wl_workload WORKLOAD` (its name, size
 * flags, PM layout and callbacks); the harness's main() parses the command
 * line, maps the PM file, runs the repetitions, times them, verifies, and
 * writes the row. The workload never parses flags, opens files, picks a CAP
 * engine or starts a clock: it calls the wl_* helpers below instead.
 *
 * Usable from C11 and CUDA. Functions return 0 / -1 and leave a one-line
 * message in gpm_last_error(). */
#ifndef WL_H
#define WL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpm/cap.h"
#include "gpm/gpm.h"

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
    WL_CPU,      /* the CPU counterpart (OpenMP + libpmem), where a workload has one */
    WL_NMODES
};
#define WL_MODE_BIT(m) (1u << (m))
#define WL_MODES_GPU                                                                   \
    (WL_MODE_BIT(WL_GPM) | WL_MODE_BIT(WL_GPM_NDP) | WL_MODE_BIT(WL_GPM_EADR) |         \
     WL_MODE_BIT(WL_CAP_MM) | WL_MODE_BIT(WL_CAP_FS) | WL_MODE_BIT(WL_CAP_EADR))

enum wl_scale { WL_TINY, WL_SMALL, WL_PAPER, WL_CUSTOM };

/* How the workload keeps its data on PM. */
enum wl_pm_kind {
    WL_PM_REGION,     /* one file of the workload's layout, mapped by the harness */
    WL_PM_CHECKPOINT  /* a checkpoint file: gpmcp (CAP-fs: the harness's file twin) */
};

#define WL_MAX_PARAMS 8

/* A size or shape flag of one workload: --FLAG VALUE. */
struct wl_param {
    const char *flag;       /* without the dashes: "n", "checkpoint-every" */
    const char *help;
    long long scale[3];     /* value at tiny, small, paper */
    long long min, max;     /* accepted range */
    int sizes;              /* 1: it changes the data size (the row's scale becomes custom) */
};

struct wl_opts {
    enum wl_mode mode;
    enum wl_scale scale;    /* the base scale (default small) */
    int custom;             /* a size flag overrode it: the row says "custom" */
    long long param[WL_MAX_PARAMS];
    int param_given[WL_MAX_PARAMS];
    int reps;
    const char *pm_dir;     /* NULL: GPM_PM_DIR or its default */
    int cpu_threads;        /* 0: best (calibrated), else that many */
    int cpu_threads_given;
    int recover;
    double crash_after;     /* seconds; < 0: no crash */
    int crash_random;       /* a random moment within the expected run */
    unsigned long long seed;
    const char *out;        /* append rows here; NULL: stdout */
    int keep;               /* keep the PM file after a successful run */
};

struct wl_cp; /* the checkpoint engine (cp.c) */

/* What the harness hands a workload's callbacks. */
struct wl_ctx {
    const struct wl_workload *wl;
    struct wl_opts opt;
    long long p[WL_MAX_PARAMS]; /* resolved values of the workload's params */

    /* Filled by the workload's layout(): */
    size_t pm_bytes;         /* WL_PM_REGION: the file's exact size */
    size_t data_bytes;       /* the PM-resident data (size_bytes column) */
    double expected_s;       /* rough duration of one repetition, for --crash-after random */
    size_t calib_bytes;      /* bytes one CAP persist writes, for --cpu-threads best */

    /* Set up by the harness: */
    char pm_name[256];       /* file name under the PM directory */
    gpm_region pm;           /* WL_PM_REGION: the mapping (host-only in cap-fs and cpu modes) */
    gpm_cap_file cf;         /* WL_PM_REGION in cap-fs mode: the same file for pwrite */
    int cf_open;
    gpm_flusher *flusher;    /* CPU flush threads (gpm-ndp, cap-mm, cap-eadr) */
    int threads;             /* their number (0 where none) */
    char threads_how[32];    /* "best:8", "8" */
    struct wl_cp *cp;        /* WL_PM_CHECKPOINT */
    int fresh;               /* 1: a normal run; 0: --recover */

    /* Updated by the workload while it runs: */
    double bytes_persisted;  /* reset before each repetition */
    double restore_s;        /* --recover: the restoration part; < 0: whole operation */
    char note[256];          /* extra "k=v" for the params column */
    int rep;
    void *priv;              /* the workload's own state */
};

/* A workload. Optional callbacks may be NULL. */
struct wl_workload {
    const char *name;        /* "ps": the binary's name and the row's workload */
    const char *about;       /* one line for --help */
    unsigned modes;          /* WL_MODE_BIT set */
    enum wl_pm_kind pm_kind;
    const struct wl_param *params; /* terminated by an entry with flag NULL */
    int (*layout)(struct wl_ctx *c);   /* sizes from c->p; rejects bad combinations */
    int (*setup)(struct wl_ctx *c);    /* inputs, device memory: untimed, once */
    int (*prepare)(struct wl_ctx *c);  /* untimed, before every repetition */
    int (*run)(struct wl_ctx *c);      /* one timed repetition */
    int (*recover)(struct wl_ctx *c);  /* timed: restore/resume from PM, finish */
    int (*verify)(struct wl_ctx *c);   /* 0 ok, 1 wrong (message set), -1 error */
    void (*teardown)(struct wl_ctx *c);
};

/* The workload linked into this binary. */
extern const struct wl_workload WORKLOAD;

/* ---- command line (cli.c) ---- */
const char *wl_mode_name(enum wl_mode m);
const char *wl_scale_name(enum wl_scale s);
/* Parses ARGV for W. Returns 0, 1 for --help (usage printed to HELP_OUT),
 * or -1 with a one-line message naming the flag and the fix (exit 2). */
int wl_parse_args(const struct wl_workload *w, int argc, char **argv, struct wl_opts *o,
                  FILE *help_out);
/* Fills c->p from the options (scale values unless a flag overrode them). */
void wl_resolve_params(const struct wl_workload *w, const struct wl_opts *o, long long *p);
/* Index of FLAG among W's params, or -1. */
int wl_param_index(const struct wl_workload *w, const char *flag);
/* "n=...,iters=..." of the resolved params. */
void wl_params_string(const struct wl_ctx *c, char *out, size_t len);

/* ---- modes ---- */
int wl_mode_is_cap(enum wl_mode m);       /* cap-mm, cap-fs, cap-eadr */
int wl_mode_fences(enum wl_mode m);       /* gpm, gpm-eadr: kernels persist in-kernel */
int wl_mode_uses_flusher(enum wl_mode m); /* gpm-ndp, cap-mm, cap-eadr */

/* ---- persistence, for the timed region (persist.c) ---- */
/* GPM modes: bracket kernel launches that persist (DDIO off/on in gpm mode only). */
int wl_persist_begin(struct wl_ctx *c);
int wl_persist_end(struct wl_ctx *c);
/* CAP modes: the engine of the mode moves LEN bytes of device memory to
 * offset OFF of the PM file and makes them durable. Counts the bytes. */
int wl_cap_persist(struct wl_ctx *c, size_t off, const void *dev_src, size_t len);
/* gpm-ndp: the CPU flushes [OFF, OFF+LEN) that the kernels stored. Counts the bytes. */
int wl_ndp_flush(struct wl_ctx *c, size_t off, size_t len);
/* Writes LEN host bytes at OFF of the PM file and makes them durable, in
 * any mode (headers, state words). */
int wl_pm_write(struct wl_ctx *c, size_t off, const void *src, size_t len);
/* Picks the flusher thread count (calibrating for "best"). */
int wl_flusher_setup(struct wl_ctx *c);

/* ---- checkpointing workloads (cp.c): one API over gpmcp and CAP-fs ---- */
/* Opens the checkpoint file (fresh run: creates it or reuses one of the
 * same geometry; --recover: it must exist) for NBUF buffers of BYTES in all. */
int wl_cp_open(struct wl_ctx *c, size_t bytes, int nbuf);
int wl_cp_register(struct wl_ctx *c, void *dev, size_t size);
/* Saves the registered buffers, the mode's way; counts the bytes. */
int wl_cp_checkpoint(struct wl_ctx *c);
/* Restores the last consistent checkpoint: 0 done, 1 there is none yet. */
int wl_cp_restore(struct wl_ctx *c);
void wl_cp_close(struct wl_ctx *c);
/* Checkpoint file size for BYTES in NBUF buffers (what wl_cp_open maps). */
size_t wl_cp_file_bytes(enum wl_mode m, size_t bytes, int nbuf);

/* ---- device memory, for the workloads' host code (dev.c) ---- */
int wl_dev_alloc(void **p, size_t bytes); /* *p = NULL on failure */
void wl_dev_free(void *p);                /* NULL is fine */
int wl_dev_zero(void *d, size_t bytes);
int wl_dev_copy(void *dst, const void *src, size_t bytes, int to_device);
/* After kernel launches: waits for them and reports a launch or execution
 * error as "WHAT failed (why)". */
int wl_dev_sync(const char *what);

/* ---- helpers ---- */
double wl_now(void); /* CLOCK_MONOTONIC seconds */
/* Verification: the first mismatch is reported in the error message. */
int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n);
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
