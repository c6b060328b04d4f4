/* BLK kernels: input generation, one pricing iteration, and the check of a
 * result against the double-precision reference. */
#include <cuda_runtime.h>

#include "blk.h"
#include "gpm/gpm.cuh"

__global__ void blk_generate_kernel(float *s, float *x, float *t, uint64_t n, uint64_t seed)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        s[i] = blk_stock(seed, i);
        x[i] = blk_strike(seed, i);
        t[i] = blk_years(seed, i);
    }
}

__global__ void blk_price_kernel(const float *s, const float *x, const float *t, float *call,
                                 float *put, uint64_t n, float later)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads()) {
        float S = s[i], X = x[i], T = t[i] + later;
        float sq = sqrtf(T), vs = BLK_VOLATILITY * sq;
        float d1 = (logf(S / X) + (BLK_RATE + 0.5f * BLK_VOLATILITY * BLK_VOLATILITY) * T) / vs;
        float d2 = d1 - vs;
        float disc = X * expf(-BLK_RATE * T);
        call[i] += S * normcdff(d1) - disc * normcdff(d2);
        put[i] += disc * normcdff(-d2) - S * normcdff(-d1);
    }
}

__global__ void blk_check_kernel(const float *call, const float *put, uint64_t n, uint64_t seed,
                                 uint64_t iters, unsigned long long *bad)
{
    for (uint64_t i = gpm_grid_rank(); i < n; i += gpm_grid_threads())
        if (!blk_option_ok(seed, i, iters, call[i], put[i]))
            atomicMin(bad, (unsigned long long)i);
}

extern "C" int blk_gpu_generate(float *s, float *x, float *t, uint64_t n, uint64_t seed)
{
    blk_generate_kernel<<<1024, 256>>>(s, x, t, n, seed);
    return wl_dev_sync("input generation");
}

extern "C" int blk_gpu_price(const float *s, const float *x, const float *t, float *call,
                             float *put, uint64_t n, uint64_t iter)
{
    blk_price_kernel<<<2048, 256>>>(s, x, t, call, put, n, (float)iter * BLK_DT);
    return wl_dev_sync("pricing kernel");
}

extern "C" int blk_gpu_check(const float *call, const float *put, uint64_t n, uint64_t seed,
                             uint64_t iters, unsigned long long *bad)
{
    unsigned long long first = ~0ull;
    float c, p;
    if (wl_dev_copy(bad, &first, sizeof first, 1) != 0)
        return -1;
    blk_check_kernel<<<4096, 256>>>(call, put, n, seed, iters, bad);
    if (wl_dev_sync("reference check kernel") != 0 || wl_dev_copy(&first, bad, sizeof first, 0))
        return -1;
    if (first == ~0ull)
        return 0;
    if (wl_dev_copy(&c, call + first, sizeof c, 0) != 0 ||
        wl_dev_copy(&p, put + first, sizeof p, 0) != 0)
        return -1;
    return blk_report_bad(&c, &p, seed, iters, (long long)first);
}
