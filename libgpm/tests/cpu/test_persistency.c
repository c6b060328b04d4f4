/* The persistency model on hand-written traces: when each store becomes
 * durable under strict, eadr, ndp and none, the crash images built from that
 * (dropped, applied, chosen by mask or at random, in 8-byte words), and the
 * completeness replay against a file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"
#include "gpm/persistency.h"

#define CPU_A 101u /* host threads */
#define CPU_B 102u
#define GPU_T(b, t) (1ull << 63 | (uint64_t)(b) << 32 | (t))

/* Appends one event; its index, or GPM_NEVER where the trace refused it. */
static uint64_t add(gpm_ptrace *t, uint32_t kind, uint32_t obj, uint64_t off, uint64_t len,
                    uint64_t thread, uint32_t aux, const void *bytes)
{
    gpm_trace_rec r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.obj = obj;
    r.off = off;
    r.len = len;
    r.thread = thread;
    r.aux = aux;
    return gpm_ptrace_add(t, &r, bytes) == 0 ? t->nev - 1 : GPM_NEVER;
}

/* LEN bytes of value V at OFF of OBJ, stored by THREAD (a CPU's, or a GPU
 * thread's with AUX GPM_TR_GPU). */
static uint64_t store(gpm_ptrace *t, uint32_t obj, uint64_t off, uint64_t len, uint8_t v,
                      uint64_t thread, uint32_t aux)
{
    uint8_t b[256];
    memset(b, v, sizeof b);
    return add(t, GPM_TR_STORE, obj, off, len, thread, aux, b);
}
#define CPU_STORE(t, off, len, v) store((t), 0, (off), (len), (v), CPU_A, GPM_TR_CPU)
#define GPU_STORE(t, off, len, v, th) store((t), 0, (off), (len), (v), (th), GPM_TR_GPU)
#define FLUSH(t, off, len, th) add((t), GPM_TR_FLUSH, 0, (off), (len), (th), 0, NULL)
#define DRAIN(t, th) add((t), GPM_TR_DRAIN, 0, 0, 0, (th), 0, NULL)
#define PERSIST(t, off, len) add((t), GPM_TR_PERSIST, 0, (off), (len), CPU_A, 0, NULL)
#define FSYNC(t, obj) add((t), GPM_TR_FSYNC, (obj), 0, 0, CPU_A, 0, NULL)
#define FENCE(t, th) add((t), GPM_TR_FENCE, 0, 0, 0, (th), 0, NULL)

static int one_object(gpm_ptrace *t, uint64_t size)
{
    return gpm_ptrace_init(t, 1, &size);
}

/* The durable points of T under M in *D (the caller frees it). */
static int durable(const gpm_ptrace *t, gpm_model m, uint64_t **d)
{
    return gpm_durability(t, m, d);
}

/* ---- strict: the CPU's stores ---- */

static void strict_flush_then_drain_of_one_thread(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s, f, dr;
    CHECK(one_object(&t, 4096) == 0);
    s = CPU_STORE(&t, 0, 8, 1);
    f = FLUSH(&t, 0, 8, CPU_A);
    dr = DRAIN(&t, CPU_A);
    CHECK(s != GPM_NEVER && f != GPM_NEVER && dr != GPM_NEVER);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s], dr); /* at the drain, not at the flush */
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_flush_and_drain_of_two_threads_is_not_enough(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s, dr;
    CHECK(one_object(&t, 4096) == 0);
    s = CPU_STORE(&t, 0, 8, 1);
    FLUSH(&t, 0, 8, CPU_A);
    DRAIN(&t, CPU_B);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[s] == GPM_NEVER);
    free(d);
    /* The flush is still A's: A's own drain later completes it. */
    dr = DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s], dr);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_store_after_the_flush_is_not_covered(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, before, after;
    CHECK(one_object(&t, 4096) == 0);
    before = CPU_STORE(&t, 0, 8, 1);
    FLUSH(&t, 0, 64, CPU_A);
    after = CPU_STORE(&t, 8, 8, 2);
    DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[before] != GPM_NEVER);
    CHECK(d[after] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_flush_of_another_line_is_not_covered(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, far, next_line, dr;
    CHECK(one_object(&t, 4096) == 0);
    far = CPU_STORE(&t, 128, 8, 1);
    next_line = CPU_STORE(&t, 64, 8, 2); /* the first byte past [0, 64) */
    FLUSH(&t, 0, 64, CPU_A);
    dr = DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[far] == GPM_NEVER);
    CHECK(d[next_line] == GPM_NEVER);
    CHECK(dr != GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_flush_writes_back_whole_lines(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, same_line, line_before, line_after, dr;
    CHECK(one_object(&t, 4096) == 0);
    /* A flush of bytes [72, 80) writes back the line [64, 128). */
    same_line = CPU_STORE(&t, 120, 8, 1);
    line_before = CPU_STORE(&t, 56, 8, 2);
    line_after = CPU_STORE(&t, 128, 8, 3);
    FLUSH(&t, 72, 8, CPU_A);
    dr = DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[same_line], dr);
    CHECK(d[line_before] == GPM_NEVER);
    CHECK(d[line_after] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
    /* A flush that ends one byte into a line covers that line too. */
    CHECK(one_object(&t, 4096) == 0);
    same_line = CPU_STORE(&t, 120, 8, 1);
    FLUSH(&t, 0, 65, CPU_A);
    dr = DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[same_line], dr);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_persist_covers_its_lines(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, in, same_line, out, p;
    CHECK(one_object(&t, 4096) == 0);
    in = CPU_STORE(&t, 256, 16, 1);
    same_line = CPU_STORE(&t, 312, 8, 2);
    out = CPU_STORE(&t, 320, 8, 3);
    p = PERSIST(&t, 256, 8);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[in], p);
    CHECK_EQ_INT(d[same_line], p);
    CHECK(d[out] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_fsync_covers_only_its_object(void)
{
    gpm_ptrace t;
    uint64_t size[2] = {4096, 4096}, *d = NULL, s0, s1, fs;
    CHECK(gpm_ptrace_init(&t, 2, size) == 0);
    s0 = store(&t, 0, 0, 8, 1, CPU_A, GPM_TR_WRITE);
    s1 = store(&t, 1, 0, 8, 2, CPU_A, GPM_TR_WRITE);
    fs = FSYNC(&t, 0);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s0], fs);
    CHECK(d[s1] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

/* ---- strict: the GPU's stores ---- */

static void strict_gpu_store_needs_a_fence_of_its_thread(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s, other, own;
    CHECK(one_object(&t, 4096) == 0);
    s = GPU_STORE(&t, 0, 8, 1, GPU_T(0, 1));
    other = FENCE(&t, GPU_T(0, 2));
    (void)other;
    /* A CPU's flush and drain do not reach a GPU's store (it may still be
     * in the GPU), nor does a persist. */
    FLUSH(&t, 0, 8, CPU_A);
    DRAIN(&t, CPU_A);
    PERSIST(&t, 0, 8);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[s] == GPM_NEVER);
    free(d);
    own = FENCE(&t, GPU_T(0, 1));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK_EQ_INT(d[s], own);
    free(d);
    gpm_ptrace_free(&t);
}

static void strict_fence_of_another_block_same_lane_is_not_enough(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s;
    CHECK(one_object(&t, 4096) == 0);
    s = GPU_STORE(&t, 0, 8, 1, GPU_T(3, 5));
    FENCE(&t, GPU_T(4, 5));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[s] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

/* A kernel: thousands of threads, each with stores and then its fence,
 * the fences in the reverse order of the stores; a second store of a
 * thread after its fence waits for its next fence, and a thread that never
 * fences stays pending. */
static void strict_each_fence_of_many_threads_covers_its_own_stores(void)
{
    enum { N = 3000 };
    gpm_ptrace t;
    uint64_t *d = NULL, *s = malloc(2 * N * sizeof *s), *f = malloc(N * sizeof *f), late, lone;
    CHECK(s && f && one_object(&t, 64 * N + 64) == 0);
    for (uint32_t i = 0; i < N; i++) {
        s[2 * i] = GPU_STORE(&t, 64 * (uint64_t)i, 8, 1, GPU_T(i / 256, i % 256));
        s[2 * i + 1] = GPU_STORE(&t, 64 * (uint64_t)i + 8, 16, 2, GPU_T(i / 256, i % 256));
    }
    lone = GPU_STORE(&t, 64 * (uint64_t)N, 8, 3, GPU_T(N, 0));
    for (uint32_t i = N; i-- > 0;)
        f[i] = FENCE(&t, GPU_T(i / 256, i % 256));
    late = GPU_STORE(&t, 32, 8, 4, GPU_T(0, 0));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    for (uint32_t i = 0; i < N; i++) {
        CHECKF(d[s[2 * i]] == f[i] && d[s[2 * i + 1]] == f[i], "thread %u", i);
    }
    CHECK(d[lone] == GPM_NEVER);
    CHECK(d[late] == GPM_NEVER);
    free(d);
    CHECK(durable(&t, GPM_MODEL_EADR, &d) == 0);
    CHECK_EQ_INT(d[s[2 * (N - 1)]], f[N - 1]);
    free(d);
    gpm_ptrace_free(&t);
    free(s);
    free(f);
}

/* ---- eadr and ndp ---- */

static void eadr_cpu_store_is_durable_at_once(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s, g, f;
    CHECK(one_object(&t, 4096) == 0);
    s = CPU_STORE(&t, 0, 8, 1);
    g = GPU_STORE(&t, 64, 8, 2, GPU_T(0, 1));
    FLUSH(&t, 64, 8, CPU_A);
    DRAIN(&t, CPU_A);
    CHECK(durable(&t, GPM_MODEL_EADR, &d) == 0);
    CHECK_EQ_INT(d[s], s);
    CHECK(d[g] == GPM_NEVER); /* the GPU's still needs its fence */
    free(d);
    FENCE(&t, GPU_T(0, 2));
    CHECK(durable(&t, GPM_MODEL_EADR, &d) == 0);
    CHECK(d[g] == GPM_NEVER);
    free(d);
    f = FENCE(&t, GPU_T(0, 1));
    CHECK(durable(&t, GPM_MODEL_EADR, &d) == 0);
    CHECK_EQ_INT(d[g], f);
    free(d);
    gpm_ptrace_free(&t);
}

static void ndp_gpu_store_needs_the_cpus_flush_and_drain(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, g, g2, dr, p;
    CHECK(one_object(&t, 4096) == 0);
    g = GPU_STORE(&t, 0, 8, 1, GPU_T(0, 1));
    FENCE(&t, GPU_T(0, 1)); /* completes in the CPU's cache: not durable */
    CHECK(durable(&t, GPM_MODEL_NDP, &d) == 0);
    CHECK(d[g] == GPM_NEVER);
    free(d);
    FLUSH(&t, 0, 8, CPU_A);
    dr = DRAIN(&t, CPU_A);
    g2 = GPU_STORE(&t, 128, 8, 2, GPU_T(1, 1));
    p = PERSIST(&t, 128, 8);
    CHECK(durable(&t, GPM_MODEL_NDP, &d) == 0);
    CHECK_EQ_INT(d[g], dr);
    CHECK_EQ_INT(d[g2], p);
    free(d);
    gpm_ptrace_free(&t);
}

/* The header's rule: under ndp a GPU's store is durable through the CPU's
 * flush and drain, a persist, or an fsync of its file. */
static void ndp_fsync_covers_gpu_stores(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, g, fs;
    CHECK(one_object(&t, 4096) == 0);
    g = GPU_STORE(&t, 0, 8, 1, GPU_T(0, 1));
    fs = FSYNC(&t, 0);
    CHECK(durable(&t, GPM_MODEL_NDP, &d) == 0);
    CHECK_EQ_INT(d[g], fs);
    free(d);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[g] == GPM_NEVER); /* strict: it may still be in the GPU */
    free(d);
    gpm_ptrace_free(&t);
}

static void persist_points_and_refused_stores(void)
{
    gpm_ptrace t;
    uint64_t s, f;
    CHECK(one_object(&t, 64) == 0);
    s = CPU_STORE(&t, 0, 8, 1);
    f = FLUSH(&t, 0, 8, CPU_A);
    CHECK(!gpm_ptrace_is_persist(&t, s));
    CHECK(!gpm_ptrace_is_persist(&t, f));
    CHECK(gpm_ptrace_is_persist(&t, DRAIN(&t, CPU_A)));
    CHECK(gpm_ptrace_is_persist(&t, PERSIST(&t, 0, 8)));
    CHECK(gpm_ptrace_is_persist(&t, FSYNC(&t, 0)));
    CHECK(gpm_ptrace_is_persist(&t, FENCE(&t, GPU_T(0, 0))));
    /* A store past the object's end is refused, naming it. */
    CHECK(CPU_STORE(&t, 60, 8, 1) == GPM_NEVER);
    CHECK_MSG(gpm_last_error(), "outside object 0");
    CHECK(store(&t, 1, 0, 8, 1, CPU_A, GPM_TR_CPU) == GPM_NEVER);
    gpm_ptrace_free(&t);
}

/* ---- images ---- */

static uint64_t word(const uint8_t *img, uint64_t w)
{
    uint64_t x;
    memcpy(&x, img + 8 * w, 8);
    return x;
}

static uint64_t rep(uint8_t v) { return 0x0101010101010101ull * v; }

static uint64_t image(const gpm_ptrace *t, const uint64_t *d, uint64_t crash, gpm_pick pick,
                      uint64_t arg, uint8_t *img, uint64_t *pending)
{
    uint8_t *imgs[1] = {img};
    return gpm_image(t, d, crash, pick, &arg, imgs, pending);
}

static void image_drop_keeps_durable_values_apply_takes_the_last(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend = 99;
    uint8_t img[256];
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 8, 0x11);
    PERSIST(&t, 0, 8);
    CPU_STORE(&t, 64, 8, 0x22);
    CPU_STORE(&t, 64, 8, 0x23); /* the same word again */
    CPU_STORE(&t, 128, 8, 0x33);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(pend, 2);
    CHECK(word(img, 0) == rep(0x11));
    CHECK(word(img, 8) == 0 && word(img, 16) == 0);
    image(&t, d, t.nev, GPM_APPLY, 0, img, &pend);
    CHECK_EQ_INT(pend, 2);
    CHECK(word(img, 0) == rep(0x11));
    CHECK(word(img, 8) == rep(0x23));
    CHECK(word(img, 16) == rep(0x33));
    /* Crash point K: only events 0..K-1 happened. */
    image(&t, d, 3, GPM_APPLY, 0, img, &pend);
    CHECK_EQ_INT(pend, 1);
    CHECK(word(img, 8) == rep(0x22));
    CHECK(word(img, 16) == 0);
    image(&t, d, 1, GPM_APPLY, 0, img, &pend); /* before the persist */
    CHECK_EQ_INT(pend, 1);
    CHECK(word(img, 0) == rep(0x11));
    image(&t, d, 1, GPM_DROP, 0, img, &pend);
    CHECK(word(img, 0) == 0);
    image(&t, d, 0, GPM_APPLY, 0, img, &pend);
    CHECK_EQ_INT(pend, 0);
    CHECK(word(img, 0) == 0);
    free(d);
    gpm_ptrace_free(&t);
}

static void image_mask_selects_pending_words_in_first_store_order(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend = 0;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    /* Pending words, first stored in this order: 3, 0, 5; word 3 again. */
    CPU_STORE(&t, 24, 8, 0xa3);
    CPU_STORE(&t, 0, 8, 0xa0);
    CPU_STORE(&t, 40, 8, 0xa5);
    CPU_STORE(&t, 24, 8, 0xb3);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    for (uint64_t m = 0; m < 8; m++) {
        image(&t, d, t.nev, GPM_MASK, m, img, &pend);
        CHECK_EQ_INT(pend, 3);
        CHECKF(word(img, 3) == (m & 1 ? rep(0xb3) : 0), "mask %llu, word 3",
               (unsigned long long)m);
        CHECKF(word(img, 0) == (m & 2 ? rep(0xa0) : 0), "mask %llu, word 0",
               (unsigned long long)m);
        CHECKF(word(img, 5) == (m & 4 ? rep(0xa5) : 0), "mask %llu, word 5",
               (unsigned long long)m);
        CHECK(word(img, 1) == 0 && word(img, 2) == 0 && word(img, 4) == 0 && word(img, 6) == 0);
    }
    free(d);
    gpm_ptrace_free(&t);
}

/* A word that became durable again is no longer pending: the mask's bits
 * count only the words still pending, as the pending count does. */
static void image_mask_bits_follow_the_pending_count(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend = 0, base;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    GPU_STORE(&t, 0, 8, 0x01, GPU_T(0, 1)); /* pending to the end */
    GPU_STORE(&t, 0, 8, 0x02, GPU_T(0, 2));
    FENCE(&t, GPU_T(0, 2)); /* word 0 durable with 0x02 */
    GPU_STORE(&t, 8, 8, 0x03, GPU_T(0, 1));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    base = image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(pend, 1);
    CHECK(word(img, 0) == rep(0x02) && word(img, 1) == 0);
    CHECK(image(&t, d, t.nev, GPM_MASK, 1, img, &pend) != base);
    CHECK(word(img, 0) == rep(0x02));
    CHECK(word(img, 1) == rep(0x03));
    free(d);
    gpm_ptrace_free(&t);
}

static void image_word_with_durable_value_then_pending_store(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend = 0, seen_old = 0, seen_new = 0;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 16, 8, 0x10);
    PERSIST(&t, 16, 8);
    CPU_STORE(&t, 16, 8, 0x20);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(pend, 1);
    CHECK(word(img, 2) == rep(0x10));
    image(&t, d, t.nev, GPM_APPLY, 0, img, &pend);
    CHECK(word(img, 2) == rep(0x20));
    image(&t, d, t.nev, GPM_MASK, 1, img, &pend);
    CHECK(word(img, 2) == rep(0x20));
    image(&t, d, t.nev, GPM_MASK, 0, img, &pend);
    CHECK(word(img, 2) == rep(0x10));
    for (uint64_t seed = 1; seed <= 64; seed++) {
        image(&t, d, t.nev, GPM_RANDOM, seed, img, &pend);
        seen_old += word(img, 2) == rep(0x10);
        seen_new += word(img, 2) == rep(0x20);
    }
    CHECK_EQ_INT(seen_old + seen_new, 64); /* one of the two, never another */
    CHECK(seen_old > 0 && seen_new > 0);
    free(d);
    gpm_ptrace_free(&t);
}

static void image_words_are_eight_bytes(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend = 0;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 16, 0x51); /* two words */
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(pend, 2);
    image(&t, d, t.nev, GPM_MASK, 2, img, &pend); /* the second word alone */
    CHECK(word(img, 0) == 0 && word(img, 1) == rep(0x51));
    free(d);
    gpm_ptrace_free(&t);

    /* Four bytes across a word boundary pend two words; two bytes in a
     * word that a durable store made: that word goes whole, old or new. */
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 20, 4, 0x61);
    PERSIST(&t, 20, 4);
    CPU_STORE(&t, 22, 4, 0x62); /* bytes 22..25: words 2 and 3 */
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(pend, 2);
    CHECK(img[20] == 0x61 && img[21] == 0x61 && img[22] == 0x61 && img[23] == 0x61);
    CHECK(img[24] == 0 && img[25] == 0);
    image(&t, d, t.nev, GPM_MASK, 1, img, &pend); /* word 2 only */
    CHECK(img[20] == 0x61 && img[21] == 0x61 && img[22] == 0x62 && img[23] == 0x62);
    CHECK(img[24] == 0 && img[25] == 0);
    image(&t, d, t.nev, GPM_MASK, 2, img, &pend); /* word 3 only */
    CHECK(img[22] == 0x61 && img[23] == 0x61 && img[24] == 0x62 && img[25] == 0x62);
    free(d);
    gpm_ptrace_free(&t);
}

static void image_hashes_tell_images_apart(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, h[8], pend;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 8, 1);
    CPU_STORE(&t, 8, 8, 2);
    CPU_STORE(&t, 16, 8, 3);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    for (uint64_t m = 0; m < 8; m++)
        h[m] = image(&t, d, t.nev, GPM_MASK, m, img, &pend);
    for (int i = 0; i < 8; i++)
        for (int j = i + 1; j < 8; j++)
            CHECKF(h[i] != h[j], "masks %d and %d hash alike", i, j);
    /* The same image, however reached, hashes alike. */
    CHECK(image(&t, d, t.nev, GPM_DROP, 0, img, &pend) == h[0]);
    CHECK(image(&t, d, t.nev, GPM_APPLY, 0, img, &pend) == h[7]);
    CHECK(image(&t, d, t.nev, GPM_MASK, 5, img, &pend) == h[5]);
    CHECK(image(&t, d, 0, GPM_APPLY, 0, img, &pend) == h[0]);
    free(d);
    gpm_ptrace_free(&t);
}

static void image_random_repeats_with_its_seed(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend, h1, h2, first = 0, distinct = 0;
    uint8_t a[256], b[256];
    CHECK(one_object(&t, sizeof a) == 0);
    for (uint64_t w = 0; w < 32; w++)
        CPU_STORE(&t, 8 * w, 8, (uint8_t)(w + 1));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        h1 = image(&t, d, t.nev, GPM_RANDOM, seed * 7919, a, &pend);
        h2 = image(&t, d, t.nev, GPM_RANDOM, seed * 7919, b, &pend);
        CHECK(h1 == h2);
        CHECK(memcmp(a, b, sizeof a) == 0);
        if (seed == 1)
            first = h1;
        distinct += h1 != first;
    }
    CHECK(distinct > 0); /* the seed matters */
    free(d);
    gpm_ptrace_free(&t);
}

/* ---- none: no persist point honoured (NVC) ---- */

/* ---- a mutant's removed persist points ---- */

#define REMOVED(t, kind, off, len, th) add((t), GPM_TR_REMOVED, 0, (off), (len), (th), (kind), NULL)

/* A removed point is no persist point; restored, it is the one it was. */
static void removed_points_count_only_restored(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, *u = NULL, s, g, r, f;
    CHECK(one_object(&t, 4096) == 0);
    CHECK(!gpm_ptrace_has_removed(&t));
    s = CPU_STORE(&t, 0, 8, 1);
    r = REMOVED(&t, GPM_TR_PERSIST, 0, 8, CPU_A);
    g = GPU_STORE(&t, 64, 8, 2, GPU_T(0, 1));
    f = REMOVED(&t, GPM_TR_FENCE, 0, 0, GPU_T(0, 1));
    CHECK(gpm_ptrace_has_removed(&t));
    CHECK(!gpm_ptrace_is_persist(&t, r) && !gpm_ptrace_is_persist(&t, f));
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(d[s] == GPM_NEVER && d[g] == GPM_NEVER);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    CHECK_EQ_INT(u[s], r);
    CHECK_EQ_INT(u[g], f);
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* The spare image drops the stores the removal held back, and the words
 * they wrote keep their durable value even where a later store pends;
 * every other pending word takes its last value. */
static void spare_image_drops_only_what_the_removal_held_back(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, *u = NULL, pend = 0;
    uint8_t img[256], *imgs[1] = {img};
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 8, 0x11);  /* the log record */
    REMOVED(&t, GPM_TR_PERSIST, 0, 8, CPU_A);
    CPU_STORE(&t, 64, 8, 0x22); /* the update it guards */
    PERSIST(&t, 64, 8);
    CPU_STORE(&t, 0, 8, 0x12);  /* the record's word again, pending */
    CPU_STORE(&t, 128, 8, 0x33); /* pending, not held back */
    PERSIST(&t, 192, 8);         /* a crash point after it */
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    gpm_image_spare(&t, d, u, t.nev, 0, imgs, &pend);
    CHECK_EQ_INT(pend, 2);
    CHECK(word(img, 0) == 0);          /* held back, and what followed it */
    CHECK(word(img, 8) == rep(0x22));  /* durable */
    CHECK(word(img, 16) == rep(0x33)); /* pending: applied */
    /* Before the removed point nothing is held back: as APPLY. */
    gpm_image_spare(&t, d, u, 1, 0, imgs, &pend);
    CHECK(word(img, 0) == rep(0x11));
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* With a seed, each held-back word is dropped or not: a torn record. */
static void spare_image_with_a_seed_tears_what_it_holds_back(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, *u = NULL, pend = 0;
    uint8_t img[256], *imgs[1] = {img};
    int torn = 0, whole = 0;
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 16, 0x11); /* a record of two words */
    REMOVED(&t, GPM_TR_PERSIST, 0, 16, CPU_A);
    CPU_STORE(&t, 64, 8, 0x22);
    PERSIST(&t, 64, 8);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    for (uint64_t seed = 1; seed <= 64; seed++) {
        gpm_image_spare(&t, d, u, t.nev, seed, imgs, &pend);
        torn += (word(img, 0) == 0) != (word(img, 1) == 0);
        whole += word(img, 0) == rep(0x11) && word(img, 1) == rep(0x11);
        CHECK(word(img, 8) == rep(0x22));
    }
    CHECK(torn > 0 && whole > 0);
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* The torn spare image: the held-back flag dropped, the copy pending
 * beside it in its object torn (some words new, some old), and the pending
 * words of other objects applied. */
static void spare_torn_image_tears_the_copy_beside_a_held_flag(void)
{
    gpm_ptrace t;
    uint64_t sizes[2] = {256, 64}, *d = NULL, *u = NULL, pend = 0;
    uint8_t img0[256], img1[64], *imgs[2] = {img0, img1};
    int torn = 0, whole = 0;
    CHECK(gpm_ptrace_init(&t, 2, sizes) == 0);
    CPU_STORE(&t, 0, 8, 0x11); /* the flip */
    REMOVED(&t, GPM_TR_PERSIST, 0, 8, CPU_A);
    CPU_STORE(&t, 64, 64, 0x22); /* the next copy: 8 words, pending */
    store(&t, 1, 0, 8, 0x33, CPU_A, GPM_TR_CPU); /* another object's, pending */
    PERSIST(&t, 192, 8);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    for (uint64_t seed = 1; seed <= 64; seed++) {
        int n = 0;
        gpm_image_spare_torn(&t, d, u, t.nev, seed, imgs, &pend);
        CHECK_EQ_INT(pend, 10);
        CHECK(word(img0, 0) == 0);         /* held back */
        CHECK(word(img1, 0) == rep(0x33)); /* another object: applied */
        for (int w = 8; w < 16; w++)
            n += word(img0, w) == rep(0x22);
        torn += n > 0 && n < 8;
        whole += n == 8;
    }
    CHECK(torn > 32 && whole < 8);
    /* The plain spare image applies that copy whole. */
    gpm_image_spare(&t, d, u, t.nev, 0, imgs, &pend);
    CHECK(word(img0, 0) == 0 && word(img0, 8) == rep(0x22) && word(img0, 15) == rep(0x22));
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* A flag stored twice, each persist removed: a seeded spare image may
 * leave it at its durable value, its first or its last (a checkpoint flip
 * that names the group the next copy is overwriting). */
static void spare_image_with_a_seed_takes_any_value_of_a_held_word(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, *u = NULL, pend = 0;
    uint8_t img[256], *imgs[1] = {img};
    int seen[3] = {0, 0, 0};
    CHECK(one_object(&t, sizeof img) == 0);
    CPU_STORE(&t, 0, 8, 0x11);
    REMOVED(&t, GPM_TR_PERSIST, 0, 8, CPU_A);
    CPU_STORE(&t, 0, 8, 0x12);
    REMOVED(&t, GPM_TR_PERSIST, 0, 8, CPU_A);
    CPU_STORE(&t, 64, 8, 0x22);
    PERSIST(&t, 64, 8);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    for (uint64_t seed = 1; seed <= 64; seed++) {
        gpm_image_spare(&t, d, u, t.nev, seed, imgs, &pend);
        seen[0] += word(img, 0) == 0;
        seen[1] += word(img, 0) == rep(0x11);
        seen[2] += word(img, 0) == rep(0x12);
        CHECK(word(img, 8) == rep(0x22));
    }
    CHECK(seen[0] > 0 && seen[1] > 0 && seen[2] > 0);
    CHECK_EQ_INT(seen[0] + seen[1] + seen[2], 64);
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* A GPU thread's record, its fence removed, then the update it guards,
 * then the thread's next fence: the record is held back from just after
 * the removed fence to just before that fence. The window's end, where the
 * update is made and the record is not durable, is the point: the image
 * there that drops the record and applies the update is one the original
 * never allows. */
static void held_back_window_end_is_the_point(void)
{
    gpm_ptrace t;
    gpm_held h;
    uint64_t *d = NULL, *u = NULL, pend = 0, th = GPU_T(0, 1);
    uint8_t img[256], *imgs[1] = {img};
    CHECK(one_object(&t, sizeof img) == 0);
    GPU_STORE(&t, 0, 8, 0x11, th); /* the log record */
    REMOVED(&t, GPM_TR_FENCE, 0, 0, th);
    GPU_STORE(&t, 64, 8, 0x22, th); /* the update it guards */
    FENCE(&t, th);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    CHECK(gpm_held_back(&t, d, u, &h) == 0);
    CHECK_EQ_INT(h.removed, 1);
    CHECK_EQ_INT(h.stores, 1);
    CHECK_EQ_INT(h.points, 2); /* before and after the update */
    CHECK_EQ_INT(h.nlast, 1);
    CHECK_EQ_INT(h.nat, 1);      /* where it begins is no point worth an image */
    CHECK_EQ_INT(h.at[0], 3);    /* before the fence */
    gpm_image_spare(&t, d, u, h.at[0], 0, imgs, &pend);
    CHECK(word(img, 0) == 0);         /* the record dropped */
    CHECK(word(img, 8) == rep(0x22)); /* the update applied */
    free(h.at);
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

/* While a record is held back, another thread fences often at one site
 * and the host persists once at another: the host's point comes among the
 * first, not after the many fences. */
static void held_back_points_take_turns_over_sites(void)
{
    gpm_ptrace t;
    gpm_held h;
    uint64_t *d = NULL, *u = NULL, th = GPU_T(0, 1), other = GPU_T(1, 1), host;
    CHECK(one_object(&t, 256) == 0);
    GPU_STORE(&t, 0, 8, 0x11, th);
    REMOVED(&t, GPM_TR_FENCE, 0, 0, th);
    for (int i = 0; i < 7; i++)
        FENCE(&t, other);
    CPU_STORE(&t, 128, 8, 0x44);
    host = PERSIST(&t, 128, 8);
    for (int i = 0; i < 3; i++)
        FENCE(&t, other);
    GPU_STORE(&t, 64, 8, 0x22, th);
    FENCE(&t, th);
    CHECK((t.site = calloc(2, sizeof *t.site)) != NULL);
    t.nsites = 2;
    t.ev[host].site = 1; /* every other event: site 0 */
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    CHECK(gpm_durability_unmutated(&t, GPM_MODEL_STRICT, &u) == 0);
    CHECK(gpm_held_back(&t, d, u, &h) == 0);
    CHECK_EQ_INT(h.nlast, 1);
    CHECK_EQ_INT(h.nat, 12); /* the end, and after each of the 11 persist points */
    CHECK_EQ_INT(h.at[0], t.nev - 1);
    CHECK(h.at[1] != host + 1 && h.at[2] == host + 1);
    free(h.at);
    free(d);
    free(u);
    gpm_ptrace_free(&t);
}

static void none_honours_no_persist_point(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, s[4];
    CHECK(one_object(&t, 4096) == 0);
    s[0] = CPU_STORE(&t, 0, 8, 1);
    FLUSH(&t, 0, 8, CPU_A);
    DRAIN(&t, CPU_A);
    s[1] = CPU_STORE(&t, 64, 8, 2);
    PERSIST(&t, 64, 8);
    s[2] = GPU_STORE(&t, 128, 8, 3, GPU_T(0, 1));
    FENCE(&t, GPU_T(0, 1));
    s[3] = CPU_STORE(&t, 192, 8, 4);
    FSYNC(&t, 0);
    CHECK(durable(&t, GPM_MODEL_STRICT, &d) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(d[s[i]] != GPM_NEVER); /* each is durable under strict */
    free(d);
    CHECK(durable(&t, GPM_MODEL_NONE, &d) == 0);
    for (int i = 0; i < 4; i++)
        CHECK(d[s[i]] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

static void none_keeps_strict_for_an_honoured_object(void)
{
    gpm_ptrace t;
    uint64_t size[2] = {4096, 4096}, *d = NULL, data, id, id_late, p;
    CHECK(gpm_ptrace_init(&t, 2, size) == 0);
    t.obj[1].honoured = 1; /* the run's bookkeeping */
    data = CPU_STORE(&t, 0, 8, 1);
    id = store(&t, 1, 0, 8, 7, CPU_A, GPM_TR_CPU);
    PERSIST(&t, 0, 8);
    p = add(&t, GPM_TR_PERSIST, 1, 0, 8, CPU_A, 0, NULL);
    id_late = store(&t, 1, 8, 8, 8, CPU_A, GPM_TR_CPU); /* never persisted */
    CHECK(durable(&t, GPM_MODEL_NONE, &d) == 0);
    CHECK(d[data] == GPM_NEVER);
    CHECK_EQ_INT(d[id], p);
    CHECK(d[id_late] == GPM_NEVER);
    free(d);
    gpm_ptrace_free(&t);
}

static void none_image_word_holds_any_value_written(void)
{
    gpm_ptrace t;
    uint64_t *d = NULL, pend, seen = 0;
    uint8_t img[64];
    CHECK(one_object(&t, sizeof img) == 0);
    for (uint8_t v = 1; v <= 3; v++) {
        CPU_STORE(&t, 0, 8, v);
        PERSIST(&t, 0, 8);
    }
    CHECK(durable(&t, GPM_MODEL_NONE, &d) == 0);
    /* At the end: the start value or any of the three, not only the last. */
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t w;
        image(&t, d, t.nev, GPM_RANDOM, seed * 7919, img, &pend);
        w = word(img, 0);
        CHECK(w == 0 || w == rep(1) || w == rep(2) || w == rep(3));
        seen |= 1ull << (w & 0xff);
        CHECK_EQ_INT(pend, 1);
    }
    CHECK_EQ_INT(seen, 0xf);
    /* Dropped, the word is as it started; applied, the last. */
    image(&t, d, t.nev, GPM_DROP, 0, img, &pend);
    CHECK_EQ_INT(word(img, 0), 0);
    image(&t, d, t.nev, GPM_APPLY, 0, img, &pend);
    CHECK(word(img, 0) == rep(3));
    free(d);
    gpm_ptrace_free(&t);
}

/* ---- the completeness replay ---- */

static void replay_compares_with_the_file(void)
{
    gpm_ptrace t;
    char path[4096], report[1024];
    uint8_t want[256];
    FILE *f;
    CHECK(one_object(&t, sizeof want) == 0);
    CHECK(gpm_resolve_path("persistency-replay", path, sizeof path) == 0);
    snprintf(t.obj[0].path, sizeof t.obj[0].path, "%s", path);
    memset(want, 0, sizeof want);
    t.obj[0].start[200] = 9; /* the start image counts too */
    want[200] = 9;
    CPU_STORE(&t, 8, 16, 0x41);
    memset(want + 8, 0x41, 16);
    CPU_STORE(&t, 16, 8, 0x42); /* the later store wins */
    memset(want + 16, 0x42, 8);
    store(&t, 0, 100, 3, 0x43, CPU_A, GPM_TR_WRITE);
    memset(want + 100, 0x43, 3);
    f = fopen(path, "wb");
    CHECK(f && fwrite(want, 1, sizeof want, f) == sizeof want && fclose(f) == 0);
    CHECKF(gpm_replay_check(&t, report, sizeof report) == 0, "%s", report);
    CHECK(report[0] == '\0');

    want[37] ^= 0xff; /* a write the trace did not see */
    f = fopen(path, "wb");
    CHECK(f && fwrite(want, 1, sizeof want, f) == sizeof want && fclose(f) == 0);
    CHECK_EQ_INT(gpm_replay_check(&t, report, sizeof report), 1);
    CHECK_MSG(report, path);
    CHECK_MSG(report, "1 bytes");
    CHECK_MSG(report, "from offset 37 to 37");

    want[37] ^= 0xff;
    want[250] = 1;
    f = fopen(path, "wb");
    CHECK(f && fwrite(want, 1, sizeof want, f) == sizeof want && fclose(f) == 0);
    CHECK_EQ_INT(gpm_replay_check(&t, report, sizeof report), 1);
    CHECK_MSG(report, "from offset 250 to 250");

    /* A file cut short differs from where it ends. */
    f = fopen(path, "wb");
    CHECK(f && fwrite(want, 1, 128, f) == 128 && fclose(f) == 0);
    CHECK_EQ_INT(gpm_replay_check(&t, report, sizeof report), 1);
    CHECK_MSG(report, "128 bytes");
    CHECK_MSG(report, "from offset 128 to 255");

    CHECK(unlink(path) == 0);
    CHECK_EQ_INT(gpm_replay_check(&t, report, sizeof report), -1);
    CHECK_MSG(gpm_last_error(), path);
    gpm_ptrace_free(&t);
}

static void model_names(void)
{
    gpm_model m = GPM_MODEL_EADR;
    CHECK(gpm_model_parse("strict", &m) == 0 && m == GPM_MODEL_STRICT);
    CHECK(gpm_model_parse("eadr", &m) == 0 && m == GPM_MODEL_EADR);
    CHECK(gpm_model_parse("ndp", &m) == 0 && m == GPM_MODEL_NDP);
    CHECK(gpm_model_parse("none", &m) == 0 && m == GPM_MODEL_NONE);
    CHECK(gpm_model_parse("sbrp", &m) == 0 && m == GPM_MODEL_SBRP);
    CHECK(gpm_model_parse("ndp", &m) == 0 && m == GPM_MODEL_NDP);
    CHECK(strcmp(gpm_model_name(GPM_MODEL_NDP), "ndp") == 0);
    CHECK(strcmp(gpm_model_name(GPM_MODEL_NONE), "none") == 0);
    CHECK(gpm_model_parse("bogus", &m) == -1);
    CHECK(m == GPM_MODEL_NDP); /* untouched */
    CHECK_MSG(gpm_last_error(), "bogus");
    CHECK_MSG(gpm_last_error(), "strict");
    CHECK_MSG(gpm_last_error(), "eadr");
    CHECK_MSG(gpm_last_error(), "ndp");
    CHECK_MSG(gpm_last_error(), "none");
    CHECK_MSG(gpm_last_error(), "sbrp");
    CHECK(gpm_model_parse("Strict", &m) == -1);
}

int main(void)
{
    RUN(strict_flush_then_drain_of_one_thread);
    RUN(strict_flush_and_drain_of_two_threads_is_not_enough);
    RUN(strict_store_after_the_flush_is_not_covered);
    RUN(strict_flush_of_another_line_is_not_covered);
    RUN(strict_flush_writes_back_whole_lines);
    RUN(strict_persist_covers_its_lines);
    RUN(strict_fsync_covers_only_its_object);
    RUN(strict_gpu_store_needs_a_fence_of_its_thread);
    RUN(strict_fence_of_another_block_same_lane_is_not_enough);
    RUN(strict_each_fence_of_many_threads_covers_its_own_stores);
    RUN(eadr_cpu_store_is_durable_at_once);
    RUN(ndp_gpu_store_needs_the_cpus_flush_and_drain);
    RUN(ndp_fsync_covers_gpu_stores);
    RUN(persist_points_and_refused_stores);
    RUN(image_drop_keeps_durable_values_apply_takes_the_last);
    RUN(image_mask_selects_pending_words_in_first_store_order);
    RUN(image_mask_bits_follow_the_pending_count);
    RUN(image_word_with_durable_value_then_pending_store);
    RUN(image_words_are_eight_bytes);
    RUN(image_hashes_tell_images_apart);
    RUN(image_random_repeats_with_its_seed);
    RUN(removed_points_count_only_restored);
    RUN(spare_image_drops_only_what_the_removal_held_back);
    RUN(spare_image_with_a_seed_tears_what_it_holds_back);
    RUN(spare_image_with_a_seed_takes_any_value_of_a_held_word);
    RUN(spare_torn_image_tears_the_copy_beside_a_held_flag);
    RUN(held_back_window_end_is_the_point);
    RUN(held_back_points_take_turns_over_sites);
    RUN(none_honours_no_persist_point);
    RUN(none_keeps_strict_for_an_honoured_object);
    RUN(none_image_word_holds_any_value_written);
    RUN(replay_compares_with_the_file);
    RUN(model_names);
    CHECK_EXIT();
}
