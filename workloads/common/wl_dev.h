/* Device memory for a workload's host code, and the handle its kernels
 * write their output through (wl.cuh). */
#ifndef WL_DEV_H
#define WL_DEV_H

#include "wl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device memory (dev.c) ---- */
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
/* What a kernel needs of the mode to write its output (see wl.cuh). */
wl_out wl_out_of(const struct wl_ctx *c);

#ifdef __cplusplus
}
#endif

#endif
