/* Checkpoints for the workloads: gpmcp in every GPU mode, the way the mode
 * table names (GPU copy kernel fenced or flushed by the CPU, cudaMemcpy and
 * CPU flush or fence, or CAP-fs's pwrite and fsync), one file format for
 * all of them, so that a checkpoint written in one mode restores in any. */
#include "harness.h"

static int check_kind(struct wl_ctx *c, int i)
{
    if (i < 0 || i >= c->nobj || c->obj[i].kind != WL_OBJ_CHECKPOINT || !c->obj[i].cp)
        return gpm_set_error("%s: PM object %d is not an open checkpoint", c->wl->name, i);
    return 0;
}

int wl_cp_register(struct wl_ctx *c, int i, void *dev, size_t size)
{
    struct wl_obj *o = &c->obj[i];
    if (check_kind(c, i) != 0)
        return -1;
    if (o->ncp >= o->nbuf || size > o->bytes - o->cp_bytes)
        return gpm_set_error("%s: registering %zu more bytes exceeds the %d buffers / %zu bytes "
                             "its layout() declared: declare the total in wl_obj_checkpoint",
                             o->path, size, o->nbuf, o->bytes);
    if (gpmcp_register(o->cp, dev, size, 0) != 0)
        return -1;
    o->ncp++;
    o->cp_bytes += size;
    return 0;
}

int wl_cp_register_record(struct wl_ctx *c, int i, void *record, size_t size)
{
    struct wl_obj *o = &c->obj[i];
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

int wl_cp_checkpoint(struct wl_ctx *c, int i)
{
    gpmcp_how how = {c->m->cp_how, c->flusher, c->stream};
    struct wl_obj *o = &c->obj[i];
    int volatile_ = c->m->engine == WL_ENGINE_VOLATILE, rc;
    double t0 = 0;
    if (check_kind(c, i) != 0 || (volatile_ && wl_exclude_begin(c, &t0) != 0))
        return -1;
    rc = (o->rec_dev && wl_dev_copy(o->rec_dev, o->rec, o->rec_size, 1) != 0) ||
         gpmcp_checkpoint_how(o->cp, 0, &how) != 0;
    if (volatile_) { /* mode none: a copy for verification, not the work's */
        wl_exclude_end(c, t0);
        return rc ? -1 : 0;
    }
    if (rc)
        return -1;
    c->bytes_persisted += (double)c->obj[i].cp_bytes + 8; /* the data and the flip word */
    return 0;
}

int wl_cp_restore(struct wl_ctx *c, int i)
{
    long long seq;
    if (check_kind(c, i) != 0 || (seq = gpmcp_seq(c->obj[i].cp, 0)) < 0)
        return -1;
    if (seq == 0)
        return 1;
    if (gpmcp_restore(c->obj[i].cp, 0) != 0)
        return -1;
    return c->obj[i].rec_dev
               ? wl_dev_copy(c->obj[i].rec, c->obj[i].rec_dev, c->obj[i].rec_size, 0)
               : 0;
}
