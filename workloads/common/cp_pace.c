/* The block count of the checkpoint copy that overlaps the steps (gpm,
 * gpm-eadr): the count whose interval, from one snapshot to the point
 * where both the copy and the steps beside it are done, is shortest.
 *
 * Every block the copy holds slows the steps beside it (measured at paper
 * scale on an H200: BLK took 4.54 s with 8 blocks, 6.98 s with 64 and
 * 7.67 s with 1056; HS 6.71 s with 4 and 8.22 s with 64), while too few
 * leave the next checkpoint waiting for the copy (BLK with 4: 3.2 s of
 * waits). An earlier rule sized the copy to take 0.9 of the steps' time;
 * where the copy cannot fit at any count (BLK on an H100, whose copy
 * needs about as long as its steps) it climbed to 70 blocks and slowed
 * the steps, 1.33x BLK's bound. So the count is searched for instead:
 * each interval is timed on the GPU, and a pattern search over counts (a
 * step of 2x, then 1.41x, 1.19x, 1.09x, each way from the best count)
 * keeps the count of the shortest interval, then settles on it (on an
 * H100 at paper scale, BLK at 13 blocks, 4.79 s against 5.66 s under the
 * earlier rule, HS at 3, 6.68 s against 7.08 s). --cp-blocks N fixes the
 * count. */
#include <math.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "harness.h"

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

int wl_cp_pace_open(struct wl_obj *o)
{
    struct wl_cp_pace *p;
    if (o->pace)
        return 0;
    if (!(p = calloc(1, sizeof *p)))
        return gpm_set_error("%s: out of memory for the checkpoint's pacing", o->path);
    if (cudaEventCreate(&p->snap) != cudaSuccess || cudaEventCreate(&p->end) != cudaSuccess ||
        cudaEventCreate(&p->steps_end) != cudaSuccess) {
        o->pace = p;
        wl_cp_pace_free(o);
        return gpm_set_error("%s: cannot create the checkpoint copy's timing events",
                             o->path);
    }
    p->max = full_gpu_blocks();
    wl_pace_search_init(&p->search, PACE_START < p->max ? PACE_START : p->max);
    p->least = p->most = p->search.trial;
    o->pace = p;
    return 0;
}

void wl_cp_pace_free(struct wl_obj *o)
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

unsigned wl_cp_pace_blocks(const struct wl_obj *o)
{
    return o->pace ? o->pace->search.trial : 0;
}

void *wl_cp_pace_snapshot(struct wl_obj *o, void *stream)
{
    struct wl_cp_pace *p = o->pace;
    return cudaEventRecord(p->snap, (cudaStream_t)stream) == cudaSuccess ? (void *)p->snap
                                                                           : NULL;
}

void wl_cp_pace_steps_done(struct wl_obj *o, void *stream)
{
    if (o->pace)
        cudaEventRecord(o->pace->steps_end, (cudaStream_t)stream);
}

int wl_cp_pace_copied(struct wl_obj *o, void *side)
{
    return cudaEventRecord(o->pace->end, (cudaStream_t)side) == cudaSuccess ? 0 : -1;
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
void wl_cp_pace_update(struct wl_obj *o)
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
