/* BFS kernels: the start of a search, the expansion of one level (each
 * discovered node's cost and sequence entry persisted by the thread that
 * claimed it, then the level's end and the count by the grid's last
 * block), and the visited set rebuilt from durable frontiers. */
#include <cuda_runtime.h>
#include <limits.h>

#include "wl.cuh"
#include "bfs_step.h" /* after wl.cuh: its stores are the mode's */

#define BFS_THREADS 256

__global__ void bfs_start_kernel(struct bfs_kern k, uint32_t src)
{
    bfs_begin(&k, src);
}

/* One thread per frontier node: it claims each unvisited neighbour (the
 * claim array is in device memory: the visited set never crosses PCIe),
 * appends it to the next frontier and stores its cost, then persists its
 * stores with one fence. The grid's last block, which every other block's
 * stores precede, persists where the next frontier ends and then the
 * count (bfs_step.h). */
__global__ void bfs_expand_kernel(struct bfs_kern k, uint32_t level, uint32_t base,
                                  uint32_t size)
{
    __shared__ int last;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size && bfs_visit(&k, k.dseq[base + i], level + 1, base + size))
        wl_persist(k.o);
    /* Every thread's claims and stores are visible device-wide (and, where
     * the mode fences, durable) before its block counts itself done. */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(&k.ctr[BFS_CTR_BLOCKS], 1u) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x == 0) {
        __threadfence();
        bfs_seal(&k, level, base + size);
    }
}

__global__ void bfs_rebuild_kernel(uint32_t *claim, const uint32_t *seq, const uint32_t *start,
                                   uint32_t levels, uint64_t n, uint32_t *bad)
{
    uint32_t total = start[levels];
    for (uint64_t i = gpm_grid_rank(); i < total; i += gpm_grid_threads()) {
        uint32_t v = seq[i];
        if (v >= n)
            atomicOr(bad, 1u);
        else
            claim[v] = bfs_level_of(start, levels, (uint32_t)i);
    }
}

extern "C" int bfs_gpu_reset(uint32_t *claim, uint64_t n, uint32_t *ctr)
{
    return wl_dev_fill(claim, 0xff, n * sizeof *claim) ||
                   wl_dev_zero(ctr, BFS_CTR_WORDS * sizeof *ctr)
               ? -1
               : 0;
}

extern "C" int bfs_gpu_start(const struct bfs_kern *k, uint32_t src)
{
    bfs_start_kernel<<<1, 1>>>(*k, src);
    return wl_dev_sync("bfs start kernel");
}

/* The level's result words: 1 if the kernel found the visited set
 * inconsistent (more nodes discovered than there are). */
static int read_result(uint32_t *ctr, uint32_t *next)
{
    uint32_t res[2];
    if (wl_dev_copy(res, ctr + BFS_CTR_NEXT, sizeof res, 0) != 0)
        return -1;
    if (res[1])
        return gpm_set_error("bfs: a level discovered more nodes than the graph has: the "
                             "durable search it resumed is inconsistent; run without --recover");
    *next = res[0];
    return 0;
}

extern "C" int bfs_gpu_expand(const struct bfs_kern *k, uint32_t level, uint32_t base,
                              uint32_t size, uint32_t *next)
{
    uint64_t blocks = ((uint64_t)size + BFS_THREADS - 1) / BFS_THREADS;
    if (size == 0 || blocks > INT_MAX)
        return gpm_set_error("bfs: a frontier of %u nodes cannot be expanded", size);
    bfs_expand_kernel<<<(unsigned)blocks, BFS_THREADS>>>(*k, level, base, size);
    if (wl_dev_sync("bfs level expansion") != 0)
        return -1;
    return read_result(k->ctr, next);
}

extern "C" int bfs_gpu_rebuild(uint32_t *claim, const uint32_t *seq, const uint32_t *start,
                               uint32_t levels, uint64_t n, uint32_t *ctr)
{
    uint32_t bad = 0;
    bfs_rebuild_kernel<<<1024, BFS_THREADS>>>(claim, seq, start, levels, n, ctr + BFS_CTR_BAD);
    if (wl_dev_sync("bfs visited-set rebuild") != 0 ||
        wl_dev_copy(&bad, ctr + BFS_CTR_BAD, sizeof bad, 0) != 0)
        return -1;
    if (bad)
        return gpm_set_error("bfs: the durable search sequence names a node beyond the graph's "
                             "%llu: it is not this graph's; run without --recover",
                             (unsigned long long)n);
    return 0;
}
