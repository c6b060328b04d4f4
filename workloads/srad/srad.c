/* SRAD in every mode: the descriptor the harness drives, which kernels
 * write where, and the per-iteration completion records that recovery
 * resumes from. The harness gives each run its epoch and keeps the run's
 * identity; SRAD's own bookkeeping is the two records of srad_layout.h. */
#include <stdlib.h>
#include <string.h>

#include "srad.h"

/* Up to this many pixel-iterations the CPU reference verifies GPU runs
 * (small: 16M pixels x 20); beyond, the GPU reference does (paper scale's
 * 128M x 50 would take the CPU longer than the run). */
#define SRAD_CPU_CHECK_MAX (1ull << 30)

static const struct wl_param srad_params[] = {
    {.flag = "rows", .help = "image rows", .sizes = 1, .scale = {256, 16384, 131072},
     .min = 1, .max = 1ll << 24},
    {.flag = "cols", .help = "image columns", .sizes = 1, .scale = {256, 1024, 1024},
     .min = 1, .max = 1ll << 24},
    {.flag = "iters", .help = "diffusion iterations", .scale = {4, 20, 50}, .min = 1,
     .max = 1ll << 20},
    {.flag = "lambda", .help = "diffusion step (Rodinia's lambda)", .type = WL_FLOAT,
     .fscale = {0.5, 0.5, 0.5}, .fmin = 0, .fmax = 1},
    {.flag = "roi-r1", .help = "the ROI's first row", .scale = {0, 0, 0}, .min = 0,
     .max = (1ll << 24) - 1},
    {.flag = "roi-r2", .help = "the ROI's last row", .scale = {31, 31, 31}, .min = 0,
     .max = (1ll << 24) - 1},
    {.flag = "roi-c1", .help = "the ROI's first column", .scale = {0, 0, 0}, .min = 0,
     .max = (1ll << 24) - 1},
    {.flag = "roi-c2", .help = "the ROI's last column", .scale = {31, 31, 31}, .min = 0,
     .max = (1ll << 24) - 1},
    {0},
};

static const struct wl_obj_decl srad_objects[] = {
    [SRAD_PM] = {"image", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static struct srad_state *S(struct wl_ctx *c) { return c->priv; }
static uint8_t *pm_host(struct wl_ctx *c) { return wl_region(c, SRAD_PM)->host; }
static const srad_record *pm_records(struct wl_ctx *c)
{
    return (const srad_record *)(pm_host(c) + srad_rec_off(0));
}

static srad_geom geom_of(const struct wl_ctx *c)
{
    srad_geom g;
    g.rows = (uint64_t)wl_int(c, "rows");
    g.cols = (uint64_t)wl_int(c, "cols");
    g.r1 = (uint64_t)wl_int(c, "roi-r1");
    g.r2 = (uint64_t)wl_int(c, "roi-r2");
    g.c1 = (uint64_t)wl_int(c, "roi-c1");
    g.c2 = (uint64_t)wl_int(c, "roi-c2");
    return g;
}

static int srad_layout(struct wl_ctx *c)
{
    srad_geom g = geom_of(c);
    uint64_t n = g.rows * g.cols, iters = (uint64_t)wl_int(c, "iters");
    if (g.r1 > g.r2 || g.r2 >= g.rows)
        return gpm_set_error("--roi-r1/--roi-r2: rows %llu..%llu are not inside the image's "
                             "%llu rows: pass roi-r1 <= roi-r2 < --rows",
                             (unsigned long long)g.r1, (unsigned long long)g.r2,
                             (unsigned long long)g.rows);
    if (g.c1 > g.c2 || g.c2 >= g.cols)
        return gpm_set_error("--roi-c1/--roi-c2: columns %llu..%llu are not inside the image's "
                             "%llu columns: pass roi-c1 <= roi-c2 < --cols",
                             (unsigned long long)g.c1, (unsigned long long)g.c2,
                             (unsigned long long)g.cols);
    if (n > (1ull << 32))
        return gpm_set_error("--rows/--cols: %llu x %llu pixels exceed 2^32 (16 GiB per "
                             "array): pass a smaller image", (unsigned long long)g.rows,
                             (unsigned long long)g.cols);
    wl_obj_region(c, SRAD_PM, srad_file_bytes(n));
    c->data_bytes = 4 * n * sizeof(float); /* two images, two coefficient arrays */
    c->calib_bytes = 2 * n * sizeof(float); /* what one iteration persists */
    /* For --kill random: on the fast side (an iteration's persist at
     * about 50 GB/s, PCIe 5's rate, plus a few launches), so that a random
     * kill lands inside the run in the fast modes and in its first part in
     * slower ones. */
    c->expected_s = (double)iters * ((double)c->calib_bytes / 50e9 + 2e-4) + 0.005;
    return 0;
}

static int srad_setup(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    size_t b, roi;
    st->g = geom_of(c);
    st->n = st->g.rows * st->g.cols;
    st->iters = (uint64_t)wl_int(c, "iters");
    st->step = srad_step((float)wl_float(c, "lambda"));
    b = st->n * sizeof(float);
    roi = 2 * srad_roi_rows(&st->g) * sizeof(double);
    st->h_j0 = malloc(b);
    if (!st->h_j0)
        return gpm_set_error("srad: cannot allocate %zu bytes for the input image: use a "
                             "smaller --scale", b);
    srad_cpu_generate(st->h_j0, st->n, wl_seed(c));
    if (!c->m->needs_gpu) {
        st->h_roi = malloc(roi);
        for (int u = 0; u < 4; u++)
            st->h_dir[u] = malloc(b);
        if (!st->h_roi || !st->h_dir[0] || !st->h_dir[1] || !st->h_dir[2] || !st->h_dir[3])
            return gpm_set_error("srad: cannot allocate %zu bytes for the derivatives: use a "
                                 "smaller --scale", 4 * b);
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_j, b) != 0 || wl_dev_alloc((void **)&st->d_c, b) != 0 ||
        wl_dev_alloc((void **)&st->d_roi, roi) != 0 ||
        wl_dev_alloc((void **)&st->d_q0, sizeof(float)) != 0)
        return -1;
    for (int u = 0; u < 4; u++)
        if (wl_dev_alloc((void **)&st->d_dir[u], b) != 0)
            return -1;
    return 0;
}

/* Every repetition starts from the input image. */
static int srad_prepare(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    return c->m->needs_gpu ? wl_dev_copy(st->d_j, st->h_j0, st->n * sizeof(float), 1) : 0;
}

/* Iteration ITER on the GPU: the kernels write device memory, and the PM
 * slot where the mode's kernels write PM; then the mode's commit. */
static int gpu_iteration(struct wl_ctx *c, uint64_t iter)
{
    struct srad_state *st = S(c);
    uint32_t slot = srad_slot(iter);
    size_t bytes = st->n * sizeof(float);
    uint64_t joff = srad_image_off(st->n, slot), coff = srad_coef_off(st->n, slot);
    uint8_t *dev = wl_region(c, SRAD_PM)->dev;
    float *pm_j = c->m->kernels_write_pm ? (float *)(dev + joff) : NULL;
    float *pm_c = c->m->kernels_write_pm ? (float *)(dev + coff) : NULL;
    /* CAP modes copy these device arrays; gpm-ndp flushes what the
     * kernels stored at the same offsets; gpm and gpm-eadr persisted
     * in-kernel (wl_commit does nothing). */
    gpm_range v[2] = {{joff, bytes, st->d_j}, {coff, bytes, st->d_c}};
    if (wl_persist_begin(c) != 0)
        return -1;
    if (srad_gpu_q0sqr(st->d_j, st->g, st->d_roi, st->d_q0) != 0 ||
        srad_gpu_coef(st->d_j, st->g, st->d_q0, st->d_dir, st->d_c, pm_c, wl_out_of(c)) != 0 ||
        srad_gpu_update(st->d_j, st->g, st->step, st->d_dir, st->d_c, pm_j, wl_out_of(c)) != 0) {
        wl_persist_end(c);
        return -1;
    }
    if (wl_persist_end(c) != 0)
        return -1;
    return wl_commit(c, SRAD_PM, v, 2);
}

/* Iterations FROM+1..iters of epoch c->epoch, each followed by its record
 * once its image and coefficients are durable. */
static int iterate(struct wl_ctx *c, uint64_t from)
{
    struct srad_state *st = S(c);
    st->computed = 0;
    for (uint64_t t = from + 1; t <= st->iters; t++) {
        srad_record rec = srad_record_make(c->epoch, t, st->g.rows, st->g.cols);
        if (!c->m->needs_gpu) {
            const float *in = t == 1 ? st->h_j0
                                     : (const float *)(pm_host(c) +
                                                       srad_image_off(st->n, srad_slot(t - 1)));
            if (srad_cpu_iteration(c, st, in, t) != 0)
                return -1;
        } else if (gpu_iteration(c, t) != 0) {
            return -1;
        }
        if (wl_pm_write(c, SRAD_PM, srad_rec_off(srad_slot(t)), &rec, sizeof rec) != 0)
            return -1;
        wl_progress_add(c, 1); /* the iteration is durable */
        st->computed++;
    }
    return 0;
}

static int srad_run(struct wl_ctx *c)
{
    return iterate(c, 0);
}

static uint64_t durable_iters(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    return srad_durable_iters(pm_records(c), c->epoch, st->g.rows, st->g.cols, st->iters);
}

/* Resumes the interrupted epoch after its last complete iteration: the
 * image of that iteration comes back from PM (the input if there is
 * none), and only the later iterations are computed. */
static int srad_recover(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    uint64_t done = durable_iters(c);
    int rc = 0;
    c->progress.total = st->iters;
    c->progress.durable = done;
    if (done < st->iters && c->m->needs_gpu) {
        const float *from = done == 0 ? st->h_j0
                                      : (const float *)(pm_host(c) +
                                                        srad_image_off(st->n, srad_slot(done)));
        rc = wl_dev_copy(st->d_j, from, st->n * sizeof(float), 1);
    }
    if (rc == 0)
        rc = iterate(c, done);
    c->progress.redone = st->computed;
    wl_note(c, "resumed_from_iter=%llu", (unsigned long long)done);
    return rc;
}

/* The final slot against the reference: the CPU's at small sizes and in
 * cpu mode, the GPU's beyond (the row's params say which). The pixels are
 * compared whatever the iteration record says; a record short of the end
 * is a failure of its own, named first. */
static int srad_verify(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    uint64_t done = durable_iters(c), n = st->n;
    uint32_t slot = srad_slot(st->iters);
    const float *pm_j = (const float *)(pm_host(c) + srad_image_off(n, slot));
    const float *pm_c = (const float *)(pm_host(c) + srad_coef_off(n, slot));
    int on_gpu = c->m->needs_gpu && n * st->iters > SRAD_CPU_CHECK_MAX, rc;
    struct wl_wrong w = {.marks_bad = done != st->iters, .marks = 1};
    float *ref_j, *ref_c;
    double dj = 0, dc = 0;
    ref_j = malloc(n * sizeof *ref_j);
    ref_c = malloc(n * sizeof *ref_c);
    if (!ref_j || !ref_c) {
        free(ref_j);
        free(ref_c);
        gpm_set_error("srad: out of memory for the verification");
        return -1;
    }
    rc = on_gpu ? srad_gpu_reference(st->h_j0, st->g, st->step, st->iters, ref_j, ref_c)
                : srad_ref_run(&st->g, st->step, st->h_j0, st->iters, ref_j, ref_c);
    if (rc == 0)
        rc = srad_check(pm_j, pm_c, ref_j, ref_c, &st->g, st->iters, &dj, &dc, &w);
    free(ref_j);
    free(ref_c);
    if (rc >= 0 && done != st->iters) {
        gpm_set_error("srad: the last complete iteration on PM is %llu of %llu",
                      (unsigned long long)done, (unsigned long long)st->iters);
        rc = 1;
    }
    if (rc < 0)
        return rc;
    wl_note(c, "check=%s,max_dj=%.2g,max_dc=%.2g", on_gpu ? "gpu" : "cpu", dj, dc);
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void srad_teardown(struct wl_ctx *c)
{
    struct srad_state *st = S(c);
    free(st->h_j0);
    free(st->h_roi);
    wl_dev_free(st->d_j); /* all NULL in cpu mode */
    wl_dev_free(st->d_c);
    wl_dev_free(st->d_roi);
    wl_dev_free(st->d_q0);
    for (int u = 0; u < 4; u++) {
        free(st->h_dir[u]);
        wl_dev_free(st->d_dir[u]);
    }
}

const struct wl_workload WORKLOAD = {
    .name = "srad",
    .about = "speckle-reducing anisotropic diffusion, every iteration persisted and resumable "
             "(paper Table 1)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    /* Every mode persists each iteration before its record (CAP and NDP
     * with one commit per iteration), so every mode resumes. */
    .progress_by = WL_BY_COMMITS,
    .sbrp = 1, /* dFences at the kernels' ends instead of a persist per 16 bytes */
    .objects = srad_objects,
    .params = srad_params,
    .state_bytes = sizeof(struct srad_state),
    .layout = srad_layout,
    .setup = srad_setup,
    .prepare = srad_prepare,
    .run = srad_run,
    .recover = srad_recover,
    .verify = srad_verify,
    .teardown = srad_teardown,
};
