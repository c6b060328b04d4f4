/* LeNet on the GPU: convolutions, pooling, ReLU and softmax through cuDNN
 * (its legacy API, still in cuDNN 9), the fully connected layers and their
 * gradients through cuBLAS sgemm/sgemv, and the three kernels of
 * dnn_kernels.cu. Everything runs on the default stream.
 *
 * Determinism: every algorithm is picked from a fixed list of those cuDNN
 * documents as deterministic (never by timing, which may pick differently
 * from one run to the next), the max-pooling is CUDNN_POOLING_MAX_DETERMINISTIC,
 * the convolutions are restricted to FMA math (no TF32 tensor cores), cuBLAS
 * keeps its default of no atomics, and the bias gradients are sgemv's with
 * a vector of ones. So, on one GPU with one cuDNN and cuBLAS, a run computes
 * the same bits every time, and a recovery resumed from a checkpoint ends
 * with exactly the parameters of an uninterrupted run.
 *
 * Fully connected layers, in cuBLAS's column-major terms: activations are
 * row-major nb x in (column-major in x nb, leading dimension in); a weight
 * is row-major out x in (column-major in x out). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cudnn.h>

#include "dnn.h"

struct dnn_net {
    cudnnHandle_t dnn;
    cublasHandle_t blas;
    uint32_t max_batch, nb;
    int blas_version;
    /* Descriptors: activations (nb images), biases, filters, ops. */
    cudnnTensorDescriptor_t tx, tc1, tp1, tc2, tp2, tf1, tf2, tb1, tb2;
    cudnnFilterDescriptor_t fw1, fw2;
    cudnnConvolutionDescriptor_t conv;
    cudnnPoolingDescriptor_t pool;
    cudnnActivationDescriptor_t relu;
    /* Algorithms: [0] conv1, [1] conv2. */
    cudnnConvolutionFwdAlgo_t fwd[2];
    cudnnConvolutionBwdDataAlgo_t bwd_data; /* conv2 only: conv1's input needs no gradient */
    cudnnConvolutionBwdFilterAlgo_t bwd_filter[2];
    void *work;
    size_t work_bytes;
    /* Activations and their gradients, for max_batch images. */
    float *c1, *p1, *c2, *p2, *f1, *r1, *f2, *prob;
    float *dc1, *dp1, *dc2, *dp2, *df1, *dr1, *dlogits;
    float *ones;
    char about[200];
};

static int dnn_ok(cudnnStatus_t s, const char *call)
{
    return s == CUDNN_STATUS_SUCCESS
               ? 0
               : gpm_set_error("dnn: %s failed (%s)", call, cudnnGetErrorString(s));
}

static int blas_ok(cublasStatus_t s, const char *call)
{
    return s == CUBLAS_STATUS_SUCCESS
               ? 0
               : gpm_set_error("dnn: %s failed (%s)", call, cublasGetStatusString(s));
}

static int set4d(cudnnTensorDescriptor_t t, int n, int c, int h, int w, const char *what)
{
    char call[96];
    snprintf(call, sizeof call, "cudnnSetTensor4dDescriptor (%s)", what);
    return dnn_ok(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w),
                  call);
}

/* Deterministic algorithms in order of preference (cuDNN's documentation:
 * only BWD_DATA_ALGO_0 and BWD_FILTER_ALGO_0/_3 use atomics among these
 * families, and none of those is listed). The first one cuDNN supports for
 * the layer, as its workspace query says, is used. */
static const cudnnConvolutionFwdAlgo_t fwd_pref[] = {
    CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
    CUDNN_CONVOLUTION_FWD_ALGO_GEMM};
static const cudnnConvolutionBwdDataAlgo_t bwd_data_pref[] = {
    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING};
static const cudnnConvolutionBwdFilterAlgo_t bwd_filter_pref[] = {
    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING};
#define NPREF(a) (sizeof(a) / sizeof((a)[0]))

static int pick_fwd(struct dnn_net *n, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                    cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t *algo, size_t *ws,
                    const char *layer)
{
    for (size_t i = 0; i < NPREF(fwd_pref); i++)
        if (cudnnGetConvolutionForwardWorkspaceSize(n->dnn, x, w, n->conv, y, fwd_pref[i], ws) ==
            CUDNN_STATUS_SUCCESS) {
            *algo = fwd_pref[i];
            return 0;
        }
    return gpm_set_error("dnn: cuDNN %zu supports no deterministic forward algorithm for %s",
                         cudnnGetVersion(), layer);
}

static int pick_bwd_data(struct dnn_net *n, size_t *ws)
{
    for (size_t i = 0; i < NPREF(bwd_data_pref); i++)
        if (cudnnGetConvolutionBackwardDataWorkspaceSize(n->dnn, n->fw2, n->tc2, n->conv, n->tp1,
                                                         bwd_data_pref[i], ws) ==
            CUDNN_STATUS_SUCCESS) {
            n->bwd_data = bwd_data_pref[i];
            return 0;
        }
    return gpm_set_error("dnn: cuDNN %zu supports no deterministic backward-data algorithm for "
                         "conv2", cudnnGetVersion());
}

static int pick_bwd_filter(struct dnn_net *n, cudnnTensorDescriptor_t x,
                           cudnnTensorDescriptor_t dy, cudnnFilterDescriptor_t dw,
                           cudnnConvolutionBwdFilterAlgo_t *algo, size_t *ws, const char *layer)
{
    for (size_t i = 0; i < NPREF(bwd_filter_pref); i++)
        if (cudnnGetConvolutionBackwardFilterWorkspaceSize(n->dnn, x, dy, n->conv, dw,
                                                           bwd_filter_pref[i], ws) ==
            CUDNN_STATUS_SUCCESS) {
            *algo = bwd_filter_pref[i];
            return 0;
        }
    return gpm_set_error("dnn: cuDNN %zu supports no deterministic backward-filter algorithm "
                         "for %s", cudnnGetVersion(), layer);
}

/* Descriptors for NB images, the algorithms for them, and a workspace
 * large enough (grown if needed). */
int dnn_net_set_batch(struct dnn_net *n, uint32_t nb)
{
    size_t ws[6], need = 0;
    int b = (int)nb;
    if (nb == 0 || nb > n->max_batch)
        return gpm_set_error("dnn: a batch of %u images; the network holds 1 to %u", nb,
                             n->max_batch);
    if (set4d(n->tx, b, 1, DNN_IMG, DNN_IMG, "input") ||
        set4d(n->tc1, b, DNN_C1, DNN_H1, DNN_H1, "conv1") ||
        set4d(n->tp1, b, DNN_C1, DNN_P1, DNN_P1, "pool1") ||
        set4d(n->tc2, b, DNN_C2, DNN_H2, DNN_H2, "conv2") ||
        set4d(n->tp2, b, DNN_C2, DNN_P2, DNN_P2, "pool2") ||
        set4d(n->tf1, b, DNN_FC1, 1, 1, "fc1") || set4d(n->tf2, b, DNN_CLASSES, 1, 1, "fc2"))
        return -1;
    if (pick_fwd(n, n->tx, n->fw1, n->tc1, &n->fwd[0], &ws[0], "conv1") ||
        pick_fwd(n, n->tp1, n->fw2, n->tc2, &n->fwd[1], &ws[1], "conv2") ||
        pick_bwd_data(n, &ws[2]) ||
        pick_bwd_filter(n, n->tx, n->tc1, n->fw1, &n->bwd_filter[0], &ws[3], "conv1") ||
        pick_bwd_filter(n, n->tp1, n->tc2, n->fw2, &n->bwd_filter[1], &ws[4], "conv2"))
        return -1;
    ws[5] = 0;
    for (int i = 0; i < 6; i++)
        need = ws[i] > need ? ws[i] : need;
    if (need > n->work_bytes) {
        wl_dev_free(n->work);
        n->work_bytes = 0;
        if (wl_dev_alloc(&n->work, need) != 0)
            return -1;
        n->work_bytes = need;
    }
    n->nb = nb;
    snprintf(n->about, sizeof n->about,
             "cudnn=%zu,cublas=%d,conv_fwd=%d/%d,conv_bwd_data=%d,conv_bwd_filter=%d/%d",
             cudnnGetVersion(), n->blas_version, (int)n->fwd[0], (int)n->fwd[1],
             (int)n->bwd_data, (int)n->bwd_filter[0], (int)n->bwd_filter[1]);
    return 0;
}

static int alloc_acts(struct dnn_net *n)
{
    size_t b = n->max_batch;
    struct {
        float **p;
        size_t per_image;
    } a[] = {
        {&n->c1, DNN_C1 * DNN_H1 * DNN_H1}, {&n->p1, DNN_C1 * DNN_P1 * DNN_P1},
        {&n->c2, DNN_C2 * DNN_H2 * DNN_H2}, {&n->p2, DNN_FLAT}, {&n->f1, DNN_FC1},
        {&n->r1, DNN_FC1}, {&n->f2, DNN_CLASSES}, {&n->prob, DNN_CLASSES},
        {&n->dc1, DNN_C1 * DNN_H1 * DNN_H1}, {&n->dp1, DNN_C1 * DNN_P1 * DNN_P1},
        {&n->dc2, DNN_C2 * DNN_H2 * DNN_H2}, {&n->dp2, DNN_FLAT}, {&n->df1, DNN_FC1},
        {&n->dr1, DNN_FC1}, {&n->dlogits, DNN_CLASSES}, {&n->ones, 1},
    };
    float *ones;
    int rc = 0;
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        if (wl_dev_alloc((void **)a[i].p, a[i].per_image * b * sizeof(float)) != 0)
            return -1;
    if (!(ones = malloc(b * sizeof *ones)))
        return gpm_set_error("dnn: out of memory");
    for (size_t i = 0; i < b; i++)
        ones[i] = 1.0f;
    rc = wl_dev_copy(n->ones, ones, b * sizeof *ones, 1);
    free(ones);
    return rc;
}

int dnn_net_create(struct dnn_net **out, uint32_t max_batch)
{
    struct dnn_net *n = calloc(1, sizeof *n);
    *out = n;
    if (!n)
        return gpm_set_error("dnn: out of memory");
    n->max_batch = max_batch;
    if (dnn_ok(cudnnCreate(&n->dnn), "cudnnCreate") ||
        blas_ok(cublasCreate(&n->blas), "cublasCreate") ||
        blas_ok(cublasGetVersion(n->blas, &n->blas_version), "cublasGetVersion") ||
        blas_ok(cublasSetPointerMode(n->blas, CUBLAS_POINTER_MODE_HOST), "cublasSetPointerMode") ||
        blas_ok(cublasSetAtomicsMode(n->blas, CUBLAS_ATOMICS_NOT_ALLOWED),
                "cublasSetAtomicsMode") ||
        /* FP32 throughout: the default math uses no TF32 for sgemm. */
        blas_ok(cublasSetMathMode(n->blas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"))
        return -1;
    {
        cudnnTensorDescriptor_t *t[] = {&n->tx, &n->tc1, &n->tp1, &n->tc2, &n->tp2,
                                        &n->tf1, &n->tf2, &n->tb1, &n->tb2};
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            if (dnn_ok(cudnnCreateTensorDescriptor(t[i]), "cudnnCreateTensorDescriptor"))
                return -1;
    }
    if (dnn_ok(cudnnCreateFilterDescriptor(&n->fw1), "cudnnCreateFilterDescriptor") ||
        dnn_ok(cudnnCreateFilterDescriptor(&n->fw2), "cudnnCreateFilterDescriptor") ||
        dnn_ok(cudnnCreateConvolutionDescriptor(&n->conv), "cudnnCreateConvolutionDescriptor") ||
        dnn_ok(cudnnCreatePoolingDescriptor(&n->pool), "cudnnCreatePoolingDescriptor") ||
        dnn_ok(cudnnCreateActivationDescriptor(&n->relu), "cudnnCreateActivationDescriptor") ||
        set4d(n->tb1, 1, DNN_C1, 1, 1, "conv1 bias") ||
        set4d(n->tb2, 1, DNN_C2, 1, 1, "conv2 bias") ||
        dnn_ok(cudnnSetFilter4dDescriptor(n->fw1, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, DNN_C1, 1,
                                          DNN_K, DNN_K), "cudnnSetFilter4dDescriptor (conv1)") ||
        dnn_ok(cudnnSetFilter4dDescriptor(n->fw2, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, DNN_C2,
                                          DNN_C1, DNN_K, DNN_K),
               "cudnnSetFilter4dDescriptor (conv2)") ||
        dnn_ok(cudnnSetConvolution2dDescriptor(n->conv, 0, 0, 1, 1, 1, 1,
                                               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
               "cudnnSetConvolution2dDescriptor") ||
        dnn_ok(cudnnSetConvolutionMathType(n->conv, CUDNN_FMA_MATH),
               "cudnnSetConvolutionMathType") ||
        dnn_ok(cudnnSetPooling2dDescriptor(n->pool, CUDNN_POOLING_MAX_DETERMINISTIC,
                                           CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2),
               "cudnnSetPooling2dDescriptor") ||
        dnn_ok(cudnnSetActivationDescriptor(n->relu, CUDNN_ACTIVATION_RELU,
                                            CUDNN_NOT_PROPAGATE_NAN, 0.0),
               "cudnnSetActivationDescriptor") ||
        alloc_acts(n) || dnn_net_set_batch(n, max_batch))
        return -1;
    return 0;
}

void dnn_net_destroy(struct dnn_net *n)
{
    if (!n)
        return;
    {
        cudnnTensorDescriptor_t t[] = {n->tx, n->tc1, n->tp1, n->tc2, n->tp2,
                                       n->tf1, n->tf2, n->tb1, n->tb2};
        for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
            if (t[i])
                cudnnDestroyTensorDescriptor(t[i]);
    }
    if (n->fw1)
        cudnnDestroyFilterDescriptor(n->fw1);
    if (n->fw2)
        cudnnDestroyFilterDescriptor(n->fw2);
    if (n->conv)
        cudnnDestroyConvolutionDescriptor(n->conv);
    if (n->pool)
        cudnnDestroyPoolingDescriptor(n->pool);
    if (n->relu)
        cudnnDestroyActivationDescriptor(n->relu);
    {
        float *a[] = {n->c1, n->p1, n->c2, n->p2, n->f1, n->r1, n->f2, n->prob,
                      n->dc1, n->dp1, n->dc2, n->dp2, n->df1, n->dr1, n->dlogits, n->ones};
        for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
            wl_dev_free(a[i]);
    }
    wl_dev_free(n->work);
    if (n->blas)
        cublasDestroy(n->blas);
    if (n->dnn)
        cudnnDestroy(n->dnn);
    free(n);
}

const float *dnn_net_probs(const struct dnn_net *n) { return n->prob; }
const char *dnn_net_about(const struct dnn_net *n) { return n->about; }

#define W(t) (params + dnn_tensor_off(t))
#define GW(t) (grads + dnn_tensor_off(t))

/* Y (nb x out) = X (nb x in) W^T + b, a fully connected layer. */
static int fc_forward(struct dnn_net *n, const float *x, const float *w, const float *b, int in,
                      int out, float *y, const char *layer)
{
    const float one = 1.0f, zero = 0.0f;
    int nb = (int)n->nb;
    char call[64];
    snprintf(call, sizeof call, "cublasSgemm (%s forward)", layer);
    if (blas_ok(cublasSgemm(n->blas, CUBLAS_OP_T, CUBLAS_OP_N, out, nb, in, &one, w, in, x, in,
                            &zero, y, out), call))
        return -1;
    snprintf(call, sizeof call, "cublasSgemm (%s bias)", layer);
    return blas_ok(cublasSgemm(n->blas, CUBLAS_OP_N, CUBLAS_OP_N, out, nb, 1, &one, b, out,
                               n->ones, 1, &one, y, out), call);
}

/* GW = DY^T X, GB = DY^T 1 and, where DX is not NULL, DX = DY W. */
static int fc_backward(struct dnn_net *n, const float *x, const float *w, const float *dy,
                       int in, int out, float *gw, float *gb, float *dx, const char *layer)
{
    const float one = 1.0f, zero = 0.0f;
    int nb = (int)n->nb;
    char call[64];
    snprintf(call, sizeof call, "cublasSgemm (%s weight gradient)", layer);
    if (blas_ok(cublasSgemm(n->blas, CUBLAS_OP_N, CUBLAS_OP_T, in, out, nb, &one, x, in, dy, out,
                            &zero, gw, in), call))
        return -1;
    snprintf(call, sizeof call, "cublasSgemv (%s bias gradient)", layer);
    if (blas_ok(cublasSgemv(n->blas, CUBLAS_OP_N, out, nb, &one, dy, out, n->ones, 1, &zero, gb,
                            1), call))
        return -1;
    if (!dx)
        return 0;
    snprintf(call, sizeof call, "cublasSgemm (%s data gradient)", layer);
    return blas_ok(cublasSgemm(n->blas, CUBLAS_OP_N, CUBLAS_OP_N, in, nb, out, &one, w, in, dy,
                               out, &zero, dx, in), call);
}

int dnn_net_forward(struct dnn_net *n, const float *params, const float *x)
{
    const float one = 1.0f, zero = 0.0f;
    return dnn_ok(cudnnConvolutionForward(n->dnn, &one, n->tx, x, n->fw1, W(DNN_W_CONV1), n->conv,
                                          n->fwd[0], n->work, n->work_bytes, &zero, n->tc1,
                                          n->c1), "cudnnConvolutionForward (conv1)") ||
                   dnn_ok(cudnnAddTensor(n->dnn, &one, n->tb1, W(DNN_B_CONV1), &one, n->tc1,
                                         n->c1), "cudnnAddTensor (conv1 bias)") ||
                   dnn_ok(cudnnPoolingForward(n->dnn, n->pool, &one, n->tc1, n->c1, &zero, n->tp1,
                                              n->p1), "cudnnPoolingForward (pool1)") ||
                   dnn_ok(cudnnConvolutionForward(n->dnn, &one, n->tp1, n->p1, n->fw2,
                                                  W(DNN_W_CONV2), n->conv, n->fwd[1], n->work,
                                                  n->work_bytes, &zero, n->tc2, n->c2),
                          "cudnnConvolutionForward (conv2)") ||
                   dnn_ok(cudnnAddTensor(n->dnn, &one, n->tb2, W(DNN_B_CONV2), &one, n->tc2,
                                         n->c2), "cudnnAddTensor (conv2 bias)") ||
                   dnn_ok(cudnnPoolingForward(n->dnn, n->pool, &one, n->tc2, n->c2, &zero, n->tp2,
                                              n->p2), "cudnnPoolingForward (pool2)") ||
                   fc_forward(n, n->p2, W(DNN_W_FC1), W(DNN_B_FC1), DNN_FLAT, DNN_FC1, n->f1,
                              "fc1") ||
                   dnn_ok(cudnnActivationForward(n->dnn, n->relu, &one, n->tf1, n->f1, &zero,
                                                 n->tf1, n->r1), "cudnnActivationForward (relu)") ||
                   fc_forward(n, n->r1, W(DNN_W_FC2), W(DNN_B_FC2), DNN_FC1, DNN_CLASSES, n->f2,
                              "fc2") ||
                   dnn_ok(cudnnSoftmaxForward(n->dnn, CUDNN_SOFTMAX_ACCURATE,
                                              CUDNN_SOFTMAX_MODE_INSTANCE, &one, n->tf2, n->f2,
                                              &zero, n->tf2, n->prob),
                          "cudnnSoftmaxForward")
               ? -1
               : 0;
}

/* The backward pass from the loss gradient in n->dlogits. */
static int backward(struct dnn_net *n, const float *params, float *grads, const float *x)
{
    const float one = 1.0f, zero = 0.0f;
    return fc_backward(n, n->r1, W(DNN_W_FC2), n->dlogits, DNN_FC1, DNN_CLASSES, GW(DNN_W_FC2),
                       GW(DNN_B_FC2), n->dr1, "fc2") ||
                   dnn_ok(cudnnActivationBackward(n->dnn, n->relu, &one, n->tf1, n->r1, n->tf1,
                                                  n->dr1, n->tf1, n->f1, &zero, n->tf1, n->df1),
                          "cudnnActivationBackward (relu)") ||
                   fc_backward(n, n->p2, W(DNN_W_FC1), n->df1, DNN_FLAT, DNN_FC1, GW(DNN_W_FC1),
                               GW(DNN_B_FC1), n->dp2, "fc1") ||
                   dnn_ok(cudnnPoolingBackward(n->dnn, n->pool, &one, n->tp2, n->p2, n->tp2,
                                               n->dp2, n->tc2, n->c2, &zero, n->tc2, n->dc2),
                          "cudnnPoolingBackward (pool2)") ||
                   dnn_ok(cudnnConvolutionBackwardBias(n->dnn, &one, n->tc2, n->dc2, &zero,
                                                       n->tb2, GW(DNN_B_CONV2)),
                          "cudnnConvolutionBackwardBias (conv2)") ||
                   dnn_ok(cudnnConvolutionBackwardFilter(n->dnn, &one, n->tp1, n->p1, n->tc2,
                                                         n->dc2, n->conv, n->bwd_filter[1],
                                                         n->work, n->work_bytes, &zero, n->fw2,
                                                         GW(DNN_W_CONV2)),
                          "cudnnConvolutionBackwardFilter (conv2)") ||
                   dnn_ok(cudnnConvolutionBackwardData(n->dnn, &one, n->fw2, W(DNN_W_CONV2),
                                                       n->tc2, n->dc2, n->conv, n->bwd_data,
                                                       n->work, n->work_bytes, &zero, n->tp1,
                                                       n->dp1),
                          "cudnnConvolutionBackwardData (conv2)") ||
                   dnn_ok(cudnnPoolingBackward(n->dnn, n->pool, &one, n->tp1, n->p1, n->tp1,
                                               n->dp1, n->tc1, n->c1, &zero, n->tc1, n->dc1),
                          "cudnnPoolingBackward (pool1)") ||
                   dnn_ok(cudnnConvolutionBackwardBias(n->dnn, &one, n->tc1, n->dc1, &zero,
                                                       n->tb1, GW(DNN_B_CONV1)),
                          "cudnnConvolutionBackwardBias (conv1)") ||
                   dnn_ok(cudnnConvolutionBackwardFilter(n->dnn, &one, n->tx, x, n->tc1, n->dc1,
                                                         n->conv, n->bwd_filter[0], n->work,
                                                         n->work_bytes, &zero, n->fw1,
                                                         GW(DNN_W_CONV1)),
                          "cudnnConvolutionBackwardFilter (conv1)")
               ? -1
               : 0;
}

int dnn_net_gradients(struct dnn_net *n, const float *params, float *grads, const float *x,
                      const int32_t *y, float *losses)
{
    if (dnn_net_forward(n, params, x) != 0 ||
        dnn_gpu_xent(n->prob, y, n->nb, n->dlogits, losses) != 0)
        return -1;
    return backward(n, params, grads, x);
}

int dnn_net_train_step(struct dnn_net *n, float *params, float *grads, const float *x,
                       const int32_t *y, float lr, float *losses)
{
    if (dnn_net_gradients(n, params, grads, x, y, losses) != 0)
        return -1;
    return dnn_gpu_sgd(params, grads, DNN_NPARAM_FLOATS, dnn_tensor_off(DNN_B_CONV1), lr);
}
