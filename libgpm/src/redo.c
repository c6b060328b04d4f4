/* The redo log of CPU-assisted transactions (gpm/redo.h). The order that
 * makes it failure-atomic: records durable, then their count, then (on
 * gpm_redo_commit) the pending bit: the commit point; the table's lines after the records are
 * applied; the committed count with the pending bit cleared, in one 8-byte
 * store, last. */
#include <cuda_runtime_api.h>
#include <libpmem.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/redo.h"

static gpm_redo_header *header(const gpm_region *log) { return (gpm_redo_header *)log->host; }

static uint8_t *records(const gpm_region *log)
{
    return (uint8_t *)log->host + GPM_REDO_HEADER_BYTES;
}

size_t gpm_redo_record_bytes(size_t data_bytes) { return 8 + (data_bytes + 7) / 8 * 8; }

size_t gpm_redo_bytes(size_t data_bytes, uint64_t capacity)
{
    return GPM_REDO_HEADER_BYTES + (size_t)capacity * gpm_redo_record_bytes(data_bytes);
}

static int persist(const gpm_region *r, gpm_flusher *f, const void *addr, size_t len)
{
    return f ? gpm_flusher_persist(f, r, addr, len, 0) : gpm_region_persist(r, addr, len);
}

/* One 8-byte field of the header, stored and persisted on its own. */
static int set_field(const gpm_region *log, uint64_t *field, uint64_t v)
{
    __atomic_store_n(field, v, __ATOMIC_RELEASE);
    return gpm_region_persist(log, field, sizeof *field);
}

int gpm_redo_init(gpm_region *log, size_t data_bytes, uint64_t capacity)
{
    gpm_redo_header *h = header(log);
    if (log->size < gpm_redo_bytes(data_bytes, capacity))
        return gpm_set_error("%s: %zu bytes, too small for a redo log of %llu records",
                             log->path, log->size, (unsigned long long)capacity);
    memset(h, 0, sizeof *h);
    h->record_bytes = gpm_redo_record_bytes(data_bytes);
    h->capacity = capacity;
    if (gpm_region_persist(log, h, sizeof *h) != 0)
        return -1;
    return set_field(log, &h->magic, GPM_REDO_MAGIC); /* valid only once whole */
}

int gpm_redo_check(const gpm_region *log, size_t data_bytes, uint64_t capacity)
{
    const gpm_redo_header *h = header(log);
    if (log->size < GPM_REDO_HEADER_BYTES || h->magic != GPM_REDO_MAGIC)
        return gpm_set_error("%s: not a redo log: rerun without --recover", log->path);
    if (h->record_bytes != gpm_redo_record_bytes(data_bytes) || h->capacity != capacity ||
        log->size < gpm_redo_bytes(data_bytes, capacity))
        return gpm_set_error("%s: a redo log of %llu records of %llu bytes, not %llu of %zu: "
                             "pass the size flags of the crashed run",
                             log->path, (unsigned long long)h->capacity,
                             (unsigned long long)h->record_bytes, (unsigned long long)capacity,
                             gpm_redo_record_bytes(data_bytes));
    return 0;
}

uint64_t gpm_redo_committed(const gpm_region *log) { return header(log)->state >> 1; }

int gpm_redo_log(gpm_region *log, gpm_flusher *f, const void *recs, uint64_t n, int from_device,
                 void *stream)
{
    gpm_redo_header *h = header(log);
    size_t len = (size_t)n * h->record_bytes;
    if (h->state & 1)
        return gpm_set_error("%s: a committed batch is not applied yet", log->path);
    if (n > h->capacity)
        return gpm_set_error("%s: %llu records, more than the log's %llu", log->path,
                             (unsigned long long)n, (unsigned long long)h->capacity);
    if (from_device) {
        cudaError_t e = cudaMemcpyAsync(records(log), recs, len, cudaMemcpyDeviceToHost,
                                        (cudaStream_t)stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize((cudaStream_t)stream);
        if (e != cudaSuccess)
            return gpm_set_error("%s: copying %llu records from the GPU failed: %s", log->path,
                                 (unsigned long long)n, cudaGetErrorString(e));
        gpm_trace_dma(records(log), len, GPM_SITE); /* the DMA's stores */
    } else
        memcpy(records(log), recs, len);
    if (len && persist(log, f, records(log), len) != 0)
        return -1;
    return set_field(log, &h->count, n);
}

int gpm_redo_commit(gpm_region *log)
{
    gpm_redo_header *h = header(log);
    if (h->state & 1)
        return gpm_set_error("%s: a committed batch is not applied yet", log->path);
    return set_field(log, &h->state, h->state | 1);
}

/* Stores each record's bytes in TABLE with THREADS threads; on PM (or what
 * stands in for it) each thread writes back the lines of its records and
 * fences its own write-backs (a fence orders only its core's), so no list
 * of ranges is sorted. */
static void store_records(const gpm_region *log, gpm_region *table, uint64_t n, int threads,
                          int flush)
{
    uint64_t rb = header(log)->record_bytes;
    size_t data = (size_t)rb - 8;
#pragma omp parallel num_threads(threads)
    {
#pragma omp for schedule(static)
        for (uint64_t k = 0; k < n; k++) {
            const uint8_t *rec = records(log) + k * rb;
            uint64_t off;
            memcpy(&off, rec, sizeof off);
            memcpy((uint8_t *)table->host + off, rec + 8, data);
            if (flush)
                gpm_flush_at((uint8_t *)table->host + off, data, GPM_SITE);
        }
        if (flush)
            gpm_drain_at(GPM_SITE);
    }
}

/* An ordinary file: msync of each record's page range, through F. */
static int sync_records(const gpm_region *log, gpm_region *table, uint64_t n, gpm_flusher *f)
{
    uint64_t rb = header(log)->record_bytes;
    gpm_range *v = malloc((n ? n : 1) * sizeof *v);
    int rc;
    if (!v)
        return gpm_set_error("%s: out of memory for %llu ranges", log->path,
                             (unsigned long long)n);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t off;
        memcpy(&off, records(log) + k * rb, sizeof off);
        v[k] = (gpm_range){(size_t)off, (size_t)rb - 8, NULL};
    }
    rc = gpm_flusher_persist_ranges(f, table, v, (int)n, 0);
    free(v);
    return rc;
}

int gpm_redo_apply(gpm_region *log, gpm_region *table, gpm_flusher *f, uint64_t *applied)
{
    gpm_redo_header *h = header(log);
    uint64_t n = h->count, rb = h->record_bytes, bad = 0;
    size_t data = (size_t)rb - 8;
    int file = table->backend == GPM_BACKEND_FILE;
    if (applied)
        *applied = 0;
    if (!(h->state & 1))
        return gpm_set_error("%s: no committed batch to apply", log->path);
    if (n > h->capacity || n > (uint64_t)INT32_MAX)
        return gpm_set_error("%s: %llu records: the log is damaged", log->path,
                             (unsigned long long)n);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t off;
        memcpy(&off, records(log) + k * rb, sizeof off);
        bad += off > table->size || data > table->size - off;
    }
    if (bad)
        return gpm_set_error("%s: %llu records outside %s (%zu bytes): the log is not this "
                             "table's",
                             log->path, (unsigned long long)bad, table->path, table->size);
    store_records(log, table, n, f ? gpm_flusher_threads(f) : 1, !file);
    if (file && sync_records(log, table, n, f) != 0)
        return -1;
    if (applied)
        *applied = n;
    return set_field(log, &h->state, ((h->state >> 1) + 1) << 1);
}

int gpm_redo_recover(gpm_region *log, gpm_region *table, gpm_flusher *f, uint64_t *applied)
{
    if (applied)
        *applied = 0;
    return header(log)->state & 1 ? gpm_redo_apply(log, table, f, applied) : 0;
}
