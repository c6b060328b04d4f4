/* The network on the CPU, in double, written plainly from its definition
 * (dnn_model.h): the CPU tests check its gradient against finite
 * differences, and the GPU tests hold cuDNN's and cuBLAS's results against
 * it. Slow (a few million multiply-adds per image and pass): for tests and
 * for measuring the verification's thresholds, not for training runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dnn.h"

/* One image's activations and their gradients. */
struct ref_act {
    double x[DNN_PIXELS];
    double c1[DNN_C1 * DNN_H1 * DNN_H1], p1[DNN_C1 * DNN_P1 * DNN_P1];
    double c2[DNN_C2 * DNN_H2 * DNN_H2], p2[DNN_FLAT];
    int a1[DNN_C1 * DNN_P1 * DNN_P1], a2[DNN_FLAT]; /* where each pool's maximum came from */
    double f1[DNN_FC1], r1[DNN_FC1], f2[DNN_CLASSES], pr[DNN_CLASSES];
    double dc1[DNN_C1 * DNN_H1 * DNN_H1], dp1[DNN_C1 * DNN_P1 * DNN_P1];
    double dc2[DNN_C2 * DNN_H2 * DNN_H2], dp2[DNN_FLAT];
    double df1[DNN_FC1], dr1[DNN_FC1], d2[DNN_CLASSES];
};

#define P(t) (params + dnn_tensor_off(t))
#define G(t) (grads + dnn_tensor_off(t))

/* OUT[o][i][j] = B[o] + sum W[o][c][u][v] IN[c][i+u][j+v] (cross-correlation, as Caffe). */
static void conv(const double *in, int cin, int side, const double *w, const double *b, int cout,
                 double *out)
{
    int os = side - DNN_K + 1;
    for (int o = 0; o < cout; o++)
        for (int i = 0; i < os; i++)
            for (int j = 0; j < os; j++) {
                double s = b[o];
                for (int c = 0; c < cin; c++)
                    for (int u = 0; u < DNN_K; u++)
                        for (int v = 0; v < DNN_K; v++)
                            s += w[((o * cin + c) * DNN_K + u) * DNN_K + v] *
                                 in[(c * side + i + u) * side + j + v];
                out[(o * os + i) * os + j] = s;
            }
}

/* The gradients of conv given DOUT: GW, GB accumulate; DIN (may be NULL) is set. */
static void conv_back(const double *in, int cin, int side, const double *w, int cout,
                      const double *dout, double *gw, double *gb, double *din)
{
    int os = side - DNN_K + 1;
    if (din)
        memset(din, 0, sizeof *din * (size_t)cin * side * side);
    for (int o = 0; o < cout; o++)
        for (int i = 0; i < os; i++)
            for (int j = 0; j < os; j++) {
                double d = dout[(o * os + i) * os + j];
                gb[o] += d;
                for (int c = 0; c < cin; c++)
                    for (int u = 0; u < DNN_K; u++)
                        for (int v = 0; v < DNN_K; v++) {
                            int wi = ((o * cin + c) * DNN_K + u) * DNN_K + v;
                            int xi = (c * side + i + u) * side + j + v;
                            gw[wi] += d * in[xi];
                            if (din)
                                din[xi] += d * w[wi];
                        }
            }
}

/* 2 x 2 max-pooling, stride 2; ARG gets each maximum's index in IN. */
static void pool(const double *in, int ch, int side, double *out, int *arg)
{
    int os = side / 2;
    for (int c = 0; c < ch; c++)
        for (int i = 0; i < os; i++)
            for (int j = 0; j < os; j++) {
                int best = (c * side + 2 * i) * side + 2 * j;
                for (int u = 0; u < 2; u++)
                    for (int v = 0; v < 2; v++) {
                        int k = (c * side + 2 * i + u) * side + 2 * j + v;
                        if (in[k] > in[best])
                            best = k;
                    }
                out[(c * os + i) * os + j] = in[best];
                arg[(c * os + i) * os + j] = best;
            }
}

static void pool_back(const double *dout, const int *arg, int n_out, double *din, int n_in)
{
    memset(din, 0, sizeof *din * (size_t)n_in);
    for (int k = 0; k < n_out; k++)
        din[arg[k]] += dout[k];
}

/* One image forward; returns its loss. */
static double forward(const double *params, struct ref_act *a, int label)
{
    double m, s = 0;
    conv(a->x, 1, DNN_IMG, P(DNN_W_CONV1), P(DNN_B_CONV1), DNN_C1, a->c1);
    pool(a->c1, DNN_C1, DNN_H1, a->p1, a->a1);
    conv(a->p1, DNN_C1, DNN_P1, P(DNN_W_CONV2), P(DNN_B_CONV2), DNN_C2, a->c2);
    pool(a->c2, DNN_C2, DNN_H2, a->p2, a->a2);
    for (int h = 0; h < DNN_FC1; h++) {
        const double *w = P(DNN_W_FC1) + (size_t)h * DNN_FLAT;
        double f = P(DNN_B_FC1)[h];
        for (int k = 0; k < DNN_FLAT; k++)
            f += w[k] * a->p2[k];
        a->f1[h] = f;
        a->r1[h] = f > 0 ? f : 0;
    }
    for (int c = 0; c < DNN_CLASSES; c++) {
        const double *w = P(DNN_W_FC2) + (size_t)c * DNN_FC1;
        double f = P(DNN_B_FC2)[c];
        for (int h = 0; h < DNN_FC1; h++)
            f += w[h] * a->r1[h];
        a->f2[c] = f;
    }
    m = a->f2[0];
    for (int c = 1; c < DNN_CLASSES; c++)
        m = a->f2[c] > m ? a->f2[c] : m;
    for (int c = 0; c < DNN_CLASSES; c++)
        s += a->pr[c] = exp(a->f2[c] - m);
    for (int c = 0; c < DNN_CLASSES; c++)
        a->pr[c] /= s;
    return -log(a->pr[label]);
}

/* One image backward, its loss weighted by SCALE; GRADS accumulate. */
static void backward(const double *params, struct ref_act *a, int label, double scale,
                     double *grads)
{
    for (int c = 0; c < DNN_CLASSES; c++)
        a->d2[c] = (a->pr[c] - (c == label)) * scale;
    memset(a->dr1, 0, sizeof a->dr1);
    for (int c = 0; c < DNN_CLASSES; c++) {
        const double *w = P(DNN_W_FC2) + (size_t)c * DNN_FC1;
        double *gw = G(DNN_W_FC2) + (size_t)c * DNN_FC1;
        G(DNN_B_FC2)[c] += a->d2[c];
        for (int h = 0; h < DNN_FC1; h++) {
            gw[h] += a->d2[c] * a->r1[h];
            a->dr1[h] += w[h] * a->d2[c];
        }
    }
    memset(a->dp2, 0, sizeof a->dp2);
    for (int h = 0; h < DNN_FC1; h++) {
        const double *w = P(DNN_W_FC1) + (size_t)h * DNN_FLAT;
        double *gw = G(DNN_W_FC1) + (size_t)h * DNN_FLAT;
        double d = a->df1[h] = a->f1[h] > 0 ? a->dr1[h] : 0;
        if (d == 0)
            continue;
        G(DNN_B_FC1)[h] += d;
        for (int k = 0; k < DNN_FLAT; k++) {
            gw[k] += d * a->p2[k];
            a->dp2[k] += w[k] * d;
        }
    }
    pool_back(a->dp2, a->a2, DNN_FLAT, a->dc2, DNN_C2 * DNN_H2 * DNN_H2);
    conv_back(a->p1, DNN_C1, DNN_P1, P(DNN_W_CONV2), DNN_C2, a->dc2, G(DNN_W_CONV2),
              G(DNN_B_CONV2), a->dp1);
    pool_back(a->dp1, a->a1, DNN_C1 * DNN_P1 * DNN_P1, a->dc1, DNN_C1 * DNN_H1 * DNN_H1);
    conv_back(a->x, 1, DNN_IMG, P(DNN_W_CONV1), DNN_C1, a->dc1, G(DNN_W_CONV1),
              G(DNN_B_CONV1), NULL);
}

double dnn_ref_loss(const double *params, const float *x, const uint8_t *y, uint32_t nb,
                    double *grads, double *probs)
{
    struct ref_act *a = malloc(sizeof *a);
    double loss = 0;
    if (!a)
        return gpm_set_error("dnn: out of memory for the CPU reference"), -1.0;
    if (grads)
        memset(grads, 0, DNN_NPARAM_FLOATS * sizeof *grads);
    for (uint32_t b = 0; b < nb; b++) {
        for (int k = 0; k < DNN_PIXELS; k++)
            a->x[k] = x[(size_t)b * DNN_PIXELS + k];
        loss += forward(params, a, y[b]);
        if (probs)
            memcpy(probs + (size_t)b * DNN_CLASSES, a->pr, sizeof a->pr);
        if (grads)
            backward(params, a, y[b], 1.0 / nb, grads);
    }
    free(a);
    return loss / nb;
}

void dnn_scale_images(const uint8_t *images, const uint32_t *idx, uint32_t nb, float *x)
{
    for (uint32_t b = 0; b < nb; b++)
        for (int k = 0; k < DNN_PIXELS; k++)
            x[(size_t)b * DNN_PIXELS + k] =
                (float)images[(size_t)idx[b] * DNN_PIXELS + k] * DNN_PIXEL_SCALE;
}
