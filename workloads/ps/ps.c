/* PS in every mode: the descriptor the harness drives, and which kernels
 * write where. The harness gives each run its epoch and keeps the run's
 * identity; PS's own bookkeeping is the per-block done markers. */
#include <stdlib.h>
#include <string.h>

#include "ps.h"

static const struct wl_param ps_params[] = {
    {.flag = "n", .help = "32-bit integers to sum", .sizes = 1,
     .scale = {16ll << 16, 256ll << 20, 1024ll << 20}, .min = 1, .max = 1ll << 33},
    {.flag = "block", .help = "integers per thread block (a power of two, 128..4096)",
     .sizes = 1, .scale = {4096, 4096, 4096}, .min = 128, .max = 4096, .pow2 = 1},
    {0},
};

static const struct wl_obj_decl ps_objects[] = {
    [PS_SUMS] = {"sums", WL_OBJ_REGION},
    {NULL, WL_OBJ_REGION},
};

static struct ps_state *S(struct wl_ctx *c) { return c->priv; }
static uint8_t *pm_host(struct wl_ctx *c) { return wl_region(c, PS_SUMS)->host; }
static const uint32_t *pm_done(struct wl_ctx *c)
{
    return (const uint32_t *)(pm_host(c) + ps_done_off(S(c)->n));
}

static int ps_layout(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)wl_int(c, "n");
    uint32_t block = (uint32_t)wl_int(c, "block");
    wl_obj_region(c, PS_SUMS, ps_file_bytes(n, block));
    c->data_bytes = n * 4;
    c->calib_bytes = ps_file_bytes(n, block);
    /* For --kill random: on the fast side (about 50 GB/s end to end,
     * PCIe 5's rate), so that a random kill lands inside the run in the fast
     * modes; in slower ones it lands in the run's first part. */
    c->expected_s = (double)c->calib_bytes / 50e9 + 0.005;
    return 0;
}

static int ps_setup(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    st->n = (uint64_t)wl_int(c, "n");
    st->block = (uint32_t)wl_int(c, "block");
    st->nblocks = ps_nblocks(st->n, st->block);
    if (!c->m->needs_gpu) {
        st->h_in = malloc(st->n * 4);
        if (!st->h_in)
            return gpm_set_error("ps: cannot allocate %llu bytes for the input: use a smaller "
                                 "--scale", (unsigned long long)st->n * 4);
        ps_cpu_generate(st->h_in, st->n, wl_seed(c));
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_in, st->n * 4) != 0 ||
        ps_gpu_generate(st->d_in, st->n, wl_seed(c)) != 0 ||
        wl_dev_alloc((void **)&st->d_computed, sizeof *st->d_computed) != 0)
        return -1;
    if (wl_sbrp(c) && !(st->sbrp = ps_gpu_sbrp_flags(st->n, st->block)))
        return gpm_set_error("ps: no device memory for the SBRP variant's %llu flags: use a "
                             "smaller --scale", (unsigned long long)(st->n / PS_ITEMS));
    if (!c->m->kernels_write_pm) {
        if (wl_dev_alloc((void **)&st->d_out, st->n * 4) != 0 ||
            wl_dev_alloc((void **)&st->d_done, st->nblocks * 4) != 0 ||
            wl_dev_alloc((void **)&st->d_pre, (st->nblocks + 1) * 4) != 0 ||
            wl_dev_zero(st->d_done, st->nblocks * 4) != 0)
            return -1;
    }
    return 0;
}

/* The computation of epoch c->epoch: with RESUME, blocks already marked
 * done are skipped by the kernels. *COMPUTED gets the blocks computed. */
static int compute(struct wl_ctx *c, int resume, uint64_t *computed)
{
    struct ps_state *st = S(c);
    gpm_region *r = wl_region(c, PS_SUMS);
    uint64_t n = st->n, nb = st->nblocks;
    size_t out_off = ps_out_off(), done_off = ps_done_off(n), pre_off = ps_pre_off(n, st->block);
    unsigned long long k = 0;
    uint8_t *dev = r->dev;

    if (!c->m->needs_gpu) { /* each block durable before its marker, as on the GPU */
        if (ps_cpu_scan_blocks(c, st, st->h_in, c->epoch, computed) != 0 ||
            ps_cpu_block_prefix(c, st) != 0)
            return -1;
        wl_progress_add(c, 1); /* the final sums */
        return 0;
    }
    if (wl_dev_zero(st->d_computed, sizeof k) != 0)
        return -1;
    if (!c->m->kernels_write_pm) {
        /* CAP: the kernels in device memory, then the whole result to PM
         * with one commit (one drain, or one fsync). */
        wl_out o = wl_out_of(c);
        gpm_range v[3] = {{out_off, n * 4, st->d_out},
                          {done_off, nb * 4, st->d_done},
                          {pre_off, (nb + 1) * 4, st->d_pre}};
        if (ps_gpu_scan_blocks(st->d_in, st->d_out, st->d_done, n, st->block, c->epoch, o,
                               resume, st->d_computed) != 0 ||
            ps_gpu_block_prefix(st->d_out, st->d_pre, n, st->block, o) != 0 ||
            wl_dev_copy(&k, st->d_computed, sizeof k, 0) != 0)
            return -1;
        *computed = k;
        if (wl_commit(c, PS_SUMS, v, 3) != 0)
            return -1;
        wl_progress_add(c, 1); /* the final sums */
        return 0;
    }
    if (wl_persist_begin(c) != 0)
        return -1;
    if (st->sbrp) {
        if (ps_gpu_sbrp_scan(st->d_in, dev, n, st->block, c->epoch, wl_out_of(c), resume,
                             st->d_computed, st->sbrp) != 0) {
            wl_persist_end(c);
            return -1;
        }
    } else if (ps_gpu_scan_blocks(st->d_in, (uint32_t *)(dev + out_off), (uint32_t *)(dev + done_off),
                           n, st->block, c->epoch, wl_out_of(c), resume,
                           st->d_computed) != 0 ||
        ps_gpu_block_prefix((uint32_t *)(dev + out_off), (uint32_t *)(dev + pre_off), n,
                            st->block, wl_out_of(c)) != 0) {
        wl_persist_end(c);
        return -1;
    }
    if (wl_persist_end(c) != 0 || wl_dev_copy(&k, st->d_computed, sizeof k, 0) != 0)
        return -1;
    *computed = k;
    /* gpm, gpm-eadr: persisted (and counted) in-kernel; gpm-ndp: the CPU
     * flushes what the kernels stored. */
    gpm_range all = {out_off, ps_file_bytes(n, st->block) - out_off, NULL};
    if (wl_commit(c, PS_SUMS, &all, 1) != 0)
        return -1;
    wl_progress_add(c, 1); /* the final sums */
    return 0;
}

static int ps_run(struct wl_ctx *c)
{
    uint64_t computed;
    return compute(c, 0, &computed);
}

/* Resumes the epoch that was interrupted: only blocks without its marker
 * are computed, then the final sums (one more unit of work). */
static int ps_recover(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    uint64_t pending = ps_count_pending(pm_done(c), st->nblocks, c->epoch), computed = 0;
    uint32_t final;
    c->progress.total = st->nblocks + 1;
    c->progress.durable = st->nblocks - pending;
    memcpy(&final, pm_host(c) + ps_final_off(st->n, st->block), sizeof final);
    if (st->sbrp && final == c->epoch) { /* the SBRP variant's: all of it is durable */
        c->progress.durable = c->progress.total;
        wl_note(c, "resumed_blocks=0,pending_blocks=%llu,final=durable",
                (unsigned long long)pending);
        return 0;
    }
    if (compute(c, 1, &computed) != 0)
        return -1;
    c->progress.redone = computed + 1;
    wl_note(c, "resumed_blocks=%llu,pending_blocks=%llu", (unsigned long long)computed,
            (unsigned long long)pending);
    return 0;
}

/* Every sum is compared whatever the markers say; blocks without their
 * done marker are a failure of their own, named first. */
static int ps_verify(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    uint64_t pending = ps_count_pending(pm_done(c), st->nblocks, c->epoch);
    struct wl_wrong w = {.marks_bad = pending, .marks = st->nblocks};
    int rc = ps_check((const uint32_t *)(pm_host(c) + ps_out_off()),
                      (const uint32_t *)(pm_host(c) + ps_pre_off(st->n, st->block)), st->n,
                      st->block, wl_seed(c), &w);
    if (rc < 0)
        return rc;
    if (pending != 0) {
        gpm_set_error("ps: %llu blocks lack the done marker of epoch %u",
                      (unsigned long long)pending, c->epoch);
        rc = 1;
    }
    if (rc == 1)
        wl_note_wrong(c, &w);
    return rc;
}

static void ps_teardown(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    wl_dev_free(st->d_in); /* all NULL in cpu mode */
    wl_dev_free(st->d_out);
    wl_dev_free(st->d_done);
    wl_dev_free(st->d_pre);
    wl_dev_free(st->d_computed);
    ps_gpu_sbrp_flags_free(st->sbrp);
    free(st->h_in);
}

const struct wl_workload WORKLOAD = {
    .name = "ps",
    .about = "prefix sum with per-block persistence and resume (paper 4.3, Figure 8)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .sbrp = 1, /* one kernel: pRel/pAcq at block scope per block, at device scope for pre */
    .objects = ps_objects,
    .params = ps_params,
    .state_bytes = sizeof(struct ps_state),
    .layout = ps_layout,
    .setup = ps_setup,
    .run = ps_run,
    .recover = ps_recover,
    .verify = ps_verify,
    .teardown = ps_teardown,
};
