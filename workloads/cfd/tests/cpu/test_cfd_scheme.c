/* CFD's scheme and reference on the CPU: the free stream by hand, a uniform
 * free stream that stays uniform, conservation on a closed mesh, the
 * reference against a second, face-by-face implementation written here,
 * the float code the kernels run against the double reference and its
 * tolerance, and the checkpointed record. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cfd.h"
#include "gpm/check.h"

static int mesh_of(struct cfd_mesh *m, uint64_t n, int body)
{
    struct cfd_gen g = {n, 3, body};
    return cfd_mesh_generate(m, &g);
}

/* Density 1.4 and pressure 1 give a speed of sound of 1; Mach 1.2 along x:
 * momentum 1.68, energy 1.4 * 1.44 / 2 + 1 / 0.4 = 3.508. */
static void free_stream_by_hand(void)
{
    cfd_cell_d ff, s;
    cfd_cell_f f;
    double var[CFD_NVAR];
    cfd_free_stream_d(&ff);
    CHECK(fabs(ff.rho - 1.4) < 1e-15 && fabs(ff.c - 1) < 1e-15 && fabs(ff.p - 1) < 1e-15);
    CHECK(fabs(ff.m[0] - 1.68) < 1e-14 && ff.m[1] == 0 && ff.m[2] == 0);
    CHECK(fabs(ff.e - 3.508) < 1e-14);
    /* Its flux: x-momentum rho u^2 + p = 3.016, energy u (e + p) = 5.4096. */
    CHECK(fabs(ff.f[0][0] - 3.016) < 1e-14 && fabs(ff.f[3][0] - 5.4096) < 1e-14);
    CHECK(ff.f[1][1] == 1 && ff.f[2][2] == 1 && ff.f[0][1] == 0 && ff.f[3][2] == 0);
    /* The state read back from the variables gives the same pressure. */
    cfd_init_elem_d(var, 1, 0, &ff);
    cfd_cell_of_d(var, 1, 0, &s);
    CHECK(fabs(s.p - 1) < 1e-14 && fabs(s.c - 1) < 1e-14 && fabs(s.v[0] - 1.2) < 1e-14);
    cfd_free_stream_f(&f);
    CHECK(f.rho == 1.4f && f.c == 1.0f && fabs(f.e - 3.508f) < 1e-6f);
    /* Step factor 0.5 / (sqrt(vol) (|v| + c)): vol 0.25 gives 0.5 / (0.5 * 2.2). */
    CHECK(fabs(cfd_step_factor_d(var, 1, 0, 0.25f) - 0.5 / 1.1) < 1e-14);
}

/* With the same state everywhere every viscosity term vanishes and an
 * element's right-hand side is the free-stream flux through its closed
 * surface, F . sum of its normals: zero but for the rounding of the normals
 * to float. So the state stays the free stream. */
static void uniform_free_stream_stays_uniform(void)
{
    struct cfd_mesh m;
    cfd_cell_d ff;
    double *var, worst = 0;
    float *vf;
    uint64_t n;
    CHECK(mesh_of(&m, 3000, 0) == 0);
    n = m.n;
    var = malloc(n * CFD_NVAR * sizeof *var);
    vf = malloc(n * CFD_NVAR * sizeof *vf);
    CHECK(var && vf);
    cfd_free_stream_d(&ff);
    for (uint64_t i = 0; i < n; i++)
        cfd_init_elem_d(var, n, i, &ff);
    for (uint64_t i = 0; i < n; i++) {
        double r[CFD_NVAR], sum[3] = {0, 0, 0}, area = 0, want[CFD_NVAR];
        for (int j = 0; j < CFD_NNB; j++) {
            double a2 = 0;
            CHECK(m.nb[cfd_nb_at(n, i, j)] != CFD_WALL);
            for (int a = 0; a < 3; a++) {
                double x = m.normal[cfd_normal_at(n, i, j, a)];
                sum[a] += x;
                a2 += x * x;
            }
            area += sqrt(a2);
        }
        cfd_flux_d(i, n, m.nb, m.normal, var, &ff, r);
        want[CFD_DENSITY] = ff.m[0] * sum[0] + ff.m[1] * sum[1] + ff.m[2] * sum[2];
        want[CFD_ENERGY] = ff.f[3][0] * sum[0] + ff.f[3][1] * sum[1] + ff.f[3][2] * sum[2];
        for (int k = 0; k < 3; k++)
            want[CFD_MOMENTUM + k] =
                ff.f[k][0] * sum[0] + ff.f[k][1] * sum[1] + ff.f[k][2] * sum[2];
        for (int v = 0; v < CFD_NVAR; v++) {
            CHECKF(fabs(r[v] - want[v]) <= 1e-12 * area, "element %d var %d: %g vs %g",
                   (int)i, v, r[v], want[v]);
            if (fabs(r[v]) / area > worst)
                worst = fabs(r[v]) / area;
        }
    }
    CHECKF(worst < 1e-6, "net flux %g of the face area", worst);
    /* The float solver keeps it: 20 iterations move nothing by 1e-5. */
    CHECK(cfd_cpu_solve_f(&m, 20, vf) == 0);
    for (uint64_t i = 0; i < n; i++)
        for (int v = 0; v < CFD_NVAR; v++) {
            double want = v == CFD_DENSITY ? ff.rho : v == CFD_ENERGY ? ff.e : ff.m[v - 1];
            CHECKF(fabs(vf[cfd_var_at(n, i, v)] - want) < 1e-5, "element %d var %d: %g",
                   (int)i, v, (double)vf[cfd_var_at(n, i, v)]);
        }
    free(var);
    free(vf);
    cfd_mesh_free(&m);
}

/* A state far from uniform: density 1..2, velocity up to 0.5, pressure 0.5..1.5. */
static void random_state(double *var, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        double rho = 1 + wl_unit_f32(9, 5 * i), p = 0.5 + wl_unit_f32(9, 5 * i + 1), q = 0;
        var[cfd_var_at(n, i, CFD_DENSITY)] = rho;
        for (int k = 0; k < 3; k++) {
            double v = wl_unit_f32(9, 5 * i + 2 + (uint64_t)k) - 0.5;
            var[cfd_var_at(n, i, CFD_MOMENTUM + k)] = rho * v;
            q += v * v;
        }
        var[cfd_var_at(n, i, CFD_ENERGY)] = p / (CFD_GAMMA - 1) + 0.5 * rho * q;
    }
}

/* A box whose every boundary face is a wall: what leaves one element
 * through a face enters its neighbour, so mass and energy sum to zero over
 * the mesh, and momentum to the pressure force on the walls. */
static void conservation_on_a_closed_mesh(void)
{
    struct cfd_mesh m;
    cfd_cell_d ff;
    double *var, sum[CFD_NVAR] = {0}, mag[CFD_NVAR] = {0}, force[3] = {0, 0, 0};
    uint64_t n, walls = 0;
    CHECK(mesh_of(&m, 2500, 1) == 0);
    n = m.n;
    for (uint64_t k = 0; k < n * CFD_NNB; k++)
        if (m.nb[k] == CFD_FAR_FIELD)
            m.nb[k] = CFD_WALL;
    var = malloc(n * CFD_NVAR * sizeof *var);
    CHECK(var);
    random_state(var, n);
    cfd_free_stream_d(&ff);
    for (uint64_t i = 0; i < n; i++) {
        double r[CFD_NVAR];
        cfd_cell_d s;
        cfd_flux_d(i, n, m.nb, m.normal, var, &ff, r);
        for (int v = 0; v < CFD_NVAR; v++) {
            sum[v] += r[v];
            mag[v] += fabs(r[v]);
        }
        cfd_cell_of_d(var, n, i, &s);
        for (int j = 0; j < CFD_NNB; j++)
            if (m.nb[cfd_nb_at(n, i, j)] == CFD_WALL) {
                walls++;
                for (int a = 0; a < 3; a++)
                    force[a] += m.normal[cfd_normal_at(n, i, j, a)] * s.p;
            }
    }
    CHECK(walls > 100 && mag[CFD_DENSITY] > 0 && mag[CFD_ENERGY] > 0);
    CHECKF(fabs(sum[CFD_DENSITY]) <= 1e-12 * mag[CFD_DENSITY], "mass %g of %g",
           sum[CFD_DENSITY], mag[CFD_DENSITY]);
    CHECKF(fabs(sum[CFD_ENERGY]) <= 1e-12 * mag[CFD_ENERGY], "energy %g of %g",
           sum[CFD_ENERGY], mag[CFD_ENERGY]);
    for (int a = 0; a < 3; a++)
        CHECKF(fabs(sum[CFD_MOMENTUM + a] - force[a]) <= 1e-12 * mag[CFD_MOMENTUM + a],
               "momentum %d: %g, pressure force %g", a, sum[CFD_MOMENTUM + a], force[a]);
    free(var);
    cfd_mesh_free(&m);
}

/* ---- a second implementation: array of structures, one pass over faces ---- */

struct st5 {
    double u[5];
};

/* Flux tensor F[var][axis], pressure, speed of sound and speed of U. */
static void physics(const double u[5], double F[5][3], double *p, double *c, double *speed)
{
    double v[3] = {u[1] / u[0], u[2] / u[0], u[3] / u[0]};
    double q = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    *p = 0.4 * (u[4] - 0.5 * u[0] * q);
    *c = sqrt(1.4 * *p / u[0]);
    *speed = sqrt(q);
    for (int a = 0; a < 3; a++) {
        F[0][a] = u[1 + a];
        F[4][a] = v[a] * (u[4] + *p);
        for (int k = 0; k < 3; k++)
            F[1 + k][a] = u[1 + k] * v[a] + (k == a ? *p : 0);
    }
}

static void face_based_solve(const struct cfd_mesh *m, int iters, struct st5 *s)
{
    const uint64_t n = m->n;
    const double ff[5] = {1.4, 1.68, 0, 0, 3.508};
    struct st5 *old = malloc(n * sizeof *old), *r = malloc(n * sizeof *r);
    double *dt = malloc(n * sizeof *dt);
    for (uint64_t i = 0; i < n; i++)
        memcpy(s[i].u, ff, sizeof ff);
    for (int it = 0; it < iters; it++) {
        memcpy(old, s, n * sizeof *s);
        for (uint64_t i = 0; i < n; i++) {
            double F[5][3], p, c, speed;
            physics(s[i].u, F, &p, &c, &speed);
            dt[i] = 0.5 / (sqrt((double)m->vol[i]) * (speed + c));
        }
        for (int stage = 0; stage < 3; stage++) {
            memset(r, 0, n * sizeof *r);
            for (uint64_t i = 0; i < n; i++) {
                double Fi[5][3], pi, ci, si;
                physics(s[i].u, Fi, &pi, &ci, &si);
                for (int j = 0; j < 4; j++) {
                    int32_t o = m->nb[cfd_nb_at(n, i, j)];
                    double nv[3], len;
                    for (int a = 0; a < 3; a++)
                        nv[a] = m->normal[cfd_normal_at(n, i, j, a)];
                    len = sqrt(nv[0] * nv[0] + nv[1] * nv[1] + nv[2] * nv[2]);
                    if (o >= 0 && (uint64_t)o > i) {
                        /* Once per interior face: what i gains, o loses. */
                        double Fo[5][3], po, co, so, phi;
                        physics(s[o].u, Fo, &po, &co, &so);
                        for (int v = 0; v < 5; v++) {
                            phi = -len * 0.1 * (si + so + ci + co) * (s[i].u[v] - s[o].u[v]);
                            for (int a = 0; a < 3; a++)
                                phi += 0.5 * nv[a] * (Fi[v][a] + Fo[v][a]);
                            r[i].u[v] += phi;
                            r[o].u[v] -= phi;
                        }
                    } else if (o == CFD_WALL) {
                        for (int a = 0; a < 3; a++)
                            r[i].u[1 + a] += nv[a] * pi;
                    } else if (o == CFD_FAR_FIELD) {
                        double Ff[5][3], pf, cf, sf;
                        physics(ff, Ff, &pf, &cf, &sf);
                        for (int v = 0; v < 5; v++)
                            for (int a = 0; a < 3; a++)
                                r[i].u[v] += 0.5 * nv[a] * (Fi[v][a] + Ff[v][a]);
                    }
                }
            }
            for (uint64_t i = 0; i < n; i++)
                for (int v = 0; v < 5; v++)
                    s[i].u[v] = old[i].u[v] + dt[i] / (4 - stage) * r[i].u[v];
        }
    }
    free(old);
    free(r);
    free(dt);
}

static void reference_matches_face_based_solver(void)
{
    struct cfd_mesh m;
    struct st5 *s;
    double *var, worst = 0, moved = 0;
    uint64_t n;
    CHECK(mesh_of(&m, 2000, 1) == 0);
    n = m.n;
    s = malloc(n * sizeof *s);
    var = malloc(n * CFD_NVAR * sizeof *var);
    CHECK(s && var);
    face_based_solve(&m, 6, s);
    CHECK(cfd_cpu_solve_d(&m, 6, var) == 0);
    for (uint64_t i = 0; i < n; i++)
        for (int v = 0; v < CFD_NVAR; v++) {
            double a = var[cfd_var_at(n, i, v)], b = s[i].u[v];
            double ff = v == 0 ? 1.4 : v == 1 ? 1.68 : v == 4 ? 3.508 : 0;
            if (fabs(a - b) > worst)
                worst = fabs(a - b);
            if (fabs(b - ff) > moved)
                moved = fabs(b - ff);
        }
    CHECKF(worst < 1e-12, "the two solvers differ by %g", worst);
    CHECKF(moved > 1e-2, "the flow moved only %g in 6 iterations", moved); /* not vacuous */
    free(s);
    free(var);
    cfd_mesh_free(&m);
}

/* The kernels' float code, run on the CPU, against the double reference:
 * inside the tolerance with room to spare, while a state one iteration
 * behind or a perturbed element is outside it. */
static void float_solver_within_tolerance_of_reference(void)
{
    const uint64_t iters = 20;
    struct cfd_mesh m;
    float *vf, *behind;
    double *vd, worst = 0, x, y;
    struct wl_wrong w = {0};
    uint64_t n;
    CHECK(mesh_of(&m, 4096, 1) == 0);
    n = m.n;
    vf = malloc(n * CFD_NVAR * sizeof *vf);
    behind = malloc(n * CFD_NVAR * sizeof *behind);
    vd = malloc(n * CFD_NVAR * sizeof *vd);
    CHECK(vf && behind && vd);
    CHECK(cfd_cpu_solve_f(&m, iters, vf) == 0 && cfd_cpu_solve_d(&m, iters, vd) == 0);
    for (uint64_t k = 0; k < n * CFD_NVAR; k++) {
        double e = fabs(vf[k] - vd[k]) / cfd_tol(iters, vd[k]);
        worst = e > worst ? e : worst;
    }
    CHECKF(worst > 0 && worst < 0.1, "float error is %g of the tolerance", worst);
    CHECK_EQ_INT(cfd_check(&m, vf, iters, &w), 0);
    CHECK(w.bad == 0 && w.total == n && !strcmp(w.err, "rel") && w.max_err > 0 &&
          w.max_err < 0.1 * cfd_tol(iters, 0));
    CHECK(cfd_cpu_solve_f(&m, iters - 1, behind) == 0);
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(cfd_check(&m, behind, iters, &w), 1);
    CHECK_MSG(gpm_last_error(), "after 20 iterations");
    CHECKF(w.bad > 0 && w.bad <= n && !strcmp(w.units, "elements"), "%llu of %llu",
           (unsigned long long)w.bad, (unsigned long long)w.total);
    vf[cfd_var_at(n, 777, CFD_ENERGY)] += 1e-3f;
    vf[cfd_var_at(n, 900, CFD_MOMENTUM + 1)] += 1e-3f;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(cfd_check(&m, vf, iters, &w), 1);
    CHECK_MSG(gpm_last_error(), "element 777 after 20 iterations: energy");
    /* Both elements counted; the largest error about 1e-3 / (1 + |want|). */
    x = vd[cfd_var_at(n, 777, CFD_ENERGY)];
    y = vd[cfd_var_at(n, 900, CFD_MOMENTUM + 1)];
    CHECKF(w.bad == 2 && w.total == n &&
           fabs(w.max_err - fmax(1e-3 / (1 + fabs(x)), 1e-3 / (1 + fabs(y)))) < 1e-4,
           "%llu of %llu, max %g", (unsigned long long)w.bad, (unsigned long long)w.total,
           w.max_err);
    vf[cfd_var_at(n, 777, CFD_ENERGY)] -= 1e-3f;
    vf[cfd_var_at(n, 900, CFD_MOMENTUM + 1)] -= 1e-3f;
    vf[cfd_var_at(n, 5, CFD_DENSITY)] = NAN;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(cfd_check(&m, vf, iters, &w), 1);
    CHECK_MSG(gpm_last_error(), "element 5 ");
    CHECK(w.bad == 1 && isinf(w.max_err));
    free(vf);
    free(behind);
    free(vd);
    cfd_mesh_free(&m);
}

static void record_and_schedule(void)
{
    cfd_meta m;
    CHECK_EQ_INT(sizeof m, 128);
    memset(&m, 0, sizeof m);
    m.magic = CFD_META_MAGIC;
    m.n = 4096;
    m.seed = 2;
    m.iters = 20;
    m.every = 5;
    m.mesh_hash = 77;
    m.iters_done = 10;
    CHECK(cfd_meta_matches(&m, 4096, 2, 20, 5, 77));
    CHECK(!cfd_meta_matches(&m, 4097, 2, 20, 5, 77));
    CHECK(!cfd_meta_matches(&m, 4096, 3, 20, 5, 77));
    CHECK(!cfd_meta_matches(&m, 4096, 2, 21, 5, 77));
    CHECK(!cfd_meta_matches(&m, 4096, 2, 20, 4, 77));
    CHECK(!cfd_meta_matches(&m, 4096, 2, 20, 5, 78));
    m.iters_done = 21;
    CHECK(!cfd_meta_matches(&m, 4096, 2, 20, 5, 77));
    m.iters_done = 10;
    m.magic ^= 1;
    CHECK(!cfd_meta_matches(&m, 4096, 2, 20, 5, 77));
    CHECK(wl_checkpoint_due(10, 5000, 10) && !wl_checkpoint_due(11, 5000, 10) &&
          wl_checkpoint_due(23, 23, 10) && wl_checkpoint_due(1, 3, 1));
}

int main(void)
{
    RUN(free_stream_by_hand);
    RUN(uniform_free_stream_stays_uniform);
    RUN(conservation_on_a_closed_mesh);
    RUN(reference_matches_face_based_solver);
    RUN(float_solver_within_tolerance_of_reference);
    RUN(record_and_schedule);
    CHECK_EXIT();
}
