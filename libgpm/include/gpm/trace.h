/* The persistency trace: every write to a PM file and every persist point,
 * in one order, for gpm-check (gpm/persistency.h) to build the crash images
 * a persistency model allows.
 *
 * A program opens a trace with gpm_trace_open(DIR) before it maps its PM
 * files: every gpm_map from then on is a traced object. gpm_trace_begin()
 * writes each object's start image and starts recording; gpm_trace_end()
 * stops. In between:
 *   - the CPU's stores to a traced mapping, from any code, are found by
 *     write-protecting its pages: a page written since the last event is
 *     compared with the trace's copy at the next event, and what changed is
 *     recorded as stores just before that event;
 *   - stores that do not go through the CPU are recorded where libgpm makes
 *     them: write() to a traced file, a DMA (cudaMemcpy) into a mapping;
 *   - a kernel's stores and fences, where they go through the device API
 *     (gpm/gpm.cuh: gpm_store_*, gpm_put_*, gpm_memcpy_part, gpm_persist,
 *     and the harness's and the log's helpers built on them): each thread
 *     writes a record into a ring in mapped host memory, in the order of
 *     one device counter, and a host thread moves them into the trace;
 *   - persist points: a flush of a range by a thread, a drain by a thread,
 *     a flush-and-drain of a range (msync, pmem_persist), an fsync of a file.
 * Each event names its site, the source line that asked for it
 * (GPM_SITE). GPM_MUTATE=SITE removes the persist point at SITE everywhere
 * it runs, traced or not: a mutant that gpm-check must catch and a SIGKILL
 * on DRAM cannot. A traced run records each removed point as
 * GPM_TR_REMOVED, which no model honours.
 *
 * Not thread-safe for open/begin/end; the events and the stores they find
 * are safe from any thread. */
#ifndef GPM_TRACE_H
#define GPM_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_XSTR_(x) #x
#define GPM_XSTR(x) GPM_XSTR_(x)
/* The call site, as a persist point's name: "libgpm/src/tx.c:24". */
#define GPM_SITE __FILE__ ":" GPM_XSTR(__LINE__)

/* The trace file DIR/trace.bin: records of this header, a STORE's, OBJ's
 * and SITE's followed by LEN bytes of payload. */
#define GPM_TRACE_MAGIC 0x3143525454504d47ull /* "GMPTTRC1" */
enum gpm_trace_kind {
    GPM_TR_OBJ = 1, /* object OBJ: OFF bytes mapped, payload its path (LEN bytes) */
    GPM_TR_SITE,    /* site SITE: payload its name */
    GPM_TR_STORE,   /* LEN bytes at OFF of OBJ now hold the payload (AUX: how) */
    GPM_TR_FLUSH,   /* THREAD flushed [OFF, OFF+LEN) of OBJ */
    GPM_TR_DRAIN,   /* THREAD's flushes before this completed */
    GPM_TR_PERSIST, /* [OFF, OFF+LEN) of OBJ flushed and drained, at once */
    GPM_TR_FSYNC,   /* every write to OBJ before this is durable */
    GPM_TR_FENCE,   /* a GPU thread's system-scope fence (THREAD) */
    GPM_TR_END,     /* the end of the traced work */
    /* SBRP's operations by a GPU thread (gpm/persistency.h: the sbrp
     * model): */
    GPM_TR_OFENCE,  /* its persists before, ordered before its later ones */
    GPM_TR_DFENCE,  /* its persists before, durable */
    GPM_TR_PREL,    /* a persist release on the variable at OFF, of scope AUX */
    GPM_TR_PACQ,    /* a persist acquire on the variable at OFF, of scope AUX */
    /* A persist point GPM_MUTATE removed, where it would have run: the
     * record it would have been, with AUX its kind (FLUSH, DRAIN, PERSIST,
     * FSYNC or FENCE). No model honours it; gpm-check restores it to find
     * the stores the removal leaves pending longer (gpm_durability). */
    GPM_TR_REMOVED,
    /* The persistency model (gpm/persistency.h's gpm_model, AUX) that the
     * program says its PM follows (gpm_trace_model): gpm-check's default. */
    GPM_TR_MODEL,
    /* What the program says the traced run is (gpm_trace_describe): the
     * payload, k=v words (mode=gpm,scale=tiny,op=set), which gpm-check's
     * row carries. */
    GPM_TR_RUN
};
/* A pRel's or pAcq's scope (AUX). GPM_MUTATE narrows one: device to block,
 * block to none (a plain store or load, which orders nothing); the scope
 * it ran at is then marked NARROWED, so that the mutant is seen to have
 * taken (GPM_SCOPE_OF gives the scope). */
enum gpm_trace_scope { GPM_SCOPE_NONE = 0, GPM_SCOPE_BLOCK = 1, GPM_SCOPE_DEVICE,
                       GPM_SCOPE_NARROWED = 0x100 };
#define GPM_SCOPE_OF(aux) ((aux) & 0xffu)
enum gpm_trace_how { GPM_TR_CPU = 0, GPM_TR_WRITE, GPM_TR_DMA, GPM_TR_GPU };
typedef struct gpm_trace_rec {
    uint32_t kind, obj;
    uint64_t off, len;
    uint64_t thread; /* host: the thread's id; GPU: gpm_drec's */
    uint32_t site, aux;
} gpm_trace_rec;

/* A kernel's record in the device ring. THREAD names a GPU thread of one
 * launch: 1 << 63 | (the launch's %gridid mod 2^21) << 42 | block << 10 |
 * thread in block, so a fence of one launch never covers another's
 * stores. FILE is the device address of the site's file name, resolved
 * when the trace ends. */
enum gpm_drec_kind {
    GPM_DREC_STORE = 1,
    GPM_DREC_FENCE,
    GPM_DREC_REMOVED, /* GPM_MUTATE's */
    /* SBRP's operations (gpm/sbrp.cuh): ADDR the flag (0 for the fences),
     * VAL its 32-bit value and then the scope (gpm_trace_scope) */
    GPM_DREC_OFENCE,
    GPM_DREC_DFENCE,
    GPM_DREC_PREL,
    GPM_DREC_PACQ
};
typedef struct gpm_drec {
    unsigned long long ready; /* its sequence number + 1, once the rest is written */
    unsigned long long addr, thread, file;
    unsigned int line, kind, len, pad;
    unsigned char val[16];
} gpm_drec;

/* What the device API reads, one copy per compiled file (__constant__ in
 * gpm/gpm.cuh): the ring (NULL: no trace), and the persist that
 * GPM_MUTATE removes (line 0: none). */
typedef struct gpm_dtrace_ctl {
    gpm_drec *ring;
    unsigned long long *next, *lost;          /* device memory */
    const volatile unsigned long long *taken; /* mapped host memory: the host's position */
    unsigned long long mask;                  /* the ring's records - 1 */
    unsigned int on;                          /* a ring or a mutant */
    unsigned int mutate_line;
    char mutate_file[224];
} gpm_dtrace_ctl;
/* Each compiled file that includes gpm/gpm.cuh registers how to set its
 * copy (a static constructor); libgpm sets them all when a trace begins or
 * ends, and for a mutant (gpm_trace_device_mutant). */
typedef int (*gpm_dtrace_setter)(const gpm_dtrace_ctl *c);
void gpm_dtrace_register(gpm_dtrace_setter set);
/* Where GPM_MUTATE names a site, sets it for the kernels of every compiled
 * file: 0, or -1 with a message. Programs that launch kernels call it once
 * their GPU is known to be there. */
int gpm_trace_device_mutant(void);

/* 0, or -1 with a message naming DIR and the fix. */
int gpm_trace_open(const char *dir);
int gpm_trace_begin(void);
int gpm_trace_end(void);
int gpm_trace_active(void);
/* The persistency model (a gpm_model) the program's PM follows: the
 * trace's last record says it, and gpm-check builds crash images by it
 * unless told another (--model). After gpm_trace_open (nothing without
 * one), before gpm_trace_end. */
void gpm_trace_model(int model);
/* What the run is, in k=v words separated by commas (mode=, scale=, op=):
 * the trace's last records say it, so that gpm-check names the run as
 * the program does rather than reading its command line. At most 255
 * bytes (copied); the same rules as gpm_trace_model. */
void gpm_trace_describe(const char *words);

/* What libgpm calls (and a program may, for its own persist points). */
void gpm_trace_map(const void *host, size_t size, const char *path);
/* The mapping at HOST is DEV in kernels (registered with CUDA): its
 * kernels' stores are traced from then on. */
void gpm_trace_map_device(const void *host, const void *dev);
void gpm_trace_unmap(const void *host);
void gpm_trace_flush(const void *addr, size_t len, const char *site);
void gpm_trace_drain(const char *site);
void gpm_trace_persist(const void *addr, size_t len, const char *site);
void gpm_trace_fsync(int fd, const char *site);
void gpm_trace_fd(int fd, const char *path); /* FD writes the traced file PATH */
void gpm_trace_write(int fd, off_t off, const void *buf, size_t len, const char *site);
void gpm_trace_dma(const void *addr, size_t len, const char *site);

/* Is the persist point at SITE removed (GPM_MUTATE names it)? */
int gpm_mutated(const char *site);
/* Records the persist point of kind KIND (GPM_TR_FLUSH, _DRAIN, _PERSIST)
 * that GPM_MUTATE removed at SITE, where a trace runs. */
void gpm_trace_removed(uint32_t kind, const void *addr, size_t len, const char *site);

/* The persist primitives with their sites: each does nothing where SITE is
 * mutated, and is recorded where a trace runs. */
void gpm_flush_at(const void *addr, size_t len, const char *site);
void gpm_drain_at(const char *site);
int gpm_fsync_at(int fd, const char *site);

#ifdef __cplusplus
}
#endif

#endif
