/* PS kernels: per-block scans persisted in-kernel with a per-block done
 * marker stored last (paper Figure 8), and the scan of block totals; and
 * the SBRP variant, both in one kernel ordered by scoped releases. */
#include <stdlib.h>

#include <cuda_runtime.h>

#include "ps.h"
#include "wl.cuh"

#define FULL_MASK 0xffffffffu

__global__ void ps_generate_kernel(uint32_t *in, uint64_t n, uint64_t seed)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        in[i] = ps_input(seed, i);
}

/* Inclusive scan of V across the block (blockDim a multiple of 32). */
__device__ uint32_t block_scan(uint32_t v, uint32_t *warp_sums)
{
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (unsigned d = 1; d < 32; d <<= 1) {
        uint32_t t = __shfl_up_sync(FULL_MASK, v, d);
        if (lane >= d)
            v += t;
    }
    if (lane == 31)
        warp_sums[w] = v;
    __syncthreads();
    if (w == 0) {
        uint32_t s = lane < nw ? warp_sums[lane] : 0;
        for (unsigned d = 1; d < 32; d <<= 1) {
            uint32_t t = __shfl_up_sync(FULL_MASK, s, d);
            if (lane >= d)
                s += t;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();
    return w > 0 ? v + warp_sums[w - 1] : v;
}

/* Thread I's PS_ITEMS consecutive integers scanned within the block and
 * stored to OUT with one 16-byte store (no persist: the caller's). */
__device__ void scan_items(const uint32_t *in, uint32_t *out, uint64_t n, uint64_t i, wl_out o,
                           uint32_t *warp_sums)
{
    uint32_t x[PS_ITEMS], run = 0;
    if (i + PS_ITEMS <= n) {
        uint4 v = *(const uint4 *)&in[i];
        x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
    } else {
        for (int k = 0; k < PS_ITEMS; k++)
            x[k] = i + k < n ? in[i + k] : 0u;
    }
    for (int k = 0; k < PS_ITEMS; k++) {
        run += x[k];
        x[k] = run;
    }
    run = block_scan(run, warp_sums) - run; /* exclusive prefix of this thread */
    for (int k = 0; k < PS_ITEMS; k++)
        x[k] += run;
    if (i + PS_ITEMS <= n) {
        wl_store_v4(o, (uint4 *)&out[i], make_uint4(x[0], x[1], x[2], x[3]));
    } else {
        for (int k = 0; k < PS_ITEMS && i + k < n; k++)
            wl_store_u32(o, &out[i + k], x[k]);
    }
}

/* Resume: a block whose marker carries this run's epoch is durable. A
 * fresh epoch has no such block, so only a resume pays for reading the
 * marker (a round trip over PCIe when it is on PM). Block-uniform. */
__device__ int skip_block(const uint32_t *done, uint64_t b, uint32_t epoch, int resume)
{
    __shared__ int skip;
    if (threadIdx.x == 0)
        skip = resume && !ps_block_pending(gpm_load_u32(&done[b]), epoch);
    __syncthreads();
    return skip;
}

/* Each thread scans PS_ITEMS consecutive integers and writes them with one
 * 16-byte store and one persist: a fenced store costs about the same at any
 * width (paper Figure 3), so wide stores are what let the scan run at the
 * link's rate instead of the fence rate. */
__global__ void ps_scan_kernel(const uint32_t *in, uint32_t *out, uint32_t *done, uint64_t n,
                               uint32_t epoch, wl_out o, int resume,
                               unsigned long long *computed)
{
    __shared__ uint32_t warp_sums[32];
    uint64_t b = blockIdx.x;
    uint64_t i = (b * blockDim.x + threadIdx.x) * PS_ITEMS;
    if (skip_block(done, b, epoch, resume))
        return;
    scan_items(in, out, n, i, o, warp_sums);
    if (i < n)
        wl_persist(o);
    /* Every partial sum of the block is durable before its marker. */
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) {
        wl_store_u32(o, &done[b], epoch);
        wl_persist(o);
        wl_progressed(o, 1);
        if (computed)
            atomicAdd(computed, 1ull);
    }
}

__device__ uint32_t block_total(const uint32_t *out, uint64_t n, uint32_t block, uint64_t b)
{
    return out[b * block + ps_block_len(n, block, b) - 1];
}

/* The block's threads store PRE: each sums a contiguous run of block
 * totals, the runs are scanned in shared memory, then each writes its
 * prefixes (no persist: the caller's). In the SBRP variant (PUBLISHED set)
 * each first acquires, at device scope, every block of its run. */
__device__ void block_prefixes(const uint32_t *out, uint32_t *pre, uint64_t n, uint32_t block,
                               wl_out o, uint32_t *warp_sums, const unsigned *published,
                               uint32_t epoch)
{
    uint64_t nb = ps_nblocks(n, block), chunk = (nb + blockDim.x - 1) / blockDim.x;
    uint64_t lo = threadIdx.x * chunk, hi = lo + chunk < nb ? lo + chunk : nb;
    uint32_t s = 0, run;
    for (uint64_t b = lo; published && b < hi; b++)
        while (gpm_pacq_dev(&published[b]) != epoch)
            ;
    for (uint64_t b = lo; b < hi; b++)
        s += block_total(out, n, block, b);
    run = block_scan(s, warp_sums) - s; /* exclusive */
    for (uint64_t b = lo; b < hi; b++) {
        wl_store_u32(o, &pre[b], run);
        run += block_total(out, n, block, b);
    }
    if (threadIdx.x == blockDim.x - 1)
        wl_store_u32(o, &pre[nb], run);
}

/* One block of 1024 threads. */
__global__ void ps_prefix_kernel(const uint32_t *out, uint32_t *pre, uint64_t n, uint32_t block,
                                 wl_out o)
{
    __shared__ uint32_t warp_sums[32];
    block_prefixes(out, pre, n, block, o, warp_sums, NULL, 0);
    wl_persist(o);
}

/* The SBRP variant's flags, in device memory: SBRP's variables need not
 * be on PM. */
struct ps_sbrp_flags {
    unsigned *arrive;    /* per thread of each block: its partial sums released */
    unsigned *published; /* per block: its partial sums and marker released */
    unsigned *ticket;    /* blocks of this launch that published */
};

/* The SBRP variant (SBRP's section 4 reduction, on a scan), one kernel.
 * Each thread stores its partial sums and releases them at block scope;
 * the block's last thread acquires them all and stores the block's done
 * marker: block scope suffices, as in SBRP's reduction before its last
 * iteration. It then releases the block at device scope. The last block
 * to publish computes pre, each of its threads acquiring its run of blocks
 * at device scope (SBRP's last iteration: block scope there would let pre
 * and the final marker persist before a block's sums); every thread
 * dFences, and then the final marker, dFenced. Nothing is durable before
 * that dFence, so the units of progress come at the end. */
__global__ void ps_sbrp_kernel(const uint32_t *in, uint8_t *pm, uint64_t n, uint32_t epoch,
                               wl_out o, int resume, unsigned long long *computed,
                               struct ps_sbrp_flags f)
{
    __shared__ uint32_t warp_sums[32];
    __shared__ int last;
    uint32_t block = blockDim.x * PS_ITEMS;
    uint32_t *out = (uint32_t *)(pm + ps_out_off()), *done = (uint32_t *)(pm + ps_done_off(n)),
             *pre = (uint32_t *)(pm + ps_pre_off(n, block)),
             *final = (uint32_t *)(pm + ps_final_off(n, block));
    uint64_t b = blockIdx.x;
    uint64_t i = (b * blockDim.x + threadIdx.x) * PS_ITEMS;
    unsigned *arrive = f.arrive + b * blockDim.x;
    if (!skip_block(done, b, epoch, resume)) {
        scan_items(in, out, n, i, o, warp_sums);
        gpm_prel_block(&arrive[threadIdx.x], epoch);
        __syncthreads();
        if (threadIdx.x == blockDim.x - 1) {
            for (unsigned t = 0; t < blockDim.x; t++)
                while (gpm_pacq_block(&arrive[t]) != epoch)
                    ;
            wl_store_u32(o, &done[b], epoch);
            atomicAdd(computed, 1ull);
        }
    }
    if (threadIdx.x == blockDim.x - 1) {
        gpm_prel_dev(&f.published[b], epoch);
        last = atomicAdd(f.ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    block_prefixes(out, pre, n, block, o, warp_sums, f.published, epoch);
    wl_dfence(o);
    __syncthreads();
    if (threadIdx.x == 0) {
        wl_store_u32(o, final, epoch);
        wl_dfence(o);
        if (*(volatile unsigned long long *)computed)
            wl_progressed(o, *(volatile unsigned long long *)computed);
    }
}

static int generate(uint32_t *d_in, uint64_t n, uint64_t seed)
{
    ps_generate_kernel<<<1024, 256>>>(d_in, n, seed);
    return wl_dev_sync("input generation");
}

static int scan_blocks(const uint32_t *in, uint32_t *out, uint32_t *done, uint64_t n,
                       uint32_t block, uint32_t epoch, wl_out o, int resume,
                       unsigned long long *computed)
{
    uint64_t nb = ps_nblocks(n, block);
    if (nb > 0x7fffffffull)
        return gpm_set_error("ps: %llu blocks exceed the grid: pass a larger --block",
                             (unsigned long long)nb);
    ps_scan_kernel<<<(unsigned)nb, block / PS_ITEMS>>>(in, out, done, n, epoch, o, resume, computed);
    return wl_dev_sync("block scan kernel");
}

static int block_prefix(const uint32_t *out, uint32_t *pre, uint64_t n, uint32_t block,
                        wl_out o)
{
    ps_prefix_kernel<<<1, 1024>>>(out, pre, n, block, o);
    return wl_dev_sync("block prefix kernel");
}

static void sbrp_flags_free(struct ps_sbrp_flags *f)
{
    if (!f)
        return;
    wl_dev_free(f->arrive);
    wl_dev_free(f->published);
    wl_dev_free(f->ticket);
    free(f);
}

static struct ps_sbrp_flags *sbrp_flags(uint64_t n, uint32_t block)
{
    struct ps_sbrp_flags *f = (struct ps_sbrp_flags *)calloc(1, sizeof *f);
    uint64_t nb = ps_nblocks(n, block), threads = nb * (block / PS_ITEMS);
    if (!f)
        return NULL;
    /* Zero: no run's epoch (the harness's epochs start at 1). */
    if (wl_dev_alloc((void **)&f->arrive, threads * sizeof(unsigned)) != 0 ||
        wl_dev_alloc((void **)&f->published, nb * sizeof(unsigned)) != 0 ||
        wl_dev_alloc((void **)&f->ticket, sizeof(unsigned)) != 0 ||
        wl_dev_zero(f->arrive, threads * sizeof(unsigned)) != 0 ||
        wl_dev_zero(f->published, nb * sizeof(unsigned)) != 0) {
        sbrp_flags_free(f);
        return NULL;
    }
    return f;
}

static int sbrp_scan(const uint32_t *in, uint8_t *pm, uint64_t n, uint32_t block,
                     uint32_t epoch, wl_out o, int resume, unsigned long long *computed,
                     struct ps_sbrp_flags *f)
{
    uint64_t nb = ps_nblocks(n, block);
    if (nb > 0x7fffffffull)
        return gpm_set_error("ps: %llu blocks exceed the grid: pass a larger --block",
                             (unsigned long long)nb);
    if (wl_dev_zero(f->ticket, sizeof(unsigned)) != 0)
        return -1;
    ps_sbrp_kernel<<<(unsigned)nb, block / PS_ITEMS>>>(in, pm, n, epoch, o, resume, computed, *f);
    return wl_dev_sync("SBRP scan kernel");
}

/* The input, where the mode computes: on the GPU, or (the CPU counterpart)
 * on the host; the kernels' own device words. */
extern "C" int ps_setup(struct wl_ctx *c)
{
    struct ps_state *st = (struct ps_state *)c->priv;
    if (!c->m->needs_gpu) {
        if (!(st->h_in = (uint32_t *)malloc(st->n * 4)))
            return gpm_set_error("ps: cannot allocate %llu bytes for the input: use a smaller "
                                 "--scale", (unsigned long long)st->n * 4);
        ps_cpu_generate(st->h_in, st->n, wl_seed(c));
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_in, st->n * 4) != 0 ||
        generate(st->d_in, st->n, wl_seed(c)) != 0 ||
        wl_dev_alloc((void **)&st->d_computed, sizeof *st->d_computed) != 0)
        return -1;
    if (wl_sbrp(c) && !(st->sbrp = sbrp_flags(st->n, st->block)))
        return gpm_set_error("ps: no device memory for the SBRP variant's %llu flags: use a "
                             "smaller --scale", (unsigned long long)(st->n / PS_ITEMS));
    return 0;
}

extern "C" void ps_teardown(struct wl_ctx *c)
{
    struct ps_state *st = (struct ps_state *)c->priv;
    wl_dev_free(st->d_in); /* NULL in cpu mode */
    wl_dev_free(st->d_computed);
    sbrp_flags_free(st->sbrp);
    free(st->h_in);
}

/* Epoch c->epoch into OUT (struct wl_blocks): the blocks not yet marked
 * done, then the block sums (pre); in the CPU counterpart, the same on the
 * host, each block persisted before its mark. */
extern "C" int ps_compute(struct wl_ctx *c, uint8_t *out, int resume, uint64_t *computed)
{
    struct ps_state *st = (struct ps_state *)c->priv;
    uint64_t n = st->n;
    uint32_t *sums = (uint32_t *)(out + ps_out_off());
    uint32_t *pre = (uint32_t *)(out + ps_pre_off(n, st->block));
    unsigned long long k = 0;
    wl_out o = wl_out_of(c);
    int rc;
    if (!c->m->needs_gpu)
        return ps_cpu_scan_blocks(c, st, st->h_in, c->epoch, computed) != 0 ? -1
               : ps_cpu_block_prefix(c, st);
    if (wl_dev_zero(st->d_computed, sizeof k) != 0)
        return -1;
    if (st->sbrp)
        rc = sbrp_scan(st->d_in, out, n, st->block, c->epoch, o, resume, st->d_computed, st->sbrp);
    else
        rc = scan_blocks(st->d_in, sums, (uint32_t *)(out + ps_done_off(n)), n, st->block,
                         c->epoch, o, resume, st->d_computed) ||
             block_prefix(sums, pre, n, st->block, o);
    if (rc != 0)
        return -1;
    if (wl_dev_copy(&k, st->d_computed, sizeof k, 0) != 0)
        return -1;
    *computed = k;
    return 0;
}
