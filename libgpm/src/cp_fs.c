/* The CAP-fs way of checkpointing (GPMCP_FILE_IO, GPMCP_CAP_FS): the same
 * file, copies and flip protocol as every other way, written through the
 * file system. A checkpoint stages the working copy's elements from the
 * device through pinned memory, pwrites them at their offsets and fsyncs
 * once (gpm_cap_fs_ranges); only then is the flip word pwritten and
 * fsynced. A restore preads the consistent copy through the same pinned
 * staging and copies it to the device. Opened with GPM_CAP_GDS too
 * (cap-gds), cuFile writes the elements from, and reads them back into,
 * device memory instead of the staging.
 *
 * The file is also mapped (host-only) for its metadata: reads of the
 * header and tables, and the one-time layout and gpmcp_reset, written
 * through the mapping and made durable with gpm_region_persist. Mixing the
 * two is coherent: a MAP_SHARED mapping and pread/pwrite of one file use
 * the same pages (Linux's unified page cache, or the PM itself on DAX), so
 * each sees the other's writes at once, and msync/flushes and fsync make
 * those same pages durable. Each write through the mapping is durable
 * before the pwrites that depend on it, and each pwrite is fsynced before
 * the call returns, so the two paths never race on a byte. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cp_internal.h"

int cpfs_open(gpmcp *cp)
{
    int flags = cp->host_only ? GPM_HOST_ONLY : cp->gds ? GPM_CAP_GDS : 0;
    cp->ranges = calloc(cp->h.elements, sizeof *cp->ranges);
    if (!cp->ranges)
        return gpm_set_error("%s: out of memory for %" PRIu32 " checkpoint ranges", cp->r.path,
                             cp->h.elements);
    /* The staging (pinned, for device buffers) is allocated here, so that
     * no timed checkpoint or restore pays for it. */
    if (gpm_cap_file_open(&cp->cf, cp->r.path, cp->r.size, flags) != 0)
        return -1;
    cp->rfd = open(cp->r.path, O_RDONLY | O_CLOEXEC);
    if (cp->rfd < 0)
        return gpm_set_error("%s: cannot open for reading (%s): check its permissions",
                             cp->r.path, strerror(errno));
    return 0;
}

void cpfs_close(gpmcp *cp)
{
    gpm_cap_file_close(&cp->cf);
    if (cp->rfd >= 0)
        close(cp->rfd);
    cp->rfd = -1;
    free(cp->ranges);
    cp->ranges = NULL;
}

int cpfs_write_copy(gpmcp *cp, uint32_t gi, uint32_t w, void *stream)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    int rc;
    for (uint32_t k = 0; k < g->nelem; k++) {
        cp->ranges[k].off = (size_t)gpmcp_elem_file_off(g, &e[k], w);
        cp->ranges[k].len = (size_t)e[k].size;
        cp->ranges[k].src = r[k].addr;
    }
    if (cp->host_only)
        rc = gpm_cap_fs_host_ranges(&cp->cf, cp->ranges, (int)g->nelem);
    else
        rc = gpm_cap_fs_ranges(&cp->cf, cp->ranges, (int)g->nelem, stream);
    if (rc != 0)
        return gpm_set_error("checkpoint of group %" PRIu32 ": %s", gi, gpm_last_error());
    return 0;
}

int cpfs_flip(gpmcp *cp, uint32_t gi, uint64_t flip)
{
    /* One aligned 8-byte pwrite inside one page: a SIGKILL cannot tear it
     * (the kernel finishes the copy before the signal is taken), and a
     * power cut keeps the old or the new word (sector writes are atomic; on
     * DAX the kernel copies it with one 8-byte store). */
    uint64_t off = cp->h.group_off + (uint64_t)gi * GPMCP_GROUP_BYTES +
                   offsetof(gpmcp_group, flip);
    return gpm_cap_fs_host(&cp->cf, (off_t)off, &flip, sizeof flip);
}

static int read_all(const gpmcp *cp, void *buf, size_t len, uint64_t off)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(cp->rfd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return gpm_set_error("%s: cannot read %zu checkpoint bytes at offset %" PRIu64
                                 " (%s): check the file", cp->r.path, len, off,
                                 n < 0 ? strerror(errno) : "the file ended");
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* Device buffers: chunks are read into the two pinned buffers in turn, so
 * that the pread of one overlaps the DMA of the other. */
static int restore_to_device(gpmcp *cp, uint32_t gi, uint32_t c, cudaStream_t st)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    gpm_cap_file *cf = &cp->cf;
    size_t used = 0; /* chunks issued */
    int rc = 0;
    cudaError_t err = cudaSuccess;
    for (uint32_t k = 0; k < g->nelem && rc == 0; k++) {
        uint64_t off = gpmcp_elem_file_off(g, &e[k], c);
        for (size_t at = 0; at < e[k].size && rc == 0; used++) {
            size_t n = e[k].size - at < cf->chunk ? (size_t)(e[k].size - at) : cf->chunk;
            int b = (int)(used % 2);
            /* Buffer B's previous chunk must be on the device before reuse. */
            if (used >= 2 && (err = cudaEventSynchronize((cudaEvent_t)cf->event[b])) != cudaSuccess)
                break;
            if ((rc = read_all(cp, cf->stage[b], n, off + at)) != 0)
                break;
            err = cudaMemcpyAsync((char *)r[k].addr + at, cf->stage[b], n,
                                  cudaMemcpyHostToDevice, st);
            if (err == cudaSuccess)
                err = cudaEventRecord((cudaEvent_t)cf->event[b], st);
            if (err != cudaSuccess)
                break;
            at += n;
        }
        if (err != cudaSuccess)
            break;
    }
    /* Never return with a DMA still reading the staging. */
    cudaError_t serr = cudaStreamSynchronize(st);
    if (rc != 0)
        return -1;
    if (err == cudaSuccess)
        err = serr;
    if (err != cudaSuccess)
        return gpm_set_error("%s: restore of group %" PRIu32 ": copy to the GPU failed (%s)",
                             cp->r.path, gi, cudaGetErrorString(err));
    return 0;
}

int cpfs_restore(gpmcp *cp, uint32_t gi, uint32_t c, void *stream)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    if (cp->cf.use_gds) {
        /* cuFile writes the device buffers: wait for the work before. */
        cudaError_t err = cudaStreamSynchronize(stream ? (cudaStream_t)stream : cudaStreamLegacy);
        if (err != cudaSuccess)
            return gpm_set_error("%s: restore of group %" PRIu32 ": the GPU failed (%s)",
                                 cp->r.path, gi, cudaGetErrorString(err));
        for (uint32_t k = 0; k < g->nelem; k++)
            if (gpm_gds_read(&cp->cf.gds, r[k].addr, (size_t)e[k].size,
                             (off_t)gpmcp_elem_file_off(g, &e[k], c), cp->cf.gds_threads,
                             cp->cf.gds_piece) != 0)
                return -1;
        return 0;
    }
    if (!cp->host_only)
        return restore_to_device(cp, gi, c, stream ? (cudaStream_t)stream : cudaStreamLegacy);
    for (uint32_t k = 0; k < g->nelem; k++)
        if (read_all(cp, r[k].addr, (size_t)e[k].size, gpmcp_elem_file_off(g, &e[k], c)) != 0)
            return -1;
    return 0;
}
