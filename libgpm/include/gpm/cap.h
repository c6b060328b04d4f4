/* CPU-assisted persistence (CAP) engines, shared by every workload so that
 * each baseline is tuned once and fairly.
 *
 *   CAP-fs   : GPU -> pinned DRAM staging (double-buffered, overlapped with
 *              the writes), pwrite() of large chunks into a PM-resident
 *              file, then fsync().
 *   CAP-gds  : as CAP-fs, but GPUDirect Storage (cuFile, gpm/gds.h) moves
 *              the device's bytes to the file; then fsync().
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

#include "gpm/gds.h"
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

/* One range of a vectored commit. OFF: byte offset in the region or file;
 * SRC: for the CAP copies, the device (or any CUDA-accessible; host memory
 * for gpm_cap_fs_host_ranges) source of the LEN bytes; ignored by pure
 * flushes. */
typedef struct gpm_range {
    size_t off;
    size_t len;
    const void *src;
} gpm_range;

/* A pool runs one persist at a time (it has one job slot): calls on the
 * same pool from several host threads must be serialised by the caller;
 * separate pools may run at once. */

/* Flushes [addr, addr+len) of region R with the pool's threads, each a
 * contiguous slice aligned to cache lines, then drains. FENCE_ONLY (eADR):
 * no flushes, one store fence. The one-range case of
 * gpm_flusher_persist_ranges. */
int gpm_flusher_persist_at(gpm_flusher *f, const gpm_region *r, const void *addr,
                           size_t len, int fence_only, const char *site);
#define gpm_flusher_persist(f, r, addr, len, fence_only)                                \
    gpm_flusher_persist_at((f), (r), (addr), (len), (fence_only), GPM_SITE)

/* Flushes the N ranges V of region R (offsets into r->host) in one pass:
 * the pool's threads share the total bytes, split across range boundaries
 * on cache lines (gpm_flush_runs_slice), so that no line is flushed twice
 * and each participating thread drains once (F NULL: the calling thread
 * flushes them all, with one drain). FENCE_ONLY (eADR): one store
 * fence, no flushes. N == 0 is a no-op. A range past r->size is an error
 * (one line naming it; nothing is flushed). */
int gpm_flusher_persist_ranges_at(gpm_flusher *f, const gpm_region *r, const gpm_range *v,
                                  int n, int fence_only, const char *site);
#define gpm_flusher_persist_ranges(f, r, v, n, fence_only)                              \
    gpm_flusher_persist_ranges_at((f), (r), (v), (n), (fence_only), GPM_SITE)

/* The slicing of a vectored flush, pure so that it can be tested.
 *
 * A run is a piece of address space [lo, hi) that shares no cache line with
 * any other run; LINE0 counts the cache lines of the runs before it. */
typedef struct gpm_flush_run {
    uintptr_t lo, hi;
    uint64_t line0;
} gpm_flush_run;

/* Builds the runs of N ranges at offsets from BASE (the region's first
 * byte): empty ranges dropped, sorted by address, and ranges that overlap
 * or share a cache line merged (a line is flushed whole, so merging adds no
 * flush). RUNS has room for N. Returns the number of runs; *LINES gets the
 * cache lines they span in all. The ranges must not wrap the address
 * space (callers check them against the region first). */
int gpm_flush_runs(uintptr_t base, const gpm_range *v, int n, gpm_flush_run *runs,
                   uint64_t *lines);

/* Called for each piece of a slice: LEN > 0 bytes at START, inside one run.
 * A non-zero return stops the slice and is returned. */
typedef int (*gpm_flush_piece_fn)(void *arg, uintptr_t start, size_t len);

/* Slice IDX of NSLICES of NRUNS runs spanning LINES cache lines in all: the
 * lines floor(LINES*IDX/NSLICES) up to floor(LINES*(IDX+1)/NSLICES) in run
 * order, handed to FN one piece (the part in one run, clamped to its bytes)
 * at a time, in address order. The slices share no cache line and cover
 * every byte of every run exactly once; for one run they are those of
 * gpm_flush_slice. Returns 0, or the first non-zero FN returned. */
int gpm_flush_runs_slice(const gpm_flush_run *runs, int nruns, uint64_t lines, int nslices,
                         int idx, gpm_flush_piece_fn fn, void *arg);

/* How many of NTHREADS threads share a flush of LEN bytes (1 for tiny ranges). */
int gpm_flush_threads_for(size_t len, int nthreads);
/* Slice IDX of NSLICES of the range [addr, addr+len): a contiguous piece
 * whose inner boundaries fall on cache lines, so no line is flushed by two
 * threads; the slices cover every byte exactly once (some may be empty).
 * Returns the slice start in *START and its length in *N. */
void gpm_flush_slice(uintptr_t addr, size_t len, int nslices, int idx, uintptr_t *start,
                     size_t *n);

/* CAP-mm: copies LEN bytes from device memory DEV_SRC into region R at
 * OFFSET, then persists them with F (fence only when FENCE_ONLY). The
 * one-range case of gpm_cap_mm_ranges, on the legacy default stream. */
int gpm_cap_mm(gpm_flusher *f, const gpm_region *r, size_t offset,
               const void *dev_src, size_t len, int fence_only);

/* CAP-mm for a list: each range's SRC is copied into r->host + OFF
 * (cudaMemcpyAsync on STREAM, a cudaStream_t passed as void *; NULL: the
 * legacy default stream, so the copies follow the kernels queued there),
 * the stream is synchronised once, then one gpm_flusher_persist_ranges
 * pass makes every range durable. R must be registered with CUDA (mapped
 * without GPM_HOST_ONLY). Every range is checked before anything is
 * copied. N == 0 is a no-op. */
int gpm_cap_mm_ranges(gpm_flusher *f, const gpm_region *r, const gpm_range *v, int n,
                      int fence_only, void *stream);

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
    void *after;           /* cudaEvent_t: the caller's stream, waited for before staging */
    int use_gds;           /* opened with GPM_CAP_GDS: device ranges go through cuFile */
    gpm_gds_file gds;      /* the file registered with cuFile */
    int gds_threads;       /* host threads per GDS write (GPM_GDS_THREADS_DEFAULT) */
    size_t gds_piece;      /* bytes per cuFile call (GPM_GDS_PIECE_DEFAULT) */
} gpm_cap_file;

/* gpm_cap_file_open's flag (a bit distinct from gpm_map's and GPMCP_FILE_IO):
 * device ranges are written, and checkpoints restored, by GPUDirect
 * Storage instead of the pinned staging; host ranges still go by pwrite.
 * An error where libcufile cannot be loaded (gpm_gds_available). */
enum { GPM_CAP_GDS = 1 << 9 };

/* Opens (GPM_CREATE: creates 0600) the file at PATH, resolved like gpm_map,
 * with SIZE bytes; an existing file of another size is an error and is left
 * as it is. Staging (two pinned chunks of GPM_CAP_FS_CHUNK_DEFAULT, or of the
 * file's size if smaller) is allocated here, outside any timed region;
 * GPM_HOST_ONLY allocates none (gpm_cap_fs_host only, no GPU needed). */
int gpm_cap_file_open(gpm_cap_file *cf, const char *path, size_t size, int flags);
/* Replaces the staging with chunks of CHUNK bytes (tuning); with
 * GPM_CAP_GDS, CHUNK is the bytes of each cuFile call instead. */
int gpm_cap_file_set_chunk(gpm_cap_file *cf, size_t chunk);
/* Frees staging and closes; the file stays. Safe on a zeroed struct. */
void gpm_cap_file_close(gpm_cap_file *cf);

/* Copies LEN bytes of device memory to the file at OFFSET and fsyncs. The
 * copy first waits for the work queued on the default stream (the kernels
 * that produce DEV_SRC). The one-range case of gpm_cap_fs_ranges. */
int gpm_cap_fs(gpm_cap_file *cf, off_t offset, const void *dev_src, size_t len);
/* The same from host memory (the CPU half, usable without a GPU). */
int gpm_cap_fs_host(gpm_cap_file *cf, off_t offset, const void *src, size_t len);

/* CAP-fs for a list: every range's SRC (device memory) is staged through
 * the pinned double buffers and pwritten at its OFF, chunks of consecutive
 * ranges overlapping as within one; then ONE fsync. With GPM_CAP_GDS, the
 * caller's STREAM is synchronised and cuFile writes each range from the
 * device, then ONE fsync. The staging first waits
 * for the work queued on STREAM (a cudaStream_t passed as void *: an event
 * recorded there is waited for; NULL: the legacy default stream, which the
 * blocking staging stream follows by itself). Every range is checked
 * before anything is written. N == 0 writes nothing and still fsyncs, like
 * gpm_cap_fs of 0 bytes. Needs the staging (opened without GPM_HOST_ONLY). */
int gpm_cap_fs_ranges(gpm_cap_file *cf, const gpm_range *v, int n, void *stream);
/* The same from host memory: pwrite of each range, then one fsync. Usable
 * without a GPU (files opened with GPM_HOST_ONLY too). */
int gpm_cap_fs_host_ranges(gpm_cap_file *cf, const gpm_range *v, int n);

#ifdef __cplusplus
}
#endif

#endif
