/* PS in every mode: the descriptor the harness drives, the PM header
 * protocol, and which kernels write where in each mode. */
#include <stdlib.h>
#include <string.h>

#include "ps.h"

static const struct wl_param ps_params[] = {
    {"n", "32-bit integers to sum", {16ll << 16, 256ll << 20, 1024ll << 20}, 1, 1ll << 33, 1},
    {"block", "integers per thread block (a power of two, 128..4096)", {4096, 4096, 4096}, 128,
     4096, 1},
    {NULL, NULL, {0, 0, 0}, 0, 0, 0},
};

static struct ps_state *S(struct wl_ctx *c) { return c->priv; }
static uint8_t *pm_host(struct wl_ctx *c) { return c->pm.host; }

static int ps_layout(struct wl_ctx *c)
{
    uint64_t n = (uint64_t)c->p[0];
    uint32_t block = (uint32_t)c->p[1];
    if (block & (block - 1))
        return gpm_set_error("--block: %u is not a power of two: pass 128, 256, ... or 4096", block);
    c->pm_bytes = ps_file_bytes(n, block);
    c->data_bytes = n * 4;
    c->calib_bytes = c->pm_bytes;
    /* For --crash-after random: on the fast side (about 50 GB/s end to end,
     * PCIe 5's rate), so that a random kill lands inside the run in the fast
     * modes; in slower ones it lands in the run's first part. */
    c->expected_s = (double)c->pm_bytes / 50e9 + 0.005;
    return 0;
}

static const ps_header *header(struct wl_ctx *c) { return (const ps_header *)pm_host(c); }

static int write_header(struct wl_ctx *c, uint32_t epoch, uint32_t state)
{
    ps_header h;
    ps_header_fill(&h, S(c)->n, S(c)->block, c->opt.seed, epoch, state);
    if (wl_pm_write(c, 0, &h, sizeof h) != 0)
        return -1;
    c->bytes_persisted += sizeof h;
    return 0;
}

static int ps_setup(struct wl_ctx *c)
{
    struct ps_state *st = calloc(1, sizeof *st);
    const ps_header *h;
    if (!st)
        return gpm_set_error("ps: out of memory");
    c->priv = st;
    st->n = (uint64_t)c->p[0];
    st->block = (uint32_t)c->p[1];
    st->nblocks = ps_nblocks(st->n, st->block);
    h = header(c);
    if (!c->fresh) {
        /* Recovery reads before it writes: a file that is not this run's is
         * refused untouched. */
        if (ps_header_zero(h)) {
            /* Created, then killed before its first header write: nothing
             * was computed, so recovery is a whole run. */
            st->epoch = 0;
            st->fresh_file = 1;
        } else if (!ps_header_valid(h))
            return gpm_set_error("%s: not a PS result file (bad or torn header): nothing to "
                                 "recover; remove it and run without --recover", c->pm.path);
        else if (h->n != st->n || h->block != st->block || h->seed != c->opt.seed)
            return gpm_set_error("%s: holds n=%llu block=%u seed=%llu: pass the same --n, "
                                 "--block and --seed to recover it", c->pm.path,
                                 (unsigned long long)h->n, h->block,
                                 (unsigned long long)h->seed);
        else
            st->epoch = h->epoch;
    } else {
        /* A new run's epoch (prepare adds one) is above every earlier one. */
        uint32_t m = ps_max_marker((const uint32_t *)(pm_host(c) + ps_done_off(st->n)),
                                   st->nblocks);
        st->epoch = ps_header_valid(h) && h->epoch > m ? h->epoch : m;
    }

    if (c->opt.mode == WL_CPU) {
        st->h_in = malloc(st->n * 4);
        if (!st->h_in)
            return gpm_set_error("ps: cannot allocate %llu bytes for the input: use a smaller "
                                 "--scale", (unsigned long long)st->n * 4);
        ps_cpu_generate(st->h_in, st->n, c->opt.seed);
        return 0;
    }
    if (wl_dev_alloc((void **)&st->d_in, st->n * 4) != 0 ||
        ps_gpu_generate(st->d_in, st->n, c->opt.seed) != 0 ||
        wl_dev_alloc((void **)&st->d_computed, sizeof *st->d_computed) != 0)
        return -1;
    if (wl_mode_is_cap(c->opt.mode)) {
        if (wl_dev_alloc((void **)&st->d_out, st->n * 4) != 0 ||
            wl_dev_alloc((void **)&st->d_done, st->nblocks * 4) != 0 ||
            wl_dev_alloc((void **)&st->d_pre, (st->nblocks + 1) * 4) != 0 ||
            wl_dev_zero(st->d_done, st->nblocks * 4) != 0)
            return -1;
    }
    return 0;
}

/* Each repetition is a new run: a new epoch makes every block pending. */
static int ps_prepare(struct wl_ctx *c)
{
    S(c)->epoch++;
    if (S(c)->epoch == 0)
        S(c)->epoch = 1; /* 0 is the marker of a never-written block */
    return 0;
}

/* The whole computation of epoch st->epoch. With RESUME, blocks already
 * marked done are skipped by the kernels; a fresh epoch has none. */
static int compute(struct wl_ctx *c, int resume, uint64_t *computed)
{
    struct ps_state *st = S(c);
    enum wl_mode m = c->opt.mode;
    uint8_t *dev = c->pm.dev;
    uint64_t n = st->n, nb = st->nblocks;
    unsigned long long k = 0;
    size_t out_off = ps_out_off(), done_off = ps_done_off(n), pre_off = ps_pre_off(n, st->block);

    if (write_header(c, st->epoch, PS_RUNNING) != 0)
        return -1;
    if (m == WL_CPU) {
        if (ps_cpu_scan_blocks(c, st->h_in, st->epoch, computed) != 0 ||
            ps_cpu_block_prefix(c) != 0)
            return -1;
        c->bytes_persisted += (double)*computed * st->block * 4 + (double)*computed * 4 +
                              (double)(nb + 1) * 4;
    } else if (wl_mode_is_cap(m)) {
        /* CAP: kernels in device memory, then the whole result to PM. */
        if (wl_dev_zero(st->d_computed, sizeof k) != 0 ||
            ps_gpu_scan_blocks(st->d_in, st->d_out, st->d_done, n, st->block, st->epoch, 0,
                               resume, st->d_computed) != 0 ||
            ps_gpu_block_prefix(st->d_out, st->d_pre, n, st->block, 0) != 0 ||
            wl_dev_copy(&k, st->d_computed, sizeof k, 0) != 0)
            return -1;
        *computed = k;
        if (wl_cap_persist(c, out_off, st->d_out, n * 4) != 0 ||
            wl_cap_persist(c, done_off, st->d_done, nb * 4) != 0 ||
            wl_cap_persist(c, pre_off, st->d_pre, (nb + 1) * 4) != 0)
            return -1;
    } else {
        int fences = wl_mode_fences(m);
        if (wl_dev_zero(st->d_computed, sizeof k) != 0 || wl_persist_begin(c) != 0)
            return -1;
        if (ps_gpu_scan_blocks(st->d_in, (uint32_t *)(dev + out_off),
                               (uint32_t *)(dev + done_off), n, st->block, st->epoch, fences,
                               resume, st->d_computed) != 0 ||
            ps_gpu_block_prefix((uint32_t *)(dev + out_off), (uint32_t *)(dev + pre_off), n,
                                st->block, fences) != 0) {
            wl_persist_end(c);
            return -1;
        }
        if (wl_persist_end(c) != 0 || wl_dev_copy(&k, st->d_computed, sizeof k, 0) != 0)
            return -1;
        *computed = k;
        if (m == WL_GPM_NDP) {
            /* No persists in the kernels: the CPU flushes what they wrote. */
            if (wl_ndp_flush(c, out_off, ps_file_bytes(n, st->block) - out_off) != 0)
                return -1;
        } else
            /* GPM persisted in-kernel exactly what it computed. */
            c->bytes_persisted += (double)k * st->block * 4 + (double)k * 4 + (double)(nb + 1) * 4;
    }
    return write_header(c, st->epoch, PS_COMPLETE);
}

static int ps_run(struct wl_ctx *c)
{
    uint64_t computed;
    return compute(c, 0, &computed);
}

static int ps_recover(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    enum wl_mode m = c->opt.mode;
    const ps_header *h = header(c);
    uint64_t pending, computed = 0;

    if (st->fresh_file) {
        ps_prepare(c);
        if (compute(c, 0, &computed) != 0)
            return -1;
        snprintf(c->note, sizeof c->note, "resumed_blocks=%llu,pending_blocks=%llu",
                 (unsigned long long)computed, (unsigned long long)st->nblocks);
        return 0;
    }
    if (h->state == PS_COMPLETE) {
        snprintf(c->note, sizeof c->note, "resumed_blocks=0,pending_blocks=0");
        return 0;
    }
    pending = ps_count_pending((const uint32_t *)(pm_host(c) + ps_done_off(st->n)),
                               st->nblocks, st->epoch);
    /* Only in-kernel persistence (and the CPU counterpart, which persists
     * each block before its marker) makes a marker mean the block is
     * durable; NDP and CAP runs persisted nothing before their end, so they
     * restart under a new epoch, as CAP must (paper section 6.1). */
    int resume = m == WL_GPM || m == WL_GPM_EADR || m == WL_CPU;
    if (!resume) {
        ps_prepare(c);
        pending = st->nblocks;
    }
    if (compute(c, resume, &computed) != 0)
        return -1;
    snprintf(c->note, sizeof c->note, "resumed_blocks=%llu,pending_blocks=%llu",
             (unsigned long long)computed, (unsigned long long)pending);
    if (computed != pending)
        return gpm_set_error("ps: recovery computed %llu blocks, but %llu were pending",
                             (unsigned long long)computed, (unsigned long long)pending);
    return 0;
}

static int ps_verify(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    const ps_header *h = header(c);
    const uint32_t *done = (const uint32_t *)(pm_host(c) + ps_done_off(st->n));
    if (!ps_header_valid(h) || h->state != PS_COMPLETE || h->epoch != st->epoch) {
        gpm_set_error("ps: the PM header does not record a complete run of epoch %u",
                      st->epoch);
        return 1;
    }
    if (ps_count_pending(done, st->nblocks, st->epoch) != 0) {
        gpm_set_error("ps: %llu blocks lack their done marker",
                      (unsigned long long)ps_count_pending(done, st->nblocks, st->epoch));
        return 1;
    }
    return ps_check((const uint32_t *)(pm_host(c) + ps_out_off()),
                    (const uint32_t *)(pm_host(c) + ps_pre_off(st->n, st->block)), st->n,
                    st->block, c->opt.seed);
}

static void ps_teardown(struct wl_ctx *c)
{
    struct ps_state *st = S(c);
    if (!st)
        return;
    wl_dev_free(st->d_in); /* all NULL in cpu mode */
    wl_dev_free(st->d_out);
    wl_dev_free(st->d_done);
    wl_dev_free(st->d_pre);
    wl_dev_free(st->d_computed);
    free(st->h_in);
    free(st);
    c->priv = NULL;
}

const struct wl_workload WORKLOAD = {
    .name = "ps",
    .about = "prefix sum with per-block persistence and resume (paper 4.3, Figure 8)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .pm_kind = WL_PM_REGION,
    .params = ps_params,
    .layout = ps_layout,
    .setup = ps_setup,
    .prepare = ps_prepare,
    .run = ps_run,
    .recover = ps_recover,
    .verify = ps_verify,
    .teardown = ps_teardown,
};
