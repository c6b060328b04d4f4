/* The recovery kernels of gpmtx_recover: one thread per slot (HCL: the
 * log's own grid, every lane of its padded warps; conventional: one per
 * partition), first checking every record, then undoing them newest first.
 * They read the records from a copy of the log in device memory: a record
 * is read word by word, twice (its check, its undo), and each read of PM
 * across the link is a round trip, where one bulk copy of the used part of
 * every slot costs a pass at the link's bandwidth. A slot's old values are
 * persisted together, and then its records removed together. */
#include <cuda_runtime.h>

#include "gpm/gpm.cuh"
#include "gpm/log.cuh"
#include "gpm/tx_layout.h"
#include "tx_recover.h"

/* The slot this thread recovers, UINT32_MAX for none. */
__device__ __forceinline__ uint32_t recover_slot(const gpmlog_dev *log)
{
    uint64_t s;
    if (log->g.kind == GPMLOG_HCL)
        s = (uint64_t)blockIdx.x * log->g.warps_per_block * GPMLOG_WARP + threadIdx.x;
    else
        s = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    return s < log->g.n_slots ? (uint32_t)s : UINT32_MAX;
}

static __global__ void tx_check_kernel(gpmlog_dev log, uint64_t target_size,
                                       unsigned long long *bad)
{
    uint32_t s = recover_slot(&log), at;
    gpmtx_rec r;
    if (s == UINT32_MAX)
        return;
    if (gpmtx_slot_check(&log.g, log.pm, s, gpm_load_u32(log.tails + s), target_size, &at,
                         &r) != GPMTX_REC_OK)
        atomicMin(bad, (unsigned long long)s);
}

/* Record R's old bytes (in the log copy SRC) back into TARGET with plain
 * stores, 16 bytes at a time where the destination is aligned (a row
 * restored a word at a time crosses the link as 4-byte writes). */
__device__ __forceinline__ void undo_record(const gpmlog_dev *src, uint32_t s,
                                            const gpmtx_rec *r, uint8_t *target)
{
    uint8_t *d = target + r->off;
    uint32_t k = 0, words = gpmlog_round4(r->len) / 4u;
#define W(i) gpmtx_log_word(&src->g, src->pm, s, r->start + 4u * (i))
    if (((uintptr_t)d & 15u) == 0)
        for (; 4u * k + 16u <= r->len; k += 4u)
            gpm_put_v4((uint4 *)(d + 4u * k), make_uint4(W(k), W(k + 1), W(k + 2), W(k + 3)));
    for (; k < words; k++) {
        uint32_t w = W(k);
        if (((uintptr_t)(d + 4u * k) & 3u) == 0 && 4u * k + 4u <= r->len) {
            gpm_put_u32((uint32_t *)(d + 4u * k), w);
            continue;
        }
        for (uint32_t i = 0; i < 4u && 4u * k + i < r->len; i++)
            gpm_put_u8(d + 4u * k + i, (uint8_t)(w >> (8u * i)));
    }
#undef W
}

/* counts: records undone, bytes undone, records refused (never, after the
 * check; counted rather than trusted). */
static __global__ void tx_undo_kernel(gpmlog_dev log, gpmlog_dev src, uint8_t *target,
                                      uint64_t target_size, unsigned long long *counts)
{
    uint32_t s = recover_slot(&log), t;
    unsigned long long n = 0, bytes = 0;
    gpmtx_rec r;
    if (s == UINT32_MAX)
        return;
    t = gpm_load_u32(log.tails + s);
    while (t > 0) {
        if (gpmtx_rec_parse(&src.g, src.pm, s, t, target_size, &r) != GPMTX_REC_OK) {
            atomicAdd(counts + 2, 1ull);
            break;
        }
        undo_record(&src, s, &r, target);
        t = r.start;
        n++;
        bytes += r.len;
    }
    if (!n)
        return;
    gpm_persist();
    /* Removed only once every old value is durable: a crash before this
     * leaves them all for the next recovery, which undoes them again,
     * newest first, to the same bytes. */
    gpmlog_set_tail_owned(&log, s, t);
    atomicAdd(counts, n);
    atomicAdd(counts + 1, bytes);
}

static int cuda_fail(const gpmlog *log, const char *what, cudaError_t e)
{
    return gpm_set_error("%s: %s failed during recovery (%s): nothing is lost, run the recovery "
                         "again", log->region.path, what, cudaGetErrorString(e));
}

extern "C" int gpmtx_log_to_gpu(const gpmlog *log, void **dev)
{
    const gpmlog_geom *g = &log->g;
    const uint8_t *host = (const uint8_t *)log->region.host;
    uint64_t rows, pitch, width, used = 0;
    cudaError_t e;
    for (uint32_t s = 0; s < g->n_slots; s++) {
        uint32_t t = *(const uint32_t *)(host + gpmlog_tail_off(g, s));
        used = t > used ? t : used;
    }
    /* HCL stripes a warp's slots over 32 * slot_bytes, a chunk row of 128
     * bytes at a time; a conventional slot is contiguous. */
    rows = g->kind == GPMLOG_HCL ? g->n_slots / GPMLOG_WARP : g->n_slots;
    pitch = g->kind == GPMLOG_HCL ? (uint64_t)GPMLOG_WARP * g->slot_bytes : g->slot_bytes;
    width = g->kind == GPMLOG_HCL ? (uint64_t)GPMLOG_WARP * gpmlog_round4((uint32_t)used) : used;
    e = cudaMalloc(dev, log->region.size);
    if (e == cudaSuccess)
        e = cudaMemcpy(*dev, host, g->data_off, cudaMemcpyHostToDevice);
    if (e == cudaSuccess && width)
        e = cudaMemcpy2D((uint8_t *)*dev + g->data_off, pitch, host + g->data_off, pitch, width,
                         rows, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(*dev);
        *dev = NULL;
        return cuda_fail(log, "copying the log to the GPU", e);
    }
    return 0;
}

static void launch_shape(const gpmlog *log, unsigned *grid, unsigned *block)
{
    if (log->g.kind == GPMLOG_HCL) {
        *grid = log->g.blocks;
        *block = log->g.warps_per_block * GPMLOG_WARP;
    } else {
        *block = 128;
        *grid = (log->g.n_slots + 127) / 128;
    }
}

extern "C" void gpmtx_log_free_gpu(void *dev)
{
    cudaFree(dev);
}

/* LOG's handle, reading from the copy at DEV. */
static gpmlog_dev from_copy(const gpmlog *log, const void *dev)
{
    gpmlog_dev src = gpmlog_device(log);
    src.pm = (uint8_t *)dev;
    return src;
}

extern "C" int gpmtx_check_on_gpu(const gpmlog *log, const void *copy, const gpm_region *target,
                                  uint32_t *bad)
{
    unsigned long long *d = NULL, h = ~0ull;
    unsigned grid, block;
    cudaError_t e = cudaMalloc((void **)&d, sizeof *d);
    if (e == cudaSuccess)
        e = cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        launch_shape(log, &grid, &block);
        tx_check_kernel<<<grid, block>>>(from_copy(log, copy), (uint64_t)target->size, d);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess)
        return cuda_fail(log, "the record check kernel", e);
    *bad = h > 0xffffffffull ? UINT32_MAX : (uint32_t)h;
    return 0;
}

extern "C" int gpmtx_undo_on_gpu(gpmlog *log, const void *copy, const gpm_region *target,
                                 uint64_t *undone, uint64_t *bytes)
{
    unsigned long long *d = NULL, h[3] = {0, 0, 0};
    unsigned grid, block;
    cudaError_t e = cudaMalloc((void **)&d, sizeof h);
    if (e == cudaSuccess)
        e = cudaMemset(d, 0, sizeof h);
    if (e != cudaSuccess) {
        cudaFree(d);
        return cuda_fail(log, "allocating the recovery counters", e);
    }
    if (gpm_persist_begin() != 0) {
        cudaFree(d);
        return -1;
    }
    launch_shape(log, &grid, &block);
    tx_undo_kernel<<<grid, block>>>(gpmlog_device(log), from_copy(log, copy),
                                    (uint8_t *)target->dev, (uint64_t)target->size, d);
    e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (gpm_persist_end() != 0 && e == cudaSuccess) {
        cudaFree(d);
        return -1;
    }
    if (e == cudaSuccess)
        e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    if (e != cudaSuccess)
        return cuda_fail(log, "the undo kernel", e);
    *undone += h[0];
    *bytes += h[1];
    if (h[2])
        return gpm_set_error("%s: %llu slots changed between the check and the undo: was a "
                             "kernel still using the log? Run the recovery again with none",
                             log->region.path, h[2]);
    return 0;
}
