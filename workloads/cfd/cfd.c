/* CFD in every mode: Rodinia's euler3d iterations with the state
 * checkpointed every K iterations through the harness's checkpoint object
 * (gpmcp, the mode's way), and recovery from the last consistent
 * checkpoint. The mesh is generated, or read from a file through a cache. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfd.h"

_Static_assert(sizeof(cfd_meta) == 128, "the checkpointed record is 128 bytes");

/* Above this many element-iterations the reference runs on the GPU: the
 * CPU's double solver costs about 0.6 us per element-iteration and core,
 * so small scale (97K x 500) checks in seconds on a 16-core host and paper
 * scale (232536 x 5000) would take minutes. */
#define CFD_CPU_CHECK_WORK 1e8

static const struct wl_param cfd_params[] = {
    {.flag = "mesh", .help = "mesh in Rodinia's format (a file, or a name in the dataset "
     "directory: missile.domn.0.2M, fvcorr.domn.097K, ...), or gen", .type = WL_STR,
     .sizes = 1, .sscale = {"gen", "gen", "gen"}},
    {.flag = "elements", .help = "elements of the generated mesh (paper: the missile mesh's)",
     .sizes = 1, .scale = {4096, 97000, 232536}, .min = 64, .max = CFD_MAX_ELEMENTS},
    {.flag = "iters", .help = "solver iterations", .scale = {20, 500, 5000}, .min = 1,
     .max = 100000000},
    {.flag = "checkpoint-every", .help = "checkpoint after every K iterations (and after the "
     "last)", .scale = {5, 10, 10}, .min = 1, .max = 100000000},
    {0},
};

static const struct wl_obj_decl cfd_objects[] = {
    [CFD_STATE] = {"state", WL_OBJ_CHECKPOINT},
    {NULL, WL_OBJ_REGION},
};

static struct cfd_state *S(struct wl_ctx *c) { return c->priv; }

static size_t state_bytes(uint64_t n) { return n * CFD_NVAR * sizeof(float); }

/* A bare name that is not a file here is looked up in the dataset
 * directory, where datasets/fetch.sh puts Rodinia's meshes. */
static const char *mesh_path(const char *name, char *buf, size_t len)
{
    struct stat st;
    const char *dir;
    if (strchr(name, '/') || stat(name, &st) == 0 || !(dir = wl_data_dir()))
        return name;
    snprintf(buf, len, "%s/%s", dir, name);
    return stat(buf, &st) == 0 ? buf : name;
}

static int load_mesh(struct wl_ctx *c, struct cfd_state *st)
{
    const char *name = wl_str(c, "mesh"), *dir, *path, *base;
    char buf[4096];
    enum cfd_cache_state cs;
    if (strcmp(name, "gen") == 0) {
        struct cfd_gen g = {(uint64_t)wl_int(c, "elements"), wl_seed(c), 1};
        st->mesh_src = "generated";
        snprintf(st->mesh_name, sizeof st->mesh_name, "gen");
        return cfd_mesh_generate(&st->mesh, &g);
    }
    if (wl_given(c, "elements"))
        return gpm_set_error("--elements: sizes a generated mesh only: drop it, or pass "
                             "--mesh gen");
    path = mesh_path(name, buf, sizeof buf);
    if (!(dir = wl_data_dir()) || cfd_mesh_load(&st->mesh, path, dir, &cs) != 0)
        return -1;
    st->mesh_src = "file";
    st->cache = cs == CFD_CACHE_HIT ? "hit" : cs == CFD_CACHE_BUILT ? "built" : "rebuilt";
    base = strrchr(path, '/');
    snprintf(st->mesh_name, sizeof st->mesh_name, "%.63s", base ? base + 1 : path);
    return 0;
}

/* The mesh is read here, untimed, because the checkpoint's size depends on
 * it; teardown frees it. */
static int cfd_layout(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    uint64_t n, iters = (uint64_t)wl_int(c, "iters"), k = (uint64_t)wl_int(c, "checkpoint-every");
    st->iters = iters;
    st->every = k;
    if (load_mesh(c, st) != 0)
        return -1;
    n = st->mesh.n;
    wl_obj_checkpoint(c, CFD_STATE, state_bytes(n) + sizeof(cfd_meta), 2);
    c->data_bytes = state_bytes(n);
    c->calib_bytes = state_bytes(n) + sizeof(cfd_meta);
    /* For --kill random: on the fast side (about 0.2 ns per
     * element-iteration, the mesh and state mostly in L2 at paper scale,
     * 25 us of launches and a synchronisation per iteration, checkpoints at
     * 45 GB/s), so a random kill lands inside the run in the fast modes and
     * in its first part in slower ones. */
    c->expected_s = (double)iters * ((double)n * 2e-10 + 2.5e-5) +
                    (double)((iters + k - 1) / k) * (double)c->calib_bytes / 45e9 + 0.005;
    return 0;
}

/* The free stream everywhere, and a record of iteration 0 of this run. */
static int zero_state(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    memset(&st->meta, 0, sizeof st->meta);
    st->meta.magic = CFD_META_MAGIC;
    st->meta.n = st->mesh.n;
    st->meta.seed = wl_seed(c);
    st->meta.iters = st->iters;
    st->meta.every = st->every;
    st->meta.mesh_hash = st->mesh.hash;
    st->meta.generated = strcmp(st->mesh_src, "generated") == 0;
    snprintf(st->meta.mesh, sizeof st->meta.mesh, "%.63s", st->mesh_name);
    return cfd_gpu_init(st->d.var, st->mesh.n);
}

static int upload(void **dst, const void *src, size_t bytes)
{
    return wl_dev_alloc(dst, bytes) != 0 || wl_dev_copy(*dst, src, bytes, 1) != 0 ? -1 : 0;
}

static int cfd_setup(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    struct cfd_dev *d = &st->d;
    const uint64_t n = st->mesh.n;
    d->n = n;
    if (upload((void **)&d->vol, st->mesh.vol, n * sizeof(float)) != 0 ||
        upload((void **)&d->nb, st->mesh.nb, n * CFD_NNB * sizeof(int32_t)) != 0 ||
        upload((void **)&d->normal, st->mesh.normal, n * CFD_NNB * 3 * sizeof(float)) != 0 ||
        wl_dev_alloc((void **)&d->var, state_bytes(n)) != 0 ||
        wl_dev_alloc((void **)&d->old, state_bytes(n)) != 0 ||
        wl_dev_alloc((void **)&d->flux, state_bytes(n)) != 0 ||
        wl_dev_alloc((void **)&d->sf, n * sizeof(float)) != 0)
        return -1;
    return wl_cp_register(c, CFD_STATE, d->var, state_bytes(n)) ||
                   wl_cp_register_record(c, CFD_STATE, &st->meta, sizeof st->meta)
               ? -1
               : 0;
}

static int cfd_prepare(struct wl_ctx *c)
{
    return zero_state(c);
}

/* One solver iteration on the device state. */
static int solve(struct wl_ctx *c, uint64_t it)
{
    (void)it;
    return cfd_gpu_iterate(&S(c)->d);
}

/* The checkpoint's record must be this run's (its mesh unchanged too). */
static int record_check(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    cfd_meta *m = &st->meta;
    m->mesh[sizeof m->mesh - 1] = '\0';
    if (cfd_meta_matches(m, st->mesh.n, wl_seed(c), st->iters, st->every, st->mesh.hash))
        return 0;
    return gpm_set_error("%s: checkpoint of another run (mesh %s of %llu elements, hash "
                         "%016llx, seed=%llu iters=%llu checkpoint-every=%llu): pass the "
                         "same --mesh (unchanged), --elements, --seed, --iters and "
                         "--checkpoint-every to recover it", wl_obj_path(c, CFD_STATE), m->mesh,
                         (unsigned long long)m->n, (unsigned long long)m->mesh_hash,
                         (unsigned long long)m->seed, (unsigned long long)m->iters,
                         (unsigned long long)m->every);
}

static struct wl_steps steps(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    struct wl_steps s = {.cp = CFD_STATE, .total = st->iters, .every = st->every,
                         .done = &st->meta.iters_done, .unit = "iteration", .step = solve,
                         .record_check = record_check};
    return s;
}

static void mesh_notes(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    wl_note(c, "mesh_source=%s,mesh_elements=%llu", st->mesh_src, (unsigned long long)st->mesh.n);
    if (st->cache)
        wl_note(c, "mesh_cache=%s", st->cache);
}

static int cfd_run(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    int rc = wl_steps_run(c, &s, 0);
    mesh_notes(c);
    return rc;
}

/* Units of progress are iterations; the durable ones are those the last
 * checkpoint holds. */
static int cfd_recover(struct wl_ctx *c)
{
    struct wl_steps s = steps(c);
    int rc = wl_steps_recover(c, &s, zero_state);
    mesh_notes(c);
    return rc;
}

/* Verifies what is on PM: the last checkpoint must hold the finished run,
 * and its state the reference's after as many iterations. */
static int cfd_verify(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    struct wl_steps s = steps(c);
    const uint64_t n = st->mesh.n;
    float *got;
    struct wl_wrong w = {.marks = 1}; /* the last checkpoint's record: right here */
    int rc = wl_steps_final(c, &s);
    if (rc != 0)
        return rc;
    if ((double)n * (double)st->iters > CFD_CPU_CHECK_WORK) {
        wl_note(c, "check=gpu-double");
        rc = cfd_gpu_check(&st->d, st->iters, &w);
    } else {
        wl_note(c, "check=cpu-double");
        if (!(got = malloc(state_bytes(n))))
            return gpm_set_error("cfd: out of memory for the state of %llu elements",
                                 (unsigned long long)n);
        rc = wl_dev_copy(got, st->d.var, state_bytes(n), 0) != 0
                 ? -1
                 : cfd_check(&st->mesh, got, st->iters, &w);
        free(got);
    }
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void cfd_teardown(struct wl_ctx *c)
{
    struct cfd_state *st = S(c);
    wl_dev_free(st->d.vol);
    wl_dev_free(st->d.nb);
    wl_dev_free(st->d.normal);
    wl_dev_free(st->d.var);
    wl_dev_free(st->d.old);
    wl_dev_free(st->d.flux);
    wl_dev_free(st->d.sf);
    cfd_mesh_free(&st->mesh);
}

const struct wl_workload WORKLOAD = {
    .name = "cfd",
    .about = "Rodinia's euler3d on an unstructured mesh with checkpointed state (paper Table 1)",
    .modes = WL_MODES_GPU,
    .progress_by = WL_BY_COMMITS, /* a checkpoint is durable in every mode */
    .objects = cfd_objects,
    .params = cfd_params,
    .state_bytes = sizeof(struct cfd_state),
    .layout = cfd_layout,
    .setup = cfd_setup,
    .prepare = cfd_prepare,
    .run = cfd_run,
    .recover = cfd_recover,
    .verify = cfd_verify,
    .teardown = cfd_teardown,
};
