/* A redo log on PM for CPU-assisted transactions (the cap-delta mode):
 * kernels gather a batch's changes into device memory as fixed-size
 * records (a byte offset in a table, then the bytes it now holds); the CPU
 * makes the records durable in the log, then commits them (one 8-byte
 * store: the commit point), applies them to
 * the table in place, flushes only the lines they touched, and counts the
 * batch committed. A crash before the commit point leaves the table as the
 * last committed batch left it; one after it is finished by
 * gpm_redo_recover, which applies the records again (they hold new values,
 * so applying twice is applying once).
 *
 * The records of one batch must have distinct offsets: they are applied in
 * parallel. */
#ifndef GPM_REDO_H
#define GPM_REDO_H

#include <stddef.h>
#include <stdint.h>

#include "gpm/cap.h"
#include "gpm/gpm.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_REDO_MAGIC 0x4f4445522d4d5047ull /* "GPM-REDO" */
#define GPM_REDO_HEADER_BYTES 64

/* The log file: this header, then CAPACITY records of RECORD_BYTES. */
typedef struct gpm_redo_header {
    uint64_t magic;
    uint64_t record_bytes; /* 8 (the offset) + the bytes a record sets, a multiple of 8 */
    uint64_t capacity;     /* records a batch may hold */
    uint64_t state;        /* committed batches << 1, | 1 from the commit point until applied */
    uint64_t count;        /* records of the batch logged last */
    uint64_t reserved[3];
} gpm_redo_header;

/* Bytes of a log of CAPACITY records setting DATA_BYTES each. */
size_t gpm_redo_bytes(size_t data_bytes, uint64_t capacity);
/* The record size of DATA_BYTES: 8 + DATA_BYTES rounded up to 8. */
size_t gpm_redo_record_bytes(size_t data_bytes);

/* A fresh log in region LOG (gpm_redo_bytes of it): nothing pending, no
 * batch committed; persisted. */
int gpm_redo_init(gpm_region *log, size_t data_bytes, uint64_t capacity);
/* Whether LOG holds a log of this shape (0), or why not (-1, message set:
 * what it found, and to rerun without --recover). */
int gpm_redo_check(const gpm_region *log, size_t data_bytes, uint64_t capacity);
uint64_t gpm_redo_committed(const gpm_region *log);

/* Makes the N records at RECORDS durable in LOG, not yet committed.
 * FROM_DEVICE: RECORDS is device memory, copied into the mapping on
 * STREAM (a cudaStream_t, NULL: the default); otherwise host memory. F
 * flushes (NULL: this thread). More than the capacity is an error and logs
 * nothing. */
int gpm_redo_log(gpm_region *log, gpm_flusher *f, const void *records, uint64_t n,
                 int from_device, void *stream);
/* The commit point of the batch logged last: from here on it will be
 * applied, by gpm_redo_apply or by a recovery. */
int gpm_redo_commit(gpm_region *log);

/* Applies the committed batch (after gpm_redo_commit) to TABLE, flushes the
 * lines it touched and counts the batch committed; *APPLIED (may be NULL)
 * the records applied. A record outside TABLE is an error and applies
 * nothing. */
int gpm_redo_apply(gpm_region *log, gpm_region *table, gpm_flusher *f, uint64_t *applied);

/* After a crash: finishes a batch committed and not yet applied (*APPLIED
 * records; 0 where none was; a batch logged and not committed is
 * dropped). */
int gpm_redo_recover(gpm_region *log, gpm_region *table, gpm_flusher *f, uint64_t *applied);

#ifdef __cplusplus
}
#endif

#endif
