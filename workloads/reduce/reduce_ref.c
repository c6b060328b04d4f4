/* The reduction on the CPU: the reference that verifies every mode, and
 * the CPU counterpart (OpenMP, persisted through libpmem), which keeps the
 * same tree and the same resume rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

void red_cpu_generate(uint32_t *in, uint64_t n, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (uint64_t i = 0; i < n; i++)
        in[i] = red_input(seed, i);
}

void red_ref_block(uint64_t seed, uint64_t n, uint32_t block, uint64_t b, uint32_t *sums)
{
    uint32_t threads = red_threads(block);
    for (uint32_t t = 0; t < threads; t++) {
        uint64_t i = b * block + (uint64_t)t * RED_ITEMS;
        sums[t] = 0;
        for (uint32_t k = 0; k < RED_ITEMS && i + k < n; k++)
            sums[t] += red_input(seed, i + k);
    }
    red_tree(sums, threads);
}

/* Stores the slots of block B but slot 0, persists them, then slot 0: the
 * tree is durable before the slot a recovery trusts it by. */
static int cpu_block(struct wl_ctx *c, const struct red_state *st, uint64_t *slots, uint64_t b,
                     uint32_t *v)
{
    uint32_t threads = red_threads(st->block);
    uint64_t *mine = slots + b * threads;
    for (uint32_t t = 0; t < threads; t++)
        v[t] = red_leaf(st->h_in, st->n, st->block, b, t);
    red_tree(v, threads);
    for (uint32_t t = 1; t < threads; t++)
        mine[t] = red_slot(c->epoch, v[t]);
    if (wl_pm_persist(c, RED_TREE, mine + 1, (size_t)(threads - 1) * 8) != 0)
        return -1;
    __atomic_store_n(&mine[0], red_slot(c->epoch, v[0]), __ATOMIC_RELEASE);
    return wl_pm_persist(c, RED_TREE, mine, 8);
}

int red_cpu_reduce(struct wl_ctx *c, const struct red_state *st, uint64_t *computed)
{
    uint8_t *pm = wl_region(c, RED_TREE)->host;
    uint64_t *slots = (uint64_t *)(pm + red_slots_off());
    uint64_t *total = (uint64_t *)(pm + red_total_off(st->n, st->block));
    uint32_t threads = red_threads(st->block), sum = 0;
    uint64_t k = 0;
    int failed = 0;
    char why[512] = "";

#pragma omp parallel reduction(+ : k, sum)
    {
        uint32_t *v = malloc((size_t)threads * sizeof *v);
#pragma omp for schedule(dynamic, 64)
        for (uint64_t b = 0; b < st->nblocks; b++) {
            uint64_t s0 = __atomic_load_n(&slots[b * threads], __ATOMIC_ACQUIRE);
            if (red_slot_holds(s0, c->epoch)) {
                sum += red_slot_sum(s0);
                continue;
            }
            /* A block that failed keeps slot 0 empty. (The message is per
             * thread: it is carried out of the loop by hand.) */
            if (!v || cpu_block(c, st, slots, b, v) != 0) {
#pragma omp critical
                if (!failed) {
                    failed = 1;
                    snprintf(why, sizeof why, "%s",
                             v ? gpm_last_error() : "reduce: out of memory for a block's tree");
                }
                continue;
            }
            sum += v[0];
            wl_progress_add(c, 1);
            k++;
        }
        free(v);
    }
    *computed = k;
    if (failed)
        return gpm_set_error("%s", why);
    *total = red_slot(c->epoch, sum);
    return wl_pm_persist(c, RED_TREE, total, 8);
}

int red_check(const uint64_t *slots, uint64_t total, uint64_t n, uint32_t block, uint32_t epoch,
              uint64_t seed, struct wl_wrong *w)
{
    uint64_t nb = red_nblocks(n, block), bad = UINT64_MAX, wrong = 0;
    uint32_t threads = red_threads(block), sum = 0;
    int oom = 0;
#pragma omp parallel reduction(+ : sum, wrong)
    {
        uint32_t *ref = malloc((size_t)threads * sizeof *ref);
        if (!ref) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(static)
        for (uint64_t b = 0; b < nb; b++) {
            if (!ref)
                continue;
            red_ref_block(seed, n, block, b, ref);
            sum += ref[0];
            for (uint32_t t = 0; t < threads; t++)
                if (slots[b * threads + t] != red_slot(epoch, ref[t])) {
                    wrong++;
#pragma omp critical
                    if (b * threads + t < bad)
                        bad = b * threads + t;
                }
        }
        free(ref);
    }
    if (oom) {
        gpm_set_error("reduce: out of memory for verification");
        return -1;
    }
    wrong += total != red_slot(epoch, sum);
    if (w) {
        w->units = "sums";
        w->bad += wrong;
        w->total += nb * threads + 1;
    }
    if (bad != UINT64_MAX) {
        uint32_t *ref = malloc((size_t)threads * sizeof *ref);
        uint64_t b = bad / threads, got = slots[bad];
        uint32_t t = (uint32_t)(bad % threads);
        if (!ref) {
            gpm_set_error("reduce: the tree of block %llu differs", (unsigned long long)b);
            return 1;
        }
        red_ref_block(seed, n, block, b, ref);
        if (!red_slot_holds(got, epoch))
            gpm_set_error("reduce: slot %u of block %llu is empty (epoch %u, not %u), expected "
                          "the sum %u", t, (unsigned long long)b, (uint32_t)got, epoch, ref[t]);
        else
            gpm_set_error("reduce: slot %u of block %llu holds %u, expected %u", t,
                          (unsigned long long)b, red_slot_sum(got), ref[t]);
        free(ref);
        return 1;
    }
    if (!red_slot_holds(total, epoch)) {
        gpm_set_error("reduce: the total is empty (epoch %u, not %u), expected %u",
                      (uint32_t)total, epoch, sum);
        return 1;
    }
    if (red_slot_sum(total) != sum) {
        gpm_set_error("reduce: the total is %u, expected %u", red_slot_sum(total), sum);
        return 1;
    }
    return 0;
}

/* Every slot and the total; the epoch each holds is its own mark. */
int red_check_pm(struct wl_ctx *c, const uint8_t *pm, struct wl_wrong *w)
{
    const struct red_state *st = c->priv;
    uint64_t total;
    memcpy(&total, pm + red_total_off(st->n, st->block), sizeof total);
    return red_check((const uint64_t *)(pm + red_slots_off()), total, st->n, st->block, c->epoch,
                     wl_seed(c), w);
}
