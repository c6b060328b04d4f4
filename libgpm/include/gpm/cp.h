/* libgpm checkpointing: groups of device buffers saved to, and restored
 * from, a PM file (the paper's gpmcp_* API, Table 2).
 *
 * Each group has two copies on PM, a consistent one and a working one. A
 * checkpoint copies the group's registered buffers into the working copy
 * with a kernel that uses the whole GPU, makes it durable, and only then
 * flips the group's consistent-copy index, together with a sequence number,
 * in one atomic 8-byte store that is persisted. A crash at any moment leaves
 * the previous or the new checkpoint, never a mix.
 *
 * Buffers are matched to saved elements by registration order within a
 * group. The file records each element's size at the group's first
 * checkpoint; a later checkpoint or restore whose registrations differ in
 * count or sizes is an error.
 *
 * One file format serves every way of writing it: the CAP-fs way
 * (GPMCP_FILE_IO, GPMCP_CAP_FS) writes the same copies and flip word
 * through pwrite + fsync instead of a GPU mapping.
 *
 * A handle is not thread-safe: one host thread at a time per handle.
 *
 * Every function returns 0 / -1 (NULL for create and open) and leaves a
 * one-line message in gpm_last_error(). */
#ifndef GPM_CP_H
#define GPM_CP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpm/cap.h"
#include "gpm/gpm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpmcp gpmcp;

/* Creates PATH (resolved like gpm_map; an existing file is never
 * overwritten) able to hold SIZE bytes of registered data in GROUPS groups
 * of at most ELEMENTS registrations each, and maps it for the GPU. */
gpmcp *gpmcp_create(const char *path, size_t size, int elements, int groups);
/* Opens an existing checkpoint file, validating its header without writing. */
gpmcp *gpmcp_open(const char *path);
/* The same with flags: gpm_map's, and GPMCP_FILE_IO below.
 * GPM_HOST_ONLY maps without CUDA, for CPU tools and tests; registered
 * addresses are then host pointers and copies are made by the CPU (the
 * flip protocol is unchanged). */
gpmcp *gpmcp_create_flags(const char *path, size_t size, int elements, int groups, int flags);
gpmcp *gpmcp_open_flags(const char *path, int flags);
/* Unmaps; the file stays. Safe on NULL. */
void gpmcp_close(gpmcp *cp);

enum gpmcp_flags {
    /* The CAP-fs way: the file is mapped host-only (read for its metadata,
     * written through the mapping only for the one-time layout and by
     * gpmcp_reset), never registered with CUDA, so opening a multi-GiB
     * file costs no cudaHostRegister. Checkpoints must use GPMCP_CAP_FS:
     * the working copy goes device -> pinned staging -> pwrite, one fsync,
     * then the flip word by pwrite + fsync. Restores pread the consistent
     * copy through pinned staging and copy it to the device. The staging
     * is allocated here, outside any timed region. Registered buffers are
     * device memory (checked), or host memory with GPM_HOST_ONLY too
     * (then no GPU is needed: CPU tools and tests). A bit distinct from
     * every gpm_map flag. With GPM_CAP_GDS (gpm/cap.h) too, GPUDirect
     * Storage writes the copies and reads the restores (cap-gds). */
    GPMCP_FILE_IO = 1 << 8
};

/* Adds ADDR (device memory, SIZE bytes) as the next element of GROUP. */
int gpmcp_register(gpmcp *cp, void *addr, size_t size, int group);

/* Saves GROUP's registered buffers (GPMCP_GPM, below). */
int gpmcp_checkpoint(gpmcp *cp, int group);
/* Copies GROUP's consistent copy back into its registered buffers. */
int gpmcp_restore(gpmcp *cp, int group);
/* The same on STREAM (a cudaStream_t passed as void *; NULL: the legacy
 * default stream, as gpmcp_restore): the copies follow the work queued
 * there and the call returns once they are done, having waited for that
 * stream only. */
int gpmcp_restore_on(gpmcp *cp, int group, void *stream);

/* Empties every group, so that a fresh run never inherits an earlier run's
 * checkpoint or layout: gpmcp_seq is then 0 for every group and the next
 * checkpoint lays its group out anew (any sizes). Crash-safe: every
 * group's flip word is zeroed durably first, then every seal, then the
 * tables; a crash on the way leaves groups empty or without a checkpoint,
 * never a corrupt one. The header is kept and the file is not resized.
 * This handle's registrations are kept. Works on every kind of handle
 * (through the mapping: it is one-time metadata, like the layout). */
int gpmcp_reset(gpmcp *cp);

/* How the working copy reaches PM; the flip that follows is the same. */
typedef enum gpmcp_mode {
    GPMCP_GPM = 0,    /* GPU kernel copy, fenced in the kernel, DDIO bracketed */
    GPMCP_GPM_NDP,    /* GPU kernel copy without fences; the CPU flushes the copy */
    GPMCP_GPM_EADR,   /* GPU kernel copy with fences, DDIO left alone */
    GPMCP_CAP_MM,     /* cudaMemcpy of each buffer into PM; the CPU flushes the copy */
    GPMCP_CAP_EADR,   /* cudaMemcpy of each buffer into PM; a store fence only */
    GPMCP_CAP_FS      /* pinned staging, pwrite, one fsync; flip by pwrite + fsync.
                       * Only, and always, on files opened with GPMCP_FILE_IO */
} gpmcp_mode;

typedef struct gpmcp_how {
    gpmcp_mode mode;
    /* CPU flushing threads for GPM_NDP, CAP_MM and CAP_EADR; NULL: the
     * calling thread flushes (gpm_region_persist). */
    gpm_flusher *flusher;
    /* cudaStream_t of the kernels that produce the buffers: the copy
     * kernel, the cudaMemcpy's or the CAP-fs staging follow the work queued
     * there, and the checkpoint waits for that stream only. NULL: the
     * legacy default stream (and, for the copy kernel, the whole device, as
     * before). Zero-initialise the struct so that older callers get NULL. */
    void *stream;
    /* GPM, GPM-eADR: at most this many blocks of 256 for the copy kernel
     * (0: enough to fill every SM). A copy that overlaps other work
     * (gpmcp_checkpoint_start) takes a few: the link, not the SMs, bounds
     * it. */
    unsigned max_blocks;
} gpmcp_how;

/* gpmcp_checkpoint with a choice of how (NULL: GPMCP_GPM). */
int gpmcp_checkpoint_how(gpmcp *cp, int group, const gpmcp_how *how);

/* gpmcp_checkpoint_how in two halves, so that the copy overlaps the
 * caller's next work: start queues the GPU's copy (GPM, GPM-eADR) on
 * HOW->stream and returns without waiting (the other modes copy before
 * returning); finish waits for it and makes the copy the consistent one.
 * Until finish returns, the registered buffers must not change and the
 * group takes no other checkpoint or restore; a crash before it leaves the
 * previous checkpoint the consistent one. Pass the same HOW to both. */
int gpmcp_checkpoint_start(gpmcp *cp, int group, const gpmcp_how *how);
int gpmcp_checkpoint_finish(gpmcp *cp, int group, const gpmcp_how *how);

/* Sequence number of GROUP's consistent copy (the count of checkpoints it
 * has completed), 0 if it has none, -1 on error. */
long long gpmcp_seq(const gpmcp *cp, int group);
/* Opened with GPMCP_FILE_IO | GPM_CAP_GDS: how cuFile's writes reach the
 * file (gpm_gds_way); NULL otherwise. */
const char *gpmcp_gds_way(const gpmcp *cp);
/* The mapping, for tools and tests that look at the bytes. */
const gpm_region *gpmcp_region(const gpmcp *cp);

/* Prints what the checkpoint file at PATH holds: geometry, and per group
 * its elements, sizes, which copy is consistent and its sequence number.
 * Returns 0, 1 if PATH is not a checkpoint file (wrong magic: the caller may
 * try another format), -1 on error. Never writes to the file. */
int gpmcp_inspect(FILE *out, const char *path);

/* Library internals, shared by cp.c and cp_copy.cu: one element to copy
 * between device memory and a group's copies on PM. */
typedef struct gpmcp_xfer {
    void *buf;          /* registered device buffer */
    uint64_t pm_off;    /* file offset of the element in copy 0 */
    uint64_t bytes;
} gpmcp_xfer;

/* Copies N elements (XFERS in device memory) from their buffers into the
 * copy that starts COPY_SHIFT bytes after copy 0 of the mapping at PM_DEV,
 * with every SM (at most MAX_BLOCKS blocks where not 0); FENCED: each
 * thread persists its stores before exiting. Launched on STREAM
 * (cudaStream_t; NULL: the legacy default stream); with WAIT, synchronous:
 * waits for STREAM, or for the whole device when NULL. TOTAL: the bytes of
 * all elements, to size the grid. */
int gpmcp_copy_kernel(void *pm_dev, const gpmcp_xfer *xfers, uint32_t n, uint64_t copy_shift,
                      uint64_t total, int fenced, void *stream, unsigned max_blocks, int wait);

#ifdef __cplusplus
}
#endif

#endif
