/* The mesh generator: tetrahedra in Rodinia's layout around the front of a
 * missile.
 *
 * A box of NX x NY x NZ cubes (NX = 2 NY, NY = NZ), each cut into the 6
 * tetrahedra of the Kuhn subdivision (one per order in which a path from
 * the cube's low corner to its high corner takes the three axes), which
 * tile the box conformingly. Cubes inside a cylinder along x, from a
 * quarter of the box to its downstream end, are left out: the body, whose
 * faces are walls. It runs out of the box, so the flow leaves the box
 * along it and the far field never meets a wake: a blunt base inside the
 * box makes a slow, reversed wake that the far-field faces (which take the
 * free stream as their neighbour) drive unstable within a few thousand
 * iterations. Vertices
 * are jittered by up to a tenth of the spacing, so volumes and normals
 * vary as in a real mesh; no tetrahedron can invert (its smallest height
 * is 0.71 spacings, a face and its opposite vertex move by at most 0.35).
 * Neighbours follow from the subdivision itself (see nb_of), and both
 * sides of a face compute its normal from the same three vertices in the
 * same order, so one is exactly the negative of the other. */
#include <stdlib.h>
#include <string.h>

#include "cfd_mesh.h"
#include "gpm/gpm.h"

/* Spacing of the cubes. The scheme's step is 0.5 sqrt(vol) / (|v| + c),
 * so its stability depends on the absolute size of the elements (Rodinia's
 * missile mesh is in its own units): this spacing keeps the generated
 * meshes well inside the stable range (README: "Input"). */
#define GEN_H 0.01
#define GEN_JITTER 0.1

static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
/* The orientation of tetrahedron P (the parity of its axis order): its
 * vertices in tet_vertices' order span a positive volume times this. */
static const int parity[6] = {1, -1, -1, 1, 1, -1};

static int perm_index(int a, int b, int c)
{
    for (int p = 0; p < 6; p++)
        if (perms[p][0] == a && perms[p][1] == b && perms[p][2] == c)
            return p;
    return -1;
}

struct grid {
    int64_t nx, ny, nz;
    double r2;  /* squared radius of the body, in cells */
    int body;
    uint64_t seed;
};

static int in_body(const struct grid *g, int64_t ix, int64_t iy, int64_t iz)
{
    double y = (double)iy + 0.5 - (double)g->ny / 2, z = (double)iz + 0.5 - (double)g->nz / 2;
    return g->body && ix >= g->nx / 4 && y * y + z * z <= g->r2;
}

static struct grid grid_of(int64_t m, int body, uint64_t seed)
{
    struct grid g = {2 * m, m, m, 0, body, seed};
    double r = (double)m / 8 > 0.75 ? (double)m / 8 : 0.75;
    g.r2 = r * r;
    return g;
}

static int64_t cubes_kept(const struct grid *g)
{
    int64_t k = 0;
    for (int64_t ix = 0; ix < g->nx; ix++)
        for (int64_t iy = 0; iy < g->ny; iy++)
            for (int64_t iz = 0; iz < g->nz; iz++)
                k += !in_body(g, ix, iy, iz);
    return k;
}

static int64_t cube_id(const struct grid *g, int64_t ix, int64_t iy, int64_t iz)
{
    return (ix * g->ny + iy) * g->nz + iz;
}

/* Position of lattice vertex (I, J, K), jittered from the seed. */
static void vertex(const struct grid *g, const int64_t v[3], double out[3])
{
    uint64_t id = (uint64_t)((v[0] * (g->ny + 1) + v[1]) * (g->nz + 1) + v[2]);
    for (int a = 0; a < 3; a++)
        out[a] = GEN_H * ((double)v[a] +
                          2 * GEN_JITTER * ((double)wl_unit_f32(g->seed, 3 * id + (uint64_t)a) - 0.5));
}

static uint64_t vertex_id(const struct grid *g, const int64_t v[3])
{
    return (uint64_t)((v[0] * (g->ny + 1) + v[1]) * (g->nz + 1) + v[2]);
}

/* The 4 lattice vertices of tetrahedron P of cube C: low corner, one step
 * along perms[p][0], then along perms[p][1], then the high corner. */
static void tet_vertices(const int64_t c[3], int p, int64_t v[4][3])
{
    for (int a = 0; a < 3; a++)
        v[0][a] = v[3][a] = c[a];
    for (int a = 0; a < 3; a++)
        v[3][a]++;
    memcpy(v[1], v[0], sizeof v[0]);
    v[1][perms[p][0]]++;
    memcpy(v[2], v[1], sizeof v[1]);
    v[2][perms[p][1]]++;
}

/* The neighbour across the face opposite vertex K of tetrahedron P of cube
 * C: its cube in D and its tetrahedron as the return value. Opposite the
 * low corner it is the next cube along the first axis, opposite the high
 * corner the previous one along the last axis (the axis order rotated);
 * opposite the middle vertices it is in the same cube, with two
 * consecutive axes swapped. */
static int nb_of(const int64_t c[3], int p, int k, int64_t d[3])
{
    const int *s = perms[p];
    memcpy(d, c, 3 * sizeof *d);
    switch (k) {
    case 0: d[s[0]]++; return perm_index(s[1], s[2], s[0]);
    case 1: return perm_index(s[1], s[0], s[2]);
    case 2: return perm_index(s[0], s[2], s[1]);
    default: d[s[2]]--; return perm_index(s[2], s[0], s[1]);
    }
}

static void sub(const double a[3], const double b[3], double o[3])
{
    for (int k = 0; k < 3; k++)
        o[k] = a[k] - b[k];
}

static void cross(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Face K of the tetrahedron with lattice vertices V: its normal scaled by
 * its area, pointing into the tetrahedron. Computed from the face's
 * vertices sorted by id, so the neighbour gets the exact negative. */
static void inward_normal(const struct grid *g, int64_t v[4][3], int k, double nv[3])
{
    const int64_t *f[3];
    double p[3][3], opp[3], e1[3], e2[3], to[3];
    int m = 0;
    for (int q = 0; q < 4; q++)
        if (q != k)
            f[m++] = v[q];
    for (int a = 0; a < 3; a++) /* sort the three by vertex id */
        for (int b = a + 1; b < 3; b++)
            if (vertex_id(g, f[b]) < vertex_id(g, f[a])) {
                const int64_t *t = f[a];
                f[a] = f[b];
                f[b] = t;
            }
    for (int a = 0; a < 3; a++)
        vertex(g, f[a], p[a]);
    vertex(g, v[k], opp);
    sub(p[1], p[0], e1);
    sub(p[2], p[0], e2);
    cross(e1, e2, nv);
    for (int a = 0; a < 3; a++)
        nv[a] *= 0.5;
    sub(opp, p[0], to);
    if (dot(nv, to) < 0)
        for (int a = 0; a < 3; a++)
            nv[a] = -nv[a];
}

/* Positive unless the jitter inverted the tetrahedron (it cannot). */
static double volume(const struct grid *g, int64_t v[4][3], int perm)
{
    double p[4][3], a[3], b[3], c[3], x[3];
    for (int q = 0; q < 4; q++)
        vertex(g, v[q], p[q]);
    sub(p[1], p[0], a);
    sub(p[2], p[0], b);
    sub(p[3], p[0], c);
    cross(a, b, x);
    return parity[perm] * dot(x, c) / 6;
}

int cfd_mesh_generate(struct cfd_mesh *m, const struct cfd_gen *gen)
{
    uint64_t n = gen->elements, i = 0;
    int64_t size = 1, ncubes;
    int32_t *slot;
    struct grid g;

    memset(m, 0, sizeof *m);
    if (n < 1 || n > (uint64_t)CFD_MAX_ELEMENTS)
        return gpm_set_error("--elements: %llu is out of range: pass 1..%lld",
                             (unsigned long long)n, CFD_MAX_ELEMENTS);
    for (;; size++) { /* the smallest box that holds N tetrahedra */
        g = grid_of(size, gen->body, gen->seed);
        if (6 * (uint64_t)cubes_kept(&g) >= n)
            break;
    }
    ncubes = g.nx * g.ny * g.nz;
    /* Which element each tetrahedron of the box became: the first N kept
     * ones from the downstream end, layer by layer, so that the layer cut
     * short is the inflow one, where the flow is the free stream its
     * far-field faces assume; the body's are walls, the rest far field. */
    slot = malloc((size_t)ncubes * 6 * sizeof *slot);
    if (!slot || cfd_mesh_alloc(m, n) != 0) {
        free(slot);
        return gpm_set_error("cfd: out of memory generating a mesh of %llu elements: pass a "
                             "smaller --elements", (unsigned long long)n);
    }
    for (int64_t ix = g.nx - 1; ix >= 0; ix--)
        for (int64_t iy = 0; iy < g.ny; iy++)
            for (int64_t iz = 0; iz < g.nz; iz++)
                for (int p = 0; p < 6; p++) {
                    int32_t *s = &slot[cube_id(&g, ix, iy, iz) * 6 + p];
                    if (in_body(&g, ix, iy, iz))
                        *s = CFD_WALL;
                    else
                        *s = i < n ? (int32_t)i++ : CFD_FAR_FIELD;
                }
    for (int64_t id = 0; id < ncubes * 6; id++) {
        int64_t c[3] = {id / 6 / (g.ny * g.nz), id / 6 / g.nz % g.ny, id / 6 % g.nz};
        int64_t v[4][3];
        int p = (int)(id % 6);
        uint64_t e;
        if (slot[id] < 0)
            continue;
        e = (uint64_t)slot[id];
        tet_vertices(c, p, v);
        m->vol[e] = (float)volume(&g, v, p);
        for (int k = 0; k < CFD_NNB; k++) {
            int64_t d[3];
            int q = nb_of(c, p, k, d);
            double nv[3];
            int out = d[0] < 0 || d[0] >= g.nx || d[1] < 0 || d[1] >= g.ny || d[2] < 0 ||
                      d[2] >= g.nz;
            m->nb[cfd_nb_at(n, e, k)] =
                out ? CFD_FAR_FIELD : slot[cube_id(&g, d[0], d[1], d[2]) * 6 + q];
            inward_normal(&g, v, k, nv);
            for (int a = 0; a < 3; a++)
                m->normal[cfd_normal_at(n, e, k, a)] = (float)nv[a];
        }
    }
    free(slot);
    m->hash = cfd_mesh_hash(m);
    return 0;
}
