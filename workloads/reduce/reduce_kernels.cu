/* The reduction's kernels: one launch sums every block into its tree of
 * slots and the last block to finish sums the blocks into the total. Two
 * variants of the same tree: the epoch model's (a persist, then a barrier,
 * each iteration) and SBRP's (Figure 3 of its paper: a finished thread
 * releases its sum at block scope, the thread that absorbs it acquires
 * it; each block releases its sum at device scope to the last block). */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "reduce.h"
#include "wl.cuh"

/* Device words beside the input: each block's sum for the last block, the
 * count of blocks done, and in the SBRP variant the flags, which SBRP
 * keeps in GPU memory. */
struct red_dev {
    uint32_t *bsum;      /* per block: its sum */
    unsigned *ticket;    /* blocks of this launch that finished */
    unsigned long long *computed; /* blocks this launch computed */
    unsigned *arrive;    /* SBRP: per thread of each block, its sum released */
    unsigned *published; /* SBRP: per block, its sum released */
};

__global__ void red_generate_kernel(uint32_t *in, uint64_t n, uint64_t seed)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        in[i] = red_input(seed, i);
}

/* Thread T's leaf: its RED_ITEMS integers, one 16-byte load where whole. */
__device__ uint32_t leaf(const uint32_t *in, uint64_t n, uint32_t block, uint64_t b, uint32_t t)
{
    uint64_t i = b * block + (uint64_t)t * RED_ITEMS;
    if (i + RED_ITEMS <= n) {
        uint4 v = *(const uint4 *)&in[i];
        return v.x + v.y + v.z + v.w;
    }
    return red_leaf(in, n, block, b, t);
}

/* Resume: a block whose slot 0 holds this run's epoch is durable whole
 * (its tree persisted before it); its sum goes to bsum. A fresh epoch has
 * no such block, so only a resume pays for reading slot 0 over the link.
 * Block-uniform. */
__device__ int block_durable(const uint64_t *mine, uint32_t epoch, int resume, uint32_t *bsum)
{
    __shared__ int durable;
    if (threadIdx.x == 0) {
        uint64_t s0 = resume ? gpm_load_u64(&mine[0]) : 0;
        durable = resume && red_slot_holds(s0, epoch);
        if (durable)
            *bsum = red_slot_sum(s0);
    }
    __syncthreads();
    return durable;
}

/* The sum of V over the block, in thread 0 (V: blockDim.x words). */
__device__ uint32_t block_sum(uint32_t x, uint32_t *v)
{
    v[threadIdx.x] = x;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s >= 1; s /= 2) {
        if (threadIdx.x < s)
            v[threadIdx.x] += v[threadIdx.x + s];
        __syncthreads();
    }
    return v[0];
}

/* The epoch model: at stride s the finished threads [s, 2s) store and
 * persist their sums; the barrier then puts every persist of the
 * iteration before the next, so each slot is durable before the slot of
 * the thread that absorbs it. The last block sums the blocks' sums after
 * every block persisted its tree (each block's persists come before its
 * ticket) and persists the total. */
__global__ void red_kernel(const uint32_t *in, uint64_t *slots, uint64_t *total, uint64_t n,
                           uint32_t epoch, wl_out o, int resume, struct red_dev d)
{
    extern __shared__ uint32_t v[];
    __shared__ int last;
    uint32_t t = threadIdx.x, threads = blockDim.x, block = threads * RED_ITEMS;
    uint64_t b = blockIdx.x, *mine = slots + b * threads;
    if (!block_durable(mine, epoch, resume, &d.bsum[b])) {
        v[t] = leaf(in, n, block, b, t);
        for (uint32_t s = threads / 2; s >= 1; s /= 2) {
            if (t >= s && t < 2 * s) {
                wl_store_u64(o, &mine[t], red_slot(epoch, v[t]));
                wl_persist(o);
            }
            __syncthreads();
            if (t < s)
                v[t] += v[t + s];
        }
        if (t == 0) {
            wl_store_u64(o, &mine[0], red_slot(epoch, v[0]));
            wl_persist(o);
            d.bsum[b] = v[0];
            wl_progressed(o, 1);
            atomicAdd(d.computed, 1ull);
        }
    }
    if (t == 0) {
        __threadfence(); /* bsum[b] before the ticket */
        last = atomicAdd(d.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence();
    uint32_t s = 0;
    for (uint64_t k = t; k < gridDim.x; k += threads)
        s += *(volatile uint32_t *)&d.bsum[k];
    s = block_sum(s, v);
    if (t == 0) {
        wl_store_u64(o, total, red_slot(epoch, s));
        wl_persist(o);
    }
}

/* Spins until FLAG holds EPOCH; the caller then acquires it once, so that
 * a trace records one acquire rather than one per spin. */
__device__ void wait_for(const unsigned *flag, unsigned epoch)
{
    while (gpm_load_u32(flag) != epoch)
        ;
}

/* SBRP's variant. A finished thread stores its slot and releases it at
 * block scope: the release orders the slot before every persist of the
 * thread that acquires it, which absorbs the sum (no barrier: the other
 * threads go on). Thread 0 then holds the block's sum; it stores slot 0 and
 * releases the block at device scope. The last block's threads acquire
 * every block at device scope (block scope there would let the total
 * persist before a block's tree: SBRP's scoped persistency bug, its
 * section 5.3), and dFence, and thread 0 stores the total and dFences.
 * Nothing is durable before those dFences, so the units of progress come
 * at the end. */
__global__ void red_sbrp_kernel(const uint32_t *in, uint64_t *slots, uint64_t *total,
                                uint64_t n, uint32_t epoch, wl_out o, int resume,
                                struct red_dev d)
{
    extern __shared__ uint32_t v[];
    __shared__ int last;
    uint32_t t = threadIdx.x, threads = blockDim.x, block = threads * RED_ITEMS;
    uint64_t b = blockIdx.x, *mine = slots + b * threads;
    unsigned *arrive = d.arrive + b * threads;
    if (!block_durable(mine, epoch, resume, &d.bsum[b])) {
        uint32_t sum = leaf(in, n, block, b, t), s;
        for (s = threads / 2; s >= 1 && t < s; s /= 2) {
            wait_for(&arrive[t + s], epoch);
            gpm_pacq_block(&arrive[t + s]);
            sum += v[t + s];
        }
        if (t > 0) { /* finished at stride s: t is in [s, 2s) */
            v[t] = sum;
            wl_store_u64(o, &mine[t], red_slot(epoch, sum));
            gpm_prel_block(&arrive[t], epoch);
        } else {
            wl_store_u64(o, &mine[0], red_slot(epoch, sum));
            d.bsum[b] = sum;
            atomicAdd(d.computed, 1ull);
        }
    }
    if (t == 0) {
        gpm_prel_dev(&d.published[b], epoch);
        last = atomicAdd(d.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    uint32_t s = 0;
    for (uint64_t k = t; k < gridDim.x; k += threads) {
        wait_for(&d.published[k], epoch);
        gpm_pacq_dev(&d.published[k]);
        s += d.bsum[k];
    }
    wl_dfence(o);
    s = block_sum(s, v);
    if (t == 0) {
        wl_store_u64(o, total, red_slot(epoch, s));
        wl_dfence(o);
        unsigned long long k = *(volatile unsigned long long *)d.computed;
        if (k)
            wl_progressed(o, k);
    }
}

static int generate(uint32_t *d_in, uint64_t n, uint64_t seed)
{
    red_generate_kernel<<<1024, 256>>>(d_in, n, seed);
    return wl_dev_sync("input generation");
}

static void device_words_free(struct red_dev *d)
{
    if (!d)
        return;
    wl_dev_free(d->bsum);
    wl_dev_free(d->ticket);
    wl_dev_free(d->computed);
    wl_dev_free(d->arrive);
    wl_dev_free(d->published);
    free(d);
}

static struct red_dev *device_words(uint64_t n, uint32_t block, int sbrp)
{
    struct red_dev *d = (struct red_dev *)calloc(1, sizeof *d);
    uint64_t nb = red_nblocks(n, block), threads = nb * red_threads(block);
    if (!d)
        return NULL;
    if (wl_dev_alloc((void **)&d->bsum, nb * sizeof(uint32_t)) != 0 ||
        wl_dev_alloc((void **)&d->ticket, sizeof(unsigned)) != 0 ||
        wl_dev_alloc((void **)&d->computed, sizeof(unsigned long long)) != 0)
        goto fail;
    /* Zero: no run's epoch (the harness's epochs start at 1). */
    if (sbrp && (wl_dev_alloc((void **)&d->arrive, threads * sizeof(unsigned)) != 0 ||
                 wl_dev_alloc((void **)&d->published, nb * sizeof(unsigned)) != 0 ||
                 wl_dev_zero(d->arrive, threads * sizeof(unsigned)) != 0 ||
                 wl_dev_zero(d->published, nb * sizeof(unsigned)) != 0))
        goto fail;
    return d;
fail:
    device_words_free(d);
    return NULL;
}

static int reduce(const uint32_t *in, uint64_t *slots, uint64_t *total, uint64_t n,
                  uint32_t block, uint32_t epoch, wl_out o, int resume, int sbrp,
                  struct red_dev *d, unsigned long long *computed)
{
    uint64_t nb = red_nblocks(n, block);
    uint32_t threads = red_threads(block);
    size_t shared = threads * sizeof(uint32_t);
    if (nb > 0x7fffffffull)
        return gpm_set_error("reduce: %llu blocks exceed the grid: pass a larger --block",
                             (unsigned long long)nb);
    if (wl_dev_zero(d->computed, sizeof *d->computed) != 0 ||
        wl_dev_zero(d->ticket, sizeof *d->ticket) != 0)
        return -1;
    if (sbrp)
        red_sbrp_kernel<<<(unsigned)nb, threads, shared>>>(in, slots, total, n, epoch, o, resume,
                                                           *d);
    else
        red_kernel<<<(unsigned)nb, threads, shared>>>(in, slots, total, n, epoch, o, resume, *d);
    if (wl_dev_sync(sbrp ? "SBRP reduction kernel" : "reduction kernel") != 0)
        return -1;
    return wl_dev_copy(computed, d->computed, sizeof *computed, 0);
}

/* The input, where the mode computes: on the GPU, or (the CPU counterpart)
 * on the host; the kernels' own device words. */
extern "C" int red_setup(struct wl_ctx *c)
{
    struct red_state *st = (struct red_state *)c->priv;
    if (!c->m->needs_gpu) {
        if (!(st->h_in = (uint32_t *)malloc(st->n * 4)))
            return gpm_set_error("reduce: cannot allocate %llu bytes for the input: use a "
                                 "smaller --scale", (unsigned long long)st->n * 4);
        red_cpu_generate(st->h_in, st->n, wl_seed(c));
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_in, st->n * 4) != 0 ||
        generate(st->d_in, st->n, wl_seed(c)) != 0)
        return -1;
    if (!(st->dev = device_words(st->n, st->block, wl_sbrp(c))))
        return gpm_set_error("reduce: no device memory for the kernels' block sums and flags: "
                             "use a smaller --scale");
    return 0;
}

extern "C" void red_teardown(struct wl_ctx *c)
{
    struct red_state *st = (struct red_state *)c->priv;
    wl_dev_free(st->d_in); /* NULL in cpu mode */
    device_words_free(st->dev);
    free(st->h_in);
}

/* Epoch c->epoch into OUT (struct wl_blocks): the blocks whose slot 0
 * does not hold it, then the total; in the CPU counterpart, the same on
 * the host, each block's tree persisted before its slot 0. */
extern "C" int red_compute(struct wl_ctx *c, uint8_t *out, int resume, uint64_t *computed)
{
    struct red_state *st = (struct red_state *)c->priv;
    unsigned long long k = 0;
    if (!c->m->needs_gpu)
        return red_cpu_reduce(c, st, computed);
    if (reduce(st->d_in, (uint64_t *)(out + red_slots_off()),
               (uint64_t *)(out + red_total_off(st->n, st->block)), st->n, st->block, c->epoch,
               wl_out_of(c), resume, wl_sbrp(c), st->dev, &k) != 0)
        return -1;
    *computed = k;
    return 0;
}
