/* CAP-fs: the GPU's results go through the file system. Device data is
 * staged through two pinned buffers so that the DMA of chunk i+1 overlaps
 * the pwrite() of chunk i; the range is made durable with one fsync(). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpm/cap.h"
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
    if (cf->stream)
        cudaStreamDestroy((cudaStream_t)cf->stream);
    cf->stream = NULL;
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
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-fs needs a CUDA GPU for its staging (%s): check that "
                             "one is visible, or open with GPM_HOST_ONLY for host data",
                             cf->path, cudaGetErrorString(e));
    return gpm_cap_file_set_chunk(cf, GPM_CAP_FS_CHUNK_DEFAULT);
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
    if (gpm_resolve_path(path, cf->path, sizeof cf->path) != 0) {
        cf->path[0] = '\0';
        return -1;
    }
    if (open_file(cf, size, flags, &created) == 0 &&
        ((flags & GPM_HOST_ONLY) || open_cuda(cf) == 0))
        return 0;
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

static int check_range(const gpm_cap_file *cf, off_t offset, size_t len)
{
    if (cf->path[0] == '\0' || cf->fd < 0)
        return gpm_set_error("CAP-fs write to a file that is not open: call "
                             "gpm_cap_file_open first");
    if (offset < 0 || (size_t)offset > cf->size || len > cf->size - (size_t)offset)
        return gpm_set_error("%s: CAP-fs write of %zu bytes at offset %lld runs past the "
                             "%zu-byte file: open a larger file or write less",
                             cf->path, len, (long long)offset, cf->size);
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
        buf += n;
        len -= (size_t)n;
        offset += n;
    }
    return 0;
}

static int sync_file(const gpm_cap_file *cf)
{
    while (fsync(cf->fd) != 0) {
        if (errno != EINTR)
            return gpm_set_error("%s: fsync failed (%s): the data may not be durable",
                                 cf->path, strerror(errno));
    }
    return 0;
}

int gpm_cap_fs_host(gpm_cap_file *cf, off_t offset, const void *src, size_t len)
{
    if (check_range(cf, offset, len) != 0)
        return -1;
    if (write_all(cf, src, len, offset) != 0)
        return -1;
    return sync_file(cf);
}

/* Starts the DMA of chunk I into staging buffer I % 2. */
static int stage_chunk(gpm_cap_file *cf, const char *src, size_t len, size_t i)
{
    size_t at = i * cf->chunk, n = len - at < cf->chunk ? len - at : cf->chunk;
    int b = (int)(i % 2);
    cudaError_t e = cudaMemcpyAsync(cf->stage[b], src + at, n, cudaMemcpyDefault,
                                    (cudaStream_t)cf->stream);
    if (e == cudaSuccess)
        e = cudaEventRecord((cudaEvent_t)cf->event[b], (cudaStream_t)cf->stream);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-fs copy of %zu bytes from the GPU failed: %s", cf->path,
                             n, cudaGetErrorString(e));
    return 0;
}

int gpm_cap_fs(gpm_cap_file *cf, off_t offset, const void *dev_src, size_t len)
{
    const char *src = dev_src;
    size_t nchunks;
    int rc = 0;
    if (check_range(cf, offset, len) != 0)
        return -1;
    if (!cf->stream || !cf->stage[0])
        return gpm_set_error("%s: CAP-fs file has no staging (opened with GPM_HOST_ONLY): "
                             "reopen it without that flag", cf->path);
    if (len == 0)
        return sync_file(cf);
    nchunks = (len + cf->chunk - 1) / cf->chunk;
    if (stage_chunk(cf, src, len, 0) != 0)
        return -1;
    for (size_t i = 0; i < nchunks && rc == 0; i++) {
        size_t at = i * cf->chunk, n = len - at < cf->chunk ? len - at : cf->chunk;
        cudaError_t e;
        /* Buffer (i+1) % 2 held chunk i-1, whose pwrite has returned. */
        if (i + 1 < nchunks && stage_chunk(cf, src, len, i + 1) != 0) {
            rc = -1;
            break;
        }
        e = cudaEventSynchronize((cudaEvent_t)cf->event[i % 2]);
        if (e != cudaSuccess) {
            rc = gpm_set_error("%s: CAP-fs copy from the GPU failed: %s", cf->path,
                               cudaGetErrorString(e));
            break;
        }
        rc = write_all(cf, cf->stage[i % 2], n, offset + (off_t)at);
    }
    /* Never return with a DMA still writing into staging. */
    cudaStreamSynchronize((cudaStream_t)cf->stream);
    if (rc != 0)
        return -1;
    return sync_file(cf);
}
