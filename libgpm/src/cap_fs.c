/* CAP-fs: the GPU's results go through the file system. Device data is
 * staged through two pinned buffers so that the DMA of chunk i+1 overlaps
 * the pwrite() of chunk i; a list of ranges is one sequence of chunks, made
 * durable with one fsync(). CAP-gds (GPM_CAP_GDS): cuFile writes the
 * device's ranges instead, then the same fsync. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpm/cap.h"
#include "gpm/trace.h"
#include "file_check.h"

static int free_staging(gpm_cap_file *cf)
{
    for (int i = 0; i < 2; i++) {
        if (cf->stage[i])
            cudaFreeHost(cf->stage[i]);
        cf->stage[i] = NULL;
    }
    return 0;
}

static void release(gpm_cap_file *cf)
{
    free_staging(cf);
    for (int i = 0; i < 2; i++) {
        if (cf->event[i])
            cudaEventDestroy((cudaEvent_t)cf->event[i]);
        cf->event[i] = NULL;
    }
    if (cf->after)
        cudaEventDestroy((cudaEvent_t)cf->after);
    cf->after = NULL;
    if (cf->stream)
        cudaStreamDestroy((cudaStream_t)cf->stream);
    cf->stream = NULL;
    if (cf->use_gds)
        gpm_gds_close(&cf->gds);
    cf->use_gds = 0;
    if (cf->fd >= 0)
        close(cf->fd);
    cf->fd = -1;
    cf->path[0] = '\0';
}

int gpm_cap_file_set_chunk(gpm_cap_file *cf, size_t chunk)
{
    size_t bytes = chunk < cf->size ? chunk : cf->size;
    cudaError_t e;
    if (chunk == 0)
        return gpm_set_error("%s: CAP-fs staging chunk of 0 bytes: use a positive size",
                             cf->path);
    if (cf->use_gds) {
        cf->gds_piece = chunk;
        return 0;
    }
    if (!cf->stream)
        return gpm_set_error("%s: CAP-fs file was opened with GPM_HOST_ONLY: it has no "
                             "staging; reopen it without that flag", cf->path);
    free_staging(cf);
    for (int i = 0; i < 2; i++) {
        e = cudaHostAlloc(&cf->stage[i], bytes, cudaHostAllocDefault);
        if (e != cudaSuccess) {
            cf->stage[i] = NULL;
            free_staging(cf);
            cf->chunk = 0;
            return gpm_set_error("%s: cannot pin 2 x %zu bytes of CAP-fs staging (%s): use a "
                                 "smaller chunk or raise the locked-memory limit (ulimit -l)",
                                 cf->path, bytes, cudaGetErrorString(e));
        }
    }
    cf->chunk = bytes;
    return 0;
}

static int open_cuda(gpm_cap_file *cf)
{
    /* A blocking stream: its copies wait for the work the caller queued on
     * the default stream, so a kernel still producing DEV_SRC is never read
     * half done (a non-blocking stream would not wait for it). */
    cudaError_t e = cudaStreamCreateWithFlags((cudaStream_t *)&cf->stream, cudaStreamDefault);
    for (int i = 0; e == cudaSuccess && i < 2; i++)
        e = cudaEventCreateWithFlags((cudaEvent_t *)&cf->event[i], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cudaEventCreateWithFlags((cudaEvent_t *)&cf->after, cudaEventDisableTiming);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-fs needs a CUDA GPU for its staging (%s): check that "
                             "one is visible, or open with GPM_HOST_ONLY for host data",
                             cf->path, cudaGetErrorString(e));
    return gpm_cap_file_set_chunk(cf, GPM_CAP_FS_CHUNK_DEFAULT);
}

/* GPUDirect Storage: cuFile moves the device's bytes, so no staging. */
static int open_gds(gpm_cap_file *cf)
{
    if (gpm_gds_open(&cf->gds, cf->path) != 0)
        return -1;
    cf->use_gds = 1;
    cf->gds_threads = GPM_GDS_THREADS_DEFAULT;
    cf->gds_piece = GPM_GDS_PIECE_DEFAULT;
    return 0;
}

/* Opens the existing file or creates it; never truncates or resizes one. */
static int open_file(gpm_cap_file *cf, size_t size, int flags, int *created)
{
    struct stat st;
    int err;
    *created = 0;
    if (stat(cf->path, &st) == 0) {
        if (gpm_check_existing(cf->path, &st, size) != 0)
            return -1;
        cf->fd = open(cf->path, O_WRONLY | O_CLOEXEC);
        if (cf->fd < 0)
            return gpm_set_error("%s: cannot open for writing (%s): check its permissions",
                                 cf->path, strerror(errno));
        cf->size = (size_t)st.st_size;
        return 0;
    }
    if (!(flags & GPM_CREATE))
        return gpm_set_error("%s: does not exist: create it first or check GPM_PM_DIR",
                             cf->path);
    if (size == 0)
        return gpm_set_error("%s: cannot create a CAP-fs file of 0 bytes", cf->path);
    /* EXCL: a file appearing meanwhile is never truncated. */
    cf->fd = open(cf->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (cf->fd < 0)
        return gpm_set_error("%s: cannot create (%s): check that the directory exists and is "
                             "writable, or set GPM_PM_DIR", cf->path, strerror(errno));
    *created = 1;
    /* Reserve the blocks now, so that a full file system fails here and not
     * halfway through a timed write. */
    err = posix_fallocate(cf->fd, 0, (off_t)size);
    if (err != 0)
        return gpm_set_error("%s: cannot allocate %zu bytes (%s): free space, use a smaller "
                             "--scale, or set GPM_PM_DIR", cf->path, size, strerror(err));
    cf->size = size;
    return 0;
}

int gpm_cap_file_open(gpm_cap_file *cf, const char *path, size_t size, int flags)
{
    int created = 0;
    memset(cf, 0, sizeof *cf);
    cf->fd = -1;
    cf->gds.fd = -1;
    if (gpm_resolve_path(path, cf->path, sizeof cf->path) != 0) {
        cf->path[0] = '\0';
        return -1;
    }
    if (open_file(cf, size, flags, &created) == 0 &&
        ((flags & GPM_HOST_ONLY) ? 1
         : (flags & GPM_CAP_GDS) ? open_gds(cf) == 0
                                 : open_cuda(cf) == 0)) {
        gpm_trace_fd(cf->fd, cf->path); /* its writes reach a traced mapping's bytes */
        return 0;
    }
    if (created)
        unlink(cf->path); /* nothing of the user's was in it */
    release(cf);
    return -1;
}

void gpm_cap_file_close(gpm_cap_file *cf)
{
    if (cf->path[0] == '\0')
        return;
    release(cf);
}

static int check_open(const gpm_cap_file *cf)
{
    if (cf->path[0] == '\0' || cf->fd < 0)
        return gpm_set_error("CAP-fs write to a file that is not open: call "
                             "gpm_cap_file_open first");
    return 0;
}

static int check_range(const gpm_cap_file *cf, off_t offset, size_t len)
{
    if (check_open(cf) != 0)
        return -1;
    if (offset < 0 || (size_t)offset > cf->size || len > cf->size - (size_t)offset)
        return gpm_set_error("%s: CAP-fs write of %zu bytes at offset %lld runs past the "
                             "%zu-byte file: open a larger file or write less",
                             cf->path, len, (long long)offset, cf->size);
    return 0;
}

/* Every range is checked before anything is written. */
static int check_ranges(const gpm_cap_file *cf, const gpm_range *v, int n)
{
    if (check_open(cf) != 0)
        return -1;
    if (n < 0 || (n > 0 && !v))
        return gpm_set_error("%s: CAP-fs write of %d ranges at %p: pass a list of N >= 0 "
                             "ranges", cf->path, n, (const void *)v);
    for (int i = 0; i < n; i++) {
        if (v[i].off > cf->size || v[i].len > cf->size - v[i].off)
            return gpm_set_error("%s: CAP-fs write of %zu bytes at offset %zu (range %d of %d) "
                                 "runs past the %zu-byte file: open a larger file or write "
                                 "less", cf->path, v[i].len, v[i].off, i, n, cf->size);
        if (v[i].len > 0 && !v[i].src)
            return gpm_set_error("%s: CAP-fs range %d of %d has no source: pass the buffer to "
                                 "write from", cf->path, i, n);
    }
    return 0;
}
static int write_all(const gpm_cap_file *cf, const char *buf, size_t len, off_t offset)
{
    while (len > 0) {
        ssize_t n = pwrite(cf->fd, buf, len, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return gpm_set_error("%s: write of %zu bytes at offset %lld failed (%s)", cf->path,
                                 len, (long long)offset, n < 0 ? strerror(errno) : "no progress");
        gpm_trace_write(cf->fd, offset, buf, (size_t)n, GPM_SITE);
        buf += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

static int sync_file(const gpm_cap_file *cf)
{
    if (gpm_fsync_at(cf->fd, GPM_SITE) != 0)
        return gpm_set_error("%s: fsync failed (%s): the data may not be durable", cf->path,
                             strerror(errno));
    return 0;
}

int gpm_cap_fs_host_ranges(gpm_cap_file *cf, const gpm_range *v, int n)
{
    if (check_ranges(cf, v, n) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (write_all(cf, v[i].src, v[i].len, (off_t)v[i].off) != 0)
            return -1;
    return sync_file(cf);
}

int gpm_cap_fs_host(gpm_cap_file *cf, off_t offset, const void *src, size_t len)
{
    gpm_range one;
    if (check_range(cf, offset, len) != 0)
        return -1;
    one.off = (size_t)offset;
    one.len = len;
    one.src = src;
    return gpm_cap_fs_host_ranges(cf, &one, 1);
}

/* The chunks of a list of ranges, in order: chunk N of range RANGE starts
 * AT bytes into it. Empty ranges have none. */
struct chunk {
    int range;
    size_t at, n;
};

/* Advances *C to the next chunk; 0 when there is none. Start: range -1. */
static int next_chunk(const gpm_cap_file *cf, const gpm_range *v, int nr, struct chunk *c)
{
    size_t at = c->range < 0 ? 0 : c->at + c->n;
    int i = c->range < 0 ? 0 : c->range;
    while (i < nr && at >= v[i].len) {
        i++;
        at = 0;
    }
    if (i >= nr)
        return 0;
    c->range = i;
    c->at = at;
    c->n = v[i].len - at < cf->chunk ? v[i].len - at : cf->chunk;
    return 1;
}

/* Starts the DMA of chunk C into staging buffer B. */
static int stage_chunk(gpm_cap_file *cf, const gpm_range *v, const struct chunk *c, int b)
{
    cudaError_t e = cudaMemcpyAsync(cf->stage[b], (const char *)v[c->range].src + c->at, c->n,
                                    cudaMemcpyDefault, (cudaStream_t)cf->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord((cudaEvent_t)cf->event[b], (cudaStream_t)cf->stream);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-fs copy of %zu bytes from the GPU failed: %s", cf->path,
                             c->n, cudaGetErrorString(e));
    return 0;
}

/* The staging stream waits for the work queued on STREAM. The legacy
 * default stream (NULL) needs no event: the staging stream is a blocking
 * one, which follows it by itself. */
static int wait_for_caller(gpm_cap_file *cf, void *stream)
{
    cudaError_t e;
    if (!stream)
        return 0;
    e = cudaEventRecord((cudaEvent_t)cf->after, (cudaStream_t)stream);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent((cudaStream_t)cf->stream, (cudaEvent_t)cf->after, 0);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-fs cannot wait for the caller's stream (%s): pass a "
                             "stream of the current device, or NULL", cf->path,
                             cudaGetErrorString(e));
    return 0;
}

/* A traced run's file writes are recorded with their bytes (gpm/trace.h);
 * cuFile's are not pwrites of ours, so their bytes are read back. */
static int trace_gds_range(const gpm_cap_file *cf, const gpm_range *r)
{
    void *host = malloc(r->len);
    cudaError_t e;
    if (!host)
        return gpm_set_error("%s: out of memory tracing a %zu-byte cuFile write", cf->path,
                             r->len);
    e = cudaMemcpy(host, r->src, r->len, cudaMemcpyDeviceToHost);
    if (e == cudaSuccess)
        gpm_trace_write(cf->fd, (off_t)r->off, host, r->len, GPM_SITE);
    free(host);
    if (e != cudaSuccess)
        return gpm_set_error("%s: cannot read back a cuFile write for the trace (%s)", cf->path,
                             cudaGetErrorString(e));
    return 0;
}

/* CAP-gds: cuFile follows no stream, so the caller's work is waited for
 * first; each range is written from the device, then one fsync. */
static int gds_ranges(gpm_cap_file *cf, const gpm_range *v, int n, void *stream)
{
    cudaError_t e = cudaStreamSynchronize(stream ? (cudaStream_t)stream : cudaStreamLegacy);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-gds: the work that produces the data failed (%s)",
                             cf->path, cudaGetErrorString(e));
    for (int i = 0; i < n; i++) {
        if (v[i].len == 0)
            continue;
        if (gpm_gds_write(&cf->gds, v[i].src, v[i].len, (off_t)v[i].off, cf->gds_threads,
                          cf->gds_piece) != 0)
            return -1;
        if (gpm_trace_active() && trace_gds_range(cf, &v[i]) != 0)
            return -1;
    }
    return sync_file(cf);
}

int gpm_cap_fs_ranges(gpm_cap_file *cf, const gpm_range *v, int n, void *stream)
{
    struct chunk cur = {-1, 0, 0}, next;
    int have, b = 0, rc = 0;
    if (check_ranges(cf, v, n) != 0)
        return -1;
    if (cf->use_gds)
        return gds_ranges(cf, v, n, stream);
    if (!cf->stream || !cf->stage[0])
        return gpm_set_error("%s: CAP-fs file has no staging (opened with GPM_HOST_ONLY): "
                             "reopen it without that flag", cf->path);
    if (wait_for_caller(cf, stream) != 0)
        return -1;
    have = next_chunk(cf, v, n, &cur);
    if (have && stage_chunk(cf, v, &cur, b) != 0)
        rc = -1;
    while (have && rc == 0) {
        cudaError_t e;
        int have_next;
        next = cur;
        have_next = next_chunk(cf, v, n, &next);
        /* Buffer 1 - b held the previous chunk, whose pwrite has returned. */
        if (have_next && stage_chunk(cf, v, &next, 1 - b) != 0) {
            rc = -1;
            break;
        }
        e = cudaEventSynchronize((cudaEvent_t)cf->event[b]);
        if (e != cudaSuccess) {
            rc = gpm_set_error("%s: CAP-fs copy from the GPU failed: %s", cf->path,
                               cudaGetErrorString(e));
            break;
        }
        rc = write_all(cf, cf->stage[b], cur.n, (off_t)(v[cur.range].off + cur.at));
        cur = next;
        have = have_next;
        b = 1 - b;
    }
    /* Never return with a DMA still writing into staging. */
    cudaStreamSynchronize((cudaStream_t)cf->stream);
    if (rc != 0)
        return -1;
    return sync_file(cf);
}

int gpm_cap_fs(gpm_cap_file *cf, off_t offset, const void *dev_src, size_t len)
{
    gpm_range one;
    if (check_range(cf, offset, len) != 0)
        return -1;
    one.off = (size_t)offset;
    one.len = len;
    one.src = dev_src;
    return gpm_cap_fs_ranges(cf, &one, 1, NULL);
}
