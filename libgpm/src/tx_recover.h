/* Inside libgpm: the recovery kernels (tx_recover.cu) that gpmtx_recover
 * (tx.c) runs for logs with device state. */
#ifndef GPM_TX_RECOVER_H
#define GPM_TX_RECOVER_H

#include <stdint.h>

#include "gpm/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A copy of LOG in device memory at the same offsets (*DEV, freed with
 * gpmtx_log_free_gpu), holding the header, the tails and the used part of
 * every slot as they are on PM: what the kernels below read the records
 * from. */
int gpmtx_log_to_gpu(const gpmlog *log, void **dev);
void gpmtx_log_free_gpu(void *dev);

/* Checks every record of every slot on the GPU, in COPY, writing nothing.
 * *BAD gets the lowest slot holding a refused record, UINT32_MAX if none. */
int gpmtx_check_on_gpu(const gpmlog *log, const void *copy, const gpm_region *target,
                       uint32_t *bad);

/* Undoes every record (read from COPY) into TARGET, one thread per slot,
 * newest first; the slot's old values persisted together, then its tail
 * set to 0 on PM; inside gpm_persist_begin/end. Call only after
 * gpmtx_check_on_gpu found none refused. Adds to *UNDONE and *BYTES. */
int gpmtx_undo_on_gpu(gpmlog *log, const void *copy, const gpm_region *target,
                      uint64_t *undone, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
