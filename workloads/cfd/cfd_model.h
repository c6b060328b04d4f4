/* CFD's model, shared by the kernels, the CPU reference and the tests: the
 * constants of Rodinia's euler3d, the layout of the unknowns and of the
 * mesh arrays, the scheme in float and in double (cfd_scheme.h), the
 * record checkpointed with the state, and the verification's tolerance. */
#ifndef CFD_MODEL_H
#define CFD_MODEL_H

#include <math.h>
#include <stdint.h>

#include "gpm/hd.h"
#include "wl_hd.h"

#define CFD_GAMMA 1.4         /* ratio of specific heats */
#define CFD_FF_MACH 1.2       /* free-stream Mach number */
#define CFD_FF_DENSITY 1.4    /* free-stream density */
#define CFD_FF_PRESSURE 1.0   /* free-stream pressure (so the speed of sound is 1) */
#define CFD_SMOOTHING 0.2     /* artificial viscosity coefficient */
#define CFD_RK 3              /* Runge-Kutta stages per iteration */

#define CFD_NNB 4             /* faces per element (tetrahedra) */
#define CFD_NVAR 5            /* unknowns per element */
#define CFD_DENSITY 0
#define CFD_MOMENTUM 1        /* x, y, z at 1, 2, 3 */
#define CFD_ENERGY 4

/* Neighbour markers in memory (0-based neighbours otherwise). In the
 * mesh file neighbours are 1-based, 0 marks a wall and a negative number
 * the far field (Rodinia's reader maps them to these). */
#define CFD_WALL (-1)
#define CFD_FAR_FIELD (-2)

/* Structure-of-arrays layouts, N elements: variable V of element I; the
 * neighbour across face J; component A of face J's normal. 64-bit indices:
 * 12 N exceeds 2^31 from N = 179M. */
GPM_HD uint64_t cfd_var_at(uint64_t n, uint64_t i, int v) { return i + (uint64_t)v * n; }
GPM_HD uint64_t cfd_nb_at(uint64_t n, uint64_t i, int j) { return i + (uint64_t)j * n; }
GPM_HD uint64_t cfd_normal_at(uint64_t n, uint64_t i, int j, int a)
{
    return i + (uint64_t)(j + CFD_NNB * a) * n;
}

/* The scheme in float: what the kernels run. */
#define CFD_R float
#define CFD_FN(name) name##_f
#define CFD_SQRT sqrtf
#include "cfd_scheme.h"
#undef CFD_R
#undef CFD_FN
#undef CFD_SQRT

/* The same scheme in double: the reference. */
#define CFD_R double
#define CFD_FN(name) name##_d
#define CFD_SQRT sqrt
#include "cfd_scheme.h"
#undef CFD_R
#undef CFD_FN
#undef CFD_SQRT

#define CFD_META_MAGIC 0x31544d4446434d47ull /* "GMCFDMT1" */
#define CFD_MESH_NAME 64

/* Checkpointed with the state, so that the iteration it records is always
 * that of the state beside it; it also names the run it belongs to. */
typedef struct cfd_meta {
    uint64_t magic;
    uint64_t iters_done;     /* iterations the state holds */
    uint64_t n;              /* elements */
    uint64_t seed;
    uint64_t iters;          /* of the whole run */
    uint64_t every;          /* --checkpoint-every */
    uint64_t mesh_hash;      /* cfd_mesh_hash of the mesh */
    uint32_t generated;      /* 1: a generated mesh */
    uint32_t pad;
    char mesh[CFD_MESH_NAME]; /* "gen" or the file's name, for a person reading the file */
} cfd_meta;

/* Is M a checkpoint of the run (N, SEED, ITERS, EVERY) on the mesh MESH_HASH? */
GPM_HD int cfd_meta_matches(const cfd_meta *m, uint64_t n, uint64_t seed, uint64_t iters,
                            uint64_t every, uint64_t mesh_hash)
{
    return m->magic == CFD_META_MAGIC && m->n == n && m->seed == seed && m->iters == iters &&
           m->every == every && m->mesh_hash == mesh_hash && m->iters_done <= iters;
}

/* The verification's tolerance for a float state after ITERS iterations
 * against the double reference: |got - want| <= CFD_TOL sqrt(ITERS)
 * (1 + |want|). The GPU computes in float, contracting multiply-adds into
 * FMAs, so every operation may round differently from the reference; the
 * scheme is dissipative (its artificial viscosity damps differences), so
 * they accumulate slowly instead of growing. Measured on generated meshes,
 * float with FMA contraction against double, largest difference and its
 * share of this tolerance: 1.2e-6 (0.6%) after 20 iterations of 4096
 * elements, 9.4e-6 (1.1%) after 500 of 97000, 1.1e-4 (6%) after 5000 of
 * 232536, on variables of magnitude up to 8. So the tolerance keeps a
 * factor of more than 15, while a wrong scheme, a torn checkpoint or a
 * state an iteration behind early in a run (an iteration then moves some
 * element by 3e-3 or more) is far outside it. Late in a long run the flow
 * settles and an iteration moves it by less than this: there the record
 * checkpointed with the state is what tells a state that is behind. */
#define CFD_TOL 1e-5
GPM_HD double cfd_tol(uint64_t iters, double want)
{
    return CFD_TOL * sqrt((double)(iters > 0 ? iters : 1)) * (1 + fabs(want));
}

/* Is element I of the float state GOT the reference WANT's, within
 * tolerance? (Written so that a NaN is never within it.) */
GPM_HD int cfd_elem_ok(const float *got, const double *want, uint64_t n, uint64_t i,
                       uint64_t iters)
{
    for (int v = 0; v < CFD_NVAR; v++) {
        double w = want[cfd_var_at(n, i, v)];
        if (!(fabs((double)got[cfd_var_at(n, i, v)] - w) <= cfd_tol(iters, w)))
            return 0;
    }
    return 1;
}

#endif
