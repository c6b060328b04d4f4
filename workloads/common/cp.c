/* Checkpoints for the workloads: gpmcp in every GPU mode, the way the mode
 * table names (GPU copy kernel fenced or flushed by the CPU, cudaMemcpy and
 * CPU flush or fence, or CAP-fs's pwrite and fsync), one file format for
 * all of them, so that a checkpoint written in one mode restores in any. */
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "harness.h"

/* ---- the block count of the checkpoint copy that overlaps the steps ----
 * (gpm, gpm-eadr): the count whose interval, from one snapshot to the
 * point where both the copy and the steps beside it are done, is shortest.
 *
 * Every block the copy holds slows the steps beside it (at paper scale on
 * an H200: BLK 4.54 s with 8 blocks, 6.98 s with 64, 7.67 s with 1056; HS
 * 6.71 s with 4, 8.22 s with 64), while too few leave the next checkpoint
 * waiting for the copy (BLK with 4: 3.2 s of waits). No fixed rule fits
 * every GPU (a copy sized to take 0.9 of the steps' time climbed to 70
 * blocks on an H100, where BLK's copy cannot fit, 1.33x BLK's bound), so
 * each interval is timed on the GPU and a pattern search over counts (a
 * step of 2x, then 1.41x, 1.19x, 1.09x, each way from the best count)
 * settles on the count of the shortest (on an H100 at paper scale, BLK at
 * 13 blocks, 4.79 s against 5.66 s under that rule; HS at 3, 6.68 s
 * against 7.08 s). --cp-blocks N fixes the count. */
#define PACE_START 16       /* blocks of 256 threads of the first copy */
#define PACE_FIRST_STEP 2.0f /* the first ratio between counts tried */
#define PACE_LAST_STEP 1.1f  /* a step below this ends the search */

struct wl_cp_pace {
    cudaEvent_t snap;      /* after the snapshot, on the steps' stream */
    cudaEvent_t end;       /* after the copy, on its own stream */
    cudaEvent_t steps_end; /* at the next checkpoint, on the steps' stream */
    struct wl_pace_search search;
    unsigned least, most, max;
};

static unsigned full_gpu_blocks(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        sms <= 0)
        return 1024;
    return (unsigned)sms * 8; /* 2048 threads an SM */
}

static void pace_free(struct wl_obj *o)
{
    struct wl_cp_pace *p = o->pace;
    if (!p)
        return;
    if (p->snap)
        cudaEventDestroy(p->snap);
    if (p->end)
        cudaEventDestroy(p->end);
    if (p->steps_end)
        cudaEventDestroy(p->steps_end);
    free(p);
    o->pace = NULL;
}

static int pace_open(struct wl_obj *o)
{
    struct wl_cp_pace *p;
    if (o->pace)
        return 0;
    if (!(p = calloc(1, sizeof *p)))
        return gpm_set_error("%s: out of memory for the checkpoint's pacing", o->path);
    if (cudaEventCreate(&p->snap) != cudaSuccess || cudaEventCreate(&p->end) != cudaSuccess ||
        cudaEventCreate(&p->steps_end) != cudaSuccess) {
        o->pace = p;
        pace_free(o);
        return gpm_set_error("%s: cannot create the checkpoint copy's timing events",
                             o->path);
    }
    p->max = full_gpu_blocks();
    wl_pace_search_init(&p->search, PACE_START < p->max ? PACE_START : p->max);
    p->least = p->most = p->search.trial;
    o->pace = p;
    return 0;
}

void wl_pace_search_init(struct wl_pace_search *s, unsigned start)
{
    s->trial = s->best = start ? start : 1;
    s->best_ms = 0;
    s->step = PACE_FIRST_STEP;
    s->dir = 1;
    s->turned = 0;
}

/* The count STEP away from BEST in direction DIR, within 1..MAX; BEST
 * itself where there is none that way. */
static unsigned neighbour(unsigned best, int dir, float step, unsigned max)
{
    unsigned n;
    if (dir > 0) {
        n = (unsigned)((float)best * step + 0.5f);
        n = n <= best ? best + 1 : n;
        return n > max ? (best < max ? max : best) : n;
    }
    n = (unsigned)((float)best / step + 0.5f);
    n = n >= best ? best - 1 : n;
    return n < 1 ? best : n;
}

/* The count tried was no better than the best: try the other side of the
 * best, or, where that was tried too, a smaller step. */
static void worse(struct wl_pace_search *s)
{
    s->turned = !s->turned;
    if (s->turned)
        s->dir = -s->dir;
    else
        s->step = sqrtf(s->step);
}

unsigned wl_pace_search_next(struct wl_pace_search *s, float interval_ms, unsigned max)
{
    if (!(interval_ms > 0) || s->step < PACE_LAST_STEP)
        return s->trial;
    if (!(s->best_ms > 0) || interval_ms < s->best_ms) {
        /* A move: the count it came from, on the other side, is worse. */
        s->turned = s->best_ms > 0;
        s->best = s->trial;
        s->best_ms = interval_ms;
    } else {
        worse(s);
    }
    for (;;) {
        unsigned n;
        if (s->step < PACE_LAST_STEP)
            return s->trial = s->best;
        if ((n = neighbour(s->best, s->dir, s->step, max)) != s->best)
            return s->trial = n;
        worse(s); /* no count that way: as if it had been tried and was worse */
    }
}

/* After the copy was waited for (its snapshot and end are done): the
 * steps beside it are waited for too, which the next snapshot would wait
 * for on the GPU anyway. */
static void pace_update(struct wl_obj *o)
{
    struct wl_cp_pace *p = o->pace;
    float copy = 0, steps = 0;
    unsigned next;
    if (!p || cudaEventSynchronize(p->steps_end) != cudaSuccess ||
        cudaEventElapsedTime(&copy, p->snap, p->end) != cudaSuccess ||
        cudaEventElapsedTime(&steps, p->snap, p->steps_end) != cudaSuccess)
        return;
    /* The next snapshot waits for both. */
    next = wl_pace_search_next(&p->search, copy > steps ? copy : steps, p->max);
    if (next < p->least)
        p->least = next;
    if (next > p->most)
        p->most = next;
}

void wl_cp_pace_note(struct wl_ctx *c)
{
    for (int i = 0; i < c->h->nobj; i++) {
        const struct wl_cp_pace *p = c->h->obj[i].pace;
        if (p)
            wl_note(c, "cp_blocks=paced:%u(%u-%u)", p->search.trial, p->least, p->most);
    }
}

/* ---- the checkpoints ---- */

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
        how.max_blocks = c->h->opt.cp_blocks ? (unsigned)c->h->opt.cp_blocks
                         : o->pace          ? o->pace->search.trial
                                            : 0;
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
    if (o->pace)
        return cudaEventRecord(o->pace->snap, (cudaStream_t)c->stream) == cudaSuccess
                   ? cudaStreamWaitEvent((cudaStream_t)o->side, o->pace->snap, 0)
                   : cudaErrorUnknown;
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
    if (e == cudaSuccess && !c->h->opt.cp_blocks && pace_open(o) != 0)
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
    if (o->pace && cudaEventRecord(o->pace->end, (cudaStream_t)o->side) != cudaSuccess)
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
    if (o->pace) /* the steps' end, for the interval */
        cudaEventRecord(o->pace->steps_end, (cudaStream_t)c->stream);
    if (gpmcp_checkpoint_finish(o->cp, 0, &how) != 0)
        return -1;
    pace_update(o);
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
    pace_free(o);
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
