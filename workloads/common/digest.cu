/* The output digest of device memory (wl_check_digest): each thread sums
 * its words' terms, a warp adds its lanes', and one atomic a warp adds them
 * to the two totals. The same terms as on the CPU (wl_digest_word). */
#include <cuda_runtime.h>

#include "harness.h"
#include "wl_hd.h"

__global__ void digest_kernel(const uint64_t *p, uint64_t words, uint64_t first,
                              unsigned long long *sums)
{
    uint64_t a = 0, b = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words;
         i += (uint64_t)gridDim.x * blockDim.x)
        wl_digest_word(p[i], first + i, &a, &b);
    for (int o = 16; o > 0; o /= 2) {
        a += __shfl_down_sync(0xffffffffu, a, o);
        b += __shfl_down_sync(0xffffffffu, b, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&sums[0], (unsigned long long)a);
        atomicAdd(&sums[1], (unsigned long long)b);
    }
}

extern "C" int wl_dev_digest(const void *p, size_t bytes, uint64_t first, uint64_t *a,
                             uint64_t *b)
{
    uint64_t words = bytes / 8, tail = 0, s[2] = {0, 0};
    unsigned long long *d = NULL;
    if (wl_dev_alloc((void **)&d, sizeof s) != 0 || wl_dev_zero(d, sizeof s) != 0) {
        wl_dev_free(d);
        return -1;
    }
    /* cudaMalloc'd buffers are aligned; the workloads digest whole arrays. */
    if (words)
        digest_kernel<<<1024, 256>>>((const uint64_t *)p, words, first, d);
    if (wl_dev_sync("the output digest kernel") != 0 || wl_dev_copy(s, d, sizeof s, 0) != 0 ||
        (bytes % 8 &&
         wl_dev_copy(&tail, (const char *)p + 8 * words, bytes % 8, 0) != 0)) {
        wl_dev_free(d);
        return -1;
    }
    wl_dev_free(d);
    if (bytes % 8)
        wl_digest_word(tail, first + words, &s[0], &s[1]);
    *a += s[0];
    *b += s[1];
    return 0;
}
