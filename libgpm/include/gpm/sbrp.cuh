/* SBRP's persist operations (scoped buffered release persistency, Pandey
 * et al., ASPLOS'23) for kernels, mapped conservatively onto today's GPUs,
 * which have no persist buffers: a program written for SBRP runs
 * correctly on them now, and gpm-check's sbrp model checks it against
 * SBRP's own rules.
 *
 *   gpm_ofence()              orders this thread's persists before it before
 *                             its later ones. Here: a system-scope fence
 *                             (__threadfence_system), which also makes them
 *                             durable (stronger than SBRP asks).
 *   gpm_dfence()              makes this thread's persists before it
 *                             durable. Here: a system-scope fence.
 *   gpm_prel_block(p, v)      a persist release: the thread's persists
 *   gpm_prel_dev(p, v)        before it are ordered before those of any
 *                             thread in scope (its block; the device) that
 *                             acquires P and reads V. Here: a system-scope
 *                             fence, then a release store of V to P at the
 *                             scope (st.release.cta / st.release.gpu).
 *   gpm_pacq_block(p)         a persist acquire of P at the scope, its
 *   gpm_pacq_dev(p)           value returned. Here: an acquire load
 *                             (ld.acquire.cta / ld.acquire.gpu); the fence
 *                             before the release has made the releasing
 *                             thread's persists durable already.
 *
 * So every SBRP ordering holds here as durability, at the cost of a
 * system fence where SBRP would buffer: what SBRP's hardware would save
 * cannot be measured on these GPUs. P is a 32-bit flag, in GPU memory or
 * in PM. Traced (gpm/trace.h), each operation is recorded as what it is in
 * SBRP (GPM_TR_OFENCE, GPM_TR_DFENCE, GPM_TR_PREL, GPM_TR_PACQ with its
 * scope); the strict, eadr and ndp models count each as the system fence
 * it runs as, and the sbrp model by SBRP's rules.
 *
 * GPM_MUTATE=FILE:LINE weakens the operation at that line as SBRP's rules
 * see it: an oFence or dFence is removed (recorded as GPM_TR_REMOVED); a
 * device-scope pRel or pAcq becomes block-scope, a block-scope one a plain
 * store or load (scope none). These are the scope bugs of SBRP's section
 * 5.3; the hardware still runs the release's system fence, which is why
 * only the checker can find them. */
#ifndef GPM_SBRP_CUH
#define GPM_SBRP_CUH

#include "gpm/gpm.cuh"

/* The record of an SBRP operation: its kind, the flag (NULL for the
 * fences), and as its 8 bytes the flag's value (stored or read) and the
 * scope. */
static __device__ __forceinline__ void gpm_sbrp_record(unsigned kind, const void *p, unsigned v,
                                                      unsigned scope, const char *file,
                                                      unsigned line)
{
    unsigned what[2] = {v, scope};
    if (gpm_dctl_.ring)
        gpm_drecord(kind, p, sizeof what, what, file, line);
}

/* An oFence or dFence, unless GPM_MUTATE removes it. */
__device__ __forceinline__ void gpm_sbrp_fence(unsigned kind, const char *file, unsigned line)
{
    if (gpm_dctl_.on && gpm_dmutated(file, line)) {
        gpm_sbrp_record(GPM_DREC_REMOVED, NULL, kind, 0, file, line);
        return;
    }
    __threadfence_system();
    gpm_sbrp_record(kind, NULL, 0, 0, file, line);
}

__device__ __forceinline__ void gpm_ofence_at(const char *file, unsigned line)
{
    gpm_sbrp_fence(GPM_DREC_OFENCE, file, line);
}

__device__ __forceinline__ void gpm_dfence_at(const char *file, unsigned line)
{
    gpm_sbrp_fence(GPM_DREC_DFENCE, file, line);
}

/* The scope a pRel or pAcq of SCOPE runs at: one narrower where GPM_MUTATE
 * names its line, marked so. */
__device__ __forceinline__ unsigned gpm_sbrp_scope(unsigned scope, const char *file,
                                                   unsigned line)
{
    if (gpm_dctl_.on && gpm_dmutated(file, line))
        return (scope - 1) | GPM_SCOPE_NARROWED;
    return scope;
}

/* gpm_prel_SCOPE_at and gpm_pacq_SCOPE_at, for SCOPE block (PTX's cta)
 * and dev (PTX's gpu). A release is recorded before its store and an
 * acquire after its load, so the trace never shows an acquire before the
 * release whose value it read. (An acquire that read an older value is
 * then taken as one of the last release: in a spin loop the same order,
 * since the thread persists nothing until it reads the new value.) A
 * narrowed one runs at its narrower scope (a plain store or load for
 * none). */
#define GPM_SBRP_STORE(ptx, p, v)                                                      \
    asm volatile("st." ptx ".global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory")
#define GPM_SBRP_LOAD(ptx, v, p)                                                       \
    asm volatile("ld." ptx ".global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory")
__device__ __forceinline__ void gpm_prel_at(unsigned *p, unsigned v, unsigned scope,
                                            const char *file, unsigned line)
{
    unsigned s = gpm_sbrp_scope(scope, file, line);
    __threadfence_system();
    gpm_sbrp_record(GPM_DREC_PREL, p, v, s, file, line);
    switch (GPM_SCOPE_OF(s)) {
    case GPM_SCOPE_DEVICE:
        GPM_SBRP_STORE("release.gpu", p, v);
        break;
    case GPM_SCOPE_BLOCK:
        GPM_SBRP_STORE("release.cta", p, v);
        break;
    default:
        GPM_SBRP_STORE("volatile", p, v);
    }
}

__device__ __forceinline__ unsigned gpm_pacq_at(const unsigned *p, unsigned scope,
                                                const char *file, unsigned line)
{
    unsigned s = gpm_sbrp_scope(scope, file, line), v;
    switch (GPM_SCOPE_OF(s)) {
    case GPM_SCOPE_DEVICE:
        GPM_SBRP_LOAD("acquire.gpu", v, p);
        break;
    case GPM_SCOPE_BLOCK:
        GPM_SBRP_LOAD("acquire.cta", v, p);
        break;
    default:
        GPM_SBRP_LOAD("volatile", v, p);
    }
    gpm_sbrp_record(GPM_DREC_PACQ, p, v, s, file, line);
    return v;
}

#define gpm_ofence() gpm_ofence_at(__FILE__, __LINE__)
#define gpm_dfence() gpm_dfence_at(__FILE__, __LINE__)
#define gpm_prel_block(p, v) gpm_prel_at((p), (v), GPM_SCOPE_BLOCK, __FILE__, __LINE__)
#define gpm_prel_dev(p, v) gpm_prel_at((p), (v), GPM_SCOPE_DEVICE, __FILE__, __LINE__)
#define gpm_pacq_block(p) gpm_pacq_at((p), GPM_SCOPE_BLOCK, __FILE__, __LINE__)
#define gpm_pacq_dev(p) gpm_pacq_at((p), GPM_SCOPE_DEVICE, __FILE__, __LINE__)

#endif
