/* gpKVS kernels and the GPU's batch path. Every batch's keys and
 * operations are on the device from setup, so a batch needs no input copy,
 * and nothing comes back per batch but what the mode's engine asks for.
 * Its grouping goes on a stream of its own while the batch before applies
 * its SETs; the rest on gpKVS's stream, with no host wait between phases:
 *
 *   0. (grouping stream) sets_kernel writes each operation's grouping key
 *      (its set for a SET, the all-ones marker otherwise: kvs_group_bits),
 *      and wl_group_sort (batch_path.h) orders them stably by their low
 *      BITS bits, one block and one kernel up to 4096 operations (cub's
 *      device radix sort beyond), so each set's SETs form one run in batch
 *      order, ahead of every other operation; two pairs of buffers, so
 *      that batch B+1's grouping does not wait for batch B's SETs;
 *   1. gets_kernel: a group of 8 lanes a GET reads the device table as it
 *      is (before the batch's SETs) and adds to the batch's slot of the
 *      digests, copied back once after the batches;
 *   2. apply_kernel on the first M grouped entries (the batch's SET count,
 *      known on the host), once its grouping is done: a group of 8 lanes,
 *      one per way, takes each run and applies its SETs in order, as the
 *      model says (kvs_model.h): the lanes compare their way's key with
 *      the SET's, and the lane of the chosen way takes the new pair. At the
 *      end of the run each way that changed is a change: its old pair (the
 *      undo record the mode logs, wl_tx_undo) and its new one. The warp
 *      queues its four groups' changes and makes them 32 at a time, a lane
 *      each: the record, then the new pair in the device table and, where
 *      the mode stores there, on PM, counted (pm_records).
 *
 * Events before and after the phases give each batch's phase times, read
 * when the batch is known to be done (its slot of KVS_RING comes round, or
 * the batches end), so reading them never holds up the GPU. */
#include <cuda_runtime.h>

#include "kvs.h"
#include "wl_tx.cuh"

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

/* Each operation's grouping key: its set for a SET, MARKER otherwise. */
__global__ void sets_kernel(const uint64_t *keys, const uint8_t *op, uint64_t nsets, uint64_t n,
                            uint32_t marker, uint32_t *sets)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        sets[i] = op[i] & KVS_SET ? (uint32_t)kvs_set_of(keys[i], nsets) : marker;
}

/* DIGEST gets the sum of the GETs' contributions. */
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

struct apply_args {
    const uint64_t *keys;
    const uint32_t *sets, *idx;
    uint64_t m, n, seed, b;
    kvs_set *table;        /* the device table */
    wl_txdev d;            /* the transaction's batch: log, PM, flags, records */
    unsigned long long *pm; /* pairs stored to PM, and their bytes with their records */
};

/* A way a run changed: where it is in the table, its pair before the
 * batch and after the run. */
struct change {
    uint64_t off;
    kvs_pair old, now;
};

#define WARPS (KVS_LOG_THREADS / 32)

/* The warp's pairs stored to PM, one atomic each for the warp: the pair,
 * and its undo record and tail where the mode logs. Every lane calls it. */
__device__ __forceinline__ void count_stored(const struct apply_args *a, uint32_t stored)
{
    unsigned k = (unsigned)__popc(__ballot_sync(0xffffffffu, stored));
    unsigned long long per = sizeof(kvs_pair);
    if (a->d.log.pm)
        per += gpmtx_record_bytes(sizeof(kvs_pair)) + 4u;
    if (k && threadIdx.x % 32u == 0) {
        atomicAdd(&a->pm[0], (unsigned long long)k);
        atomicAdd(&a->pm[1], k * per);
    }
}

/* The first N (at most 32) changes of the warp's queue Q, lane L taking
 * Q[L]; every lane of the warp calls it. A lane of a group of 8 would log
 * alone, each 4-byte chunk of its HCL record crossing the link as a few
 * bytes of a 128-byte line; 32 lanes logging at once fill the line
 * (gpm/log_layout.h). A change whose record did not fit is not made. */
__device__ void make_changes(const struct apply_args *a, const struct change *q, uint32_t n)
{
    uint32_t lane = threadIdx.x % 32u, stored = 0;
    if (lane < n && wl_tx_undo(&a->d, q[lane].off, &q[lane].old, sizeof q[lane].old) == 0) {
        kvs_pair now = q[lane].now;
        *(kvs_pair *)((uint8_t *)a->table + q[lane].off) = now;
        if (a->d.pm) {
            uint4 v = make_uint4((uint32_t)now.key, (uint32_t)(now.key >> 32), (uint32_t)now.val,
                                 (uint32_t)(now.val >> 32));
            wl_store_v4(a->d.o, (uint4 *)(a->d.pm + q[lane].off), v);
            wl_persist(a->d.o);
            stored = 1;
        }
        wl_tx_changed(&a->d, q[lane].off, &now);
    }
    count_stored(a, stored);
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
        /* The head of a run, the same for the group's lanes. A hot set's
         * run is long (Zipfian keys): its SETs are read GROUP at a time,
         * a lane each, so the serial walk through them waits on memory
         * once a GROUP, not twice a SET. */
        if (p < a.m && !(p > 0 && a.sets[p - 1] == a.sets[p])) {
            uint32_t in_run;
            set = a.sets[p];
            old = mine = a.table[set].way[lane];
            for (uint64_t r0 = p;; r0 += GROUP) {
                uint64_t r = r0 + lane, my_i = 0, my_key = 0;
                int in = r < a.m && a.sets[r] == set;
                if (in) {
                    my_i = a.idx[r];
                    my_key = a.keys[my_i];
                }
                in_run = (uint32_t)__popc(group_ballot(mask, in)); /* a prefix: sorted */
                for (uint32_t j = 0; j < in_run; j++) {
                    uint64_t i = __shfl_sync(mask, my_i, j, GROUP);
                    uint64_t key = __shfl_sync(mask, my_key, j, GROUP);
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
                if (in_run < GROUP)
                    break;
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

/* ---- the host side ---- */

static cudaStream_t stream_of(const struct kvs_state *st)
{
    return (cudaStream_t)st->stream;
}

static int failed(cudaError_t e, const char *what, uint64_t b)
{
    return e == cudaSuccess ? 0
                            : gpm_set_error("kvs: %s of batch %llu failed (%s)", what,
                                            (unsigned long long)b, cudaGetErrorString(e));
}

static float between(const struct kvs_state *st, int slot, int i, int j)
{
    float ms = 0;
    cudaEventElapsedTime(&ms, (cudaEvent_t)st->ev[slot][i], (cudaEvent_t)st->ev[slot][j]);
    return ms / 1e3f;
}

/* The times of the batch SLOT holds, once it is done (a wait only where
 * KVS_RING batches are in flight, or at the end). */
static int settle(struct kvs_state *st, int slot)
{
    cudaError_t e;
    if (!st->ev_busy[slot])
        return 0;
    e = cudaEventSynchronize((cudaEvent_t)st->ev[slot][KVS_EV_APPLY]);
    if (e != cudaSuccess)
        return failed(e, "the kernels", st->ev_batch[slot]);
    st->ev_busy[slot] = 0;
    st->gets_s += between(st, slot, KVS_EV_BEGIN, KVS_EV_GETS);
    st->sort_s += between(st, slot, KVS_EV_GROUP0, KVS_EV_GROUP);
    st->apply_s += between(st, slot, KVS_EV_GETS, KVS_EV_APPLY);
    /* Where the host waits for no batch, its latency is its time on the
     * GPU, from its grouping's start to its last kernel's end (the
     * grouping runs beside the batch before, whose end it may wait for). */
    if (st->lat_gpu)
        st->lat[st->ev_batch[slot]] = between(st, slot, KVS_EV_GROUP0, KVS_EV_APPLY);
    return 0;
}

extern "C" int kvs_gpu_alloc(struct kvs_state *st)
{
    cudaError_t e = cudaStreamCreate((cudaStream_t *)&st->stream);
    if (e == cudaSuccess)
        e = cudaStreamCreate((cudaStream_t *)&st->group_stream);
    for (int k = 0; e == cudaSuccess && k < KVS_RING; k++)
        for (int i = 0; e == cudaSuccess && i < KVS_EVS; i++)
            e = cudaEventCreate((cudaEvent_t *)&st->ev[k][i]);
    if (e != cudaSuccess)
        return gpm_set_error("kvs: cannot create the batches' stream and events (%s)",
                             cudaGetErrorString(e));
    st->group_bits = kvs_group_bits(st->nsets);
    st->grouped = UINT64_MAX;
    for (int k = 0; k < 2; k++)
        if (wl_dev_alloc((void **)&st->d_sets[k], st->n * sizeof *st->d_sets[k]) ||
            wl_group_alloc(&st->group[k], st->n) != 0)
            return -1;
    if (wl_dev_alloc((void **)&st->d_digest, st->batches * sizeof *st->d_digest) ||
        wl_dev_zero(st->d_digest, st->batches * sizeof *st->d_digest) ||
        wl_dev_alloc((void **)&st->d_pm, 2 * sizeof *st->d_pm)) /* zeroed by kvs_gpu_start */
        return -1;
    return 0;
}

extern "C" void kvs_gpu_free(struct kvs_state *st)
{
    if (st->stream)
        cudaStreamSynchronize(stream_of(st));
    if (st->group_stream)
        cudaStreamSynchronize((cudaStream_t)st->group_stream);
    for (int k = 0; k < KVS_RING; k++)
        for (int i = 0; i < KVS_EVS; i++)
            if (st->ev[k][i])
                cudaEventDestroy((cudaEvent_t)st->ev[k][i]);
    if (st->stream)
        cudaStreamDestroy(stream_of(st));
    if (st->group_stream)
        cudaStreamDestroy((cudaStream_t)st->group_stream);
    st->stream = st->group_stream = NULL;
    for (int k = 0; k < 2; k++) {
        wl_group_free(&st->group[k]);
        wl_dev_free(st->d_sets[k]);
    }
    wl_dev_free(st->d_digest);
    wl_dev_free(st->d_pm);
}

extern "C" int kvs_gpu_start(struct kvs_state *st)
{
    st->gets_s = st->sort_s = st->apply_s = 0;
    return wl_dev_zero_on(st->d_pm, 2 * sizeof *st->d_pm, st->stream);
}

/* Phase PHASE of batch B done (its event recorded in SLOT) on STREAM. */
static int mark(struct kvs_state *st, int slot, int phase, uint64_t b, void *stream)
{
    return failed(cudaEventRecord((cudaEvent_t)st->ev[slot][phase], (cudaStream_t)stream),
                  "an event", b);
}

/* Batch B's SETs grouped, on the grouping stream, into the pair of buffers
 * the batch two before applied from, once it has. Its slot's times are
 * those of the batch KVS_RING before: read first. */
static int group(struct kvs_state *st, uint64_t b)
{
    int slot = (int)(b % KVS_RING), k = (int)(b % 2);
    cudaStream_t g = (cudaStream_t)st->group_stream;
    uint64_t m = st->h_nsetops[b];
    if (settle(st, slot) != 0)
        return -1;
    if (b >= 2 && cudaStreamWaitEvent(g, (cudaEvent_t)st->ev[(b - 2) % KVS_RING][KVS_EV_APPLY],
                                      0) != cudaSuccess)
        return failed(cudaGetLastError(), "the grouping's wait", b);
    if (mark(st, slot, KVS_EV_GROUP0, b, g) != 0)
        return -1;
    if (m) {
        sets_kernel<<<wl_blocks(st->n, 256, MAX_BLOCKS), 256, 0, g>>>(
            st->d_keys + b * st->n, st->d_op + b * st->n, st->nsets, st->n,
            kvs_group_marker(st->group_bits), st->d_sets[k]);
        if (failed(cudaGetLastError(), "the grouping keys' kernel", b) != 0 ||
            wl_group_sort(&st->group[k], st->d_sets[k], st->n, st->group_bits, g) != 0)
            return -1;
    }
    st->grouped = b;
    return mark(st, slot, KVS_EV_GROUP, b, g);
}

static void launch_apply(struct kvs_state *st, uint64_t seed, uint64_t b, const wl_txdev *d)
{
    struct apply_args a;
    memset(&a, 0, sizeof a);
    a.keys = st->d_keys + b * st->n;
    a.sets = st->group[b % 2].key;
    a.idx = st->group[b % 2].idx;
    a.m = st->h_nsetops[b];
    a.n = st->n;
    a.seed = seed;
    a.b = b;
    a.table = st->d_table;
    a.d = *d;
    a.pm = st->d_pm;
    /* The log's HCL grid: each lane logs into its own slot. */
    apply_kernel<<<KVS_LOG_BLOCKS, KVS_LOG_THREADS, 0, stream_of(st)>>>(a);
}

extern "C" int kvs_gpu_batch(struct kvs_state *st, uint64_t seed, uint64_t b, const wl_txdev *d)
{
    int slot = (int)(b % KVS_RING);
    uint64_t m = st->h_nsetops[b];
    if ((st->grouped != b && group(st, b) != 0) || mark(st, slot, KVS_EV_BEGIN, b, st->stream))
        return -1;
    /* A batch of neither GETs nor SETs needs no kernel. */
    if (st->h_ngets[b])
        gets_kernel<<<wl_blocks(st->n * GROUP, 256, MAX_BLOCKS), 256, 0, stream_of(st)>>>(
            st->d_keys + b * st->n, st->d_op + b * st->n, st->d_table, st->nsets, st->n,
            st->d_digest + b);
    if (failed(cudaGetLastError(), "the GET kernel", b) != 0 ||
        mark(st, slot, KVS_EV_GETS, b, st->stream) != 0)
        return -1;
    if (m && cudaStreamWaitEvent(stream_of(st), (cudaEvent_t)st->ev[slot][KVS_EV_GROUP], 0) !=
                 cudaSuccess)
        return failed(cudaGetLastError(), "the wait for the grouping", b);
    if (m)
        launch_apply(st, seed, b, d);
    if (failed(cudaGetLastError(), "the SET kernel", b) != 0 ||
        mark(st, slot, KVS_EV_APPLY, b, st->stream) != 0)
        return -1;
    st->ev_batch[slot] = b;
    st->ev_busy[slot] = 1;
    /* The next batch's grouping runs while this one's SETs apply (the
     * engine waits for the batches' stream alone). */
    return b + 1 < st->batches ? group(st, b + 1) : 0;
}

extern "C" int kvs_gpu_finish(struct kvs_state *st, uint64_t from, uint64_t to)
{
    unsigned long long pm[2];
    if (wl_dev_wait(st->stream, "kvs: the batches' kernels") != 0)
        return -1;
    for (int k = 0; k < KVS_RING; k++)
        if (settle(st, k) != 0)
            return -1;
    if (to > from && wl_dev_copy(st->digest + from, st->d_digest + from,
                                 (to - from) * sizeof *st->d_digest, 0) != 0)
        return -1;
    if (wl_dev_copy(pm, st->d_pm, sizeof pm, 0) != 0)
        return -1;
    st->pm_records = pm[0];
    st->pm_record_bytes = pm[1];
    return 0;
}
