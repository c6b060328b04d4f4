/* CFD, Rodinia's euler3d on an unstructured mesh with its state
 * checkpointed every K iterations (paper Table 1: the missile mesh, 0.2M
 * elements). The result of a run is the state after ITERS iterations from
 * the free stream; the state at any iteration determines the rest, so a
 * run restored from iteration k finishes exactly what an uninterrupted run
 * computes. */
#ifndef CFD_H
#define CFD_H

#include <stddef.h>
#include <stdint.h>

#include "cfd_mesh.h"
#include "cfd_model.h"
#include "wl.h"
#include "wl_check.h"
#include "wl_dev.h"
#include "wl_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CFD_STATE }; /* the one PM object: a checkpoint of the state and its record */

/* What the kernels work on, all in device memory. */
struct cfd_dev {
    uint64_t n;
    float *vol;              /* mesh: [n] */
    int32_t *nb;             /* mesh: [4n] */
    float *normal;           /* mesh: [12n] */
    float *var;              /* the state, [5n] (checkpointed) */
    float *old, *flux, *sf;  /* per iteration: the state it started from, right-hand sides, steps */
};

struct cfd_state {
    struct cfd_mesh mesh;     /* host copy: the CPU check needs it */
    const char *mesh_src;     /* "generated" or "file" */
    const char *cache;        /* file meshes: "hit", "built", "rebuilt" */
    char mesh_name[CFD_MESH_NAME];
    uint64_t iters, every;
    struct cfd_dev d;
    cfd_meta meta;            /* the checkpoint's record (wl_cp_register_record) */
};

/* Kernels (cfd_kernels.cu). */
int cfd_gpu_init(float *var, uint64_t n);
int cfd_gpu_iterate(const struct cfd_dev *d);
/* Runs the double scheme on the GPU from the free stream for ITERS
 * iterations and compares D->var with it: 0 ok, 1 wrong (message set),
 * -1 error. Wrong, the state and the reference are copied to the host and
 * counted into W (cfd_count_wrong; left as it is if they do not fit). */
int cfd_gpu_check(const struct cfd_dev *d, uint64_t iters, struct wl_wrong *w);

/* CPU solvers (cfd_ref.c): ITERS iterations from the free stream into VAR
 * (CFD_NVAR x n, at cfd_var_at). */
int cfd_cpu_solve_d(const struct cfd_mesh *m, uint64_t iters, double *var);
int cfd_cpu_solve_f(const struct cfd_mesh *m, uint64_t iters, float *var);
/* The CPU check of a result GOT after ITERS iterations on M: 0 ok, 1 wrong
 * (message set), -1 error; the measure added to W (cfd_count_wrong; NULL:
 * not wanted). */
int cfd_check(const struct cfd_mesh *m, const float *got, uint64_t iters, struct wl_wrong *w);
/* The measure of verify: adds to W the N elements of GOT compared with
 * WANT, those with a variable outside the tolerance (cfd_elem_ok), and the
 * largest error of a variable relative to 1 + |WANT|, the scale of the
 * tolerance (infinite for a NaN). Returns the first wrong element, or N. */
uint64_t cfd_count_wrong(const float *got, const double *want, uint64_t n, uint64_t iters,
                         struct wl_wrong *w);
/* Sets the message for element I, whose variables are GOT and should be
 * WANT; returns 1. */
int cfd_report_bad(const float got[CFD_NVAR], const double want[CFD_NVAR], uint64_t i,
                   uint64_t iters);

#ifdef __cplusplus
}
#endif

#endif
