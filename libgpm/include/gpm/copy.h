/* Host-launched bulk copies into PM that use the whole GPU (wide, coalesced
 * stores from every SM), each followed by a system-scope fence so that the
 * bytes are durable when the call returns (inside persist_begin/end). */
#ifndef GPM_COPY_H
#define GPM_COPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* DST_PM is a device pointer into a mapped region (gpm_region.dev); SRC any
 * device-accessible pointer. Synchronous: returns once the data is durable.
 * They run on the legacy default stream and wait for the whole device. */
int gpm_memcpy(void *dst_pm, const void *src, size_t n);
int gpm_memset(void *dst_pm, uint8_t byte, size_t n);

/* The same on STREAM (a cudaStream_t passed as void *): the copy follows
 * the work queued there, and the call waits for that stream only; durable
 * when they return. NULL: exactly gpm_memcpy / gpm_memset. */
int gpm_memcpy_on(void *dst_pm, const void *src, size_t n, void *stream);
int gpm_memset_on(void *dst_pm, uint8_t byte, size_t n, void *stream);

/* Blocks of BLOCK threads for a grid-stride kernel that moves BYTES with
 * 16-byte stores (gpm_memcpy_part): enough resident blocks to fill every SM
 * of the current device, never more than the work needs, at least 1. */
int gpm_copy_grid(size_t bytes, int block);

#ifdef __cplusplus
}
#endif

#endif
