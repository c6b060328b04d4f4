/* DNN, LeNet trained with cuDNN and cuBLAS, its weights and biases
 * checkpointed every K iterations. Everything that can run on the CPU (the
 * IDX reader, the dataset choice, the batch order, the initialisation, the
 * loss bookkeeping, the accuracy, the checks of a restored checkpoint, a
 * reference of the network) is here in plain C, so that the CPU tests
 * exercise it; the GPU code is the network (dnn_net.c) and three small
 * kernels (dnn_kernels.cu). */
#ifndef DNN_H
#define DNN_H

#include <stddef.h>
#include <stdint.h>

#include "dnn_model.h"
#include "gpm/cp.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { DNN_CP }; /* the one PM object: a checkpoint of the parameters and the record */

/* ---- IDX files (dnn_idx.c): MNIST's format, read plain or gzip'd ---- */
#define DNN_IDX_IMAGES 0x00000803u /* unsigned bytes, 3 dimensions */
#define DNN_IDX_LABELS 0x00000801u /* unsigned bytes, 1 dimension */
struct dnn_idx {
    uint32_t magic;
    uint32_t n, rows, cols; /* rows = cols = 1 for labels */
    uint8_t *data;          /* n x rows x cols bytes; NULL after dnn_idx_header */
};
/* Reads PATH's header (and, with DATA, every item) and checks that it is an
 * IDX file of kind MAGIC whose size matches its header. -1 with one line
 * naming PATH: unreadable, truncated, corrupt gzip, bad magic, no items,
 * or bytes after the last item. */
int dnn_idx_read(const char *path, uint32_t magic, int data, struct dnn_idx *out);
void dnn_idx_free(struct dnn_idx *x);

/* ---- datasets (dnn_data.c) ---- */
#define DNN_FASHION_DIR "/usr/share/datasets/fashion-mnist" /* Debian's dataset-fashion-mnist */
enum dnn_part { DNN_TRAIN_IMAGES, DNN_TRAIN_LABELS, DNN_TEST_IMAGES, DNN_TEST_LABELS, DNN_NPARTS };
enum dnn_kind { DNN_DATA_FASHION, DNN_DATA_MNIST, DNN_DATA_DIR };
struct dnn_files {
    enum dnn_kind kind;
    char name[16];                   /* "fashion", "mnist" or "dir" */
    char path[DNN_NPARTS][4096];
};
/* The four files of --dataset SPEC: "fashion" (in the first directory of
 * FASHION_DIRS, a colon-separated list, that holds all four, else fetched
 * into wl_data_dir() as fashion-mnist-NAME), "mnist" (fetched into
 * wl_data_dir() as mnist-NAME), or a directory holding the four files under
 * MNIST's names; each NAME.gz or NAME. -1 with one line naming what is
 * missing, where it was looked for and how to get it. */
int dnn_dataset_find(const char *spec, const char *fashion_dirs, struct dnn_files *f);
/* Where the programs look for Fashion-MNIST (dnn_dataset_find's
 * FASHION_DIRS): $GPM_FASHION_MNIST_DIR if set, else Debian's
 * DNN_FASHION_DIR; then the copy a bundle carries (scripts/make-bundle.sh),
 * share/datasets/fashion-mnist one or two folders above the program, as its
 * libraries are (bin/ and tests/KIND/). */
const char *dnn_fashion_dirs(void);
/* Reads the four headers: images 28 x 28, as many labels as images.
 * *NTRAIN and *NTEST get the counts. */
int dnn_dataset_check(const struct dnn_files *f, uint32_t *ntrain, uint32_t *ntest);
struct dnn_data {
    uint32_t ntrain, ntest;
    struct dnn_idx part[DNN_NPARTS];
    uint64_t fingerprint;            /* of the decoded bytes of all four, in order */
};
/* Reads the four files whole; labels must be classes 0..9. */
int dnn_dataset_load(const struct dnn_files *f, struct dnn_data *d);
void dnn_dataset_free(struct dnn_data *d);
/* Continues hash H over N bytes (8 at a time; the tail byte by byte). */
uint64_t dnn_fingerprint(uint64_t h, const uint8_t *p, size_t n);

/* ---- training bookkeeping on the CPU (dnn_train.c) ---- */
/* Epoch EPOCH's order of the N training images: a permutation that is a
 * function of (SEED, EPOCH) only. */
void dnn_perm(uint64_t seed, uint64_t epoch, uint32_t n, uint32_t *out);
/* Iterations per epoch: whole batches (the last partial one is skipped). */
uint64_t dnn_steps_per_epoch(uint32_t n, uint32_t batch);
/* Iteration IT's batch: positions [*FIRST, *FIRST + batch) of epoch
 * *EPOCH's permutation. */
void dnn_batch_of(uint64_t it, uint64_t steps_per_epoch, uint32_t batch, uint64_t *epoch,
                  uint64_t *first);
/* The whole parameter buffer (DNN_NPARAM_FLOATS floats) at iteration 0. */
void dnn_init_params(uint64_t seed, float *p);
/* Mean of NB per-sample losses, summed in double in order. */
double dnn_batch_loss(const float *losses, uint32_t nb);
/* The record of a run at iteration 0. */
void dnn_meta_init(dnn_meta *m, uint64_t iters, uint64_t batch, uint64_t every, uint64_t seed,
                   double lr, uint64_t data_fp, uint32_t ntrain, uint32_t ntest);
/* Is GOT a checkpoint of the run WANT describes (everything but the
 * progress and the loss bookkeeping)? */
int dnn_meta_matches(const dnn_meta *got, const dnn_meta *want);
/* Books iteration IT's batch loss into M's windows. */
void dnn_meta_add_loss(dnn_meta *m, uint64_t it, double loss);
/* Mean loss of the first and the last window (NaN while incomplete). */
double dnn_meta_first_mean(const dnn_meta *m);
double dnn_meta_last_mean(const dnn_meta *m);
/* Index of the largest of V[0..N) (the first of equals; NaN never wins). */
int dnn_argmax(const float *v, int n);
/* Samples of PROBS (N x classes) whose argmax is their label. */
uint64_t dnn_count_correct(const float *probs, const uint8_t *labels, uint32_t n, int classes);
/* The test accuracy a run of ITERS iterations on KIND must reach. */
double dnn_min_accuracy(enum dnn_kind kind, uint64_t iters);
/* The training check: the record is complete, the last window's loss is
 * below the first's, ACCURACY reaches dnn_min_accuracy. 0, or 1 with the
 * message set. */
int dnn_check_training(const dnn_meta *m, enum dnn_kind kind, double accuracy);
/* The measure of verify: adds to W the NTEST test images and those the
 * network got wrong (CORRECT of them right: a run that passes gets some
 * wrong too, its check asks for an accuracy), and the record as a marker,
 * wrong where it is short of the run's iterations. */
void dnn_training_wrong(const dnn_meta *m, uint64_t correct, uint64_t ntest, struct wl_wrong *w);

/* ---- the checkpoint on PM (dnn_cpcheck.c) ---- */
/* Element ELEM of group 0's consistent copy, read through CP's mapping:
 * *P and *SIZE. -1 if the file holds no valid checkpoint of that element. */
int dnn_cp_saved(const gpmcp *cp, uint32_t elem, const uint8_t **p, uint64_t *size);
/* Compares SIZE bytes at HOST with element ELEM as saved: 0 the same, 1
 * different (message names WHAT and the first differing float), -1 error. */
int dnn_cp_compare(const gpmcp *cp, uint32_t elem, const void *host, size_t size,
                   const char *what);

/* ---- CPU reference of the network (dnn_ref.c), in double ---- */
/* Forward and backward of NB images X (scaled floats, NB x 784) with labels
 * Y: returns the mean cross-entropy; GRADS (may be NULL) gets its gradient
 * for every parameter (the layout of the parameter buffer), PROBS (may be
 * NULL) the NB x 10 probabilities. -1.0 if out of memory. */
double dnn_ref_loss(const double *params, const float *x, const uint8_t *y, uint32_t nb,
                    double *grads, double *probs);
/* Images I..I+NB of IMAGES (bytes) scaled as the GPU scales them. */
void dnn_scale_images(const uint8_t *images, const uint32_t *idx, uint32_t nb, float *x);

/* ---- the network on the GPU (dnn_net.c, cuDNN and cuBLAS) ---- */
struct dnn_net;
/* Handles, descriptors, deterministic algorithms, workspace and activations
 * for batches of up to MAX_BATCH images. */
int dnn_net_create(struct dnn_net **out, uint32_t max_batch);
void dnn_net_destroy(struct dnn_net *n); /* NULL is fine */
/* Makes the next calls work on NB (<= max_batch) images. */
int dnn_net_set_batch(struct dnn_net *n, uint32_t nb);
/* Forward pass of X (device, nb x 784): the probabilities, nb x 10, in
 * dnn_net_probs(). */
int dnn_net_forward(struct dnn_net *n, const float *params, const float *x);
const float *dnn_net_probs(const struct dnn_net *n);
/* Forward and backward of X with labels Y: GRADS gets the gradient of the
 * mean loss, LOSSES (device, nb floats) each sample's loss. */
int dnn_net_gradients(struct dnn_net *n, const float *params, float *grads, const float *x,
                      const int32_t *y, float *losses);
/* One SGD iteration: dnn_net_gradients, then the step at rate LR. */
int dnn_net_train_step(struct dnn_net *n, float *params, float *grads, const float *x,
                       const int32_t *y, float lr, float *losses);
/* "cudnn=V,cublas=V,conv_fwd=A/A,conv_bwd_data=A,conv_bwd_filter=A/A": the
 * library versions and the algorithms in use (cuDNN's enum values). */
const char *dnn_net_about(const struct dnn_net *n);

/* ---- kernels (dnn_kernels.cu); launches on the default stream, launch
 * errors reported (execution errors show at the next synchronising call) */
/* X (nb x 784 floats) and Y (nb labels) from item PERM[FIRST + b] (PERM
 * NULL: FIRST + b) of IMAGES and LABELS. */
int dnn_gpu_gather(const uint8_t *images, const uint8_t *labels, const uint32_t *perm,
                   uint64_t first, uint32_t nb, float *x, int32_t *y);
/* From PROBS (nb x 10) and Y: DLOGITS = (p - onehot) / nb and each
 * sample's cross-entropy in LOSSES. */
int dnn_gpu_xent(const float *probs, const int32_t *y, uint32_t nb, float *dlogits,
                 float *losses);
/* W[i] = dnn_sgd_step(W[i], G[i], i < BIAS_START ? LR : LR x the bias
 * multiplier) for i < N. */
int dnn_gpu_sgd(float *w, const float *g, uint64_t n, uint64_t bias_start, float lr);

#ifdef __cplusplus
}
#endif

#endif
