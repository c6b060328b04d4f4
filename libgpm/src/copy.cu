/* Host-launched bulk copies into PM using every SM of the GPU. */
#include <cuda_runtime.h>

#include "gpm/copy.h"
#include "gpm/gpm.cuh"

__global__ void copy_kernel(void *dst, const void *src, size_t n)
{
    gpm_memcpy_part(dst, src, n, gpm_grid_rank(), gpm_grid_threads());
    gpm_persist();
}

__global__ void fill_kernel(void *dst, uint8_t byte, size_t n)
{
    gpm_memset_part(dst, byte, n, gpm_grid_rank(), gpm_grid_threads());
    gpm_persist();
}

/* More blocks than stay resident only add loop overhead. */
extern "C" int gpm_copy_grid(size_t bytes, int block)
{
    int dev = 0, sms = 1, per_sm = 1;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    size_t want = (bytes / 16 + (size_t)block - 1) / (size_t)block;
    size_t full = (size_t)sms * (size_t)(per_sm / block);
    if (want < 1)
        want = 1;
    if (full < 1)
        full = 1;
    return (int)(want < full ? want : full);
}

/* Waits for the launch on STREAM: the stream alone, or, for the legacy
 * default stream (NULL), the whole device, as gpm_memcpy always has. */
static int finish(const char *what, cudaStream_t stream)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = stream ? cudaStreamSynchronize(stream) : cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return gpm_set_error("%s failed: %s", what, cudaGetErrorString(e));
    return 0;
}

extern "C" int gpm_memcpy_on(void *dst_pm, const void *src, size_t n, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0)
        return 0;
    copy_kernel<<<gpm_copy_grid(n, 256), 256, 0, s>>>(dst_pm, src, n);
    return finish("gpm_memcpy", s);
}

extern "C" int gpm_memset_on(void *dst_pm, uint8_t byte, size_t n, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (n == 0)
        return 0;
    fill_kernel<<<gpm_copy_grid(n, 256), 256, 0, s>>>(dst_pm, byte, n);
    return finish("gpm_memset", s);
}

extern "C" int gpm_memcpy(void *dst_pm, const void *src, size_t n)
{
    return gpm_memcpy_on(dst_pm, src, n, NULL);
}

extern "C" int gpm_memset(void *dst_pm, uint8_t byte, size_t n)
{
    return gpm_memset_on(dst_pm, byte, n, NULL);
}
