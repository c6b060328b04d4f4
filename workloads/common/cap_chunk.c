/* --cap-chunk, for workloads whose CAP modes persist the chunks of a table
 * that an update touched (the GPU flags them) rather than the whole table.
 * Small chunks move few bytes but cost one copy each; large ones are few
 * copies of mostly unchanged bytes. "best" measures both costs through the
 * mode's own CAP engine on a scratch file (never the data), predicts for
 * every power-of-two chunk the time to persist what the first batch
 * touches, and takes the fastest; the row notes cap_chunk=best:BYTES. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define SCRATCH_BYTES (64u << 20)
#define SMALL_RANGE 4096u
#define SMALL_RANGES 4096

uint32_t wl_chunk_shift(size_t chunk)
{
    uint32_t s = 0;
    while (((size_t)1 << s) < chunk)
        s++;
    return s;
}

int wl_chunk_ranges(const uint32_t *flags, uint64_t nflags, size_t chunk, size_t lo, size_t hi,
                    const void *src, gpm_range *out)
{
    int k = 0;
    for (uint64_t f = 0; f < nflags; f++) {
        size_t a, b;
        if (!flags[f])
            continue;
        a = (size_t)f * chunk;
        b = a + chunk;
        a = a < lo ? lo : a;
        b = b > hi ? hi : b;
        if (a >= b)
            continue;
        if (k > 0 && out[k - 1].off + out[k - 1].len == a) {
            out[k - 1].len += b - a; /* adjacent: one longer copy */
            continue;
        }
        out[k++] = (gpm_range){a, b - a, src ? (const char *)src + (a - lo) : NULL};
    }
    return k;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t wl_cap_chunk_predict(uint64_t *offsets, size_t n, size_t bytes, double per_range_s,
                            double bytes_per_s, double *predicted_s)
{
    size_t best = 0;
    double best_s = 0;
    qsort(offsets, n, sizeof *offsets, by_value);
    for (unsigned s = 12; s <= 30; s++) {
        size_t chunk = (size_t)1 << s, dirty = 0, runs = 0;
        double t;
        for (size_t i = 0; i < n; i++) {
            uint64_t f = offsets[i] >> s, prev = i ? offsets[i - 1] >> s : 0;
            if (i && f == prev)
                continue;
            dirty++;
            if (!i || f != prev + 1)
                runs++;
        }
        t = (double)runs * per_range_s +
            (double)(dirty * chunk < bytes ? dirty * chunk : bytes) / bytes_per_s;
        if (!best || t < best_s)
            best = chunk, best_s = t;
        if (chunk >= bytes)
            break; /* one chunk holds the whole table */
    }
    if (predicted_s)
        *predicted_s = best_s;
    return best;
}

/* One persist of the ranges V[0..N) of the scratch through the mode's
 * engine, timed. */
static int timed_persist(struct wl_ctx *c, gpm_region *r, gpm_cap_file *cf, const gpm_range *v,
                         int n, double *s)
{
    double t0 = wl_now();
    int rc = c->m->commit->files ? gpm_cap_fs_ranges(cf, v, n, c->stream)
                                 : gpm_cap_mm_ranges(c->h->flusher, r, v, n,
                                                     c->m->commit->fence_only, c->stream);
    *s = wl_now() - t0;
    return rc;
}

/* The engine's cost of one range and its bandwidth: one large range, then
 * many small ones with gaps between them. */
static int measure_engine(struct wl_ctx *c, double *per_range_s, double *bytes_per_s)
{
    char name[256];
    gpm_region r = {0};
    gpm_cap_file cf = {0};
    gpm_range *v = malloc(SMALL_RANGES * sizeof *v);
    void *dev = NULL;
    int fs = c->m->commit->files, rc = -1;
    int cf_flags = GPM_CREATE | c->m->commit->file_flags;
    double big_s, small_s;

    snprintf(name, sizeof name, "cap-chunk-%s-%d.pm", c->wl->name, (int)getpid());
    if (!v)
        return gpm_set_error("--cap-chunk best: out of memory");
    if ((fs ? gpm_cap_file_open(&cf, name, SCRATCH_BYTES, cf_flags)
            : gpm_map(&r, name, SCRATCH_BYTES, GPM_CREATE)) != 0) {
        free(v);
        return -1;
    }
    if (cudaMalloc(&dev, SCRATCH_BYTES) != cudaSuccess ||
        cudaMemset(dev, 0x5a, SCRATCH_BYTES) != cudaSuccess || cudaDeviceSynchronize()) {
        gpm_set_error("--cap-chunk best: cannot use %u bytes of device memory for the "
                      "measurement: pass --cap-chunk BYTES",
                      SCRATCH_BYTES);
        goto out;
    }
    v[0] = (gpm_range){0, SCRATCH_BYTES, dev};
    /* The first persist also faults the scratch in: measured again. */
    if (timed_persist(c, &r, &cf, v, 1, &big_s) || timed_persist(c, &r, &cf, v, 1, &big_s))
        goto out;
    for (int i = 0; i < SMALL_RANGES; i++)
        v[i] = (gpm_range){(size_t)i * 2 * SMALL_RANGE, SMALL_RANGE,
                           (const char *)dev + (size_t)i * 2 * SMALL_RANGE};
    if (timed_persist(c, &r, &cf, v, SMALL_RANGES, &small_s))
        goto out;
    *bytes_per_s = SCRATCH_BYTES / big_s;
    *per_range_s = (small_s - (double)SMALL_RANGES * SMALL_RANGE / *bytes_per_s) / SMALL_RANGES;
    if (*per_range_s < 0)
        *per_range_s = 0;
    rc = 0;
out:
    wl_dev_free(dev);
    if (fs) {
        gpm_cap_file_close(&cf);
        unlink(cf.path);
    } else {
        gpm_unmap(&r);
        unlink(r.path);
    }
    free(v);
    return rc;
}

int wl_cap_chunk_arg(const struct wl_ctx *c, size_t *chunk)
{
    const char *want = wl_str(c, "cap-chunk");
    char *end;
    unsigned long long v = strtoull(want, &end, 10);
    *chunk = 0;
    if (strcmp(want, "best") == 0)
        return 0;
    if (end == want || *end || v < 128 || v > (1ull << 30) || (v & (v - 1)))
        return gpm_set_error("--cap-chunk: '%s' is not 'best' or a power of two from 128 to "
                             "2^30: pass best, 4096, 65536, ...",
                             want);
    *chunk = (size_t)v;
    return 0;
}

int wl_cap_chunk(struct wl_ctx *c, int (*changes)(struct wl_ctx *c, uint64_t **offsets, size_t *n),
                 size_t *chunk)
{
    double per_range_s, bytes_per_s, predicted_s;
    uint64_t *offsets = NULL;
    size_t n = 0;
    if (wl_cap_chunk_arg(c, chunk) != 0)
        return -1;
    if (*chunk) {
        snprintf(c->h->setup_note, sizeof c->h->setup_note, "cap_chunk=%zu", *chunk);
        return 0;
    }
    *chunk = 4096; /* where no CAP persist of chunks is to be sized, any chunk does */
    if (!c->m->commit->copies)
        return 0;
    if (changes(c, &offsets, &n) != 0)
        return -1;
    if (n == 0 || measure_engine(c, &per_range_s, &bytes_per_s) != 0) {
        free(offsets);
        return n == 0 ? 0 : -1;
    }
    *chunk = wl_cap_chunk_predict(offsets, n, c->data_bytes, per_range_s, bytes_per_s,
                                  &predicted_s);
    free(offsets);
    snprintf(c->h->setup_note, sizeof c->h->setup_note,
             "cap_chunk=best:%zu,cap_range_us=%.3g,cap_gbps=%.3g,cap_batch_s=%.3g", *chunk,
             per_range_s * 1e6, bytes_per_s / 1e9, predicted_s);
    return 0;
}
