/* HS in every mode: Rodinia HotSpot's pyramid calls with the temperatures
 * checkpointed every K calls through the harness's checkpoint object
 * (gpmcp, the mode's way), and recovery from the last consistent
 * checkpoint. BLK is the model; this file differs only in what it steps. */
#include <stdlib.h>
#include <string.h>

#include "hs.h"

/* Cells x steps up to which verify also runs the CPU reference (tiny). */
#define HS_CPU_CHECK_MAX (1ull << 25)
/* Cells the CUDA grid and device memory allow: 4 GB per grid. */
#define HS_MAX_CELLS (1ull << 30)

static const struct wl_param hs_params[] = {
    {.flag = "rows", .help = "grid rows", .sizes = 1, .scale = {512, 4096, 16384}, .min = 1,
     .max = 65536},
    {.flag = "cols", .help = "grid columns", .sizes = 1, .scale = {512, 4096, 16384},
     .min = 1, .max = 65536},
    {.flag = "iterations", .help = "time steps", .scale = {40, 400, 4000}, .min = 1,
     .max = 100000000},
    {.flag = "pyramid-height", .help = "steps per kernel call (a block steps its tile and "
     "halo)", .scale = {2, 4, 4}, .min = 1, .max = HS_MAX_HEIGHT},
    {.flag = "checkpoint-every", .help = "checkpoint after every K kernel calls (and after "
     "the last)", .scale = {2, 10, 10}, .min = 1, .max = 100000000},
    {.flag = "input", .help = "gen (a chip generated from the seed), Rodinia's temp file (its "
     "power file beside it), or TEMP,POWER", .type = WL_STR, .sscale = {"gen", "gen", "gen"},
     .sizes = 1},
    {0},
};

static const struct wl_obj_decl hs_objects[] = {
    [HS_TEMP] = {"temp", WL_OBJ_CHECKPOINT},
    {NULL, WL_OBJ_REGION},
};

static struct hs_state *S(struct wl_ctx *c) { return c->priv; }

static int hs_layout(struct wl_ctx *c)
{
    uint64_t rows = (uint64_t)wl_int(c, "rows"), cols = (uint64_t)wl_int(c, "cols");
    uint64_t iters = (uint64_t)wl_int(c, "iterations");
    uint64_t k = (uint64_t)wl_int(c, "checkpoint-every");
    uint64_t calls = hs_calls(iters, (int)wl_int(c, "pyramid-height"));
    const char *input = wl_str(c, "input");
    double bytes;
    if (rows * cols > HS_MAX_CELLS)
        return gpm_set_error("--rows/--cols: %llu x %llu cells exceed %llu: pass a smaller grid",
                             (unsigned long long)rows, (unsigned long long)cols,
                             HS_MAX_CELLS);
    if (strcmp(input, "gen") != 0) {
        char t[4096], p[4096];
        if (hs_input_files(input, t, p, sizeof t) != 0)
            return -1;
    }
    wl_obj_checkpoint(c, HS_TEMP, rows * cols * sizeof(float) + sizeof(hs_meta), 2);
    c->data_bytes = rows * cols * sizeof(float);
    c->calib_bytes = c->data_bytes;
    /* For --kill random: on the fast side (a call moves about 16
     * bytes a cell at 2 TB/s, a checkpoint goes at 45 GB/s), so a random
     * kill lands inside the run in the fast modes and in its first part in
     * slower ones. */
    bytes = (double)c->data_bytes;
    c->expected_s = (double)calls * (4.0 * bytes / 2e12 + 10e-6) +
                    (double)((calls + k - 1) / k) * bytes / 45e9 + 0.005;
    return 0;
}

/* The record of this run at call 0 (what a checkpoint must match). */
static hs_meta meta_of(struct wl_ctx *c)
{
    struct hs_state *st = S(c);
    hs_meta m;
    memset(&m, 0, sizeof m);
    m.magic = HS_META_MAGIC;
    m.rows = st->rows;
    m.cols = st->cols;
    m.seed = wl_seed(c);
    m.iters = st->iters;
    m.height = (uint64_t)st->height;
    m.input = st->in.fingerprint;
    return m;
}

/* The state at step 0: the initial temperatures, no call done. */
static int initial_state(struct wl_ctx *c)
{
    S(c)->meta = meta_of(c);
    S(c)->cur = S(c)->d_temp;
    return wl_dev_copy_within(S(c)->d_temp, S(c)->d_init, S(c)->cells * sizeof(float));
}

static int hs_setup(struct wl_ctx *c)
{
    struct hs_state *st = S(c);
    size_t b;
    st->rows = (uint64_t)wl_int(c, "rows");
    st->cols = (uint64_t)wl_int(c, "cols");
    st->cells = st->rows * st->cols;
    st->iters = (uint64_t)wl_int(c, "iterations");
    st->height = (int)wl_int(c, "pyramid-height");
    st->calls = hs_calls(st->iters, st->height);
    st->every = (uint64_t)wl_int(c, "checkpoint-every");
    st->coef = hs_coef_make(st->rows, st->cols);
    b = st->cells * sizeof(float);
    if (hs_input_load(wl_str(c, "input"), st->rows, st->cols, wl_seed(c), &st->in) != 0 ||
        wl_dev_alloc((void **)&st->d_power, b) || wl_dev_alloc((void **)&st->d_init, b) ||
        wl_dev_alloc((void **)&st->d_temp, b) || wl_dev_alloc((void **)&st->d_scratch, b) ||
        wl_dev_alloc((void **)&st->d_check, sizeof *st->d_check) ||
        wl_dev_copy(st->d_power, st->in.power, b, 1) ||
        wl_dev_copy(st->d_init, st->in.temp, b, 1))
        return -1;
    /* The host grids stay only where the CPU reference will check. */
    if (st->cells * st->iters > HS_CPU_CHECK_MAX)
        hs_input_free(&st->in);
    return wl_cp_register(c, HS_TEMP, st->d_temp, b) ||
                   wl_cp_register_record(c, HS_TEMP, &st->meta, sizeof st->meta)
               ? -1
               : 0;
}

static int hs_prepare(struct wl_ctx *c)
{
    return initial_state(c);
}

/* One kernel call: `height` steps from the current buffer into the other.
 * A checkpoint needs the state in d_temp (the registered buffer): after an
 * odd run of calls before_checkpoint copies it back. */
static int call(struct wl_ctx *c, uint64_t k)
{
    struct hs_state *st = S(c);
    float *next = st->cur == st->d_temp ? st->d_scratch : st->d_temp;
    if (hs_gpu_call(st->d_power, st->cur, next, st->rows, st->cols, st->height,
                    hs_call_steps(st->iters, st->height, k), st->coef) != 0)
        return -1;
    st->cur = next;
    return 0;
}

static int state_in_d_temp(struct wl_ctx *c, uint64_t from, uint64_t to)
{
    struct hs_state *st = S(c);
    (void)from, (void)to;
    if (st->cur == st->d_temp)
        return 0;
    st->cur = st->d_temp;
    return wl_dev_copy_within(st->d_temp, st->d_scratch, st->cells * sizeof(float));
}

/* The checkpoint's record must be this run's. */
static int record_check(struct wl_ctx *c)
{
    hs_meta want = meta_of(c), m = S(c)->meta;
    if (hs_meta_matches(&m, &want))
        return 0;
    return gpm_set_error("%s: checkpoint of another run (%llu x %llu, seed %llu, %llu "
                         "iterations, height %llu, input %016llx): pass the same --rows, "
                         "--cols, --iterations, --pyramid-height, --input and --seed to "
                         "recover it", wl_obj_path(c, HS_TEMP), (unsigned long long)m.rows,
                         (unsigned long long)m.cols, (unsigned long long)m.seed,
                         (unsigned long long)m.iters, (unsigned long long)m.height,
                         (unsigned long long)m.input);
}

/* A restored checkpoint's temperatures are in d_temp. */
static int restored(struct wl_ctx *c)
{
    S(c)->cur = S(c)->d_temp;
    return 0;
}

static struct wl_steps steps(struct wl_ctx *c)
{
    struct hs_state *st = S(c);
    struct wl_steps s = {.cp = HS_TEMP, .total = st->calls, .every = st->every,
                         .done = &st->meta.calls_done, .unit = "call", .step = call,
                         .before_checkpoint = state_in_d_temp, .record_check = record_check,
                         .after_restore = restored};
    return s;
}

static int hs_run(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_run(c, &s, 0);
}

/* Units of progress are kernel calls; the durable ones are those the
 * last checkpoint holds. */
static int hs_recover(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    return wl_steps_recover(c, &s, initial_state);
}

/* Verifies what is on PM: the last checkpoint must hold the finished run,
 * equal to the one-step float reference and close to the double one (on
 * the GPU; on the CPU too where that is quick). */
static int hs_verify(struct wl_ctx *c)
{
    struct hs_state *st = S(c);
    struct wl_steps s = steps(c);
    struct hs_check r;
    struct wl_wrong w = {.marks = 1}; /* the last checkpoint's record: right here */
    const struct hs_input *in = &st->in;
    double tb, tol, pabs;
    int rc = wl_steps_final(c, &s);
    if (rc != 0)
        return rc;
    pabs = in->pmax > -in->pmin ? in->pmax : -in->pmin;
    tb = hs_tbound(&st->coef, st->iters, in->tmin, in->tmax, in->pmin, in->pmax);
    tol = hs_tolerance(&st->coef, st->iters, tb, pabs);
    wl_note(c, "input_generated=%d,input_read=%s", in->generated, in->how);
    if (wl_check_digest(c, st->d_temp, st->cells * sizeof(float), 1) != 0)
        return -1;
    if ((rc = wl_check_known(c)) != 0)
        return rc < 0 ? -1 : 0; /* these temperatures passed the checks below before */
    rc = hs_gpu_check(st->d_temp, st->d_power, st->d_init, st->rows, st->cols, st->iters,
                      st->coef, tol, st->d_check, &r);
    if (rc == 1) {
        hs_check_wrong(&r, &w);
        wl_note_wrong(c, &w);
    }
    if (rc != 0)
        return rc;
    if (in->temp) {
        float *got = malloc(st->cells * sizeof *got);
        if (!got)
            return gpm_set_error("hs: out of memory for the CPU check");
        rc = wl_dev_copy(got, st->d_temp, st->cells * sizeof *got, 0) != 0
                 ? -1
                 : hs_cpu_check(&st->coef, in->power, in->temp, st->rows, st->cols, st->iters,
                                got, tol, &r);
        free(got);
        if (rc == 1) {
            hs_check_wrong(&r, &w);
            wl_note_wrong(c, &w);
        }
        if (rc != 0)
            return rc;
    }
    wl_note(c, "check=%s,maxerr=%.3g,tol=%.3g", in->temp ? "gpu+cpu" : "gpu", hs_check_maxerr(&r),
         tol);
    return wl_check_passed(c);
}

static void hs_teardown(struct wl_ctx *c)
{
    struct hs_state *st = S(c);
    hs_input_free(&st->in);
    wl_dev_free(st->d_power);
    wl_dev_free(st->d_init);
    wl_dev_free(st->d_temp);
    wl_dev_free(st->d_scratch);
    wl_dev_free(st->d_check);
}

const struct wl_workload WORKLOAD = {
    .name = "hs",
    .about = "Rodinia HotSpot: pyramid stencil calls with checkpointed temperatures (paper "
             "Table 1)",
    .modes = WL_MODES_GPU,
    .progress_by = WL_BY_COMMITS, /* a checkpoint is durable in every mode */
    .objects = hs_objects,
    .params = hs_params,
    .state_bytes = sizeof(struct hs_state),
    .layout = hs_layout,
    .setup = hs_setup,
    .prepare = hs_prepare,
    .run = hs_run,
    .recover = hs_recover,
    .verify = hs_verify,
    .teardown = hs_teardown,
};
