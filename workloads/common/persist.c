/* The persistence half of every mode: the engine the mode table names makes
 * a workload's output durable. Workloads call these from their timed
 * region. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "harness.h"

int wl_persist_begin(struct wl_ctx *c) { return c->m->ddio_bracket ? gpm_persist_begin() : 0; }
int wl_persist_end(struct wl_ctx *c) { return c->m->ddio_bracket ? gpm_persist_end() : 0; }

static int check_ranges(const struct wl_obj *o, const gpm_range *v, int n, double *bytes)
{
    *bytes = 0;
    if (o->kind != WL_OBJ_REGION)
        return gpm_set_error("%s: wl_commit needs a region, not a checkpoint or log", o->path);
    for (int k = 0; k < n; k++) {
        if (v[k].off > o->file_bytes || v[k].len > o->file_bytes - v[k].off)
            return gpm_set_error("%s: commit of %zu bytes at %zu runs past its %zu bytes",
                                 o->path, v[k].len, v[k].off, o->file_bytes);
        *bytes += (double)v[k].len;
    }
    return 0;
}

/* ---- the commit engines (wl.h); mode none's is in volatile.c ---- */

const struct wl_commit_engine wl_commit_kernels = {
    .name = "kernels", .about = "its kernels persist in-kernel",
};

/* With the flush threads where the mode has them; else (the CPU
 * counterpart) the calling thread flushes, one drain for the list, so that
 * OpenMP threads commit their own ranges at once. */
static int flush_commit(struct wl_ctx *c, struct wl_obj *o, const gpm_range *v, int n,
                        const char *site)
{
    return gpm_flusher_persist_ranges_at(c->h->flusher, &o->region, v, n, 0, site);
}

const struct wl_commit_engine wl_commit_flush = {
    .name = "flush", .about = "the CPU flushes what was stored in the mapping",
    .commit = flush_commit,
};

static int cap_mm_commit(struct wl_ctx *c, struct wl_obj *o, const gpm_range *v, int n,
                         const char *site)
{
    (void)site;
    return gpm_cap_mm_ranges(c->h->flusher, &o->region, v, n, c->m->commit->fence_only,
                             c->stream);
}

const struct wl_commit_engine wl_commit_cap_mm = {
    .name = "cap-mm", .about = "its output is copied into the mapping and flushed",
    .copies = 1, .commit = cap_mm_commit,
};

const struct wl_commit_engine wl_commit_cap_eadr = {
    .name = "cap-eadr", .about = "its output is copied into the mapping, then a fence",
    .copies = 1, .fence_only = 1, .commit = cap_mm_commit,
};

static int cap_fs_commit(struct wl_ctx *c, struct wl_obj *o, const gpm_range *v, int n,
                         const char *site)
{
    (void)site;
    return gpm_cap_fs_ranges(&o->cf, v, n, c->stream);
}

const struct wl_commit_engine wl_commit_cap_fs = {
    .name = "cap-fs", .about = "its output goes through pwrite", .copies = 1, .files = 1,
    .commit = cap_fs_commit,
};

/* cap-gds runs where cuFile can write files in the PM directory. */
static int gds_usable(char *why, size_t len) { return gpm_gds_usable(gpm_pm_dir(), why, len); }

static int gds_note(struct wl_ctx *c)
{
    wl_note(c, "cufile=%s", c->h->gds_way[0] ? c->h->gds_way : "unused");
    return 0;
}

const struct wl_commit_engine wl_commit_cap_gds = {
    .name = "cap-gds", .about = "its output goes through cuFile", .copies = 1, .files = 1,
    .file_flags = GPM_CAP_GDS, .commit = cap_fs_commit, .usable = gds_usable,
    .after_work = gds_note,
};

int wl_durable(const struct wl_ctx *c) { return !c->m->commit->nothing_durable; }

int wl_commit_at(struct wl_ctx *c, int i, const gpm_range *v, int n, const char *site)
{
    struct wl_obj *o = &c->h->obj[i];
    double bytes;
    if (check_ranges(o, v, n, &bytes) != 0)
        return -1;
    if (!c->m->commit->commit)
        return 0; /* persisted in-kernel; the kernels count it */
    if (c->m->commit->commit(c, o, v, n, site) != 0)
        return -1;
    if (!c->m->commit->nothing_durable) {
#pragma omp atomic
        c->bytes_persisted += bytes;
    }
    return 0;
}

int wl_pm_write_at(struct wl_ctx *c, int i, size_t off, const void *src, size_t len,
                   const char *site)
{
    struct wl_obj *o = &c->h->obj[i];
    int rc;
    if (o->kind != WL_OBJ_REGION || off > o->file_bytes || len > o->file_bytes - off)
        return gpm_set_error("%s: write of %zu bytes at %zu outside the region", o->path, len,
                             off);
    if (o->cf_open) {
        rc = gpm_cap_fs_host(&o->cf, (off_t)off, src, len);
    } else {
        memcpy((char *)o->region.host + off, src, len);
        if (c->m->commit->nothing_durable)
            return 0; /* for verification; not durable */
        rc = gpm_region_persist_at(&o->region, (char *)o->region.host + off, len, site);
    }
    if (rc == 0)
        c->bytes_persisted += (double)len;
    return rc;
}

int wl_pm_persist_at(struct wl_ctx *c, int i, const void *p, size_t len, const char *site)
{
    if (gpm_region_persist_at(&c->h->obj[i].region, p, len, site) != 0)
        return -1;
#pragma omp atomic
    c->bytes_persisted += (double)len;
    return 0;
}

void *wl_pm_dev(struct wl_ctx *c, int i)
{
    return c->m->kernels_write_pm ? c->h->obj[i].region.dev : NULL;
}

void *wl_dev_region(struct wl_ctx *c, int i)
{
    struct wl_obj *o = &c->h->obj[i];
    cudaError_t e;
    if (c->m->kernels_write_pm)
        return o->region.dev;
    if (!c->m->needs_gpu) /* the CPU counterpart */
        return o->region.host;
    if (o->dev_copy)
        return o->dev_copy;
    if (wl_dev_alloc(&o->dev_copy, o->file_bytes) != 0)
        return NULL;
    e = cudaMemcpy(o->dev_copy, o->region.host, o->file_bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        gpm_set_error("%s: its device copy could not be loaded: %s", o->path,
                      cudaGetErrorString(e));
        return NULL;
    }
    return o->dev_copy;
}

/* --cpu-threads best: one timed persist of the workload's size (at most
 * 1 GiB) with 1..32 threads into a scratch file, never into the data. */
static int calibrate(struct wl_ctx *c, int *best)
{
    static const int counts[] = {1, 2, 4, 8, 16, 32};
    size_t len = c->calib_bytes;
    char name[256];
    gpm_region r;
    void *dev = NULL;
    double best_s = 1e30;
    int rc = -1;

    if (len > (1ull << 30))
        len = 1ull << 30;
    if (len < (1u << 20))
        len = 1u << 20;
    len = (len + 4095) & ~(size_t)4095;
    snprintf(name, sizeof name, "calibrate-%s-%d.pm", c->wl->name, (int)getpid());
    if (gpm_map(&r, name, len, GPM_CREATE) != 0)
        return -1;
    if (cudaMalloc(&dev, len) != cudaSuccess || cudaMemset(dev, 0x5a, len) != cudaSuccess) {
        gpm_set_error("--cpu-threads best: cannot allocate %zu bytes of device memory for "
                      "the calibration: pass --cpu-threads N", len);
        goto out;
    }
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        gpm_flusher *f = gpm_flusher_create(counts[i]);
        double t0, s;
        int e;
        if (!f)
            goto out;
        if (!c->m->commit->copies)
            memset(r.host, (int)i, len); /* dirty lines, as a kernel's stores leave them */
        t0 = wl_now();
        e = c->m->commit->copies ? gpm_cap_mm(f, &r, 0, dev, len, c->m->commit->fence_only)
                                 : gpm_flusher_persist(f, &r, r.host, len, 0);
        s = wl_now() - t0;
        gpm_flusher_destroy(f);
        if (e != 0)
            goto out;
        if (s < best_s) {
            best_s = s;
            *best = counts[i];
        }
    }
    rc = 0;
out:
    wl_dev_free(dev);
    gpm_unmap(&r);
    unlink(r.path);
    return rc;
}

int wl_flusher_setup(struct wl_ctx *c)
{
    int n = c->h->opt.cpu_threads, best = n == 0;
    c->threads = 0;
    snprintf(c->h->threads_how, sizeof c->h->threads_how, "0");
    if (!c->m->needs_gpu) {
        /* The CPU counterpart's own threads: every core unless told. */
        if (n > 0)
            omp_set_num_threads(n);
        c->threads = n > 0 ? n : omp_get_max_threads();
        snprintf(c->h->threads_how, sizeof c->h->threads_how, n > 0 ? "%d" : "all:%d", c->threads);
        return 0;
    }
    if (!c->m->flusher)
        return 0;
    if (best && calibrate(c, &n) != 0)
        return -1;
    snprintf(c->h->threads_how, sizeof c->h->threads_how, best ? "best:%d" : "%d", n);
    c->h->flusher = gpm_flusher_create(n);
    if (!c->h->flusher)
        return -1;
    c->threads = n;
    return 0;
}
