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
#include "gpm/check_sbrp.h"
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
#define PREL(t, th, var, scope) op((t), GPM_TR_PREL, (th), (var), (scope))
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
    static const uint64_t off[NWORDS] = {8 * X, 8 * Y, 8 * Z};
    int seen[1 << NWORDS] = {0};
    out[0] = '\0';
    CHECK(check_sbrp_outcomes(t, crash, off, NWORDS, seen) == 0);
    check_sbrp_string(seen, NWORDS, out, len);
}

#define EXPECT(t, crash, want)                                                          \
    do {                                                                               \
        char got_[256];                                                                \
        outcomes((t), (crash), got_, sizeof got_);                                     \
        CHECKF(strcmp(got_, (want)) == 0, "allowed %s, want %s", got_, (want));        \
    } while (0)
#define END (~0ull)

/* A litmus trace: its operations in trace order, ended by one of kind 0,
 * and the outcomes allowed at crash points (END: after the last). */
struct litmus_op {
    uint32_t kind;
    uint64_t thread, arg; /* a store's word, a pRel's or pAcq's variable */
    uint32_t scope;
};
struct litmus {
    const char *name;
    struct litmus_op ops[12];
    struct {
        uint64_t crash;
        const char *allowed;
    } at[3];
};
#define S(th, w) {GPM_TR_STORE, (th), (w), 0}
#define OF(th) {GPM_TR_OFENCE, (th), 0, 0}
#define DF(th) {GPM_TR_DFENCE, (th), 0, 0}
#define FE(th) {GPM_TR_FENCE, (th), 0, 0}
#define REL(th, v, sc) {GPM_TR_PREL, (th), (v), (sc)}
#define ACQ(th, v, sc) {GPM_TR_PACQ, (th), (v), (sc)}

static const struct litmus litmus[] = {
    {"one thread's persists, unordered", {S(T0, X), S(T0, Y)}, {{END, "000 100 010 110"}}},
    {"an oFence orders a thread's persists: never y without x",
     {S(T0, X), OF(T0), S(T0, Y)}, {{END, "000 100 110"}}},
    {"an oFence orders groups, a release no segment: z brings x and y",
     {S(T0, X), REL(T0, F, DEVICE), S(T0, Y), OF(T0), S(T0, Z)},
     {{END, "000 100 010 110 111"}}},
    {"a dFence makes durable what came before it, not after",
     {S(T0, X), DF(T0), S(T0, Y)}, {{1, "000 100"}, {2, "100"}, {END, "100 110"}}},
    {"a dFence covers its own thread only", {S(T0, X), S(T1, Y), DF(T1)},
     {{END, "010 110"}}},
    {"a system fence is a dFence and an oFence", {S(T0, X), FE(T0), S(T0, Y)},
     {{END, "100 110"}}},
    {"message passing at block scope, in one block",
     {S(T0, X), REL(T0, F, BLOCK), ACQ(T1, F, BLOCK), S(T1, Y)}, {{END, "000 100 110"}}},
    {"message passing at block scope across blocks: too narrow, y without x",
     {S(T0, X), REL(T0, F, BLOCK), ACQ(T2, F, BLOCK), S(T2, Y)},
     {{END, "000 100 010 110"}}},
    {"message passing at device scope across blocks",
     {S(T0, X), REL(T0, F, DEVICE), ACQ(T2, F, DEVICE), S(T2, Y)}, {{END, "000 100 110"}}},
    {"one side at block scope across blocks is too narrow",
     {S(T0, X), REL(T0, F, DEVICE), ACQ(T2, F, BLOCK), S(T2, Y)},
     {{END, "000 100 010 110"}}},
    {"block 0 of another launch is another block",
     {S(T0, X), REL(T0, F, BLOCK), ACQ(T3, F, BLOCK), S(T3, Y)},
     {{END, "000 100 010 110"}}},
    {"an acquire of another variable orders nothing",
     {S(T0, X), REL(T0, F, DEVICE), ACQ(T2, G, DEVICE), S(T2, Y)},
     {{END, "000 100 010 110"}}},
    {"a release orders only what came before it",
     {REL(T0, F, DEVICE), S(T0, X), ACQ(T2, F, DEVICE), S(T2, Y)},
     {{END, "000 100 010 110"}}},
    {"an acquire orders only what comes after it: z needs x, y nothing",
     {S(T0, X), REL(T0, F, DEVICE), S(T2, Y), ACQ(T2, F, DEVICE), S(T2, Z)},
     {{END, "000 100 010 110 101 111"}}},
    {"persist order is transitive: z needs y, y needs x",
     {S(T0, X), REL(T0, F, BLOCK), ACQ(T1, F, BLOCK), S(T1, Y), REL(T1, G, DEVICE),
      ACQ(T2, G, DEVICE), S(T2, Z)},
     {{END, "000 100 110 111"}}},
    {"an acquire reads the last release: z needs y, not x",
     {S(T0, X), REL(T0, F, DEVICE), S(T1, Y), REL(T1, F, DEVICE), ACQ(T2, F, DEVICE), S(T2, Z)},
     {{END, "000 100 010 110 011 111"}}},
    {"an acquire before any release reads none and orders nothing",
     {ACQ(T2, F, DEVICE), S(T2, Y), S(T0, X), REL(T0, F, DEVICE)}, {{END, "000 100 010 110"}}},
    {"a device release narrowed to block (GPM_MUTATE) is too narrow across blocks",
     {S(T0, X), REL(T0, F, BLOCK | GPM_SCOPE_NARROWED), ACQ(T2, F, DEVICE), S(T2, Y)},
     {{END, "000 100 010 110"}}},
    {"a block acquire narrowed to none (GPM_MUTATE) orders nothing in its block",
     {S(T0, X), REL(T0, F, BLOCK), ACQ(T1, F, GPM_SCOPE_NONE | GPM_SCOPE_NARROWED), S(T1, Y)},
     {{END, "000 100 010 110"}}},
    {"a dFence brings what is ordered before its persists",
     {S(T0, X), REL(T0, F, DEVICE), ACQ(T2, F, DEVICE), S(T2, Y), DF(T2)}, {{END, "110"}}},
};

static void litmus_traces(void)
{
    for (size_t i = 0; i < sizeof litmus / sizeof litmus[0]; i++) {
        const struct litmus *l = &litmus[i];
        gpm_ptrace t;
        begin(&t);
        for (const struct litmus_op *o = l->ops; o->kind; o++)
            op(&t, o->kind, o->thread, o->arg, o->scope);
        for (int k = 0; k < 3 && l->at[k].allowed; k++) {
            char got[256];
            outcomes(&t, l->at[k].crash, got, sizeof got);
            CHECKF(strcmp(got, l->at[k].allowed) == 0, "%s, crash before event %lld (-1: the "
                   "end): allowed %s, want %s", l->name,
                   l->at[k].crash == END ? -1ll : (long long)l->at[k].crash, got, l->at[k].allowed);
        }
        gpm_ptrace_free(&t);
    }
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
    RUN(litmus_traces);
    RUN(the_cpus_stores_stay_strict);
    RUN(random_images_are_closed);
    RUN(strict_counts_sbrp_fences_as_system_fences);
    CHECK_EXIT();
}
