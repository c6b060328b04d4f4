/* Checkpoints for the workloads: gpmcp in every GPU mode, the way the mode
 * table names (GPU copy kernel fenced or flushed by the CPU, cudaMemcpy and
 * CPU flush or fence, or CAP-fs's pwrite and fsync), one file format for
 * all of them, so that a checkpoint written in one mode restores in any. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "harness.h"

static int check_kind(struct wl_ctx *c, int i)
{
    if (i < 0 || i >= c->h->nobj || c->h->obj[i].kind != WL_OBJ_CHECKPOINT || !c->h->obj[i].cp)
        return gpm_set_error("%s: PM object %d is not an open checkpoint", c->wl->name, i);
    return 0;
}

int wl_cp_register(struct wl_ctx *c, int i, void *dev, size_t size)
{
    struct wl_obj *o = &c->h->obj[i];
    if (check_kind(c, i) != 0)
        return -1;
    if (o->ncp >= o->nbuf || size > o->bytes - o->cp_bytes)
        return gpm_set_error("%s: registering %zu more bytes exceeds the %d buffers / %zu bytes "
                             "its layout() declared: declare the total in wl_obj_checkpoint",
                             o->path, size, o->nbuf, o->bytes);
    if (wl_cp_overlaps(c)) { /* gpmcp copies a snapshot of DEV */
        struct wl_cp_snap *v = realloc(o->snap, ((size_t)o->ncp + 1) * sizeof *v);
        if (!v)
            return gpm_set_error("%s: out of memory for a snapshot", o->path);
        o->snap = v;
        v[o->ncp].live = dev;
        v[o->ncp].size = size;
        if (wl_dev_alloc(&v[o->ncp].copy, size) != 0)
            return -1;
        dev = v[o->ncp].copy;
    }
    if (gpmcp_register(o->cp, dev, size, 0) != 0)
        return -1;
    o->ncp++;
    o->cp_bytes += size;
    return 0;
}

int wl_cp_register_record(struct wl_ctx *c, int i, void *record, size_t size)
{
    struct wl_obj *o = &c->h->obj[i];
    void *where = record;
    if (check_kind(c, i) != 0)
        return -1;
    if (o->rec)
        return gpm_set_error("%s: a checkpoint has one record: register it once", o->path);
    if (c->m->needs_gpu && wl_dev_alloc(&o->rec_dev, size) != 0)
        return -1;
    if (o->rec_dev)
        where = o->rec_dev;
    if (wl_cp_register(c, i, where, size) != 0) {
        wl_dev_free(o->rec_dev);
        o->rec_dev = NULL;
        return -1;
    }
    o->rec = record;
    o->rec_size = size;
    return 0;
}

int wl_cp_overlaps(const struct wl_ctx *c)
{
    return c->m->needs_gpu && (c->m->cp_how == GPMCP_GPM || c->m->cp_how == GPMCP_GPM_EADR) &&
           !c->m->commit->nothing_durable;
}

static gpmcp_how how_of(struct wl_ctx *c, struct wl_obj *o)
{
    gpmcp_how how = {c->m->cp_how, c->h->flusher, c->stream, 0};
    if (o->snap) {
        how.stream = o->side;
        how.max_blocks = c->h->opt.cp_blocks ? (unsigned)c->h->opt.cp_blocks : wl_cp_pace_blocks(o);
    }
    return how;
}

/* The copy's stream waits for the snapshot on the steps' stream: through
 * the pacing's timing event where the block count is paced, else a plain
 * event. */
static cudaError_t wait_for_snapshot(struct wl_ctx *c, struct wl_obj *o)
{
    cudaEvent_t ev;
    cudaError_t e;
    if (o->pace) {
        ev = (cudaEvent_t)wl_cp_pace_snapshot(o, c->stream);
        return ev ? cudaStreamWaitEvent((cudaStream_t)o->side, ev, 0) : cudaErrorUnknown;
    }
    if ((e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming)) != cudaSuccess)
        return e;
    e = cudaEventRecord(ev, (cudaStream_t)c->stream);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent((cudaStream_t)o->side, ev, 0);
    cudaEventDestroy(ev);
    return e;
}

int wl_cp_start(struct wl_ctx *c, int i)
{
    struct wl_obj *o = &c->h->obj[i];
    gpmcp_how how;
    cudaError_t e = cudaSuccess;
    if (check_kind(c, i) != 0)
        return -1;
    if (!o->snap)
        return gpm_set_error("%s: wl_cp_start in a mode whose checkpoint copy does not overlap "
                             "the steps: call wl_cp_checkpoint", o->path);
    if (o->pending)
        return gpm_set_error("%s: a checkpoint's copy is still pending: wl_cp_finish first",
                             o->path);
    /* Non-blocking: the steps' legacy stream does not wait for it. */
    if (!o->side)
        e = cudaStreamCreateWithFlags((cudaStream_t *)&o->side, cudaStreamNonBlocking);
    if (e == cudaSuccess && !c->h->opt.cp_blocks && wl_cp_pace_open(o) != 0)
        return -1;
    if (e == cudaSuccess && o->rec_dev && wl_dev_copy(o->rec_dev, o->rec, o->rec_size, 1) != 0)
        return -1;
    /* The snapshot follows the steps on their stream; the copy waits for it. */
    for (int k = 0; k < o->ncp && e == cudaSuccess; k++)
        e = cudaMemcpyAsync(o->snap[k].copy, o->snap[k].live, o->snap[k].size,
                            cudaMemcpyDeviceToDevice, (cudaStream_t)c->stream);
    if (e == cudaSuccess)
        e = wait_for_snapshot(c, o);
    if (e != cudaSuccess)
        return gpm_set_error("%s: the checkpoint's snapshot failed (%s)", o->path,
                             cudaGetErrorString(e));
    how = how_of(c, o);
    if (gpmcp_checkpoint_start(o->cp, 0, &how) != 0)
        return -1;
    if (o->pace && wl_cp_pace_copied(o, o->side) != 0)
        return gpm_set_error("%s: cannot time the checkpoint's copy", o->path);
    o->pending = 1;
    return 0;
}

int wl_cp_finish(struct wl_ctx *c, int i)
{
    struct wl_obj *o = &c->h->obj[i];
    gpmcp_how how = how_of(c, o);
    if (check_kind(c, i) != 0)
        return -1;
    if (!o->pending)
        return 0;
    o->pending = 0;
    wl_cp_pace_steps_done(o, c->stream);
    if (gpmcp_checkpoint_finish(o->cp, 0, &how) != 0)
        return -1;
    wl_cp_pace_update(o);
    c->bytes_persisted += (double)o->cp_bytes + 8; /* the data and the flip word */
    return 0;
}

int wl_cp_checkpoint(struct wl_ctx *c, int i)
{
    struct wl_obj *o = &c->h->obj[i];
    gpmcp_how how = how_of(c, o);
    int volatile_ = c->m->commit->nothing_durable, rc;
    double t0 = 0;
    if (check_kind(c, i) != 0)
        return -1;
    if (o->snap)
        return wl_cp_finish(c, i) || wl_cp_start(c, i) || wl_cp_finish(c, i) ? -1 : 0;
    if (volatile_ && wl_exclude_begin(c, &t0) != 0)
        return -1;
    rc = (o->rec_dev && wl_dev_copy(o->rec_dev, o->rec, o->rec_size, 1) != 0) ||
         gpmcp_checkpoint_how(o->cp, 0, &how) != 0;
    if (volatile_) { /* mode none: a copy for verification, not the work's */
        wl_exclude_end(c, t0);
        return rc ? -1 : 0;
    }
    if (rc)
        return -1;
    c->bytes_persisted += (double)o->cp_bytes + 8; /* the data and the flip word */
    return 0;
}

void wl_cp_free(struct wl_obj *o)
{
    if (o->side) {
        cudaStreamSynchronize((cudaStream_t)o->side); /* no copy runs on after */
        cudaStreamDestroy((cudaStream_t)o->side);
    }
    for (int k = 0; o->snap && k < o->ncp; k++)
        wl_dev_free(o->snap[k].copy);
    free(o->snap);
    o->snap = NULL;
    o->side = NULL;
    wl_cp_pace_free(o);
    o->pending = 0;
}

int wl_cp_restore(struct wl_ctx *c, int i)
{
    struct wl_obj *o = &c->h->obj[i];
    long long seq;
    if (check_kind(c, i) != 0 || (seq = gpmcp_seq(o->cp, 0)) < 0)
        return -1;
    if (seq == 0)
        return 1;
    if (gpmcp_restore(o->cp, 0) != 0)
        return -1;
    for (int k = 0; o->snap && k < o->ncp; k++) /* the snapshots to the buffers */
        if (wl_dev_copy_within(o->snap[k].live, o->snap[k].copy, o->snap[k].size) != 0)
            return -1;
    return o->rec_dev ? wl_dev_copy(o->rec, o->rec_dev, o->rec_size, 0) : 0;
}
