/* DNN's CPU reference of the network (the oracle of the GPU tests): its
 * gradient against central finite differences in every tensor, its
 * probabilities, the loss at initialisation (about ln 10), and SGD steps on
 * a fixed batch lowering that batch's loss. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "idx_files.h"

enum { NB = 3 };

struct fixture {
    double *p, *g;
    float x[NB * DNN_PIXELS];
    uint8_t y[NB];
};

static int fixture_make(struct fixture *f, uint64_t seed)
{
    float *init = malloc(DNN_NPARAM_FLOATS * sizeof *init);
    uint8_t img[NB * DNN_PIXELS];
    uint32_t idx[NB] = {0, 1, 2};
    f->p = malloc(DNN_NPARAM_FLOATS * sizeof *f->p);
    f->g = malloc(DNN_NPARAM_FLOATS * sizeof *f->g);
    if (!init || !f->p || !f->g)
        return -1;
    dnn_init_params(seed, init);
    for (uint64_t i = 0; i < DNN_NPARAM_FLOATS; i++)
        f->p[i] = init[i];
    /* Non-zero biases, so that their gradients are checked off zero too. */
    for (int t = DNN_B_CONV1; t < DNN_NTENSORS; t++)
        for (uint64_t i = 0; i < dnn_tensor_count(t); i++)
            f->p[dnn_tensor_off(t) + i] = 0.05 * ((double)(i % 7) - 3);
    free(init);
    for (uint32_t i = 0; i < NB; i++)
        toy_item(3, i * 3 + 1, img + (size_t)i * DNN_PIXELS, &f->y[i]);
    dnn_scale_images(img, idx, NB, f->x);
    return 0;
}

static void fixture_free(struct fixture *f)
{
    free(f->p);
    free(f->g);
}

static void gradient_matches_finite_differences(void)
{
    struct fixture f;
    const double h = 1e-5;
    int checked = 0;
    CHECK(fixture_make(&f, 11) == 0);
    CHECK(dnn_ref_loss(f.p, f.x, f.y, NB, f.g, NULL) > 0);
    for (int t = 0; t < DNN_NTENSORS; t++) {
        uint64_t n = dnn_tensor_count(t);
        for (int s = 0; s < 6; s++) {
            /* Spread over the tensor; for weights, the largest gradients
             * too (most conv1 weights see only zero pixels). */
            uint64_t i = s < 4 ? gpm_mix64((uint64_t)t * 64 + s) % n : 0, k;
            if (s >= 4) {
                double best = -1;
                for (uint64_t j = 0; j < n; j++)
                    if (fabs(f.g[dnn_tensor_off(t) + j]) > best && (j % 2) == (uint64_t)(s - 4))
                        best = fabs(f.g[dnn_tensor_off(t) + j]), i = j;
            }
            k = dnn_tensor_off(t) + i;
            double keep = f.p[k], up, down, num, ana = f.g[k];
            f.p[k] = keep + h;
            up = dnn_ref_loss(f.p, f.x, f.y, NB, NULL, NULL);
            f.p[k] = keep - h;
            down = dnn_ref_loss(f.p, f.x, f.y, NB, NULL, NULL);
            f.p[k] = keep;
            num = (up - down) / (2 * h);
            CHECKF(fabs(num - ana) <= 1e-7 + 1e-4 * fabs(ana),
                   "tensor %d element %llu: analytic %.9g, numeric %.9g", t,
                   (unsigned long long)i, ana, num);
            checked += ana != 0;
        }
    }
    CHECKF(checked >= 3 * DNN_NTENSORS, "only %d non-zero gradients checked", checked);
    fixture_free(&f);
}

static void probabilities_sum_to_one_and_start_near_chance(void)
{
    struct fixture f;
    double pr[NB * DNN_CLASSES], loss;
    CHECK(fixture_make(&f, 12) == 0);
    /* With the biases at their real start (zero), the loss is about ln 10. */
    for (int t = DNN_B_CONV1; t < DNN_NTENSORS; t++)
        memset(f.p + dnn_tensor_off(t), 0, dnn_tensor_count(t) * sizeof *f.p);
    loss = dnn_ref_loss(f.p, f.x, f.y, NB, NULL, pr);
    CHECKF(fabs(loss - log(10.0)) < 0.7, "initial loss %g", loss);
    for (int b = 0; b < NB; b++) {
        double s = 0;
        for (int c = 0; c < DNN_CLASSES; c++) {
            CHECK(pr[b * DNN_CLASSES + c] > 0 && pr[b * DNN_CLASSES + c] < 1);
            s += pr[b * DNN_CLASSES + c];
        }
        CHECKF(fabs(s - 1) < 1e-12, "sample %d sums to %.15g", b, s);
    }
    fixture_free(&f);
}

static void sgd_steps_lower_the_batch_loss(void)
{
    struct fixture f;
    double first, last = 0;
    uint64_t bias = dnn_tensor_off(DNN_B_CONV1);
    CHECK(fixture_make(&f, 13) == 0);
    first = dnn_ref_loss(f.p, f.x, f.y, NB, f.g, NULL);
    for (int step = 0; step < 5; step++) {
        for (uint64_t i = 0; i < DNN_NPARAM_FLOATS; i++) {
            double lr = dnn_lr(0.05, (uint64_t)step) * (i < bias ? 1 : DNN_BIAS_LR_MULT);
            f.p[i] -= lr * (f.g[i] + DNN_WEIGHT_DECAY * f.p[i]);
        }
        last = dnn_ref_loss(f.p, f.x, f.y, NB, f.g, NULL);
    }
    CHECKF(last < 0.8 * first, "loss %g after 5 steps, %g before", last, first);
    fixture_free(&f);
}

int main(void)
{
    RUN(gradient_matches_finite_differences);
    RUN(probabilities_sum_to_one_and_start_near_chance);
    RUN(sgd_steps_lower_the_batch_loss);
    CHECK_EXIT();
}
