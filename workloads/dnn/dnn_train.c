/* Training bookkeeping that runs on the CPU: the batch order, the initial
 * parameters, the loss windows of the record, the accuracy, and the
 * verification's thresholds. */
#include <math.h>
#include <string.h>

#include "dnn.h"

#define PERM_SALT 0x4c654e6574506d31ull /* "LeNetPm1" */

void dnn_perm(uint64_t seed, uint64_t epoch, uint32_t n, uint32_t *out)
{
    /* Fisher-Yates with counter-based draws: the order depends only on the
     * seed and the epoch, so a recovery resumes the very batches. */
    uint64_t base = gpm_mix64(gpm_mix64(seed ^ PERM_SALT) + epoch);
    for (uint32_t i = 0; i < n; i++)
        out[i] = i;
    for (uint32_t i = n - 1; n > 1 && i > 0; i--) {
        uint32_t j = (uint32_t)(gpm_mix64(base + i) % ((uint64_t)i + 1));
        uint32_t t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
}

uint64_t dnn_steps_per_epoch(uint32_t n, uint32_t batch)
{
    return batch == 0 ? 0 : n / batch;
}

void dnn_batch_of(uint64_t it, uint64_t steps_per_epoch, uint32_t batch, uint64_t *epoch,
                  uint64_t *first)
{
    *epoch = it / steps_per_epoch;
    *first = it % steps_per_epoch * batch;
}

void dnn_init_params(uint64_t seed, float *p)
{
    memset(p, 0, DNN_NPARAM_FLOATS * sizeof *p);
    for (int t = 0; t < DNN_NTENSORS; t++) {
        float *w = p + dnn_tensor_off(t);
        for (uint64_t i = 0; i < dnn_tensor_count(t); i++)
            w[i] = dnn_init_value(seed, t, i);
    }
}

double dnn_batch_loss(const float *losses, uint32_t nb)
{
    double s = 0;
    for (uint32_t i = 0; i < nb; i++)
        s += losses[i];
    return nb ? s / nb : NAN;
}

void dnn_meta_init(dnn_meta *m, uint64_t iters, uint64_t batch, uint64_t every, uint64_t seed,
                   double lr, uint64_t data_fp, uint32_t ntrain, uint32_t ntest)
{
    memset(m, 0, sizeof *m);
    m->magic = DNN_META_MAGIC;
    m->iters = iters;
    m->batch = batch;
    m->every = every;
    m->seed = seed;
    memcpy(&m->lr_bits, &lr, sizeof lr);
    m->data_fp = data_fp;
    m->ntrain = ntrain;
    m->ntest = ntest;
    m->shape[0] = DNN_IMG;
    m->shape[1] = DNN_K;
    m->shape[2] = DNN_C1;
    m->shape[3] = DNN_C2;
    m->shape[4] = DNN_FC1;
    m->shape[5] = DNN_CLASSES;
    m->shape[6] = (uint32_t)DNN_NPARAM_FLOATS;
    m->window = dnn_window(iters);
    m->loss0 = NAN;
    m->loss_last = NAN;
}

int dnn_meta_matches(const dnn_meta *got, const dnn_meta *want)
{
    return got->magic == DNN_META_MAGIC && got->iters == want->iters &&
           got->batch == want->batch && got->every == want->every && got->seed == want->seed &&
           got->lr_bits == want->lr_bits && got->data_fp == want->data_fp &&
           got->ntrain == want->ntrain && got->ntest == want->ntest &&
           memcmp(got->shape, want->shape, sizeof got->shape) == 0 &&
           got->window == want->window && got->iters_done <= got->iters;
}

void dnn_meta_add_loss(dnn_meta *m, uint64_t it, double loss)
{
    if (it == 0)
        m->loss0 = loss;
    if (it < m->window)
        m->first_sum += loss;
    if (it + m->window >= m->iters)
        m->last_sum += loss;
    m->loss_last = loss;
}

double dnn_meta_first_mean(const dnn_meta *m)
{
    return m->iters_done >= m->window ? m->first_sum / (double)m->window : NAN;
}

double dnn_meta_last_mean(const dnn_meta *m)
{
    return m->iters_done == m->iters ? m->last_sum / (double)m->window : NAN;
}

int dnn_argmax(const float *v, int n)
{
    int best = -1;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]) && (best < 0 || v[i] > v[best]))
            best = i;
    return best;
}

uint64_t dnn_count_correct(const float *probs, const uint8_t *labels, uint32_t n, int classes)
{
    uint64_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        k += dnn_argmax(probs + (size_t)i * classes, classes) == (int)labels[i];
    return k;
}

double dnn_min_accuracy(enum dnn_kind kind, uint64_t iters)
{
    /* Measured with the CPU reference and justified in README.md: a run
     * must show that learning happened (tiny), or reach what LeNet reaches
     * after as many iterations, with margin. A directory of unknown data
     * only has to beat chance (10%) clearly. */
    if (kind == DNN_DATA_DIR || iters < 500)
        return 0.30;
    if (iters < 5000)
        return kind == DNN_DATA_MNIST ? 0.93 : 0.78;
    return kind == DNN_DATA_MNIST ? 0.97 : 0.85;
}

int dnn_check_training(const dnn_meta *m, enum dnn_kind kind, double accuracy)
{
    double first = dnn_meta_first_mean(m), last = dnn_meta_last_mean(m);
    double need = dnn_min_accuracy(kind, m->iters);
    if (m->iters_done != m->iters || !(first == first) || !(last == last))
        return gpm_set_error("dnn: the record holds %llu of %llu iterations: no complete run to "
                             "check", (unsigned long long)m->iters_done,
                             (unsigned long long)m->iters),
               1;
    if (!(last < first))
        return gpm_set_error("dnn: the mean loss of the last %llu iterations, %.4f, is not below "
                             "that of the first %llu, %.4f: the network did not learn",
                             (unsigned long long)m->window, last, (unsigned long long)m->window,
                             first),
               1;
    if (!(accuracy >= need))
        return gpm_set_error("dnn: test accuracy %.4f after %llu iterations is below %.2f",
                             accuracy, (unsigned long long)m->iters, need),
               1;
    return 0;
}

void dnn_training_wrong(const dnn_meta *m, uint64_t correct, uint64_t ntest, struct wl_wrong *w)
{
    w->units = "images";
    w->bad += ntest - (correct < ntest ? correct : ntest);
    w->total += ntest;
    w->marks++;
    w->marks_bad += m->iters_done != m->iters;
}
