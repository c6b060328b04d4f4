/* The SBRP model on litmus traces: small programs of GPU threads written by
 * hand, each crashed at a point and every image the model allows
 * enumerated (every mask of the pending persists), against the outcomes
 * the paper's rules allow: oFence ordering, dFence durability, message
 * passing by pRel and pAcq at block and at device scope, a scope too
 * narrow, transitivity, and what a pRel does not order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "gpm/persistency.h"

/* GPU threads: T0 and T1 in block 0, T2 in block 1, of one launch; T3 in
 * block 0 of another launch. */
#define GPU(launch, b, t) (1ull << 63 | (uint64_t)(launch) << 42 | (uint64_t)(b) << 10 | (t))
#define T0 GPU(1, 0, 0)
#define T1 GPU(1, 0, 1)
#define T2 GPU(1, 1, 0)
#define T3 GPU(2, 0, 0)
/* The words the litmus tests persist, and the synchronization variables
 * (offsets in the one object; variables are never persisted). */
enum { X, Y, Z, NWORDS };
enum { F = 1000, G = 1008 };

static void op(gpm_ptrace *t, uint32_t kind, uint64_t thread, uint64_t off, uint32_t aux)
{
    gpm_trace_rec r;
    uint8_t v[8];
    memset(&r, 0, sizeof r);
    r.kind = kind, r.thread = thread, r.off = off, r.aux = aux;
    if (kind == GPM_TR_STORE) {
        memset(v, 1, sizeof v); /* every store writes 1s */
        r.off = 8 * off, r.len = 8, r.aux = GPM_TR_GPU;
    }
    CHECK(gpm_ptrace_add(t, &r, v) == 0);
}
#define W(t, th, w) op((t), GPM_TR_STORE, (th), (w), 0)
#define OFENCE(t, th) op((t), GPM_TR_OFENCE, (th), 0, 0)
#define DFENCE(t, th) op((t), GPM_TR_DFENCE, (th), 0, 0)
#define FENCE(t, th) op((t), GPM_TR_FENCE, (th), 0, 0)
#define PREL(t, th, var, scope) op((t), GPM_TR_PREL, (th), (var), (scope))
#define PACQ(t, th, var, scope) op((t), GPM_TR_PACQ, (th), (var), (scope))
#define BLOCK GPM_SCOPE_BLOCK
#define DEVICE GPM_SCOPE_DEVICE

static void begin(gpm_ptrace *t)
{
    uint64_t size = 2048;
    CHECK(gpm_ptrace_init(t, 1, &size) == 0);
}

/* Every outcome the model allows at crash point CRASH (every event before
 * it happened; ~0: the end), as a list of "xyz" strings of 0 and 1 in
 * sorted order, e.g. "000 100 110". */
static void outcomes(const gpm_ptrace *t, uint64_t crash, char *out, size_t len)
{
    gpm_sbrp *o = NULL;
    uint8_t img[2048], *imgs[1] = {img};
    uint64_t pend = 0, arg = 0, masks;
    int seen[1 << NWORDS] = {0};
    CHECK(gpm_sbrp_order(t, &o) == 0);
    CHECK(gpm_sbrp_image(t, o, crash, GPM_DROP, &arg, imgs, &pend) != 0);
    CHECK(pend <= 16);
    masks = 1ull << pend;
    for (uint64_t m = 0; m < masks; m++) {
        int k = 0;
        arg = m;
        CHECK(gpm_sbrp_image(t, o, crash, GPM_MASK, &arg, imgs, NULL) != 0);
        for (int w = 0; w < NWORDS; w++)
            k |= (img[8 * w] != 0) << w;
        seen[k] = 1;
    }
    out[0] = '\0';
    /* In the order "000", "100", "010", "110", ...: x first. */
    for (int k = 0; k < 1 << NWORDS; k++)
        if (seen[k])
            snprintf(out + strlen(out), len - strlen(out), "%s%d%d%d", out[0] ? " " : "",
                     k & 1, k >> 1 & 1, k >> 2 & 1);
    gpm_sbrp_free(o);
}

#define EXPECT(t, crash, want)                                                          \
    do {                                                                               \
        char got_[256];                                                                \
        outcomes((t), (crash), got_, sizeof got_);                                     \
        CHECKF(strcmp(got_, (want)) == 0, "allowed %s, want %s", got_, (want));        \
    } while (0)
#define END (~0ull)

static void unordered_persists_of_one_thread(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    W(&t, T0, Y);
    EXPECT(&t, END, "000 100 010 110");
    gpm_ptrace_free(&t);
}

static void ofence_orders_a_threads_persists(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    OFENCE(&t, T0);
    W(&t, T0, Y);
    EXPECT(&t, END, "000 100 110"); /* never y without x */
    gpm_ptrace_free(&t);
}

static void ofence_orders_groups_not_segments(void)
{
    gpm_ptrace t;
    begin(&t);
    /* x, then a release (no order of its own), then y; an oFence; z. */
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    W(&t, T0, Y);
    OFENCE(&t, T0);
    W(&t, T0, Z);
    EXPECT(&t, END, "000 100 010 110 111"); /* z brings x and y */
    gpm_ptrace_free(&t);
}

static void dfence_makes_durable(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    DFENCE(&t, T0);
    W(&t, T0, Y);
    EXPECT(&t, 2, "100");       /* after the dFence: x durable */
    EXPECT(&t, END, "100 110"); /* y still pending */
    EXPECT(&t, 1, "000 100");   /* before it: x may be lost */
    gpm_ptrace_free(&t);
}

static void dfence_covers_only_its_thread(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    W(&t, T1, Y);
    DFENCE(&t, T1);
    EXPECT(&t, END, "010 110");
    gpm_ptrace_free(&t);
}

static void system_fence_is_a_dfence_and_an_ofence(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    FENCE(&t, T0);
    W(&t, T0, Y);
    EXPECT(&t, END, "100 110");
    gpm_ptrace_free(&t);
}

static void message_passing_at_block_scope_in_one_block(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, BLOCK);
    PACQ(&t, T1, F, BLOCK);
    W(&t, T1, Y);
    EXPECT(&t, END, "000 100 110"); /* never y without x */
    gpm_ptrace_free(&t);
}

static void message_passing_at_block_scope_across_blocks_is_too_narrow(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, BLOCK);
    PACQ(&t, T2, F, BLOCK);
    W(&t, T2, Y);
    EXPECT(&t, END, "000 100 010 110"); /* the scope bug: y without x */
    gpm_ptrace_free(&t);
}

static void message_passing_at_device_scope_across_blocks(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    PACQ(&t, T2, F, DEVICE);
    W(&t, T2, Y);
    EXPECT(&t, END, "000 100 110");
    gpm_ptrace_free(&t);
}

static void one_narrow_side_is_too_narrow(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    PACQ(&t, T2, F, BLOCK);
    W(&t, T2, Y);
    EXPECT(&t, END, "000 100 010 110");
    gpm_ptrace_free(&t);
}

static void same_block_of_another_launch_is_another_block(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, BLOCK);
    PACQ(&t, T3, F, BLOCK);
    W(&t, T3, Y);
    EXPECT(&t, END, "000 100 010 110");
    gpm_ptrace_free(&t);
}

static void acquire_of_another_variable_orders_nothing(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    PACQ(&t, T2, G, DEVICE);
    W(&t, T2, Y);
    EXPECT(&t, END, "000 100 010 110");
    gpm_ptrace_free(&t);
}

static void release_orders_only_what_came_before_it(void)
{
    gpm_ptrace t;
    begin(&t);
    PREL(&t, T0, F, DEVICE);
    W(&t, T0, X); /* after the release */
    PACQ(&t, T2, F, DEVICE);
    W(&t, T2, Y);
    EXPECT(&t, END, "000 100 010 110");
    gpm_ptrace_free(&t);
}

static void acquire_orders_only_what_comes_after_it(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    W(&t, T2, Y); /* before the acquire */
    PACQ(&t, T2, F, DEVICE);
    W(&t, T2, Z);
    /* z needs x; y needs nothing. */
    EXPECT(&t, END, "000 100 010 110 101 111");
    gpm_ptrace_free(&t);
}

static void persist_order_is_transitive(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, BLOCK);
    PACQ(&t, T1, F, BLOCK);
    W(&t, T1, Y);
    PREL(&t, T1, G, DEVICE);
    PACQ(&t, T2, G, DEVICE);
    W(&t, T2, Z);
    /* z needs y, and y needs x. */
    EXPECT(&t, END, "000 100 110 111");
    gpm_ptrace_free(&t);
}

static void dfence_brings_what_is_ordered_before(void)
{
    gpm_ptrace t;
    begin(&t);
    W(&t, T0, X);
    PREL(&t, T0, F, DEVICE);
    PACQ(&t, T2, F, DEVICE);
    W(&t, T2, Y);
    DFENCE(&t, T2);
    EXPECT(&t, END, "110"); /* y durable, so x is too */
    gpm_ptrace_free(&t);
}

static void the_cpus_stores_stay_strict(void)
{
    gpm_ptrace t;
    gpm_trace_rec r;
    uint8_t v[8];
    begin(&t);
    memset(&r, 0, sizeof r);
    memset(v, 1, sizeof v);
    r.kind = GPM_TR_STORE, r.off = 8 * X, r.len = 8, r.thread = 7, r.aux = GPM_TR_CPU;
    CHECK(gpm_ptrace_add(&t, &r, v) == 0);
    memset(&r, 0, sizeof r);
    r.kind = GPM_TR_PERSIST, r.off = 8 * X, r.len = 8, r.thread = 7;
    CHECK(gpm_ptrace_add(&t, &r, NULL) == 0);
    W(&t, T0, Y);
    EXPECT(&t, 1, "000 100");   /* before its persist */
    EXPECT(&t, END, "100 110"); /* after: durable; the GPU's y pending */
    gpm_ptrace_free(&t);
}

static void random_images_are_closed(void)
{
    gpm_ptrace t;
    gpm_sbrp *o = NULL;
    uint8_t img[2048], *imgs[1] = {img};
    int seen_x = 0;
    begin(&t);
    W(&t, T0, X);
    OFENCE(&t, T0);
    W(&t, T0, Y);
    CHECK(gpm_sbrp_order(&t, &o) == 0);
    for (uint64_t seed = 1; seed <= 100; seed++) {
        uint64_t arg = seed * 7919;
        CHECK(gpm_sbrp_image(&t, o, t.nev, GPM_RANDOM, &arg, imgs, NULL) != 0);
        CHECK(!(img[8 * Y] && !img[8 * X])); /* never y without x */
        seen_x |= img[8 * X] != 0;
    }
    CHECK(seen_x);
    gpm_sbrp_free(o);
    gpm_ptrace_free(&t);
}

/* Under strict, today's conservative mapping: an oFence and a pRel are
 * system-scope fences, so what came before them is durable. */
static void strict_counts_sbrp_fences_as_system_fences(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL;
    begin(&t);
    W(&t, T0, X);
    OFENCE(&t, T0);
    W(&t, T0, Y);
    PREL(&t, T0, F, BLOCK);
    W(&t, T0, Z);
    CHECK(gpm_durability(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[0], 1);
    CHECK_EQ_INT(d[2], 3);
    CHECK(d[4] == GPM_NEVER);
    CHECK(gpm_ptrace_is_persist(&t, 1) && gpm_ptrace_is_persist(&t, 3));
    free(d);
    gpm_ptrace_free(&t);
}

int main(void)
{
    RUN(unordered_persists_of_one_thread);
    RUN(ofence_orders_a_threads_persists);
    RUN(ofence_orders_groups_not_segments);
    RUN(dfence_makes_durable);
    RUN(dfence_covers_only_its_thread);
    RUN(system_fence_is_a_dfence_and_an_ofence);
    RUN(message_passing_at_block_scope_in_one_block);
    RUN(message_passing_at_block_scope_across_blocks_is_too_narrow);
    RUN(message_passing_at_device_scope_across_blocks);
    RUN(one_narrow_side_is_too_narrow);
    RUN(same_block_of_another_launch_is_another_block);
    RUN(acquire_of_another_variable_orders_nothing);
    RUN(release_orders_only_what_came_before_it);
    RUN(acquire_orders_only_what_comes_after_it);
    RUN(persist_order_is_transitive);
    RUN(dfence_brings_what_is_ordered_before);
    RUN(the_cpus_stores_stay_strict);
    RUN(random_images_are_closed);
    RUN(strict_counts_sbrp_fences_as_system_fences);
    CHECK_EXIT();
}
