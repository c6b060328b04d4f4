/* The three operations neither cuDNN nor cuBLAS has: gathering a batch
 * (pixels scaled to floats, labels), the softmax cross-entropy's loss and
 * gradient, and the SGD step. Each is elementwise (no reductions, no
 * atomics), so every run computes the same bits. */
#include <cuda_runtime.h>

#include "dnn.h"
#include "wl.cuh"

#define THREADS 256
#define DNN_MAX_BLOCKS (65535u * 32) /* the kernels stride over any rest */

static int launched(const char *what)
{
    cudaError_t e = cudaGetLastError();
    return e == cudaSuccess ? 0
                            : gpm_set_error("dnn: %s kernel launch failed (%s)", what,
                                            cudaGetErrorString(e));
}

__global__ void gather_kernel(const uint8_t *images, const uint8_t *labels, const uint32_t *perm,
                              uint64_t first, uint32_t nb, float *x, int32_t *y)
{
    uint64_t n = (uint64_t)nb * DNN_PIXELS;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t b = i / DNN_PIXELS, k = i % DNN_PIXELS;
        uint64_t item = perm ? perm[first + b] : first + b;
        x[i] = (float)images[item * DNN_PIXELS + k] * DNN_PIXEL_SCALE;
        if (k == 0)
            y[b] = labels[item];
    }
}

extern "C" int dnn_gpu_gather(const uint8_t *images, const uint8_t *labels,
                              const uint32_t *perm, uint64_t first, uint32_t nb, float *x,
                              int32_t *y)
{
    const unsigned blocks = wl_blocks((uint64_t)nb * DNN_PIXELS, THREADS, DNN_MAX_BLOCKS);
    gather_kernel<<<blocks, THREADS>>>(images, labels, perm, first, nb, x, y);
    return launched("gather");
}

/* One thread a sample: its ten gradients and its loss. */
__global__ void xent_kernel(const float *probs, const int32_t *y, uint32_t nb, float *dlogits,
                            float *losses)
{
    uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    const float *p = probs + (size_t)b * DNN_CLASSES;
    float inv = 1.0f / (float)nb;
    if (b >= nb)
        return;
    for (int c = 0; c < DNN_CLASSES; c++)
        dlogits[(size_t)b * DNN_CLASSES + c] = (p[c] - (c == y[b] ? 1.0f : 0.0f)) * inv;
    losses[b] = dnn_xent(p[y[b]]);
}

extern "C" int dnn_gpu_xent(const float *probs, const int32_t *y, uint32_t nb, float *dlogits,
                            float *losses)
{
    xent_kernel<<<(nb + THREADS - 1) / THREADS, THREADS>>>(probs, y, nb, dlogits, losses);
    return launched("cross-entropy");
}

__global__ void sgd_kernel(float *w, const float *g, uint64_t n, uint64_t bias_start,
                           float lr_w, float lr_b)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        w[i] = dnn_sgd_step(w[i], g[i], i < bias_start ? lr_w : lr_b);
}

extern "C" int dnn_gpu_sgd(float *w, const float *g, uint64_t n, uint64_t bias_start, float lr)
{
    sgd_kernel<<<wl_blocks(n, THREADS, DNN_MAX_BLOCKS), THREADS>>>(w, g, n, bias_start, lr,
                                                                 lr * DNN_BIAS_LR_MULT);
    return launched("SGD");
}
