/* DNN's model, shared by the kernels, the host code and the tests: LeNet's
 * shape (Caffe's MNIST example), where each parameter tensor lies in the
 * one parameter buffer, the initialisation, the SGD step and its schedule,
 * the loss formula, the checkpoint schedule and the checkpointed record.
 *
 * The network: 28 x 28 x 1 input, conv 5 x 5 x 20, max-pool 2 x 2 stride 2,
 * conv 5 x 5 x 50, max-pool 2 x 2 stride 2, fully connected 500, ReLU,
 * fully connected 10, softmax with cross-entropy loss. Tensors are NCHW;
 * a fully connected weight is out x in, row-major (Caffe's layout). */
#ifndef DNN_MODEL_H
#define DNN_MODEL_H

#include <math.h>
#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

#define DNN_IMG 28                        /* input height and width */
#define DNN_PIXELS (DNN_IMG * DNN_IMG)
#define DNN_K 5                           /* convolution window */
#define DNN_C1 20                         /* conv1 channels */
#define DNN_C2 50                         /* conv2 channels */
#define DNN_H1 (DNN_IMG - DNN_K + 1)      /* 24: conv1 output side */
#define DNN_P1 (DNN_H1 / 2)               /* 12: pool1 output side */
#define DNN_H2 (DNN_P1 - DNN_K + 1)       /* 8: conv2 output side */
#define DNN_P2 (DNN_H2 / 2)               /* 4: pool2 output side */
#define DNN_FLAT (DNN_C2 * DNN_P2 * DNN_P2) /* 800: fc1 inputs */
#define DNN_FC1 500
#define DNN_CLASSES 10
/* Caffe's input scaling: pixel / 256. */
#define DNN_PIXEL_SCALE 0.00390625f

/* The parameter tensors, weights first, then biases, so that one SGD
 * kernel tells them apart by offset (biases learn at twice the rate). */
enum dnn_tensor {
    DNN_W_CONV1, DNN_W_CONV2, DNN_W_FC1, DNN_W_FC2,
    DNN_B_CONV1, DNN_B_CONV2, DNN_B_FC1, DNN_B_FC2,
    DNN_NTENSORS
};

/* Elements of tensor T. */
GPM_HD uint64_t dnn_tensor_count(int t)
{
    switch (t) {
    case DNN_W_CONV1: return (uint64_t)DNN_C1 * 1 * DNN_K * DNN_K;
    case DNN_W_CONV2: return (uint64_t)DNN_C2 * DNN_C1 * DNN_K * DNN_K;
    case DNN_W_FC1: return (uint64_t)DNN_FC1 * DNN_FLAT;
    case DNN_W_FC2: return (uint64_t)DNN_CLASSES * DNN_FC1;
    case DNN_B_CONV1: return DNN_C1;
    case DNN_B_CONV2: return DNN_C2;
    case DNN_B_FC1: return DNN_FC1;
    case DNN_B_FC2: return DNN_CLASSES;
    default: return 0;
    }
}

/* Inputs of one output unit of weight tensor T (Caffe's fan-in: the
 * weight count over the output count); 0 for a bias. */
GPM_HD uint64_t dnn_fan_in(int t)
{
    switch (t) {
    case DNN_W_CONV1: return 1 * DNN_K * DNN_K;
    case DNN_W_CONV2: return (uint64_t)DNN_C1 * DNN_K * DNN_K;
    case DNN_W_FC1: return DNN_FLAT;
    case DNN_W_FC2: return DNN_FC1;
    default: return 0;
    }
}

/* Each tensor starts on a 128-byte boundary (32 floats). */
#define DNN_ALIGN 32u

GPM_HD uint64_t dnn_round_up(uint64_t n) { return (n + DNN_ALIGN - 1) / DNN_ALIGN * DNN_ALIGN; }

/* Offset (in floats) of tensor T in the parameter buffer; T = DNN_NTENSORS
 * gives the buffer's length. The padding between tensors stays zero. */
GPM_HD uint64_t dnn_tensor_off(int t)
{
    uint64_t off = 0;
    for (int i = 0; i < t && i < DNN_NTENSORS; i++)
        off += dnn_round_up(dnn_tensor_count(i));
    return off;
}

#define DNN_NPARAM_FLOATS (dnn_tensor_off(DNN_NTENSORS))
/* Weights and biases proper (without padding): 431080 for LeNet. */
GPM_HD uint64_t dnn_param_count(void)
{
    uint64_t n = 0;
    for (int t = 0; t < DNN_NTENSORS; t++)
        n += dnn_tensor_count(t);
    return n;
}

/* Caffe's "xavier" filler (variance scaled by the fan-in): a weight is
 * uniform in [-sqrt(3 / fan_in), sqrt(3 / fan_in)); biases start at 0.
 * Element I of tensor T from SEED, independent of every other. */
#define DNN_INIT_SALT 0x4c654e6574496e69ull /* "LeNetIni" */
GPM_HD float dnn_init_value(uint64_t seed, int t, uint64_t i)
{
    uint64_t fan = dnn_fan_in(t);
    float scale;
    if (fan == 0)
        return 0.0f;
    scale = (float)sqrt(3.0 / (double)fan);
    return (2.0f * wl_unit_f32(seed ^ DNN_INIT_SALT, dnn_tensor_off(t) + i) - 1.0f) * scale;
}

/* SGD as Caffe's solver for LeNet: weight decay 5e-4 on every parameter,
 * biases at twice the learning rate, no momentum (so the weights and
 * biases are the whole training state), and Caffe's "inv" policy,
 * lr(it) = base (1 + gamma it)^-power. */
#define DNN_WEIGHT_DECAY 5e-4f
#define DNN_BIAS_LR_MULT 2.0f
#define DNN_LR_GAMMA 1e-4
#define DNN_LR_POWER 0.75

static inline float dnn_lr(double base, uint64_t it)
{
    return (float)(base * pow(1.0 + DNN_LR_GAMMA * (double)it, -DNN_LR_POWER));
}

/* One parameter's step, with explicit fmaf so that every compiler rounds it
 * the same way: w - lr (g + decay w). */
GPM_HD float dnn_sgd_step(float w, float g, float lr)
{
    return fmaf(-lr, fmaf(DNN_WEIGHT_DECAY, w, g), w);
}

/* Cross-entropy of a sample whose true class has probability P; the floor
 * keeps a saturated softmax finite (log of the smallest normal float). */
#define DNN_PROB_FLOOR 1.17549435e-38f
GPM_HD float dnn_xent(float p)
{
    return -logf(p > DNN_PROB_FLOOR ? p : DNN_PROB_FLOOR);
}

/* The loss windows compared by the verification: the first and the last W
 * iterations, W a tenth of the run, between 1 and 100. */
GPM_HD uint64_t dnn_window(uint64_t iters)
{
    uint64_t w = iters / 10;
    return w < 1 ? 1 : w > 100 ? 100 : w;
}

#define DNN_META_MAGIC 0x3154454d4e4e4450ull /* "PDNNMET1" */

/* The record checkpointed with the parameters (the same checkpoint, so the
 * two always agree): what the parameters hold, the run they belong to, and
 * the loss bookkeeping the verification needs. 256 bytes. */
typedef struct dnn_meta {
    uint64_t magic;
    uint64_t iters_done;   /* SGD steps the parameters hold */
    /* The run: a checkpoint of another run is refused. */
    uint64_t iters, batch, every, seed;
    uint64_t lr_bits;      /* the double --lr, bit for bit */
    uint64_t data_fp;      /* the dataset's fingerprint (its decoded bytes) */
    uint64_t ntrain, ntest;
    uint32_t shape[8];     /* img, k, c1, c2, fc1, classes, parameter floats, 0 */
    /* Loss bookkeeping (batch means, summed in double in iteration order). */
    uint64_t window;
    double first_sum;      /* iterations [0, window) */
    double last_sum;       /* iterations [iters - window, iters) */
    double loss0;          /* iteration 0 */
    double loss_last;      /* the last iteration done */
    uint8_t pad[104];
} dnn_meta;

#ifdef __cplusplus
static_assert(sizeof(dnn_meta) == 256, "the record is 256 bytes");
#else
_Static_assert(sizeof(dnn_meta) == 256, "the record is 256 bytes");
#endif

#endif
