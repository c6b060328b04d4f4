/* DNN's training bookkeeping on the CPU: the parameter layout, the batch
 * order (a permutation per epoch, a function of seed and epoch), the
 * initialisation (deterministic, scaled by the fan-in), the learning-rate
 * schedule and the SGD step, the loss windows of the record and its
 * matching, argmax and accuracy, and the training check's verdicts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../dnn.h"
#include "gpm/check.h"

static void layout_is_lenets_and_aligned(void)
{
    uint64_t off = 0;
    CHECK_EQ_INT(dnn_param_count(), 431080); /* Caffe's LeNet: 500+20+25000+50+400000+500+5000+10 */
    CHECK_EQ_INT(dnn_tensor_count(DNN_W_CONV2), 25000);
    CHECK_EQ_INT(dnn_tensor_count(DNN_W_FC1), 400000);
    for (int t = 0; t < DNN_NTENSORS; t++) {
        CHECKF(dnn_tensor_off(t) % 32 == 0, "tensor %d at %llu", t,
               (unsigned long long)dnn_tensor_off(t));
        CHECK(dnn_tensor_off(t) >= off);
        off = dnn_tensor_off(t) + dnn_tensor_count(t);
    }
    CHECK(DNN_NPARAM_FLOATS >= off && DNN_NPARAM_FLOATS - off < 32);
    CHECK(dnn_tensor_off(DNN_B_CONV1) > dnn_tensor_off(DNN_W_FC2)); /* weights first */
    CHECK_EQ_INT(DNN_FLAT, 800);
}

static void batch_order_is_a_permutation_per_epoch(void)
{
    enum { N = 1000 };
    static uint32_t a[N], b[N], c[N];
    static uint8_t seen[N];
    int moved = 0;
    dnn_perm(7, 3, N, a);
    dnn_perm(7, 3, N, b);
    CHECK(memcmp(a, b, sizeof a) == 0); /* a function of (seed, epoch) */
    for (int i = 0; i < N; i++) {
        CHECK(a[i] < N && !seen[a[i]]);
        seen[a[i]] = 1;
        moved += a[i] != (uint32_t)i;
    }
    CHECKF(moved > N * 9 / 10, "only %d of %d moved", moved, N);
    dnn_perm(7, 4, N, c);
    CHECK(memcmp(a, c, sizeof a) != 0); /* another epoch, another order */
    dnn_perm(8, 3, N, c);
    CHECK(memcmp(a, c, sizeof a) != 0); /* another seed */
    dnn_perm(1, 0, 1, c);
    CHECK(c[0] == 0);
}

static void iterations_take_whole_batches_of_the_epoch(void)
{
    uint64_t e, first, spe = dnn_steps_per_epoch(60000, 64);
    CHECK_EQ_INT(spe, 937); /* 60000 / 64, the last partial batch skipped */
    dnn_batch_of(0, spe, 64, &e, &first);
    CHECK(e == 0 && first == 0);
    dnn_batch_of(936, spe, 64, &e, &first);
    CHECK(e == 0 && first == 936 * 64 && first + 64 <= 60000);
    dnn_batch_of(937, spe, 64, &e, &first);
    CHECK(e == 1 && first == 0);
    dnn_batch_of(9999, spe, 64, &e, &first);
    CHECK(e == 10 && first == (9999 - 9370) * 64);
    CHECK_EQ_INT(dnn_steps_per_epoch(30, 30), 1);
}

static void initialisation_is_seeded_and_scaled_by_fan_in(void)
{
    float *p = malloc(DNN_NPARAM_FLOATS * sizeof *p), *q = malloc(DNN_NPARAM_FLOATS * sizeof *q);
    CHECK(p && q);
    dnn_init_params(5, p);
    dnn_init_params(5, q);
    CHECK(memcmp(p, q, DNN_NPARAM_FLOATS * sizeof *p) == 0);
    dnn_init_params(6, q);
    CHECK(memcmp(p, q, DNN_NPARAM_FLOATS * sizeof *p) != 0);
    for (int t = 0; t < DNN_NTENSORS; t++) {
        const float *w = p + dnn_tensor_off(t);
        uint64_t n = dnn_tensor_count(t), fan = dnn_fan_in(t);
        double s = 0, s2 = 0, lim = fan ? sqrt(3.0 / (double)fan) : 0;
        for (uint64_t i = 0; i < n; i++) {
            CHECKF(fabs(w[i]) <= lim * (1 + 1e-6), "tensor %d element %llu is %g, limit %g", t,
                   (unsigned long long)i, w[i], lim);
            s += w[i];
            s2 += (double)w[i] * w[i];
        }
        if (fan == 0) {
            CHECK(s2 == 0); /* biases start at zero */
            continue;
        }
        /* Uniform on [-lim, lim): mean 0, variance lim^2 / 3 = 1 / fan_in. */
        CHECKF(fabs(s / n) < 4 * lim / sqrt(3.0 * n), "tensor %d mean %g", t, s / n);
        CHECKF(fabs(s2 / n * fan - 1) < 0.2, "tensor %d: variance x fan-in %g", t, s2 / n * fan);
    }
    for (int t = 0; t < DNN_NTENSORS; t++) /* padding stays zero */
        for (uint64_t i = dnn_tensor_off(t) + dnn_tensor_count(t);
             i < (t + 1 < DNN_NTENSORS ? dnn_tensor_off(t + 1) : DNN_NPARAM_FLOATS); i++)
            CHECK(p[i] == 0);
    free(p);
    free(q);
}

static void schedule_and_step_follow_caffe(void)
{
    /* inv: base (1 + 1e-4 it)^-0.75 */
    CHECK(dnn_lr(0.01, 0) == 0.01f);
    CHECKF(fabs(dnn_lr(0.01, 10000) - 0.01 * pow(2.0, -0.75)) < 1e-9, "%.9g", dnn_lr(0.01, 10000));
    CHECK(dnn_lr(0.05, 500) < dnn_lr(0.05, 499));
    /* w - lr (g + 5e-4 w) */
    CHECKF(fabs(dnn_sgd_step(2.0f, 0.5f, 0.1f) - (2.0 - 0.1 * (0.5 + 5e-4 * 2.0))) < 1e-7, "%.9g",
           dnn_sgd_step(2.0f, 0.5f, 0.1f));
    CHECK(dnn_sgd_step(0.0f, 0.0f, 0.1f) == 0.0f); /* padding never moves */
    CHECKF(fabs(dnn_xent(0.25f) - log(4.0)) < 1e-6, "%g", dnn_xent(0.25f));
    CHECK(isfinite(dnn_xent(0.0f)) && dnn_xent(0.0f) > 87 && dnn_xent(1.0f) == 0.0f);
    CHECK(wl_checkpoint_due(10, 50, 10) && !wl_checkpoint_due(11, 50, 10) &&
          wl_checkpoint_due(47, 47, 10));
    CHECK(dnn_window(50) == 5 && dnn_window(1000) == 100 && dnn_window(10000) == 100 &&
          dnn_window(5) == 1);
}

static void record_books_the_loss_windows(void)
{
    dnn_meta m, w;
    float l[4] = {1.0f, 2.0f, 3.0f, 6.0f};
    CHECK_EQ_INT(dnn_batch_loss(l, 4) * 4, 12);
    dnn_meta_init(&m, 50, 64, 10, 9, 0.05, 0x1234, 60000, 10000);
    CHECK(m.window == 5 && m.shape[2] == DNN_C1 && m.shape[6] == DNN_NPARAM_FLOATS);
    CHECK(isnan(dnn_meta_first_mean(&m)) && isnan(dnn_meta_last_mean(&m)));
    for (uint64_t it = 0; it < 50; it++) {
        dnn_meta_add_loss(&m, it, 3.0 - it * 0.05);
        m.iters_done = it + 1;
    }
    CHECKF(fabs(dnn_meta_first_mean(&m) - (3.0 - 0.05 * 2)) < 1e-12, "%g", dnn_meta_first_mean(&m));
    CHECKF(fabs(dnn_meta_last_mean(&m) - (3.0 - 0.05 * 47)) < 1e-12, "%g", dnn_meta_last_mean(&m));
    CHECK(m.loss0 == 3.0 && fabs(m.loss_last - (3.0 - 0.05 * 49)) < 1e-12);
    /* Matching: the progress and the losses may differ, nothing else. */
    dnn_meta_init(&w, 50, 64, 10, 9, 0.05, 0x1234, 60000, 10000);
    CHECK(dnn_meta_matches(&m, &w));
    {
        dnn_meta o = w;
        o.seed = 10;
        CHECK(!dnn_meta_matches(&o, &w));
        o = w, o.data_fp ^= 1;
        CHECK(!dnn_meta_matches(&o, &w));
        o = w, o.batch = 32;
        CHECK(!dnn_meta_matches(&o, &w));
        dnn_meta_init(&o, 50, 64, 10, 9, 0.1, 0x1234, 60000, 10000);
        CHECK(!dnn_meta_matches(&o, &w)); /* another learning rate */
        o = w, o.iters_done = 51;
        CHECK(!dnn_meta_matches(&o, &w));
        o = w, o.magic = 0;
        CHECK(!dnn_meta_matches(&o, &w));
    }
}

static void argmax_and_accuracy_count_right(void)
{
    float v[4] = {0.1f, 0.7f, 0.7f, 0.2f}, n[3] = {NAN, 0.2f, 0.1f};
    float probs[3 * 10] = {0};
    uint8_t labels[3] = {4, 9, 4};
    CHECK_EQ_INT(dnn_argmax(v, 4), 1); /* the first of equals */
    CHECK_EQ_INT(dnn_argmax(n, 3), 1); /* a NaN never wins */
    probs[0 * 10 + 4] = 0.9f;
    probs[1 * 10 + 2] = 0.6f, probs[1 * 10 + 9] = 0.4f;
    probs[2 * 10 + 4] = 0.5f, probs[2 * 10 + 5] = 0.5f;
    CHECK_EQ_INT(dnn_count_correct(probs, labels, 3, 10), 2);
}

static void training_check_passes_learning_and_names_failures(void)
{
    struct wl_wrong w = {0};
    dnn_meta m;
    dnn_meta_init(&m, 1000, 64, 10, 1, 0.05, 1, 60000, 10000);
    for (uint64_t it = 0; it < 1000; it++)
        dnn_meta_add_loss(&m, it, 2.3 * exp(-(double)it / 300));
    m.iters_done = 999;
    CHECK_EQ_INT(dnn_check_training(&m, DNN_DATA_FASHION, 0.95), 1);
    CHECK_MSG(gpm_last_error(), "999 of 1000 iterations");
    /* The measure: the test images got wrong, the short record a marker. */
    dnn_training_wrong(&m, 9500, 10000, &w);
    CHECK(w.bad == 500 && w.total == 10000 && !strcmp(w.units, "images") && w.marks_bad == 1 &&
          w.marks == 1 && !w.err);
    m.iters_done = 1000;
    memset(&w, 0, sizeof w);
    dnn_training_wrong(&m, 4000, 10000, &w);
    CHECK(w.bad == 6000 && w.total == 10000 && w.marks_bad == 0 && w.marks == 1);
    CHECK_EQ_INT(dnn_check_training(&m, DNN_DATA_FASHION, 0.95), 0);
    CHECK_EQ_INT(dnn_check_training(&m, DNN_DATA_FASHION, 0.40), 1);
    CHECK_MSG(gpm_last_error(), "test accuracy 0.4000 after 1000 iterations is below");
    /* A loss that did not fall. */
    m.last_sum = m.first_sum;
    CHECK_EQ_INT(dnn_check_training(&m, DNN_DATA_FASHION, 0.95), 1);
    CHECK_MSG(gpm_last_error(), "is not below that of the first 100");
    /* Thresholds: learning at tiny scale, what LeNet reaches otherwise. */
    CHECK(dnn_min_accuracy(DNN_DATA_FASHION, 50) >= 0.2);
    CHECK(dnn_min_accuracy(DNN_DATA_DIR, 10000) == dnn_min_accuracy(DNN_DATA_FASHION, 50));
    CHECK(dnn_min_accuracy(DNN_DATA_MNIST, 1000) > dnn_min_accuracy(DNN_DATA_FASHION, 1000));
    CHECK(dnn_min_accuracy(DNN_DATA_FASHION, 10000) > dnn_min_accuracy(DNN_DATA_FASHION, 1000));
}

int main(void)
{
    RUN(layout_is_lenets_and_aligned);
    RUN(batch_order_is_a_permutation_per_epoch);
    RUN(iterations_take_whole_batches_of_the_epoch);
    RUN(initialisation_is_seeded_and_scaled_by_fan_in);
    RUN(schedule_and_step_follow_caffe);
    RUN(record_books_the_loss_windows);
    RUN(argmax_and_accuracy_count_right);
    RUN(training_check_passes_learning_and_names_failures);
    CHECK_EXIT();
}
