/* gpKVS kernels. A batch's SETs are sorted by set (cub's radix sort: stable,
 * so each set's SETs keep their batch order); a group of 8 lanes, one per
 * way, takes each run of one set's SETs and applies them in order, as the
 * model says (kvs_model.h): the lanes compare their way's key with the
 * SET's, and the lane of the chosen way takes the new pair. At the end of
 * the run each way that changed is a change: its old pair (the undo record
 * the mode logs, wl_tx_undo) and its new one. The warp queues its four
 * groups' changes and makes them 32 at a time, a lane each: the record,
 * then the new pair in the device table and, where the mode stores there,
 * on PM. GETs read the device table before the batch's SETs, a group of 8
 * lanes per GET. */
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

__global__ void gets_kernel(const uint64_t *keys, const uint8_t *op, const kvs_set *table,
                            uint64_t nsets, uint64_t n, unsigned long long *digest)
{
    unsigned mask = group_mask(), lane = threadIdx.x & (GROUP - 1);
    uint64_t g = gpm_grid_rank() / GROUP, ng = gpm_grid_threads() / GROUP;
    for (uint64_t i = g; i < n; i += ng) {
        const kvs_set *s;
        uint32_t hit;
        uint64_t val = 0;
        if (!(op[i] & KVS_GET))
            continue; /* uniform across the group */
        s = &table[kvs_set_of(keys[i], nsets)];
        hit = group_ballot(mask, s->way[lane].key == keys[i]);
        if (hit)
            val = s->way[__ffs(hit) - 1].val;
        if (lane == 0)
            atomicAdd(digest, (unsigned long long)kvs_get_digest(i, val));
    }
}

__global__ void sort_keys_kernel(const uint64_t *keys, const uint8_t *op, uint64_t nsets,
                                 uint64_t n, uint32_t *sets, uint32_t *idx)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        /* Other operations sort after every set, and after the batch's SET
         * count. */
        sets[i] = op[i] & KVS_SET ? (uint32_t)kvs_set_of(keys[i], nsets) : 0xffffffffu;
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

/* A way a run changed: where it is in the table, its pair before the
 * batch and after the run. */
struct change {
    uint64_t off;
    kvs_pair old, now;
};

#define WARPS (KVS_LOG_THREADS / 32)

/* The first N (at most 32) changes of the warp's queue Q, lane L taking
 * Q[L]; every lane of the warp calls it. A lane of a group of 8 would log
 * alone, each 4-byte chunk of its HCL record crossing the link as a few
 * bytes of a 128-byte line; 32 lanes logging at once fill the line
 * (gpm/log_layout.h). A change whose record did not fit is not made. */
__device__ void make_changes(const struct apply_args *a, const struct change *q, uint32_t n)
{
    uint32_t lane = threadIdx.x % 32u;
    if (lane < n && wl_tx_undo(&a->d, q[lane].off, &q[lane].old, sizeof q[lane].old) == 0) {
        kvs_pair now = q[lane].now;
        *(kvs_pair *)((uint8_t *)a->table + q[lane].off) = now;
        if (a->d.pm) {
            uint4 v = make_uint4((uint32_t)now.key, (uint32_t)(now.key >> 32), (uint32_t)now.val,
                                 (uint32_t)(now.val >> 32));
            wl_store_v4(a->d.o, (uint4 *)(a->d.pm + q[lane].off), v);
            wl_persist(a->d.o);
        }
        wl_tx_changed(&a->d, q[lane].off, &now);
    }
    __syncwarp();
}

/* Each warp takes four runs' heads at a time, a group each; the warp's
 * loop is uniform, so its ballots see every lane. */
__global__ void apply_kernel(struct apply_args a)
{
    __shared__ struct change queues[WARPS][64];
    struct change *q = queues[threadIdx.x / 32u];
    unsigned mask = group_mask(), lane = threadIdx.x & (GROUP - 1), wl = threadIdx.x % 32u;
    uint64_t warp = gpm_grid_rank() / 32, warps = gpm_grid_threads() / 32;
    uint32_t n = 0;
    for (uint64_t base = warp * (32 / GROUP); base < a.m; base += warps * (32 / GROUP)) {
        uint64_t p = base + wl / GROUP;
        uint32_t changed = 0, set = 0;
        kvs_pair old, mine;
        unsigned m;
        /* The head of a run, the same for the group's lanes. */
        if (p < a.m && !(p > 0 && a.sets[p - 1] == a.sets[p])) {
            set = a.sets[p];
            old = mine = a.table[set].way[lane];
            for (uint64_t r = p; r < a.m && a.sets[r] == set; r++) {
                uint64_t i = a.idx[r], key = a.keys[i];
                uint32_t own = group_ballot(mask, mine.key == key);
                uint32_t free_ways = group_ballot(mask, mine.key == 0);
                uint32_t w = own ? __ffs(own) - 1 : free_ways ? __ffs(free_ways) - 1
                                                              : kvs_victim(key);
                if (lane != w)
                    continue;
                mine.key = key;
                mine.val = kvs_value(a.seed, a.b, a.n, i);
                changed = 1;
            }
        }
        m = __ballot_sync(0xffffffffu, changed);
        if (changed) {
            struct change *ch = &q[n + __popc(m & ((1u << wl) - 1u))];
            ch->off = (uint64_t)set * sizeof(kvs_set) + lane * sizeof(kvs_pair);
            ch->old = old;
            ch->now = mine;
        }
        n += __popc(m);
        __syncwarp();
        if (n >= 32u) {
            make_changes(&a, q, 32u);
            n -= 32u;
            if (wl < n)
                q[wl] = q[wl + 32u];
            __syncwarp();
        }
    }
    if (n)
        make_changes(&a, q, n);
    /* The SBRP variant (SBRP's Figure 4): the log's oFences order each
     * record before its pair, and the pair's oFence before this thread's
     * later ones; this dFence makes them durable before the host commits. */
    if (a.d.pm)
        wl_dfence(a.d.o);
}

static void record(struct kvs_state *st, int i)
{
    cudaEventRecord((cudaEvent_t)st->ev[i], 0);
}

static double between(struct kvs_state *st, int i, int j)
{
    float ms = 0;
    cudaEventElapsedTime(&ms, (cudaEvent_t)st->ev[i], (cudaEvent_t)st->ev[j]);
    return ms / 1e3;
}

extern "C" void kvs_gpu_free_events(struct kvs_state *st)
{
    for (int i = 0; i < 4; i++)
        if (st->ev[i])
            cudaEventDestroy((cudaEvent_t)st->ev[i]);
}

extern "C" int kvs_gpu_alloc_sort(struct kvs_state *st)
{
    for (int i = 0; i < 4; i++)
        if (cudaEventCreate((cudaEvent_t *)&st->ev[i]) != cudaSuccess)
            return gpm_set_error("kvs: cannot create the batches' timing events");
    st->sort_tmp_bytes = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, st->sort_tmp_bytes, st->d_sets, st->d_sets_sorted,
                                        st->d_idx, st->d_idx_sorted, (int)st->n) != cudaSuccess)
        return gpm_set_error("kvs: cannot size the sort of %llu keys",
                             (unsigned long long)st->n);
    return wl_dev_alloc(&st->d_sort_tmp, st->sort_tmp_bytes);
}

extern "C" int kvs_gpu_gets(struct kvs_state *st, uint64_t b, uint64_t *digest)
{
    unsigned long long d = 0;
    record(st, 0);
    if (!st->h_ngets[b]) {
        *digest = 0;
        record(st, 1);
        return 0;
    }
    if (wl_dev_zero(st->d_digest, sizeof d) != 0)
        return -1;
    gets_kernel<<<wl_blocks(st->n * GROUP, 256, MAX_BLOCKS), 256>>>(
        st->d_keys + b * st->n, st->d_op + b * st->n, st->d_table, st->nsets, st->n,
        st->d_digest);
    record(st, 1);
    if (wl_dev_sync("kvs: the GET kernel") != 0 || wl_dev_copy(&d, st->d_digest, sizeof d, 0) != 0)
        return -1;
    *digest = d;
    return 0;
}

extern "C" int kvs_gpu_sort(struct kvs_state *st, uint64_t b)
{
    sort_keys_kernel<<<wl_blocks(st->n, 256, MAX_BLOCKS), 256>>>(
        st->d_keys + b * st->n, st->d_op + b * st->n, st->nsets, st->n, st->d_sets, st->d_idx);
    if (cub::DeviceRadixSort::SortPairs(st->d_sort_tmp, st->sort_tmp_bytes, st->d_sets,
                                        st->d_sets_sorted, st->d_idx, st->d_idx_sorted,
                                        (int)st->n) != cudaSuccess)
        return gpm_set_error("kvs: the sort of batch %llu failed", (unsigned long long)b);
    record(st, 2);
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
    record(st, 3);
    if (wl_dev_sync("kvs: the SET kernel") != 0)
        return -1;
    st->gets_s += between(st, 0, 1);
    st->sort_s += between(st, 1, 2);
    st->apply_s += between(st, 2, 3);
    return 0;
}
