/* GPUDirect Storage (cuFile): device buffers written to, and read from, a
 * file without a copy through the caller's host memory. The baseline a
 * user would pick today to make GPU data durable in a file (cap-gds).
 *
 * libcufile is loaded at run time (dlopen), so libgpm builds and runs
 * where it is missing: the CUDA toolkit ships it only with its GPUDirect
 * Storage package. It is looked for as libcufile.so.0 on the loader's
 * path, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64.
 *
 * cuFile writes the GPU's bytes straight to storage (true GDS) only with
 * the nvidia-fs driver, a file opened with O_DIRECT and a file system
 * that GDS supports; otherwise it runs in compatibility mode: POSIX I/O
 * through its own bounce buffers in pinned host memory. Each file says
 * which way its writes go (gpm_gds_way); on tmpfs it is always the latter.
 *
 * Durability is the file system's, as for CAP-fs: a write is durable once
 * fsync returns (gpm_cap_fs_ranges does both). */
#ifndef GPM_GDS_H
#define GPM_GDS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if libcufile loads with the calls used here (once per process; later
 * calls return the first answer), else 0 with WHY (LEN bytes) saying what
 * is missing and how to get it. Needs no GPU: the cuFile driver opens at
 * the first gpm_gds_open. */
int gpm_gds_available(char *why, size_t len);

/* 1 if cuFile can write files in DIR on this machine: the library loads,
 * its driver opens (a CUDA context) and it registers a probe file made and
 * removed there; else 0 with WHY. The answer for the last DIR is kept.
 * cuFile refuses every file, even in compatibility mode, where it cannot
 * find the file's block device in the udev database: on tmpfs, and in
 * containers without /run/udev, where the record
 * /run/udev/data/b<major>:<minor> holding "E:ID_FS_USAGE=filesystem"
 * lets it (WHY names the numbers). GPM_GDS=off in the environment turns
 * GPUDirect Storage off. */
int gpm_gds_usable(const char *dir, char *why, size_t len);

typedef struct gpm_gds_file {
    int fd;        /* the descriptor registered with cuFile, -1 when closed */
    int direct;    /* it was opened with O_DIRECT */
    void *handle;  /* CUfileHandle_t */
    char way[96];  /* "gds", or "compat" and why (gpm_gds_way) */
} gpm_gds_file;

/* Opens PATH (an existing file) for cuFile reads and writes: with
 * O_DIRECT where the file system accepts it and cuFile registers it, else
 * without. */
int gpm_gds_open(gpm_gds_file *g, const char *path);
/* Deregisters and closes; safe on a zeroed struct with fd -1 or 0 handle. */
void gpm_gds_close(gpm_gds_file *g);

/* Writes LEN bytes of device memory at DEV to the file at OFF (the data
 * is not yet durable: fsync it), with THREADS host threads, each issuing
 * pieces of at most PIECE bytes (0: the whole range in one call). The
 * caller has waited for the kernels that produce DEV: cuFile follows no
 * stream. */
int gpm_gds_write(gpm_gds_file *g, const void *dev, size_t len, off_t off, int threads,
                  size_t piece);
/* Reads LEN bytes of the file at OFF into device memory at DEV. */
int gpm_gds_read(gpm_gds_file *g, void *dev, size_t len, off_t off, int threads, size_t piece);

/* How the writes of G reach the file: "gds", or "compat:" and the first
 * reason (no-nvidia-fs, tmpfs, no-o-direct). */
const char *gpm_gds_way(const gpm_gds_file *g);

/* The same decision, pure, for tests: NVFS is the nvidia-fs driver's major
 * version (0: not loaded), TMPFS whether the file lives on tmpfs, DIRECT
 * whether the registered descriptor has O_DIRECT. Writes OUT (LEN bytes). */
void gpm_gds_decide_way(unsigned nvfs, int tmpfs, int direct, char *out, size_t len);

/* Why cuFile registered no file in DIR, and the way out, pure, for tests:
 * ERR, then, where DIR is on tmpfs or a device of major number 0 (no
 * block device), a directory on a block device's file system, else the
 * udev record /run/udev/data/bMAJOR:MINOR that cuFile looks for. Writes
 * OUT (LEN bytes). */
void gpm_gds_refusal(const char *dir, int tmpfs, unsigned major, unsigned minor,
                     const char *err, char *out, size_t len);

/* gpm_cap_file's GDS writes by default: one call a range, from one thread,
 * leaving the splitting to cuFile, whose own pool does it (cufile.json's
 * parallel_io and max_request_parallelism). gpm-cap-tune --gds-threads
 * sweeps threads and pieces where cuFile can write files. */
#define GPM_GDS_THREADS_DEFAULT 1
#define GPM_GDS_PIECE_DEFAULT ((size_t)0) /* the whole range */

#ifdef __cplusplus
}
#endif

#endif
