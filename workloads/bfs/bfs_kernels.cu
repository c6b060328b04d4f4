/* BFS kernels: the start of a search, the expansion of one level (each
 * discovered node's cost and sequence entry persisted by the thread that
 * claimed it, then the level's end and the count by the grid's last
 * block), and the visited set rebuilt from durable frontiers. */
#include <cuda_runtime.h>
#include <limits.h>

#include "bfs.h"
#include "wl.cuh"

#define BFS_THREADS 256
enum { CTR_CLAIMS, CTR_BLOCKS, CTR_NEXT, CTR_BAD };

__global__ void bfs_start_kernel(struct bfs_kern k, uint32_t src)
{
    k.claim[src] = 0;
    k.dseq[0] = src;
    if (k.seq_out)
        wl_store_u32(k.o, &k.seq_out[0], src);
    if (k.cost_out)
        wl_store_u32(k.o, &k.cost_out[src], 0);
    wl_store_u32(k.o, &k.start[0], 0);
    wl_store_u32(k.o, &k.start[1], 1);
    wl_persist(k.o);
    /* Level 0 is durable before the count that says so. */
    wl_store_u64(k.o, k.count, bfs_count_word(k.epoch, bfs_levels_at_start(k.lag)));
    wl_persist(k.o);
}

/* One thread per frontier node: it claims each unvisited neighbour (the
 * claim array is in device memory: the visited set never crosses PCIe),
 * appends it to the next frontier and stores its cost, then persists its
 * stores with one fence. The grid's last block, which every other block's
 * stores precede, persists where the next frontier ends and then the
 * count. */
__global__ void bfs_expand_kernel(struct bfs_kern k, uint32_t level, uint32_t base,
                                  uint32_t size)
{
    __shared__ int last;
    uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t cost = level + 1, next_base = base + size;
    int wrote = 0;
    if (i < size) {
        uint32_t u = k.dseq[base + i];
        for (uint32_t e = k.row[u], end = k.row[u + 1]; e < end; e++) {
            uint32_t v = k.col[e], pos;
            /* Claims only move from unvisited to a level: a stale read can
             * only send a thread to the atomic, which decides. */
            if (*(volatile uint32_t *)&k.claim[v] != BFS_UNVISITED ||
                atomicCAS(&k.claim[v], BFS_UNVISITED, cost) != BFS_UNVISITED)
                continue;
            pos = next_base + atomicAdd(&k.ctr[CTR_CLAIMS], 1u);
            if ((uint64_t)pos >= k.n) { /* an inconsistent visited set */
                atomicOr(&k.ctr[CTR_BAD], 1u);
                continue;
            }
            k.dseq[pos] = v;
            if (k.seq_out)
                wl_store_u32(k.o, &k.seq_out[pos], v);
            if (k.cost_out)
                wl_store_u32(k.o, &k.cost_out[v], cost);
            wrote = 1;
        }
    }
    if (wrote)
        wl_persist(k.o);
    /* Every thread's claims and stores are visible device-wide before its
     * block counts itself done. */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(&k.ctr[CTR_BLOCKS], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last || threadIdx.x != 0)
        return;
    __threadfence();
    {
        uint32_t next = atomicAdd(&k.ctr[CTR_CLAIMS], 0u);
        if ((uint64_t)next_base + next > k.n) { /* counted above; end stays in bounds */
            atomicOr(&k.ctr[CTR_BAD], 1u);
            next = (uint32_t)(k.n - next_base);
        }
        wl_store_u32(k.o, &k.start[level + 2], next_base + next);
        wl_persist(k.o);
        wl_store_u64(k.o, k.count, bfs_count_word(k.epoch, bfs_levels_after(level, next, k.lag)));
        wl_persist(k.o);
        k.ctr[CTR_NEXT] = next;
        k.ctr[CTR_CLAIMS] = 0;
        k.ctr[CTR_BLOCKS] = 0;
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

static int cuda_fail(cudaError_t e, const char *what)
{
    return gpm_set_error("%s failed (%s)", what, cudaGetErrorString(e));
}

extern "C" int bfs_gpu_reset(uint32_t *claim, uint64_t n, uint32_t *ctr)
{
    cudaError_t e = cudaMemset(claim, 0xff, n * sizeof *claim);
    if (e == cudaSuccess)
        e = cudaMemset(ctr, 0, 4 * sizeof *ctr);
    return e == cudaSuccess ? 0 : cuda_fail(e, "bfs: resetting the visited set");
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
    if (wl_dev_copy(res, ctr + CTR_NEXT, sizeof res, 0) != 0)
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
    bfs_rebuild_kernel<<<1024, BFS_THREADS>>>(claim, seq, start, levels, n, ctr + CTR_BAD);
    if (wl_dev_sync("bfs visited-set rebuild") != 0 ||
        wl_dev_copy(&bad, ctr + CTR_BAD, sizeof bad, 0) != 0)
        return -1;
    if (bad)
        return gpm_set_error("bfs: the durable search sequence names a node beyond the graph's "
                             "%llu: it is not this graph's; run without --recover",
                             (unsigned long long)n);
    return 0;
}
