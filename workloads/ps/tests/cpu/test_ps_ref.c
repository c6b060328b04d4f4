/* PS on the CPU: the reference against independently computed values, the
 * layout, and the resume bookkeeping the kernels share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "../../ps.h"
#include "tests/wl_test.h"

/* Inputs of seed 1 and their sums, computed separately (splitmix64's
 * finaliser in Python) rather than by this code. */
static void reference_against_hand_values(void)
{
    static const uint32_t in[6] = {873, 44, 104, 872, 748, 251};
    static const uint32_t sums[6] = {873, 917, 1021, 1893, 2641, 2892};
    uint32_t out[6];
    for (int i = 0; i < 6; i++)
        CHECK_EQ_INT(ps_input(1, (uint64_t)i), in[i]);
    ps_ref_block(1, 6, 32, 0, out);
    CHECK(memcmp(out, sums, sizeof sums) == 0);
    /* A block restarts its partial sums: block 1 of size 4 holds 748, 999. */
    ps_ref_block(1, 6, 4, 1, out);
    CHECK_EQ_INT(out[0], 748);
    CHECK_EQ_INT(out[1], 999);
}

static void layout_offsets(void)
{
    /* 1000 elements in blocks of 256: 4 blocks, last one short. */
    CHECK_EQ_INT(ps_nblocks(1000, 256), 4);
    CHECK_EQ_INT(ps_block_len(1000, 256, 3), 1000 - 768);
    CHECK_EQ_INT(ps_out_off(), 0);
    CHECK_EQ_INT(ps_done_off(1000), 4096);
    CHECK_EQ_INT(ps_pre_off(1000, 256), 4096 + 128);
    CHECK_EQ_INT(ps_final_off(1000, 256), 4096 + 128 + 128);
    CHECK_EQ_INT(ps_file_bytes(1000, 256), 4096 + 128 + 128 + 128);
    CHECK_EQ_INT(ps_done_off(1ull << 30) % 128, 0);
    /* Paper scale: 1K x 1M integers are 4 GiB of partial sums. */
    CHECK(ps_file_bytes(1ull << 30, 1024) - (4ull << 30) < (16u << 20));
}

static void pending_blocks(void)
{
    uint32_t done[6] = {5, 0, 5, 4, 5, 6};
    CHECK_EQ_INT(ps_count_pending(done, 6, 5), 3);
    CHECK_EQ_INT(ps_count_pending(done, 0, 5), 0);
    CHECK(!ps_block_pending(5, 5) && ps_block_pending(4, 5) && ps_block_pending(0, 1));
}

/* The CPU counterpart over real PM (libpmem on /dev/shm), as the harness
 * hands it over in cpu mode: the state, the context, the mapping and the
 * input of SEED. */
struct cpu_ps {
    struct ps_state st;
    struct wl_ctx c;
    struct wl_harness h;
    gpm_region r;
    uint32_t *in, *out, *done, *pre;
};

static void cpu_ps_open(struct cpu_ps *t, uint64_t n, uint32_t block, uint64_t seed)
{
    char name[64];
    memset(t, 0, sizeof *t);
    t->st.n = n;
    t->st.block = block;
    t->st.nblocks = ps_nblocks(n, block);
    snprintf(name, sizeof name, "test-ps-%d.pm", (int)getpid());
    CHECKF(gpm_map(&t->r, name, ps_file_bytes(n, block), GPM_CREATE | GPM_HOST_ONLY) == 0,
           "%s", gpm_last_error());
    wl_test_ctx(&t->c, &t->h);
    t->c.m = wl_mode(WL_CPU);
    t->c.h->obj[PS_SUMS].region = t->r;
    t->in = malloc(n * 4);
    CHECK(t->in);
    ps_cpu_generate(t->in, n, seed);
    t->out = (uint32_t *)((uint8_t *)t->r.host + ps_out_off());
    t->done = (uint32_t *)((uint8_t *)t->r.host + ps_done_off(n));
    t->pre = (uint32_t *)((uint8_t *)t->r.host + ps_pre_off(n, block));
}

static void cpu_ps_close(struct cpu_ps *t)
{
    free(t->in);
    gpm_unmap(&t->r);
    unlink(t->r.path);
}

/* A run "crashed" after some blocks, resumed, and checked. */
static void resume_computes_only_pending_blocks(void)
{
    struct cpu_ps t;
    uint64_t k = 0, nb;
    cpu_ps_open(&t, 10000, 64, 5);
    nb = t.st.nblocks;
    /* Epoch 1 completes; epoch 2 dies after blocks 0..9 and 50. */
    CHECK_EQ_INT(ps_cpu_scan_blocks(&t.c, &t.st, t.in, 1, &k), 0);
    CHECK_EQ_INT(k, nb);
    /* The harness counted what the scan persisted: every sum and marker. */
    CHECK(t.c.bytes_persisted == (double)(t.st.n + nb) * 4);
    for (uint64_t b = 0; b < nb; b++)
        if (b < 10 || b == 50)
            t.done[b] = 2;
        else
            t.out[b * t.st.block] ^= 0xdead; /* half-written or stale */
    CHECK_EQ_INT(ps_count_pending(t.done, nb, 2), nb - 11);
    CHECK_EQ_INT(ps_cpu_scan_blocks(&t.c, &t.st, t.in, 2, &k), 0);
    CHECK_EQ_INT(k, nb - 11);
    CHECK_EQ_INT(ps_cpu_block_prefix(&t.c, &t.st), 0);
    CHECK_EQ_INT(ps_check(t.out, t.pre, t.st.n, t.st.block, 5, NULL), 0);
    /* The markers are trusted: a done block is not recomputed. */
    t.out[3] ^= 1;
    CHECK_EQ_INT(ps_cpu_scan_blocks(&t.c, &t.st, t.in, 2, &k), 0);
    CHECK_EQ_INT(k, 0);
    CHECK_EQ_INT(ps_check(t.out, t.pre, t.st.n, t.st.block, 5, NULL), 1);
    CHECK_MSG(gpm_last_error(), "element 3");
    cpu_ps_close(&t);
}

/* A block's marker persist lost (ps_ref.c's second wl_pm_persist, a
 * mutant the checker cannot flag): the sums were durable before it, and a
 * block without its marker is computed again, to the same sums. Its loss
 * costs redo, never a wrong answer. */
static void a_lost_marker_costs_only_its_blocks_redo(void)
{
    struct cpu_ps t;
    uint64_t k = 0;
    cpu_ps_open(&t, 1000, 64, 3);
    CHECK_EQ_INT(ps_cpu_scan_blocks(&t.c, &t.st, t.in, 1, &k), 0);
    t.done[7] = 0; /* its sums durable, its marker not */
    CHECK_EQ_INT(ps_cpu_scan_blocks(&t.c, &t.st, t.in, 1, &k), 0);
    CHECK_EQ_INT(k, 1);
    CHECK_EQ_INT(ps_count_pending(t.done, t.st.nblocks, 1), 0);
    CHECK_EQ_INT(ps_cpu_block_prefix(&t.c, &t.st), 0);
    CHECK_EQ_INT(ps_check(t.out, t.pre, t.st.n, t.st.block, 3, NULL), 0);
    cpu_ps_close(&t);
}

/* A wrong sum is named by its index in the whole array, then by its place
 * in its block: element 5 of block 2 of blocks of 64 is element 133. */
static void a_wrong_sum_is_named_by_its_global_index_and_block(void)
{
    const uint64_t n = 1000;
    const uint32_t block = 64;
    uint64_t nb = ps_nblocks(n, block);
    uint32_t *out = malloc(n * 4), *pre = malloc((nb + 1) * 4), run = 0;
    struct wl_wrong w = {0};
    char want[160];
    CHECK(out && pre);
    for (uint64_t b = 0; b < nb; b++) {
        uint32_t len = ps_block_len(n, block, b);
        ps_ref_block(9, n, block, b, out + b * block);
        pre[b] = run;
        run += out[b * block + len - 1];
    }
    pre[nb] = run;
    CHECK_EQ_INT(ps_check(out, pre, n, block, 9, &w), 0);
    CHECK(w.bad == 0 && w.total == n + nb + 1);
    out[2 * 64 + 5] += 1;
    out[3 * 64 + 1] += 1; /* a later one: the first is named */
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(ps_check(out, pre, n, block, 9, &w), 1);
    snprintf(want, sizeof want, "ps: partial sums: element 133 is %u, expected %u (element 5 of "
             "block 2, blocks of 64)", out[133], out[133] - 1);
    CHECK_MSG(gpm_last_error(), want);
    /* Every wrong sum is counted: both partial sums, and block sums. */
    CHECK(w.bad == 2 && w.total == 1017 && !strcmp(w.units, "sums"));
    pre[4] += 1;
    pre[nb] -= 1;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(ps_check(out, pre, n, block, 9, &w), 1);
    CHECK(w.bad == 4 && w.total == 1017);
    /* The partial sums right, a block sum is named. */
    out[2 * 64 + 5] -= 1;
    out[3 * 64 + 1] -= 1;
    memset(&w, 0, sizeof w);
    CHECK_EQ_INT(ps_check(out, pre, n, block, 9, &w), 1);
    snprintf(want, sizeof want, "ps: final sum of block 4 is %u, expected %u", pre[4],
             pre[4] - 1);
    CHECK_MSG(gpm_last_error(), want);
    CHECK(w.bad == 2 && w.total == 1017);
    free(out);
    free(pre);
}

int main(void)
{
    RUN(reference_against_hand_values);
    RUN(layout_offsets);
    RUN(pending_blocks);
    RUN(resume_computes_only_pending_blocks);
    RUN(a_lost_marker_costs_only_its_blocks_redo);
    RUN(a_wrong_sum_is_named_by_its_global_index_and_block);
    CHECK_EXIT();
}
