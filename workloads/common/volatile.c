/* Mode none: nothing is made durable, yet every run is verified as in the
 * other modes, from the mapping. So what a mode that persists would have
 * committed reaches the mapping by copies whose time is not the work's:
 * commits are snapshots into a device copy of the region, in stream order
 * and without a wait (the work is not held up, and a source that later
 * work overwrites is copied as it was); after the timed work, untimed, the
 * snapshots and a transactional table go to the mapping. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness.h"

static cudaStream_t stream_of(const struct wl_ctx *c)
{
    return c->stream ? (cudaStream_t)c->stream : cudaStreamLegacy;
}

int wl_exclude_begin(struct wl_ctx *c, double *t0)
{
    /* What was queued before is the work's: waited for inside its time. */
    cudaError_t e = cudaStreamSynchronize(stream_of(c));
    if (e != cudaSuccess)
        return gpm_set_error("%s: the work before a copy for verification failed: %s",
                             c->wl->name, cudaGetErrorString(e));
    *t0 = wl_now();
    return 0;
}

void wl_exclude_end(struct wl_ctx *c, double t0) { c->excluded_s += wl_now() - t0; }

/* The device copy of region O, made once, out of the time. */
static int shadow_of(struct wl_ctx *c, struct wl_obj *o)
{
    double t0;
    int rc;
    if (o->shadow)
        return 0;
    if (wl_exclude_begin(c, &t0) != 0)
        return -1;
    rc = wl_dev_alloc(&o->shadow, o->file_bytes);
    wl_exclude_end(c, t0);
    return rc;
}

static int remember(struct wl_obj *o, const gpm_range *r)
{
    if (o->shadow_n == o->shadow_cap) {
        int cap = o->shadow_cap ? 2 * o->shadow_cap : 64;
        gpm_range *v = realloc(o->shadow_v, (size_t)cap * sizeof *v);
        if (!v)
            return gpm_set_error("%s: out of memory for the ranges of mode none", o->path);
        o->shadow_v = v;
        o->shadow_cap = cap;
    }
    o->shadow_v[o->shadow_n++] = *r;
    return 0;
}

/* wl_commit: each range's source is copied, in stream order and without a
 * wait, into the region's device copy (o->shadow), and the range
 * remembered. */
static int volatile_commit(struct wl_ctx *c, struct wl_obj *o, const gpm_range *v, int n,
                           const char *site)
{
    (void)site;
    if (shadow_of(c, o) != 0)
        return -1;
    for (int k = 0; k < n; k++) {
        cudaError_t e;
        if (!v[k].len)
            continue;
        e = cudaMemcpyAsync((char *)o->shadow + v[k].off, v[k].src, v[k].len,
                            cudaMemcpyDefault, stream_of(c));
        if (e != cudaSuccess)
            return gpm_set_error("%s: the snapshot of %zu bytes at %zu failed: %s", o->path,
                                 v[k].len, v[k].off, cudaGetErrorString(e));
        if (remember(o, &v[k]) != 0)
            return -1;
    }
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    size_t x = ((const gpm_range *)a)->off, y = ((const gpm_range *)b)->off;
    return x < y ? -1 : x > y;
}

/* The remembered ranges of O, merged where they overlap or touch, from
 * the device copy to the mapping. */
static int to_mapping(struct wl_obj *o)
{
    int m = 0;
    qsort(o->shadow_v, (size_t)o->shadow_n, sizeof *o->shadow_v, by_offset);
    for (int k = 1; k < o->shadow_n; k++) {
        gpm_range *last = &o->shadow_v[m];
        size_t end = last->off + last->len, k_end = o->shadow_v[k].off + o->shadow_v[k].len;
        if (o->shadow_v[k].off <= end)
            last->len = (k_end > end ? k_end : end) - last->off;
        else
            o->shadow_v[++m] = o->shadow_v[k];
    }
    if (o->shadow_n)
        m++;
    for (int k = 0; k < m; k++)
        if (wl_dev_copy((char *)o->region.host + o->shadow_v[k].off,
                        (char *)o->shadow + o->shadow_v[k].off, o->shadow_v[k].len, 0) != 0)
            return -1;
    o->shadow_n = 0;
    return 0;
}

/* The work ends when the GPU has done it, before the copies for
 * verification, which its time leaves out. */
static int volatile_work_end(struct wl_ctx *c) { return wl_dev_sync(c->wl->name); }

/* After a timed piece of work, untimed: the remembered ranges from the
 * device copies to the mappings, and each transactional log's engine's end
 * (the table), so that verification reads what the kernels made. */
static int volatile_finish(struct wl_ctx *c)
{
    double t0;
    if (wl_exclude_begin(c, &t0) != 0)
        return -1;
    for (int i = 0; i < c->h->nobj; i++) {
        struct wl_obj *o = &c->h->obj[i];
        if ((o->shadow_n && to_mapping(o) != 0) ||
            (o->tx && c->m->tx->end && c->m->tx->end(c, i) != 0))
            return -1;
    }
    wl_exclude_end(c, t0);
    wl_note(c, "verify_copies_s=%.3g", c->excluded_s);
    return 0;
}

const struct wl_commit_engine wl_commit_volatile = {
    .name = "volatile", .about = "its output is never persisted", .nothing_durable = 1,
    .commit = volatile_commit, .work_end = volatile_work_end, .after_work = volatile_finish,
};

void wl_volatile_free(struct wl_obj *o)
{
    wl_dev_free(o->shadow);
    free(o->shadow_v);
    o->shadow = NULL;
    o->shadow_v = NULL;
    o->shadow_n = o->shadow_cap = 0;
}
