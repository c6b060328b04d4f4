/* CPU-assisted persistence (CAP) engines, shared by every workload so that
 * each baseline is tuned once and fairly.
 *
 *   CAP-fs   : GPU -> pinned DRAM staging (double-buffered, overlapped with
 *              the writes), pwrite() of large chunks into a PM-resident
 *              file, then fsync().
 *   CAP-mm   : cudaMemcpy straight into the mapped PM file (registered, so
 *              the copy is DMA), then N CPU threads flush their slices.
 *   NDP      : kernels already stored to PM; N CPU threads flush the ranges.
 *   eADR     : as CAP-mm / NDP, but only an ordering fence, no flushes.
 */
#ifndef GPM_CAP_H
#define GPM_CAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "gpm/gpm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pool of CPU flushing threads, created once so that thread start-up is
 * not charged to every persist. */
typedef struct gpm_flusher gpm_flusher;

#define GPM_FLUSHER_MAX_THREADS 64
/* Below this many bytes per thread, waking another thread costs more than
 * its share of the flushing, so small ranges use fewer threads (down to
 * one). Measured on an H200 host: a 1 MiB flush took longest with 4
 * threads and was fastest with 1 (25 GB/s); 4 MiB was fastest with 8
 * threads of 512 KiB, 1 MiB slices being within 10% of that. */
#define GPM_FLUSH_MIN_SLICE ((size_t)1 << 20)
#define GPM_CACHE_LINE 64

/* The thread count to use when none is given: measured on an H200 host
 * (16 cores, emulated PM), flushing 1 GiB scaled up to 8 threads (24 ->
 * 157 GB/s) and not beyond, so 8, or the online CPUs if fewer. Workloads
 * that report CAP-mm sweep the count instead (paper: best of 2-32). */
int gpm_flusher_default_threads(void);

/* NTHREADS 1..GPM_FLUSHER_MAX_THREADS (the calling thread is one of them);
 * NULL with the error set otherwise. */
gpm_flusher *gpm_flusher_create(int nthreads);
void gpm_flusher_destroy(gpm_flusher *f);
int gpm_flusher_threads(const gpm_flusher *f);

/* Flushes [addr, addr+len) of region R with the pool's threads, each a
 * contiguous slice aligned to cache lines, then drains. FENCE_ONLY (eADR):
 * no flushes, one store fence. */
int gpm_flusher_persist(gpm_flusher *f, const gpm_region *r, const void *addr,
                        size_t len, int fence_only);

/* A piece of a mapping to make durable. */
typedef struct gpm_extent {
    const void *addr;
    size_t len;
} gpm_extent;

/* Flushes the N extents of region R (data scattered over many ranges, such
 * as the used parts of a log's slots) and drains once per thread, instead
 * of once per extent. The threads share the extents' total bytes evenly
 * (F NULL: the calling thread flushes them all). Extents must not overlap;
 * if each starts on a cache line and spans whole lines, no line is flushed
 * by two threads. Not for eADR: there a single store fence is enough. Like
 * gpm_flusher_persist, one caller at a time per flusher. */
int gpm_flusher_persist_extents(gpm_flusher *f, const gpm_region *r, const gpm_extent *ext,
                                size_t n);
/* The share of slice IDX of NSLICES of extents totalling TOTAL bytes:
 * bytes [*LO, *HI) of their concatenation, cut on multiples of
 * GPM_CACHE_LINE; the slices tile [0, TOTAL). */
void gpm_flush_extents_slice(size_t total, int nslices, int idx, size_t *lo, size_t *hi);

/* How many of NTHREADS threads share a flush of LEN bytes (1 for tiny ranges). */
int gpm_flush_threads_for(size_t len, int nthreads);
/* Slice IDX of NSLICES of the range [addr, addr+len): a contiguous piece
 * whose inner boundaries fall on cache lines, so no line is flushed by two
 * threads; the slices cover every byte exactly once (some may be empty).
 * Returns the slice start in *START and its length in *N. */
void gpm_flush_slice(uintptr_t addr, size_t len, int nslices, int idx, uintptr_t *start,
                     size_t *n);

/* CAP-mm: copies LEN bytes from device memory DEV_SRC into region R at
 * OFFSET, then persists them with F (fence only when FENCE_ONLY). */
int gpm_cap_mm(gpm_flusher *f, const gpm_region *r, size_t offset,
               const void *dev_src, size_t len, int fence_only);

/* CAP-fs: a file opened for positional writes plus pinned staging. */
/* Measured on an H200 host (tmpfs, 1 GiB, 5 and 11 repetitions): 16 MiB
 * chunks were the fastest or within noise of it (0.19-0.20 s); 64 and 256
 * MiB were 15-25% slower, the staging no longer staying in the CPU cache
 * between the DMA and the pwrite; at 256 MiB, 4 MiB was 7% ahead of 16. */
#define GPM_CAP_FS_CHUNK_DEFAULT ((size_t)16 << 20)

typedef struct gpm_cap_file {
    int fd;
    size_t size;           /* the file's size, bytes */
    size_t chunk;          /* staging chunk, bytes */
    void *stage[2];        /* pinned host buffers (cudaHostAlloc) */
    void *event[2];        /* cudaEvent_t, opaque to C callers */
    void *stream;          /* cudaStream_t */
    char path[4096];
} gpm_cap_file;

/* Opens (GPM_CREATE: creates 0600) the file at PATH, resolved like gpm_map,
 * with SIZE bytes; an existing file of another size is an error and is left
 * as it is. Staging (two pinned chunks of GPM_CAP_FS_CHUNK_DEFAULT, or of the
 * file's size if smaller) is allocated here, outside any timed region;
 * GPM_HOST_ONLY allocates none (gpm_cap_fs_host only, no GPU needed). */
int gpm_cap_file_open(gpm_cap_file *cf, const char *path, size_t size, int flags);
/* Replaces the staging with chunks of CHUNK bytes (tuning). */
int gpm_cap_file_set_chunk(gpm_cap_file *cf, size_t chunk);
/* Frees staging and closes; the file stays. Safe on a zeroed struct. */
void gpm_cap_file_close(gpm_cap_file *cf);

/* Copies LEN bytes of device memory to the file at OFFSET and fsyncs. The
 * copy first waits for the work queued on the default stream (the kernels
 * that produce DEV_SRC). */
int gpm_cap_fs(gpm_cap_file *cf, off_t offset, const void *dev_src, size_t len);
/* The same from host memory (the CPU half, usable without a GPU). */
int gpm_cap_fs_host(gpm_cap_file *cf, off_t offset, const void *src, size_t len);

#ifdef __cplusplus
}
#endif

#endif
