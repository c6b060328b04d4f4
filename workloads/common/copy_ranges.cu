/* A list of ranges copied between two device pointers of one layout in one
 * launch: gpm-ndp's transactions copy the units a batch changed from the
 * region's device copy to PM this way, with plain stores that the CPU then
 * flushes. A block takes a range at a time, its threads 16 bytes each where
 * the range allows, so a warp's stores fill whole lines. */
#include <cuda_runtime.h>

#include "gpm/gpm.cuh"
#include "harness.h"

#define THREADS 256u
#define MAX_BLOCKS 4096u

struct span {
    unsigned long long off, len;
};

__global__ void copy_ranges_kernel(uint8_t *dst, const uint8_t *src, const struct span *v, int n)
{
    for (int r = blockIdx.x; r < n; r += gridDim.x) {
        uint64_t off = v[r].off, len = v[r].len, i;
        if (((off | len) & 15u) == 0) {
            for (i = threadIdx.x; i < len / 16; i += blockDim.x)
                gpm_put_v4((uint4 *)(dst + off) + i, ((const uint4 *)(src + off))[i]);
        } else {
            for (i = threadIdx.x; i < len; i += blockDim.x)
                gpm_put_u8(dst + off + i, src[off + i]);
        }
    }
}

extern "C" int wl_dev_copy_ranges(void *dst, const void *src, const gpm_range *v, int n,
                                  void **scratch, size_t *scratch_cap)
{
    struct span *h;
    size_t bytes = (size_t)n * sizeof *h;
    int rc;
    if (n <= 0)
        return 0;
    if (bytes > *scratch_cap) {
        wl_dev_free(*scratch);
        *scratch = NULL;
        *scratch_cap = 0;
        if (wl_dev_alloc(scratch, bytes) != 0)
            return -1;
        *scratch_cap = bytes;
    }
    if (!(h = (struct span *)malloc(bytes)))
        return gpm_set_error("out of memory for %d ranges", n);
    for (int k = 0; k < n; k++)
        h[k].off = v[k].off, h[k].len = v[k].len;
    rc = wl_dev_copy(*scratch, h, bytes, 1);
    free(h);
    if (rc != 0)
        return -1;
    copy_ranges_kernel<<<n < (int)MAX_BLOCKS ? n : MAX_BLOCKS, THREADS>>>(
        (uint8_t *)dst, (const uint8_t *)src, (const struct span *)*scratch, n);
    return wl_dev_sync("the copy of the changed units to PM");
}
