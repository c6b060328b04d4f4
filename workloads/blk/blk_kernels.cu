/* BLK kernels: input generation and one pricing iteration. */
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
