/* gpKVS kernels. A batch's SETs are sorted by set (cub's radix sort: stable,
 * so each set's SETs keep their batch order); a group of 8 lanes, one per
 * way, takes each run of one set's SETs and applies them in order, as the
 * model says (kvs_model.h): the lanes compare their way's key with the
 * SET's, and the lane of the chosen way logs that way's old pair the first
 * time the batch changes it (the mode's undo record, wl_tx_undo), then
 * takes the new pair. At the end of the run each lane whose way changed
 * stores it: in the device table, and on PM where the mode stores there.
 * GETs read the device table before the batch's SETs, a group of 8 lanes
 * per GET. */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "kvs.h"
#include "wl.cuh"

#define GROUP 8u
#define MAX_BLOCKS 65535u /* the grid-stride loops take the rest */

/* This lane's group of 8 in its warp, as a ballot mask. */
__device__ __forceinline__ unsigned group_mask(void)
{
    return 0xffu << (threadIdx.x & 24u);
}

__device__ __forceinline__ uint32_t group_ballot(unsigned mask, int pred)
{
    return (__ballot_sync(mask, pred) & mask) >> (threadIdx.x & 24u);
}

__global__ void gets_kernel(const uint64_t *keys, const kvs_set *table, uint64_t nsets,
                            uint64_t seed, uint64_t b, uint64_t n, uint32_t set_pct,
                            unsigned long long *digest)
{
    unsigned mask = group_mask(), lane = threadIdx.x & (GROUP - 1);
    uint64_t g = gpm_grid_rank() / GROUP, ng = gpm_grid_threads() / GROUP;
    for (uint64_t i = g; i < n; i += ng) {
        const kvs_set *s;
        uint32_t hit;
        uint64_t val = 0;
        if (kvs_is_set(seed, b, n, i, set_pct))
            continue; /* uniform across the group */
        s = &table[kvs_set_of(keys[i], nsets)];
        hit = group_ballot(mask, s->way[lane].key == keys[i]);
        if (hit)
            val = s->way[__ffs(hit) - 1].val;
        if (lane == 0)
            atomicAdd(digest, (unsigned long long)kvs_get_digest(i, val));
    }
}

__global__ void sort_keys_kernel(const uint64_t *keys, uint64_t nsets, uint64_t seed,
                                 uint64_t b, uint64_t n, uint32_t set_pct, uint32_t *sets,
                                 uint32_t *idx)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        /* GETs sort after every set, and after the batch's SET count. */
        sets[i] = kvs_is_set(seed, b, n, i, set_pct) ? (uint32_t)kvs_set_of(keys[i], nsets)
                                                     : 0xffffffffu;
        idx[i] = (uint32_t)i;
    }
}

struct apply_args {
    const uint64_t *keys;
    const uint32_t *sets, *idx;
    uint64_t m, n, seed, b;
    kvs_set *table;        /* the device table */
    wl_txdev d;            /* the transaction's batch: log, PM, flags, records */
};

__global__ void apply_kernel(struct apply_args a)
{
    unsigned mask = group_mask(), lane = threadIdx.x & (GROUP - 1);
    uint64_t g = gpm_grid_rank() / GROUP, ng = gpm_grid_threads() / GROUP;
    for (uint64_t p = g; p < a.m; p += ng) {
        uint32_t set = a.sets[p], changed = 0, logged = 0, refused = 0;
        uint64_t off = (uint64_t)set * sizeof(kvs_set) + lane * sizeof(kvs_pair);
        kvs_pair mine;
        if (p > 0 && a.sets[p - 1] == set)
            continue; /* not the head of its run */
        mine = a.table[set].way[lane];
        for (uint64_t q = p; q < a.m && a.sets[q] == set; q++) {
            uint64_t i = a.idx[q], key = a.keys[i];
            uint32_t own = group_ballot(mask, mine.key == key);
            uint32_t free_ways = group_ballot(mask, mine.key == 0);
            uint32_t w = own ? __ffs(own) - 1 : free_ways ? __ffs(free_ways) - 1 : kvs_victim(key);
            if (lane != w || refused)
                continue;
            /* The way's old pair is logged the first time the batch
             * changes it; a way whose record did not fit never changes. */
            if (!logged && wl_tx_undo(&a.d, off, &mine, sizeof mine) != 0) {
                refused = 1;
                continue;
            }
            logged = 1;
            mine.key = key;
            mine.val = kvs_value(a.seed, a.b, a.n, i);
            changed = 1;
        }
        if (!changed)
            continue;
        a.table[set].way[lane] = mine;
        if (a.d.pm) {
            uint4 v = make_uint4((uint32_t)mine.key, (uint32_t)(mine.key >> 32),
                                 (uint32_t)mine.val, (uint32_t)(mine.val >> 32));
            wl_store_v4(a.d.o, (uint4 *)(a.d.pm + off), v);
            wl_persist(a.d.o);
        }
        wl_tx_changed(&a.d, off, &mine);
    }
}

extern "C" int kvs_gpu_alloc_sort(struct kvs_state *st)
{
    st->sort_tmp_bytes = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, st->sort_tmp_bytes, st->d_sets, st->d_sets_sorted,
                                        st->d_idx, st->d_idx_sorted, (int)st->n) != cudaSuccess)
        return gpm_set_error("kvs: cannot size the sort of %llu keys",
                             (unsigned long long)st->n);
    return wl_dev_alloc(&st->d_sort_tmp, st->sort_tmp_bytes);
}

extern "C" int kvs_gpu_gets(struct kvs_state *st, uint64_t seed, uint64_t b, uint64_t *digest)
{
    unsigned long long d = 0;
    if (st->set_pct >= 100) {
        *digest = 0;
        return 0;
    }
    if (wl_dev_zero(st->d_digest, sizeof d) != 0)
        return -1;
    gets_kernel<<<wl_blocks(st->n * GROUP, 256, MAX_BLOCKS), 256>>>(
        st->d_keys + b * st->n, st->d_table, st->nsets, seed, b, st->n, st->set_pct,
        st->d_digest);
    if (wl_dev_sync("kvs: the GET kernel") != 0 || wl_dev_copy(&d, st->d_digest, sizeof d, 0) != 0)
        return -1;
    *digest = d;
    return 0;
}

extern "C" int kvs_gpu_sort(struct kvs_state *st, uint64_t seed, uint64_t b)
{
    sort_keys_kernel<<<wl_blocks(st->n, 256, MAX_BLOCKS), 256>>>(
        st->d_keys + b * st->n, st->nsets, seed, b, st->n, st->set_pct, st->d_sets, st->d_idx);
    if (cub::DeviceRadixSort::SortPairs(st->d_sort_tmp, st->sort_tmp_bytes, st->d_sets,
                                        st->d_sets_sorted, st->d_idx, st->d_idx_sorted,
                                        (int)st->n) != cudaSuccess)
        return gpm_set_error("kvs: the sort of batch %llu failed", (unsigned long long)b);
    return 0;
}

extern "C" int kvs_gpu_apply(struct kvs_state *st, uint64_t seed, uint64_t b, const wl_txdev *d)
{
    struct apply_args a;
    memset(&a, 0, sizeof a);
    a.keys = st->d_keys + b * st->n;
    a.sets = st->d_sets_sorted;
    a.idx = st->d_idx_sorted;
    a.m = st->h_nsetops[b];
    a.n = st->n;
    a.seed = seed;
    a.b = b;
    a.table = st->d_table;
    a.d = *d;
    /* The log's HCL grid: each lane logs into its own slot. */
    apply_kernel<<<KVS_LOG_BLOCKS, KVS_LOG_THREADS>>>(a);
    return wl_dev_sync("kvs: the SET kernel");
}
