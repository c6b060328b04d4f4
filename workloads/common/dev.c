/* Device memory and kernel completion for the workloads' host code: every
 * CUDA failure becomes a one-line message (the harness prefixes the
 * workload's name). */
#include <cuda_runtime_api.h>

#include "harness.h"

/* Set by recover_each.c: several recoveries share this process, and one
 * must not find what the last one left in memory cudaMalloc reuses. */
static int poison = -1;

void wl_dev_poison(unsigned char byte) { poison = byte; }

int wl_dev_alloc(void **p, size_t bytes)
{
    cudaError_t e = cudaMalloc(p, bytes);
    if (e == cudaSuccess && poison >= 0 && (e = cudaMemset(*p, poison, bytes)) != cudaSuccess)
        cudaFree(*p);
    if (e != cudaSuccess) {
        *p = NULL;
        return gpm_set_error("cannot allocate %zu bytes of device memory (%s): use a smaller "
                             "--scale or size flags", bytes, cudaGetErrorString(e));
    }
    return 0;
}

void wl_dev_free(void *p)
{
    if (p)
        cudaFree(p);
}

int wl_dev_fill(void *d, unsigned char byte, size_t bytes)
{
    cudaError_t e = cudaMemset(d, byte, bytes);
    if (e != cudaSuccess)
        return gpm_set_error("cudaMemset of %zu bytes failed (%s)", bytes, cudaGetErrorString(e));
    return 0;
}

int wl_dev_zero(void *d, size_t bytes) { return wl_dev_fill(d, 0, bytes); }

int wl_dev_copy_within(void *dst, const void *src, size_t bytes)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    if (e != cudaSuccess)
        return gpm_set_error("device copy of %zu bytes failed (%s)", bytes,
                             cudaGetErrorString(e));
    return 0;
}

int wl_dev_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    cudaError_t e = cudaMemcpy(dst, src, bytes,
                               to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (e != cudaSuccess)
        return gpm_set_error("copy of %zu bytes %s the GPU failed (%s)", bytes,
                             to_device ? "to" : "from", cudaGetErrorString(e));
    return 0;
}

/* STREAM, or the legacy stream that the workloads' kernels run on by
 * default: not a copy that gpmcp runs on a stream of its own meanwhile
 * (wl_cp_start). */
static cudaStream_t on(void *stream) { return stream ? (cudaStream_t)stream : cudaStreamLegacy; }

int wl_dev_wait(void *stream, const char *what)
{
    /* A launch refused for its configuration or resources is reported by
     * cudaGetLastError, not by the synchronisation. */
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(on(stream));
    if (e != cudaSuccess)
        return gpm_set_error("%s failed (%s)", what, cudaGetErrorString(e));
    return 0;
}

int wl_dev_sync(const char *what) { return wl_dev_wait(NULL, what); }

int wl_dev_zero_on(void *d, size_t bytes, void *stream)
{
    cudaError_t e = cudaMemsetAsync(d, 0, bytes, on(stream));
    if (e != cudaSuccess)
        return gpm_set_error("cudaMemsetAsync of %zu bytes failed (%s)", bytes,
                             cudaGetErrorString(e));
    return 0;
}

int wl_dev_copy_on(void *dst, const void *src, size_t bytes, int to_device, void *stream)
{
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes,
                                    to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                    on(stream));
    if (e != cudaSuccess)
        return gpm_set_error("queueing a copy of %zu bytes %s the GPU failed (%s)", bytes,
                             to_device ? "to" : "from", cudaGetErrorString(e));
    return 0;
}

int wl_pinned_alloc(void **p, size_t bytes)
{
    cudaError_t e = cudaMallocHost(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        return gpm_set_error("cannot allocate %zu bytes of pinned host memory (%s)", bytes,
                             cudaGetErrorString(e));
    }
    return 0;
}

void wl_pinned_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}
