/* The recovery kernels of gpmtx_recover: one thread per slot (HCL: the
 * log's own grid, every lane of its padded warps; conventional: one per
 * partition), first checking every record, then undoing them newest first,
 * each old value persisted before its record is removed. */
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

/* counts: records undone, bytes undone, records refused (never, after the
 * check; counted rather than trusted). */
static __global__ void tx_undo_kernel(gpmlog_dev log, uint8_t *target, uint64_t target_size,
                                      unsigned long long *counts)
{
    uint32_t s = recover_slot(&log), t;
    unsigned long long n = 0, bytes = 0;
    gpmtx_rec r;
    if (s == UINT32_MAX)
        return;
    t = gpm_load_u32(log.tails + s);
    while (t > 0) {
        if (gpmtx_rec_parse(&log.g, log.pm, s, t, target_size, &r) != GPMTX_REC_OK) {
            atomicAdd(counts + 2, 1ull);
            break;
        }
        gpmtx_rec_undo(&log.g, log.pm, s, &r, target);
        gpm_persist();
        /* Removed only once its old value is durable: a crash before this
         * leaves the record for the next recovery, which writes the same
         * bytes again. */
        gpmlog_set_tail_owned(&log, s, r.start);
        t = r.start;
        n++;
        bytes += r.len;
    }
    if (n) {
        atomicAdd(counts, n);
        atomicAdd(counts + 1, bytes);
    }
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

static int cuda_fail(const gpmlog *log, const char *what, cudaError_t e)
{
    return gpm_set_error("%s: %s failed during recovery (%s): nothing is lost, run the recovery "
                         "again", log->region.path, what, cudaGetErrorString(e));
}

extern "C" int gpmtx_check_on_gpu(const gpmlog *log, const gpm_region *target, uint32_t *bad)
{
    unsigned long long *d = NULL, h = ~0ull;
    unsigned grid, block;
    cudaError_t e = cudaMalloc((void **)&d, sizeof *d);
    if (e == cudaSuccess)
        e = cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
    if (e == cudaSuccess) {
        launch_shape(log, &grid, &block);
        tx_check_kernel<<<grid, block>>>(gpmlog_device(log), (uint64_t)target->size, d);
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

extern "C" int gpmtx_undo_on_gpu(gpmlog *log, const gpm_region *target, uint64_t *undone,
                                 uint64_t *bytes)
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
    tx_undo_kernel<<<grid, block>>>(gpmlog_device(log), (uint8_t *)target->dev,
                                    (uint64_t)target->size, d);
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
