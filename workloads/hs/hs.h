/* HS, Rodinia HotSpot with checkpointed temperatures. The result of a run
 * is the temperature grid after ITERS steps; it is the state that is
 * checkpointed (with a record of the calls it holds), so a run restored
 * from call k must finish exactly what an uninterrupted run computes. */
#ifndef HS_H
#define HS_H

#include <stddef.h>
#include <stdint.h>

#include "hs_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { HS_TEMP }; /* the one PM object: a checkpoint of the temperatures */

/* The input grids on the host, from the generator or Rodinia's files. */
struct hs_input {
    uint64_t rows, cols;
    float *temp, *power;   /* rows x cols each, row-major; NULL once uploaded (large) */
    int generated;
    uint64_t fingerprint;  /* of both grids: recorded in every checkpoint */
    double tmin, tmax, pmin, pmax;
    char how[32];          /* "generated", "parsed", "cached", "cache-rebuilt" */
};

/* What a check found: counts, the first wrong cells, the largest error
 * against the double reference (its IEEE bits: non-negative doubles order
 * as their bits do, so the GPU can take the maximum with an atomic). */
struct hs_check {
    unsigned long long checked;    /* cells compared */
    unsigned long long bad_exact;  /* cells whose float differs from the float reference */
    unsigned long long bad_tol;    /* cells further than the tolerance from the double one */
    unsigned long long first_exact, first_tol; /* their first index (~0: none) */
    unsigned long long maxerr_bits;
};

struct hs_state {
    uint64_t rows, cols, cells, iters, calls, every;
    int height;
    hs_coef coef;
    struct hs_input in;
    float *d_power, *d_init;   /* inputs */
    float *d_temp;             /* the state (checkpointed) */
    float *d_scratch;          /* the other half of each call's ping-pong */
    hs_meta meta;              /* host copy */
    struct hs_check *d_check;  /* the GPU check's findings */
    float *cur;                /* d_temp or d_scratch: where the state is now */
};

/* ---- kernels (hs_kernels.cu) ---- */
/* One kernel call: STEPS (<= HEIGHT) steps from SRC into DST. */
int hs_gpu_call(const float *power, const float *src, float *dst, uint64_t rows, uint64_t cols,
                int height, int steps, hs_coef k);
/* The reference check on the GPU: one step per launch from INIT, in float
 * (the same stencil: GOT must equal it bit for bit) and in double (GOT must
 * be within TOL), then the comparison of every cell. D_CHECK is device
 * scratch; R gets the findings. 0 passed, 1 failed (message set), -1 error. */
int hs_gpu_check(const float *got, const float *power, const float *init, uint64_t rows,
                 uint64_t cols, uint64_t iters, hs_coef k, double tol,
                 struct hs_check *d_check, struct hs_check *r);

/* ---- CPU reference (hs_ref.c) ---- */
/* One step of the whole grid, the reference way (one step per pass). */
void hs_cpu_step_f(const hs_coef *k, const float *power, const float *src, float *dst,
                   uint64_t rows, uint64_t cols);
void hs_cpu_step_d(const hs_coef *k, const float *power, const double *src, double *dst,
                   uint64_t rows, uint64_t cols);
/* One kernel call as the GPU runs it, block by block (the pyramid). */
void hs_cpu_call(const hs_coef *k, const float *power, const float *src, float *dst,
                 uint64_t rows, uint64_t cols, int height, int steps);
/* ITERS one-step passes from INIT: *OUT_F in float, *OUT_D in double
 * (either may be NULL). -1 if out of memory (message set). */
int hs_cpu_reference(const hs_coef *k, const float *power, const float *init, uint64_t rows,
                     uint64_t cols, uint64_t iters, float *out_f, double *out_d);
/* The same check on the CPU (GOT on the host): 0 passed, 1 failed
 * (message set), -1 out of memory. */
int hs_cpu_check(const hs_coef *k, const float *power, const float *init, uint64_t rows,
                 uint64_t cols, uint64_t iters, const float *got, double tol,
                 struct hs_check *r);
/* Compares GOT with the references; fills R. */
void hs_compare(const float *got, const float *ref_f, const double *ref_d, uint64_t n,
                double tol, struct hs_check *r);
double hs_check_maxerr(const struct hs_check *r);
/* The measure of verify from R: adds the cells compared, those that differ
 * from the float reference (or, where more, those off the double one), and
 * the largest difference from the double one (absolute, as the tolerance). */
void hs_check_wrong(const struct hs_check *r, struct wl_wrong *w);
/* 0 if R passed, else 1 with a message naming the first wrong cell: G1
 * against the float reference WF at first_exact, G2 against the double
 * reference WD at first_tol (the caller looked them up). */
int hs_check_verdict(const struct hs_check *r, uint64_t n, uint64_t cols, double tol,
                     float g1, float wf, float g2, double wd);

/* ---- inputs (hs_input.c) ---- */
/* The temperature and power files of --input SPEC: "TEMP,POWER", or
 * Rodinia's temp file with the power file beside it (the last "temp" of
 * its name made "power"); a bare name that is not here is looked up in
 * wl_data_dir(). -1 with a message naming --input if one is unreadable. */
int hs_input_files(const char *spec, char *temp, char *power, size_t len);
/* The input grids of SPEC ("gen" or files) for a ROWS x COLS run. */
int hs_input_load(const char *spec, uint64_t rows, uint64_t cols, uint64_t seed,
                  struct hs_input *in);
void hs_input_free(struct hs_input *in);
void hs_generate(uint64_t seed, uint64_t rows, uint64_t cols, float *temp, float *power);
/* Reads N = ROWS x COLS values, one per line, from the text file PATH. */
int hs_read_text(const char *path, uint64_t rows, uint64_t cols, float *out);
/* The grid of text file SRC through its binary cache in wl_data_dir():
 * parsed and cached when the cache is missing, of another source (size,
 * time, inode) or corrupt; *HOW gets "cached", "parsed" or
 * "cache-rebuilt", *SUM the grid's checksum. */
int hs_cache_load(const char *src, uint64_t rows, uint64_t cols, float *out, uint64_t *sum,
                  const char **how);
/* The cache file of SRC for a ROWS x COLS grid (for the tests). */
int hs_cache_path(const char *src, uint64_t rows, uint64_t cols, char *out, size_t len);
uint64_t hs_sum(const float *v, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif
