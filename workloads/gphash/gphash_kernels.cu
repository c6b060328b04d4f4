/* GPHash kernels. A batch's operations are sorted by fingerprint (cub's
 * radix sort: stable, so one key's operations keep their batch order), and
 * a warp takes each run of one key: its lanes read the key's 32 candidate
 * slots at once (the paper's one-shot warp access), then the warp walks
 * the run's operations in order, answering each read from the key's value
 * at that point, and makes the run's net change durable, log-free:
 *   insert  CAS the state EMPTY -> INSERT, key and value stored and
 *           persisted, then the fingerprint stored and persisted;
 *   update  the value into the slot's other cell, persisted, then a CAS
 *           swings the slot's reference to it, persisted;
 *   delete  CAS the state fingerprint -> EMPTY, persisted.
 * Runs of different keys go at once and race for free slots by CAS: a warp
 * whose CAS lost reads the candidates again. */
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "gphash.h"
#include "wl.cuh"

#define THREADS 256u
#define MAX_BLOCKS 65535u
#define FULL 0xffffffffu

/* The table's arrays, as a kernel sees them. */
struct tbl {
    struct gph_geom g;
    uint64_t *state, *key, *ref, *cell;
    uint32_t vw; /* words of a value */
};

static struct tbl tbl_of(const struct gph_geom *g, uint8_t *base)
{
    struct tbl t;
    t.g = *g;
    t.state = (uint64_t *)(base + gph_state_off());
    t.key = (uint64_t *)(base + gph_key_off(g));
    t.ref = (uint64_t *)(base + gph_ref_off(g));
    t.cell = (uint64_t *)(base + gph_cell_off(g));
    t.vw = g->vbytes / 8;
    return t;
}

__device__ __forceinline__ uint64_t vload(const uint64_t *p)
{
    return *(const volatile uint64_t *)p;
}

__device__ __forceinline__ uint64_t warp_sum(uint64_t v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(FULL, v, d);
    return v;
}

__global__ void fp_kernel(const uint64_t *key, uint32_t kw, uint32_t n, uint64_t *fp,
                          uint32_t *idx)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        fp[i] = gph_fingerprint(key + i * kw, kw);
        idx[i] = (uint32_t)i;
    }
}

/* The key being worked on, and what the lookup found. */
struct sess {
    uint64_t key[4], fp, vk, b1, b2;
    int64_t slot;  /* its slot, or -1 */
    uint64_t ref;  /* the slot's cell */
    uint64_t seq;  /* the value's sequence number there (0: absent) */
};

/* This lane's candidate slot (-1: none). */
__device__ __forceinline__ int64_t lane_slot(const struct tbl *t, const struct sess *s,
                                             unsigned lane)
{
    uint64_t b;
    if (lane >= GPH_CANDIDATES * t->g.slots)
        return -1;
    b = gph_candidate(&t->g, s->b1, s->b2, lane / t->g.slots);
    return b == GPH_NO_BUCKET ? -1 : (int64_t)(b * t->g.slots + lane % t->g.slots);
}

/* One-shot warp access: every candidate slot at once; the key's slot, its
 * cell and its value's sequence number. */
__device__ void lookup(const struct tbl *t, struct sess *s, unsigned lane)
{
    int64_t my = lane_slot(t, s, lane);
    int match = 0;
    unsigned m;
    if (my >= 0 && vload(&t->state[my]) == s->fp) {
        match = 1;
        for (uint32_t j = 0; j < t->g.kw; j++)
            match &= vload(&t->key[(uint64_t)my * t->g.kw + j]) == s->key[j];
    }
    m = __ballot_sync(FULL, match);
    s->slot = -1;
    s->ref = 0;
    s->seq = 0;
    if (m) {
        unsigned f = __ffs(m) - 1;
        uint64_t ref = 0, seq = 0;
        if (lane == f) {
            ref = vload(&t->ref[my]);
            seq = vload(&t->cell[ref * t->vw]);
        }
        s->slot = __shfl_sync(FULL, (long long)my, f);
        s->ref = __shfl_sync(FULL, ref, f);
        s->seq = __shfl_sync(FULL, seq, f);
    }
}

/* What a read answers for sequence number SEQ: the value's fold, from PM
 * (the cell REF) where it is the value found there, else made. */
__device__ uint64_t value_fold(const struct tbl *t, const struct sess *s, uint64_t seq,
                               unsigned lane)
{
    uint64_t term = 0;
    if (seq == 0)
        return 0;
    if (lane < t->vw)
        term = gpm_mix64((seq == s->seq ? vload(&t->cell[s->ref * t->vw + lane])
                                        : gph_value_word(s->vk, seq, lane)) + lane);
    return warp_sum(term);
}

/* Stores the value of SEQ in cell CELL, each lane a word, persisted. */
__device__ void put_value(const struct tbl *t, const struct sess *s, uint64_t cell,
                          uint64_t seq, unsigned lane, wl_out o)
{
    if (lane < t->vw)
        wl_store_u64(o, &t->cell[cell * t->vw + lane], gph_value_word(s->vk, seq, lane));
}

/* Insert: claim a free slot of the least-loaded candidate by CAS, then
 * the key, the value and the reference, then the fingerprint. */
__device__ void insert(const struct tbl *t, const struct sess *s, uint64_t seq, unsigned lane,
                       wl_out o, unsigned long long *count)
{
    int64_t my = lane_slot(t, s, lane);
    uint32_t slots = t->g.slots;
    uint64_t slot;
    unsigned target;
    for (;;) {
        uint64_t st = my >= 0 ? vload(&t->state[my]) : GPH_INSERT;
        unsigned freem = __ballot_sync(FULL, my >= 0 && st == GPH_EMPTY);
        unsigned used = __ballot_sync(FULL, my >= 0 && st != GPH_EMPTY);
        unsigned best = 0, best_load = 99, ok = 0;
        if (!freem) {
            if (lane == 0)
                atomicAdd(&count[0], 1ull);
            return;
        }
        for (uint32_t c = 0; c < GPH_CANDIDATES; c++) {
            unsigned m = ((1u << slots) - 1) << (c * slots);
            if ((freem & m) && (unsigned)__popc(used & m) < best_load) {
                best_load = __popc(used & m);
                best = m;
            }
        }
        target = __ffs(freem & best) - 1;
        if (lane == target)
            ok = wl_cas_u64(o, &t->state[my], GPH_EMPTY, GPH_INSERT) == GPH_EMPTY;
        if (__shfl_sync(FULL, ok, target))
            break;
    }
    slot = (uint64_t)__shfl_sync(FULL, (long long)my, target);
    if (lane < t->g.kw)
        wl_store_u64(o, &t->key[slot * t->g.kw + lane], s->key[lane]);
    put_value(t, s, 2 * slot, seq, lane, o);
    if (lane == 0)
        wl_store_u64(o, &t->ref[slot], 2 * slot);
    if (lane < t->vw || lane < t->g.kw)
        wl_persist(o);
    __syncwarp();
    if (lane == 0) {
        wl_store_u64(o, &t->state[slot], s->fp);
        wl_persist(o);
    }
}

/* The run's net change: from the value found (S->seq) to CUR. */
__device__ void finish(const struct tbl *t, const struct sess *s, uint64_t cur, unsigned lane,
                       wl_out o, unsigned long long *count)
{
    if (cur == s->seq)
        return;
    if (s->seq && cur) { /* update: the other cell, then the reference */
        uint64_t next = s->ref ^ 1;
        put_value(t, s, next, cur, lane, o);
        if (lane < t->vw)
            wl_persist(o);
        __syncwarp();
        if (lane == 0) {
            if (wl_cas_u64(o, &t->ref[s->slot], s->ref, next) != s->ref)
                atomicAdd(&count[2], 1ull);
            wl_persist(o);
        }
    } else if (cur) {
        insert(t, s, cur, lane, o, count);
    } else if (lane == 0) { /* delete */
        if (wl_cas_u64(o, &t->state[s->slot], s->fp, GPH_EMPTY) != s->fp)
            atomicAdd(&count[2], 1ull);
        wl_persist(o);
    }
}

__device__ __forceinline__ int same_key(const uint64_t *a, const uint64_t *b, uint32_t kw)
{
    int same = 1;
    for (uint32_t j = 0; j < kw; j++)
        same &= a[j] == b[j];
    return same;
}

/* Positions P..Q-1 of the sorted batch: one fingerprint's operations, in
 * batch order. Keys that share a fingerprint take turns, each from a fresh
 * lookup, so every key's operations still apply in batch order. */
__device__ void run(const struct tbl *t, const uint8_t *op, const uint64_t *key,
                    const uint32_t *idx, uint64_t p, uint64_t q, uint64_t seq0, uint64_t *ans,
                    unsigned long long *count, wl_out o, unsigned lane)
{
    uint32_t kw = t->g.kw;
    while (p < q) {
        struct sess s;
        uint64_t cur, k = p, found_fold = 0;
        int found_read = 0;
        const uint64_t *k0 = key + (uint64_t)idx[p] * kw;
        for (uint32_t j = 0; j < kw; j++)
            s.key[j] = k0[j];
        s.fp = gph_fingerprint(s.key, kw);
        s.vk = gph_value_key(s.key, kw);
        s.b1 = gph_top(&t->g, s.key, 1);
        s.b2 = gph_top(&t->g, s.key, 2);
        lookup(t, &s, lane);
        cur = s.seq;
        for (; k < q; k++) {
            uint32_t i = idx[k], o_ = op[i];
            uint64_t before, fold = 0;
            if (k > p && !same_key(key + (uint64_t)i * kw, s.key, kw))
                break;
            before = gph_step(o_, seq0 + i + 1, &cur);
            if (gph_answers(o_) && before == s.seq) { /* the value on PM: read once */
                if (!found_read) {
                    found_fold = value_fold(t, &s, before, lane);
                    found_read = 1;
                }
                fold = found_fold;
            } else if (gph_answers(o_)) {
                fold = value_fold(t, &s, before, lane);
            }
            if (lane == 0) {
                ans[2 * i] = gph_answers(o_) ? before : 0;
                ans[2 * i + 1] = fold;
            }
        }
        finish(t, &s, cur, lane, o, count);
        if (lane == 0)
            wl_progressed(o, k - p);
        p = k;
    }
}

__global__ void run_kernel(struct tbl t, const uint8_t *op, const uint64_t *key,
                           const uint64_t *fp, const uint32_t *idx, uint32_t n, uint64_t seq0,
                           uint64_t *ans, unsigned long long *count, wl_out o)
{
    unsigned lane = threadIdx.x & 31u;
    uint64_t w = gpm_grid_rank() / 32, nw = gpm_grid_threads() / 32;
    for (uint64_t p = w; p < n; p += nw) {
        uint64_t q = p + 1;
        if (p > 0 && fp[p] == fp[p - 1])
            continue; /* not a run's head: uniform across the warp */
        for (;;) {
            uint64_t k = q + lane;
            unsigned same = __ballot_sync(FULL, k < n && fp[k] == fp[p]);
            if (same != FULL) {
                q += __ffs(~same) - 1;
                break;
            }
            q += 32;
        }
        run(&t, op, key, idx, p, q, seq0, ans, count, o, lane);
    }
}

__global__ void scan_kernel(struct tbl t, uint64_t nslots, unsigned long long *count, wl_out o)
{
    uint64_t cleared = 0, items = 0;
    for (uint64_t s = gpm_grid_rank(); s < nslots; s += gpm_grid_threads()) {
        uint64_t st = vload(&t.state[s]);
        if (st == GPH_INSERT) {
            wl_store_u64(o, &t.state[s], GPH_EMPTY);
            wl_persist(o);
            cleared++;
        }
        items += st > GPH_INSERT;
    }
    cleared = warp_sum(cleared); /* every lane is here: the grid is whole warps */
    items = warp_sum(items);
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&count[1], (unsigned long long)cleared);
        atomicAdd(&count[3], (unsigned long long)items);
    }
}

int gph_gpu_alloc(struct gph_state *st)
{
    uint64_t n = st->batch, kw = st->g.kw;
    cudaError_t e;
    if (wl_dev_alloc((void **)&st->d_op, n) || wl_dev_alloc((void **)&st->d_key, n * kw * 8) ||
        wl_dev_alloc((void **)&st->d_ans, n * 16) || wl_dev_alloc((void **)&st->d_fp, n * 8) ||
        wl_dev_alloc((void **)&st->d_fp_sorted, n * 8) ||
        wl_dev_alloc((void **)&st->d_idx, n * 4) ||
        wl_dev_alloc((void **)&st->d_idx_sorted, n * 4) ||
        wl_dev_alloc((void **)&st->d_count, 4 * 8) || wl_dev_zero(st->d_count, 4 * 8))
        return -1;
    e = cub::DeviceRadixSort::SortPairs(NULL, st->sort_tmp_bytes, st->d_fp, st->d_fp_sorted,
                                        st->d_idx, st->d_idx_sorted, (int)n);
    if (e != cudaSuccess)
        return gpm_set_error("sizing the sort failed (%s)", cudaGetErrorString(e));
    if (wl_dev_alloc(&st->d_sort_tmp, st->sort_tmp_bytes))
        return -1;
    for (int i = 0; i < 2; i++)
        if (cudaEventCreate((cudaEvent_t *)&st->ev[i]) != cudaSuccess)
            return gpm_set_error("cudaEventCreate failed");
    return 0;
}

void gph_gpu_free(struct gph_state *st)
{
    wl_dev_free(st->d_op);
    wl_dev_free(st->d_key);
    wl_dev_free(st->d_ans);
    wl_dev_free(st->d_fp);
    wl_dev_free(st->d_fp_sorted);
    wl_dev_free(st->d_idx);
    wl_dev_free(st->d_idx_sorted);
    wl_dev_free(st->d_count);
    wl_dev_free(st->d_sort_tmp);
    for (int i = 0; i < 2; i++)
        if (st->ev[i])
            cudaEventDestroy((cudaEvent_t)st->ev[i]);
}

/* The counts the kernels keep: inserts without a slot, swaps that lost. */
static int check_counts(struct gph_state *st)
{
    unsigned long long k[4];
    if (wl_dev_copy(k, st->d_count, sizeof k, 0) != 0)
        return -1;
    st->full = k[0];
    if (k[2])
        return gpm_set_error("%llu swaps of a key's own slot lost their CAS: two warps "
                             "worked on one key", k[2]);
    return 0;
}

int gph_gpu_batch(struct gph_state *st, uint8_t *table, uint64_t b, wl_out o, double *kernel_s)
{
    uint64_t n = gph_batch_ops(st, b), first = b * st->batch, kw = st->g.kw;
    unsigned blocks = wl_blocks(n, THREADS, MAX_BLOCKS);
    unsigned warps_blocks = wl_blocks(n * 32, THREADS, MAX_BLOCKS);
    float ms = 0;
    cudaError_t e;
    if (cudaMemcpyAsync(st->d_op, st->h_op + first, n, cudaMemcpyHostToDevice, 0) !=
            cudaSuccess ||
        cudaMemcpyAsync(st->d_key, st->h_key + first * kw, n * kw * 8, cudaMemcpyHostToDevice,
                        0) != cudaSuccess)
        return gpm_set_error("copying batch %llu to the GPU failed",
                             (unsigned long long)b);
    cudaEventRecord((cudaEvent_t)st->ev[0], 0);
    fp_kernel<<<blocks, THREADS>>>(st->d_key, (uint32_t)kw, (uint32_t)n, st->d_fp, st->d_idx);
    e = cub::DeviceRadixSort::SortPairs(st->d_sort_tmp, st->sort_tmp_bytes, st->d_fp,
                                        st->d_fp_sorted, st->d_idx, st->d_idx_sorted, (int)n);
    if (e != cudaSuccess)
        return gpm_set_error("sorting batch %llu failed (%s)", (unsigned long long)b,
                             cudaGetErrorString(e));
    run_kernel<<<warps_blocks, THREADS>>>(tbl_of(&st->g, table), st->d_op, st->d_key,
                                          st->d_fp_sorted, st->d_idx_sorted, (uint32_t)n,
                                          first, st->d_ans, st->d_count, o);
    cudaEventRecord((cudaEvent_t)st->ev[1], 0);
    if (cudaMemcpyAsync(st->h_ans + 2 * first, st->d_ans, n * 16, cudaMemcpyDeviceToHost, 0) !=
        cudaSuccess)
        return gpm_set_error("copying batch %llu's answers back failed",
                             (unsigned long long)b);
    if (wl_dev_sync("gphash batch") != 0)
        return -1;
    cudaEventElapsedTime(&ms, (cudaEvent_t)st->ev[0], (cudaEvent_t)st->ev[1]);
    *kernel_s += ms / 1e3;
    return b + 1 == st->batches || b + 1 == st->load_batches ? check_counts(st) : 0;
}

int gph_gpu_scan(struct gph_state *st, uint8_t *table, wl_out o, uint64_t *cleared,
                 uint64_t *items)
{
    uint64_t nslots = gph_slots(&st->g);
    unsigned long long k[4];
    if (wl_dev_zero(st->d_count, sizeof k) != 0)
        return -1;
    scan_kernel<<<wl_blocks(nslots, THREADS, MAX_BLOCKS), THREADS>>>(tbl_of(&st->g, table),
                                                                     nslots, st->d_count, o);
    if (wl_dev_sync("gphash recovery scan") != 0 || wl_dev_copy(k, st->d_count, sizeof k, 0) ||
        wl_dev_zero(st->d_count, sizeof k) != 0)
        return -1;
    *cleared = k[1];
    *items = k[3];
    return 0;
}

int gph_gpu_pin(struct gph_state *st)
{
    uint64_t n = st->load_ops + st->run_ops;
    if (cudaHostRegister(st->h_op, n, cudaHostRegisterDefault) != cudaSuccess ||
        cudaHostRegister(st->h_key, n * st->g.kw * 8, cudaHostRegisterDefault) != cudaSuccess ||
        cudaHostRegister(st->h_ans, n * 16, cudaHostRegisterDefault) != cudaSuccess) {
        gph_gpu_unpin(st);
        return gpm_set_error("pinning the stream's %llu operations failed",
                             (unsigned long long)n);
    }
    return 0;
}

void gph_gpu_unpin(struct gph_state *st)
{
    /* Whatever was registered: unregistering the rest fails harmlessly. */
    if (st->h_op)
        cudaHostUnregister(st->h_op);
    if (st->h_key)
        cudaHostUnregister(st->h_key);
    if (st->h_ans)
        cudaHostUnregister(st->h_ans);
    cudaGetLastError();
}
