/* What the trace's recorder (trace.c) and its device half (trace_device.c)
 * share. Functions marked "locked" run with gpm_trace_mu held. */
#ifndef GPM_TRACE_INTERNAL_H
#define GPM_TRACE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

extern pthread_mutex_t gpm_trace_mu;

/* trace.c (locked): a kernel's store of LEN bytes at device address ADDR
 * (ignored outside every traced mapping), and a GPU thread's fence. */
void gpm_trace_gpu_store(uint64_t addr, const void *val, uint32_t len, uint64_t thread,
                         uint32_t site);
void gpm_trace_gpu_fence(uint64_t thread, uint32_t site, int removed);
/* An SBRP operation of a GPU thread (GPM_DREC_OFENCE ... GPM_DREC_PACQ) on
 * the flag at device address ADDR of scope SCOPE: GPM_TR_OFENCE ...
 * GPM_TR_PACQ, the flag named by its object and offset where it lies in a
 * traced mapping, else by GPM_TR_DEVICE_OBJ and its address. REMOVED: an
 * oFence or dFence that GPM_MUTATE removed (GPM_TR_REMOVED, AUX its kind). */
void gpm_trace_gpu_sbrp(unsigned drec_kind, uint64_t addr, uint32_t scope, uint64_t thread,
                        uint32_t site, int removed);
#define GPM_TR_DEVICE_OBJ 0xffffu
/* A new site named NAME (kept), or NAME given to site ID. */
uint32_t gpm_trace_new_site(const char *name);
void gpm_trace_name_site(uint32_t id, const char *name);

/* trace_device.c: the ring. Start (unlocked) before kernels store into a
 * traced mapping; drain (locked) before every host event, so that a
 * kernel the host waited for lies wholly before it; stop (unlocked) at
 * the end: 0, or -1 with a message where records were lost. */
int gpm_trace_device_start(void);
void gpm_trace_device_drain(void);
int gpm_trace_device_stop(void);

#endif
