/* Inside libgpm: the recovery kernels (tx_recover.cu) that gpmtx_recover
 * (tx.c) runs for logs with device state. */
#ifndef GPM_TX_RECOVER_H
#define GPM_TX_RECOVER_H

#include <stdint.h>

#include "gpm/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Checks every record of every slot on the GPU, writing nothing. *BAD gets
 * the lowest slot holding a refused record, UINT32_MAX if none. */
int gpmtx_check_on_gpu(const gpmlog *log, const gpm_region *target, uint32_t *bad);

/* Undoes every record into TARGET, one thread per slot, fenced, inside
 * gpm_persist_begin/end. Call only after gpmtx_check_on_gpu found none
 * refused. Adds to *UNDONE and *BYTES. */
int gpmtx_undo_on_gpu(gpmlog *log, const gpm_region *target, uint64_t *undone,
                      uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif
