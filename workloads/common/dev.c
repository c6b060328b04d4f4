/* Device memory and kernel completion for the workloads' host code: every
 * CUDA failure becomes a one-line message (the harness prefixes the
 * workload's name). */
#include <stdarg.h>
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "harness.h"

/* 0 for cudaSuccess, else -1 with "WHAT failed (CUDA's reason)". */
static __attribute__((format(printf, 2, 3))) int checked(cudaError_t e, const char *what, ...)
{
    char buf[512];
    va_list ap;
    if (e == cudaSuccess)
        return 0;
    va_start(ap, what);
    vsnprintf(buf, sizeof buf, what, ap);
    va_end(ap);
    return gpm_set_error("%s failed (%s)", buf, cudaGetErrorString(e));
}

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
    return checked(cudaMemset(d, byte, bytes), "cudaMemset of %zu bytes", bytes);
}

int wl_dev_zero(void *d, size_t bytes) { return wl_dev_fill(d, 0, bytes); }

int wl_dev_copy_within(void *dst, const void *src, size_t bytes)
{
    return checked(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice),
                   "device copy of %zu bytes", bytes);
}

int wl_dev_copy(void *dst, const void *src, size_t bytes, int to_device)
{
    return checked(cudaMemcpy(dst, src, bytes,
                              to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost),
                   "copy of %zu bytes %s the GPU", bytes, to_device ? "to" : "from");
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
    return checked(e, "%s", what);
}

int wl_dev_sync(const char *what) { return wl_dev_wait(NULL, what); }

int wl_dev_zero_on(void *d, size_t bytes, void *stream)
{
    return checked(cudaMemsetAsync(d, 0, bytes, on(stream)), "cudaMemsetAsync of %zu bytes",
                   bytes);
}

int wl_dev_copy_on(void *dst, const void *src, size_t bytes, int to_device, void *stream)
{
    return checked(cudaMemcpyAsync(dst, src, bytes,
                                   to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost,
                                   on(stream)),
                   "queueing a copy of %zu bytes %s the GPU", bytes, to_device ? "to" : "from");
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
