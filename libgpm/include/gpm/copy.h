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
 * device-accessible pointer. Synchronous: returns once the data is durable. */
int gpm_memcpy(void *dst_pm, const void *src, size_t n);
int gpm_memset(void *dst_pm, uint8_t byte, size_t n);

#ifdef __cplusplus
}
#endif

#endif
