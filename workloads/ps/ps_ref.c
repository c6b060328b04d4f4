/* PS on the CPU: the reference that verifies every mode, and the CPU
 * counterpart (OpenMP, persisted through libpmem: the paper's Figure 1b
 * baseline), which uses the same layout and the same resume markers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps.h"

void ps_cpu_generate(uint32_t *in, uint64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++)
        in[i] = ps_input(seed, i);
}

void ps_ref_block(uint64_t seed, uint64_t n, uint32_t block, uint64_t b, uint32_t *out)
{
    uint32_t s = 0, len = ps_block_len(n, block, b);
    for (uint32_t k = 0; k < len; k++) {
        s += ps_input(seed, b * block + k);
        out[k] = s;
    }
}

int ps_cpu_scan_blocks(struct wl_ctx *c, const struct ps_state *st, const uint32_t *in,
                       uint32_t epoch, uint64_t *computed)
{
    uint8_t *pm = wl_region(c, PS_SUMS)->host;
    uint32_t *out = (uint32_t *)(pm + ps_out_off());
    uint32_t *done = (uint32_t *)(pm + ps_done_off(st->n));
    uint64_t k = 0;
    int failed = 0;
    char why[512] = "";

#pragma omp parallel for schedule(dynamic, 64) reduction(+ : k)
    for (uint64_t b = 0; b < st->nblocks; b++) {
        uint64_t lo = b * st->block;
        uint32_t len = ps_block_len(st->n, st->block, b), s = 0;
        if (!ps_block_pending(__atomic_load_n(&done[b], __ATOMIC_ACQUIRE), epoch))
            continue;
        for (uint32_t j = 0; j < len; j++) {
            s += in[lo + j];
            out[lo + j] = s;
        }
        /* The block's sums are durable before its marker, as on the GPU; a
         * block whose persist failed gets no marker. (The error message is
         * per thread: it is carried out of the loop by hand.) */
        if (wl_pm_persist(c, PS_SUMS, &out[lo], (size_t)len * 4) != 0) {
#pragma omp critical
            if (!failed) {
                failed = 1;
                snprintf(why, sizeof why, "%s", gpm_last_error());
            }
            continue;
        }
        __atomic_store_n(&done[b], epoch, __ATOMIC_RELEASE);
        if (wl_pm_persist(c, PS_SUMS, &done[b], 4) != 0) {
#pragma omp critical
            if (!failed) {
                failed = 1;
                snprintf(why, sizeof why, "%s", gpm_last_error());
            }
            continue;
        }
        wl_progress_add(c, 1);
        k++;
    }
    *computed = k;
    return failed ? gpm_set_error("%s", why) : 0;
}

int ps_cpu_block_prefix(struct wl_ctx *c, const struct ps_state *st)
{
    uint8_t *pm = wl_region(c, PS_SUMS)->host;
    const uint32_t *out = (const uint32_t *)(pm + ps_out_off());
    uint32_t *pre = (uint32_t *)(pm + ps_pre_off(st->n, st->block));
    uint32_t run = 0;
    for (uint64_t b = 0; b < st->nblocks; b++) {
        pre[b] = run;
        run += out[b * st->block + ps_block_len(st->n, st->block, b) - 1];
    }
    pre[st->nblocks] = run;
    return wl_pm_persist(c, PS_SUMS, pre, (size_t)(st->nblocks + 1) * 4);
}

int ps_check(const uint32_t *out, const uint32_t *pre, uint64_t n, uint32_t block, uint64_t seed,
             struct wl_wrong *w)
{
    uint64_t nb = ps_nblocks(n, block), bad = UINT64_MAX, wrong_sums = 0, wrong_pre = 0;
    uint64_t first_pre = UINT64_MAX;
    uint32_t *tot = malloc(nb * sizeof *tot);
    uint32_t run = 0;
    int oom = 0;
    if (!tot) {
        gpm_set_error("ps: out of memory for verification");
        return -1;
    }
#pragma omp parallel reduction(+ : wrong_sums)
    {
        uint32_t *ref = malloc((size_t)block * sizeof *ref);
        if (!ref) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(static)
        for (uint64_t b = 0; b < nb; b++) {
            uint32_t len = ps_block_len(n, block, b);
            const uint32_t *got = out + b * block;
            if (!ref)
                continue;
            ps_ref_block(seed, n, block, b, ref);
            tot[b] = ref[len - 1];
            if (memcmp(ref, got, (size_t)len * 4) != 0) {
                for (uint32_t k = 0; k < len; k++) /* every wrong sum: the measure */
                    wrong_sums += got[k] != ref[k];
#pragma omp critical
                if (b < bad)
                    bad = b;
            }
        }
        free(ref);
    }
    if (oom) {
        free(tot);
        gpm_set_error("ps: out of memory for verification");
        return -1;
    }
    /* The block sums: pre[b] is the sum of every block before b. */
    for (uint64_t b = 0; b <= nb; b++) {
        if (pre[b] != run) {
            wrong_pre++;
            if (first_pre == UINT64_MAX)
                first_pre = b;
        }
        if (b < nb)
            run += tot[b];
    }
    if (w) {
        w->units = "sums";
        w->bad += wrong_sums + wrong_pre;
        w->total += n + nb + 1;
    }
    if (bad != UINT64_MAX) {
        /* Name the first wrong element by its index in the whole array (what
         * a user looks up), and where it sits in its block. */
        uint32_t *ref = malloc((size_t)block * sizeof *ref), k = 0;
        const uint32_t *got = out + bad * block;
        free(tot);
        if (!ref) {
            gpm_set_error("ps: partial sums of block %llu differ", (unsigned long long)bad);
            return 1;
        }
        ps_ref_block(seed, n, block, bad, ref);
        while (k + 1 < ps_block_len(n, block, bad) && got[k] == ref[k])
            k++;
        gpm_set_error("ps: partial sums: element %llu is %u, expected %u (element %u of block "
                      "%llu, blocks of %u)", (unsigned long long)(bad * block + k), got[k],
                      ref[k], k, (unsigned long long)bad, block);
        free(ref);
        return 1;
    }
    if (first_pre != UINT64_MAX) {
        uint32_t want = 0;
        for (uint64_t b = 0; b < first_pre; b++)
            want += tot[b];
        gpm_set_error("ps: final sum of block %llu is %u, expected %u",
                      (unsigned long long)first_pre, pre[first_pre], want);
        free(tot);
        return 1;
    }
    free(tot);
    return 0;
}

/* Every sum is compared whatever the marks say; blocks without their done
 * mark are a failure of their own, named first. */
int ps_check_pm(struct wl_ctx *c, const uint8_t *pm, struct wl_wrong *w)
{
    const struct ps_state *st = c->priv;
    uint64_t pending = ps_pending(c, pm);
    int rc;
    w->marks_bad = pending, w->marks = st->nblocks;
    rc = ps_check((const uint32_t *)(pm + ps_out_off()),
                  (const uint32_t *)(pm + ps_pre_off(st->n, st->block)), st->n, st->block,
                  wl_seed(c), w);
    if (rc >= 0 && pending != 0) {
        gpm_set_error("ps: %llu blocks lack the done marker of epoch %u",
                      (unsigned long long)pending, c->epoch);
        rc = 1;
    }
    return rc;
}
