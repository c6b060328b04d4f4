/* Undo logs on PM, host side: creating and validating the file, the device
 * copy of the tails and the partition locks, resetting, and a CPU append that
 * follows the kernels' persist order (for tools and tests). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <libpmem.h>

#include "gpm/log.h"

const char *gpmlog_check_str(int check)
{
    switch (check) {
    case GPMLOG_OK: return "valid";
    case GPMLOG_E_MAGIC: return "not a libgpm log (no log magic)";
    case GPMLOG_E_VERSION: return "a log of another format version";
    case GPMLOG_E_CHECKSUM: return "corrupt log header (checksum mismatch)";
    case GPMLOG_E_KIND: return "corrupt log header (unknown log kind)";
    case GPMLOG_E_GEOMETRY: return "corrupt log header (inconsistent geometry)";
    case GPMLOG_E_SIZE: return "file size differs from the log header's (truncated or extended)";
    default: return "unknown header error";
    }
}

static const uint32_t *tails_of(const gpmlog *log)
{
    return (const uint32_t *)((const uint8_t *)log->region.host + log->g.tails_off);
}

/* Device copy of the tails and the locks: kernels read their tail there
 * instead of across PCIe; PM stays the durable truth. */
static int attach_device(gpmlog *log)
{
    size_t n = (size_t)log->g.n_slots * sizeof(uint32_t);
    cudaError_t e = cudaMalloc((void **)&log->tails_dev, n);
    if (e == cudaSuccess)
        e = cudaMemcpy(log->tails_dev, tails_of(log), n, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&log->locks_dev, (size_t)log->g.n_slots * sizeof(int));
    if (e == cudaSuccess)
        e = cudaMemset(log->locks_dev, 0, (size_t)log->g.n_slots * sizeof(int));
    if (e != cudaSuccess)
        return gpm_set_error("%s: cannot allocate the log's %zu bytes of device state (%s)",
                             log->region.path, 2 * n, cudaGetErrorString(e));
    return 0;
}

static int create_log(gpmlog *log, const char *path, uint32_t kind, size_t size,
                      uint32_t parts, uint32_t blocks, uint32_t threads, int flags)
{
    char full[4096];
    struct stat st;
    gpmlog_header h;

    memset(log, 0, sizeof *log);
    if (gpm_resolve_path(path, full, sizeof full) != 0)
        return -1;
    if (gpmlog_header_init(&h, kind, size, parts, blocks, threads) != 0) {
        if (kind == GPMLOG_HCL)
            return gpm_set_error("%s: cannot lay out an HCL log of %zu bytes for %u blocks x "
                                 "%u threads: threads must be 1..%u and the size at least 4 "
                                 "bytes per thread (warps padded to 32)",
                                 full, size, blocks, threads, GPMLOG_MAX_THREADS);
        return gpm_set_error("%s: cannot lay out a log of %zu bytes in %u partitions: each "
                             "partition needs at least %u bytes", full, size, parts,
                             GPMLOG_LINE);
    }
    if (stat(full, &st) == 0)
        return gpm_set_error("%s: already exists: remove it to create a new log, or open it",
                             full);
    if (gpm_map(&log->region, full, (size_t)h.file_size, GPM_CREATE | (flags & GPM_HOST_ONLY)) != 0)
        return -1;
    if (!log->region.created) {
        /* It appeared between the check and the map: not ours to write. */
        gpm_unmap(&log->region);
        return gpm_set_error("%s: already exists: remove it to create a new log, or open it",
                             full);
    }
    /* A new file is zeros: every tail is already 0. The header goes last
     * and is persisted, so a crash during create leaves no valid log. */
    memcpy(log->region.host, &h, sizeof h);
    if (gpm_region_persist(&log->region, log->region.host, sizeof h) != 0) {
        gpm_unmap(&log->region);
        unlink(full);
        return -1;
    }
    log->hdr = h;
    log->g = gpmlog_geom_of(&h);
    log->tx_clean = 1; /* empty, and its transaction word is zero */
    if (!(flags & GPM_HOST_ONLY) && attach_device(log) != 0) {
        gpmlog_close(log);
        unlink(full); /* made by this call, holds nothing yet */
        return -1;
    }
    return 0;
}

int gpmlog_create_conv(gpmlog *log, const char *path, size_t size, int n_partitions, int flags)
{
    if (n_partitions <= 0)
        return gpm_set_error("%s: n_partitions is %d: use at least 1", path ? path : "(null)",
                             n_partitions);
    return create_log(log, path, GPMLOG_CONV, size, (uint32_t)n_partitions, 0, 0, flags);
}

int gpmlog_create_hcl(gpmlog *log, const char *path, size_t size, int blocks, int threads,
                      int flags)
{
    if (blocks <= 0 || threads <= 0)
        return gpm_set_error("%s: HCL geometry %d blocks x %d threads: both must be positive",
                             path ? path : "(null)", blocks, threads);
    return create_log(log, path, GPMLOG_HCL, size, 0, (uint32_t)blocks, (uint32_t)threads,
                      flags);
}

int gpmlog_open(gpmlog *log, const char *path, int flags)
{
    int check;
    memset(log, 0, sizeof *log);
    /* Always map host-only first: nothing is registered or written until
     * the header and tails are known to be sound. */
    if (gpm_map(&log->region, path, 0, GPM_HOST_ONLY) != 0)
        return -1;
    if (log->region.size >= sizeof log->hdr)
        memcpy(&log->hdr, log->region.host, sizeof log->hdr);
    check = gpmlog_header_check(&log->hdr, log->region.size);
    if (check != GPMLOG_OK) {
        gpm_set_error("%s: %s: not opened and left untouched; create a new log under another "
                      "name", log->region.path, gpmlog_check_str(check));
        gpm_unmap(&log->region);
        return -1;
    }
    log->g = gpmlog_geom_of(&log->hdr);
    for (uint32_t s = 0; s < log->g.n_slots; s++) {
        uint32_t t = tails_of(log)[s];
        if (!gpmlog_tail_valid(&log->g, t)) {
            gpm_set_error("%s: corrupt log: tail of slot %u is %u bytes, capacity %u: not "
                          "opened and left untouched", log->region.path, s, t,
                          log->g.slot_bytes);
            gpm_unmap(&log->region);
            return -1;
        }
    }
    if (!(flags & GPM_HOST_ONLY)) {
        char full[4096];
        snprintf(full, sizeof full, "%s", log->region.path);
        gpm_unmap(&log->region);
        if (gpm_map(&log->region, full, log->hdr.file_size, 0) != 0)
            return -1;
        if (attach_device(log) != 0) {
            gpmlog_close(log);
            return -1;
        }
    }
    return 0;
}

void gpmlog_close(gpmlog *log)
{
    if (log->tails_dev)
        cudaFree(log->tails_dev);
    if (log->locks_dev)
        cudaFree(log->locks_dev);
    log->tails_dev = NULL;
    log->locks_dev = NULL;
    gpm_unmap(&log->region);
}

gpmlog_dev gpmlog_device(const gpmlog *log)
{
    gpmlog_dev d;
    d.pm = (uint8_t *)log->region.dev;
    d.tails = log->tails_dev;
    d.locks = log->locks_dev;
    d.fenced = GPMLOG_PERSISTS;
    d.g = log->g;
    return d;
}

gpmlog_dev gpmlog_device_sbrp(const gpmlog *log)
{
    gpmlog_dev d = gpmlog_device(log);
    d.fenced = GPMLOG_OFENCES;
    return d;
}

gpmlog_dev gpmlog_device_unfenced(const gpmlog *log)
{
    gpmlog_dev d = gpmlog_device(log);
    d.fenced = 0;
    return d;
}

/* Are the LEN tails at T, at most a line's, all zero? A whole line is
 * read as eight 8-byte words ORed at once: the scan of a large grid's
 * tails (256 KiB for 65,536 slots) then takes a few microseconds. */
static int tails_zero(const uint32_t *t, uint32_t len)
{
    uint64_t w[8], any = 0;
    if (len < 16u) { /* the last line of a log of few slots */
        for (uint32_t k = 0; k < len; k++)
            any |= t[k];
        return any == 0;
    }
    memcpy(w, t, sizeof w);
    return ((w[0] | w[1]) | (w[2] | w[3]) | (w[4] | w[5]) | (w[6] | w[7])) == 0;
}

/* Flushes the tails [FROM, TO) (the file backend: nothing, it syncs all
 * at the end). */
static void flush_run(const gpmlog *log, uint32_t *tails, uint32_t from, uint32_t to)
{
    if (log->region.backend != GPM_BACKEND_FILE)
        gpm_flush_at(tails + from, (size_t)(to - from) * 4u, GPM_SITE);
}

/* The tails on PM made zero, durably, by writing only the cache lines that
 * hold a non-zero tail: each run of such lines is zeroed and flushed, then
 * one drain (the file backend: one msync from the first to the last). A
 * line of zero tails is left alone, which is the same durable state as
 * zeroing and persisting every tail: a tail reads zero only where the last
 * store to it was zero, and every tail store was made durable before this
 * call (by the kernel's persist or SBRP dFence, by gpmlog_flush for an
 * unfenced handle, by gpmlog_host_insert, by the last reset), so its line
 * needs nothing. */
static int clear_tails(gpmlog *log)
{
    const uint32_t per_line = GPM_CACHE_LINE / 4u, n = log->g.n_slots;
    uint32_t *tails = (uint32_t *)((uint8_t *)log->region.host + log->g.tails_off);
    uint32_t run = n, first = n, end = 0; /* run: where the open run starts (n: none) */
    for (uint32_t s = 0; s < n; s += per_line) {
        uint32_t len = n - s < per_line ? n - s : per_line;
        if (!tails_zero(tails + s, len)) {
            if (len == per_line)
                memset(tails + s, 0, GPM_CACHE_LINE);
            else
                memset(tails + s, 0, (size_t)len * 4u);
            run = run < s ? run : s;
            first = first < s ? first : s;
            end = s + len;
        } else if (run < n) {
            flush_run(log, tails, run, s);
            run = n;
        }
    }
    if (first == n)
        return 0;
    if (run < n)
        flush_run(log, tails, run, end);
    if (log->region.backend == GPM_BACKEND_FILE)
        return gpm_region_persist(&log->region, tails + first, (size_t)(end - first) * 4u);
    gpm_drain_at(GPM_SITE);
    return 0;
}

int gpmlog_reset_on(gpmlog *log, void *stream)
{
    size_t n = (size_t)log->g.n_slots * sizeof(uint32_t);
    cudaError_t e = cudaSuccess;
    if (clear_tails(log) != 0)
        return -1;
    if (!log->tails_dev)
        return 0;
    /* On STREAM, the kernels queued there next read zeros without the host
     * waiting; without one, the device is waited for, as ever. */
    if (stream) {
        e = cudaMemsetAsync(log->tails_dev, 0, n, (cudaStream_t)stream);
    } else {
        e = cudaMemset(log->tails_dev, 0, n);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
    }
    if (e != cudaSuccess)
        return gpm_set_error("%s: cannot reset the device copy of the tails (%s)",
                             log->region.path, cudaGetErrorString(e));
    return 0;
}

int gpmlog_reset(gpmlog *log)
{
    return gpmlog_reset_on(log, NULL);
}

uint32_t gpmlog_tail(const gpmlog *log, uint32_t slot)
{
    return slot < log->g.n_slots ? tails_of(log)[slot] : 0;
}

/* Word K of the entry that starts at byte T of SLOT. */
static uint64_t entry_word_off(const gpmlog *log, uint32_t slot, uint32_t t, uint32_t k)
{
    return log->g.kind == GPMLOG_HCL ? gpmlog_hcl_chunk_off(&log->g, slot, t / 4u + k)
                                     : gpmlog_conv_off(&log->g, slot, t + 4u * k);
}

int gpmlog_host_insert(gpmlog *log, uint32_t slot, const void *src, uint32_t size)
{
    uint8_t *base = (uint8_t *)log->region.host;
    uint32_t *tail;
    uint32_t t, n = gpmlog_round4(size);
    if (slot >= log->g.n_slots)
        return gpm_set_error("%s: slot %u out of range (log has %u)", log->region.path, slot,
                             log->g.n_slots);
    tail = (uint32_t *)(base + gpmlog_tail_off(&log->g, slot));
    t = *tail;
    if (size == 0 || n > log->g.slot_bytes - t)
        return gpm_set_error("%s: slot %u is full (%u of %u bytes used, entry of %u): create "
                             "the log with a larger size", log->region.path, slot, t,
                             log->g.slot_bytes, size);
    /* The entry's words (scattered over lines in HCL's striped layout),
     * then their flushes and one drain, before the tail. */
    for (uint32_t k = 0; k < n / 4u; k++) {
        uint32_t w = gpmlog_chunk_of(src, size, k);
        memcpy(base + entry_word_off(log, slot, t, k), &w, 4);
    }
    for (uint32_t k = 0; k < n / 4u; k++) {
        uint8_t *p = base + entry_word_off(log, slot, t, k);
        if (log->region.backend != GPM_BACKEND_FILE)
            gpm_flush_at(p, 4, GPM_SITE);
        else if (gpm_region_persist(&log->region, p, 4) != 0)
            return -1;
    }
    if (log->region.backend != GPM_BACKEND_FILE)
        gpm_drain_at(GPM_SITE);
    *tail = t + n;
    if (gpm_region_persist(&log->region, tail, 4) != 0)
        return -1;
    if (log->tails_dev) {
        cudaError_t e = cudaMemcpy(log->tails_dev + slot, tail, 4, cudaMemcpyHostToDevice);
        if (e != cudaSuccess)
            return gpm_set_error("%s: cannot update the device tail (%s)", log->region.path,
                                 cudaGetErrorString(e));
    }
    return 0;
}
