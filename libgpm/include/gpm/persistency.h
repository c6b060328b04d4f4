/* The persistency model, in one file: which of a trace's stores
 * (gpm/trace.h) are durable at each point of it, and the crash images that
 * a model allows there. gpm-check builds images with it; the tests check
 * it on hand-written traces.
 *
 * The rules (the CUDA memory model's system-scope fence, the paper's
 * persist, x86's flush and fence, POSIX's fsync):
 *
 *   strict  today's hardware with DDIO off. A GPU thread's store is
 *           durable once a system-scope fence of that thread (gpm_persist)
 *           follows it. A CPU store, or one a DMA or write() made, is
 *           durable once a flush of its bytes by a thread is followed by a
 *           drain of that thread, or a persist (flush and drain) or an
 *           msync covers it, or an fsync of its file follows it.
 *   eadr    the caches are in the persistence domain: a CPU store is
 *           durable as soon as it is made; a GPU thread's store once its
 *           thread's fence makes it visible.
 *   ndp     GPM-NDP (DDIO left on): a GPU fence completes in the CPU's
 *           cache, so a GPU store, like a CPU one, is durable only through
 *           the CPU's flush and drain (or a persist or fsync) of its bytes.
 *
 * A store that is not durable at a crash may or may not be, independently
 * for each aligned word of GPM_PWORD bytes (the paper's atomic persist
 * size): the word then holds its last durable value or the value after any
 * later store to it. */
#ifndef GPM_PERSISTENCY_H
#define GPM_PERSISTENCY_H

#include <stddef.h>
#include <stdint.h>

#include "gpm/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_PWORD 8u
#define GPM_NEVER UINT64_MAX

/* NONE honours no persist point (but those of objects marked honoured):
 * every store before a crash may or may not have reached PM, each word
 * holding any value written to it (NVC's question: which programs
 * recompute from whatever PM holds). */
/* SBRP orders persists rather than giving each a durable point: its images
 * come from gpm_sbrp_image (below), and gpm_durability gives strict's
 * points under it. */
typedef enum {
    GPM_MODEL_STRICT,
    GPM_MODEL_EADR,
    GPM_MODEL_NDP,
    GPM_MODEL_NONE,
    GPM_MODEL_SBRP
} gpm_model;
/* "strict", "eadr", "ndp", "none", "sbrp": 0, or -1 with a message naming
 * the models. */
int gpm_model_parse(const char *name, gpm_model *m);
const char *gpm_model_name(gpm_model m);

/* A trace in memory: its events in order, each store's bytes, and the
 * objects' start images. */
typedef struct gpm_pobj {
    char path[4096];
    uint64_t size;
    uint8_t *start;
    int honoured; /* under model NONE, this object's persists still count (as
                     strict): a run's bookkeeping, where the question is its data */
} gpm_pobj;
typedef struct gpm_ptrace {
    gpm_trace_rec *ev;       /* the events, OBJ and SITE records left out */
    uint64_t *data;          /* STORE: where its bytes start in BYTES */
    uint64_t nev;
    uint8_t *bytes;
    gpm_pobj *obj;
    uint32_t nobj;
    char **site;             /* names, by site id */
    uint32_t nsites;
    int ended;               /* the trace has its END (the work finished) */
    int model;               /* the model the program declared (GPM_TR_MODEL) + 1;
                                0: none */
    char run[256];           /* what the program said the run is (GPM_TR_RUN): k=v
                                words; "": it said nothing */
    int restore_removed;     /* gpm_durability honours GPM_TR_REMOVED records as
                                the persist points they were: the original's
                                durability, beside the mutant's */
    uint64_t ev_cap, bytes_cap, bytes_len; /* the arrays' room, as they grow */
} gpm_ptrace;

/* Reads DIR/trace.bin and DIR/start-N: 0, or -1 with a message. */
int gpm_ptrace_load(gpm_ptrace *t, const char *dir);
void gpm_ptrace_free(gpm_ptrace *t);
/* Builds a trace in memory, for tests: objects of SIZE bytes (start images
 * zero), then events appended in order. */
int gpm_ptrace_init(gpm_ptrace *t, uint32_t nobj, const uint64_t *size);
int gpm_ptrace_add(gpm_ptrace *t, const gpm_trace_rec *r, const void *bytes);

/* Is event K a persist point (a drain, persist, fsync or fence)? */
int gpm_ptrace_is_persist(const gpm_ptrace *t, uint64_t k);
const char *gpm_ptrace_site(const gpm_ptrace *t, uint64_t k);

/* For every event, the index of the event after which it (a store) is
 * durable under model M, or GPM_NEVER; *DURABLE malloc'd (nev entries). */
int gpm_durability(const gpm_ptrace *t, gpm_model m, uint64_t **durable);
/* A mutant's trace T: gpm_durability with its removed persist points
 * honoured as the points they were (restore_removed), the original's
 * durability; T itself is left as it is. */
int gpm_durability_unmutated(const gpm_ptrace *t, gpm_model m, uint64_t **before);
/* Does T hold a persist point that GPM_MUTATE removed (GPM_TR_REMOVED)? */
int gpm_ptrace_has_removed(const gpm_ptrace *t);

/* How an image treats the stores not durable at its crash point: each
 * such word keeps its last durable value (DROP), takes its last value
 * (APPLY), any of its values drawn with *ARG as a random state (RANDOM),
 * or, the I-th such word in the order of their first pending store, its
 * last value where bit I of *ARG is set and its durable one elsewhere
 * (MASK: the subsets of up to 64 words). */
typedef enum { GPM_DROP, GPM_APPLY, GPM_RANDOM, GPM_MASK, GPM_SPARE, GPM_SPARE_TORN } gpm_pick;
/* (GPM_SPARE and GPM_SPARE_TORN are gpm_image_spare's; gpm_image takes
 * them as APPLY.) */
/* The image at crash point CRASH (before event CRASH: the events
 * 0..CRASH-1 happened): IMG[o] (the objects' sizes, the caller's) gets the
 * start image with the durable stores, and the pending ones as PICK says.
 * *PENDING gets the words that had a store pending (NULL: not wanted);
 * returns a hash of the image. */
uint64_t gpm_image(const gpm_ptrace *t, const uint64_t *durable, uint64_t crash, gpm_pick pick,
                   uint64_t *arg, uint8_t **img, uint64_t *pending);

/* A mutant's sharpest images at CRASH: the stores that BEFORE (the
 * durability with the removed persist points restored) makes durable there
 * and DURABLE does not are held back, every word they wrote keeping its
 * last durable value (SEED 0), or each such word with probability 1/2 (a
 * SEED: a torn record), the others holding any one of their values (the
 * durable one or a pending store's: a flag stored twice may be left at
 * its first); every other pending word is given its last value.
 * Returns its hash; *PENDING as gpm_image. */
uint64_t gpm_image_spare(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                         uint64_t crash, uint64_t seed, uint8_t **img, uint64_t *pending);
/* The same with every held-back word dropped, and every other pending word
 * of an object that holds one drawn from its values with SEED (as RANDOM
 * does) rather than given its last: a copy in flight beside a flag the
 * mutant holds back, left half done (a checkpoint's next copy torn while
 * the old flip still names its group). Other objects' pending words take
 * their last value. */
uint64_t gpm_image_spare_torn(const gpm_ptrace *t, const uint64_t *durable,
                              const uint64_t *before, uint64_t crash, uint64_t seed,
                              uint8_t **img, uint64_t *pending);

/* What a mutant's removed persist points change, from DURABLE (the
 * mutant's durability) and BEFORE (the original's,
 * gpm_durability_unmutated): the REMOVED points, the STORES they hold back
 * (durable in the original at some crash point, pending in the mutant),
 * and the crash POINTS where one is held back. AT lists the NAT points
 * worth an image, best first: NLAST window ends (a held-back store's last
 * point held, just before the mutant's persist of it, where its thread
 * has made every later store, and so whatever it should have preceded),
 * interleaved with the points just after a persist point while a store is
 * held (what became durable before it), and the end. The ends come in an
 * order whose every prefix is spread over the trace; the others the same
 * way for each persist site, in turns over the sites (a host commit among
 * a kernel's thousands of fences comes early). */
typedef struct {
    uint64_t removed, stores, points;
    uint64_t *at, nat, nlast; /* AT malloc'd: free it */
} gpm_held;
int gpm_held_back(const gpm_ptrace *t, const uint64_t *durable, const uint64_t *before,
                  gpm_held *h);

/* A hash of the images IMG (the objects' sizes): equal images, equal hashes. */
uint64_t gpm_image_hash(const gpm_ptrace *t, uint8_t **img);

/* ---- SBRP, scoped buffered release persistency (Pandey et al.,
 * ASPLOS'23; sbrp.c) ----
 * A GPU thread's persists are ordered (persist memory order, PMO) only as
 * its operations say:
 *   - an oFence orders its persists before the fence before its later ones;
 *   - a pRel of scope S on a variable, then a pAcq of scope S on it by
 *     another thread that reads that release, orders the releaser's persists
 *     before the pRel before the acquirer's after the pAcq, where both
 *     scopes include both threads (block: one block of one launch; device:
 *     any thread of the GPU); PMO is transitive;
 *   - a dFence makes the thread's persists before it durable (and what PMO
 *     puts before them).
 * A system-scope fence (GPM_TR_FENCE, gpm_persist) counts as a dFence and
 * an oFence. A crash image holds a set of persists closed under PMO: with
 * any persist, every one ordered before it. Each GPU store is one persist
 * (at most 16 bytes, not torn); the CPU's stores are as under strict,
 * unordered with the GPU's. A pAcq reads the last pRel on its variable
 * before it in the trace. Under strict, eadr and ndp, which model today's
 * GPUs, an oFence, a dFence and a pRel count as system-scope fences: the
 * conservative mapping that runs an SBRP program correctly now. */
typedef struct gpm_sbrp gpm_sbrp;
/* The order of T's persists: 0, or -1 with a message; free with
 * gpm_sbrp_free. */
int gpm_sbrp_order(const gpm_ptrace *t, gpm_sbrp **order);
void gpm_sbrp_free(gpm_sbrp *order);
/* The image at crash point CRASH, as gpm_image: the persists durable there
 * (the dFences' and the CPU's, closed under PMO) and a choice among the
 * others, by PICK: none (DROP), all (APPLY), each with probability 1/2
 * from *ARG (RANDOM), or the I-th pending persist, in trace order, where
 * bit I of *ARG is set (MASK: up to 64; every closed set is one mask's);
 * each chosen persist brings what PMO orders before it. *PENDING: the
 * persists pending (NULL: not wanted). Returns its hash
 * (gpm_image_hash), 0 on error (out of memory). */
uint64_t gpm_sbrp_image(const gpm_ptrace *t, const gpm_sbrp *order, uint64_t crash,
                        gpm_pick pick, uint64_t *arg, uint8_t **img, uint64_t *pending);

/* Completeness: the start images with every store applied, against the
 * objects' files as they are now. 0 the same; 1 not (REPORT says where:
 * each object's first and last byte that differ, written by a path the
 * trace does not see); -1 error. */
int gpm_replay_check(const gpm_ptrace *t, char *report, size_t len);

#ifdef __cplusplus
}
#endif

#endif
