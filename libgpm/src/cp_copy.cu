/* The checkpoint copy: one launch moves every element of a group into its
 * working copy on PM, with all SMs storing whole 128-byte lines. */
#include <cuda_runtime.h>

#include "gpm/copy.h"
#include "gpm/cp.h"
#include "gpm/gpm.cuh"

__global__ void cp_copy_kernel(uint8_t *pm, const gpmcp_xfer *x, uint32_t n,
                               uint64_t copy_shift, int fenced)
{
    size_t rank = gpm_grid_rank(), threads = gpm_grid_threads();
    for (uint32_t i = 0; i < n; i++)
        gpm_memcpy_part(pm + x[i].pm_off + copy_shift, x[i].buf, x[i].bytes, rank, threads);
    /* GPM: durable before the kernel ends, so the host may flip after it.
     * NDP leaves this to the CPU. */
    if (fenced)
        gpm_persist();
}

extern "C" int gpmcp_copy_kernel(void *pm_dev, const gpmcp_xfer *xfers, uint32_t n,
                                 uint64_t copy_shift, uint64_t total, int fenced, void *stream,
                                 unsigned max_blocks, int wait)
{
    const int block = 256;
    cudaStream_t s = (cudaStream_t)stream;
    unsigned grid = (unsigned)gpm_copy_grid(total, block);
    if (max_blocks && grid > max_blocks)
        grid = max_blocks;
    cp_copy_kernel<<<grid, block, 0, s>>>((uint8_t *)pm_dev, xfers, n, copy_shift, fenced);
    cudaError_t e = cudaGetLastError();
    /* NULL keeps the device-wide wait this call always had. */
    if (e == cudaSuccess && wait)
        e = s ? cudaStreamSynchronize(s) : cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return gpm_set_error("checkpoint copy kernel failed: %s", cudaGetErrorString(e));
    return 0;
}
