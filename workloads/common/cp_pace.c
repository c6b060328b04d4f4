/* The block count of the checkpoint copy that overlaps the steps (gpm,
 * gpm-eadr): as few as let the copy end within one interval of steps.
 *
 * Every block the copy holds slows the steps beside it (measured at paper
 * scale on an H200: BLK took 4.54 s with 8 blocks, 6.98 s with 64 and
 * 7.67 s with 1056; HS 6.71 s with 4 and 8.22 s with 64), while too few
 * leave the next checkpoint waiting for the copy (BLK with 4: 3.2 s of
 * waits). So after each copy its duration d, timed on the GPU from the
 * snapshot to the copy's end, is held against the time I the steps beside
 * it took, from the snapshot to the next checkpoint, and the next copy
 * gets blocks * d / (0.9 I), within half and twice the last count. I ends
 * where the steps end, not where the next snapshot begins: that would
 * count the wait for a late copy as steps, and a copy too slow would look
 * as if it fitted (an H100 run of HS that measured so sank to 1 and 2
 * blocks and waited 3.2 s). --cp-blocks N fixes the count. */
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "harness.h"

#define PACE_START 16     /* blocks of 256 threads of the first copy */
#define PACE_TARGET 0.9f  /* the share of an interval a copy may take */

struct wl_cp_pace {
    cudaEvent_t snap;      /* after the snapshot, on the steps' stream */
    cudaEvent_t end;       /* after the copy, on its own stream */
    cudaEvent_t steps_end; /* at the next checkpoint, on the steps' stream */
    unsigned blocks, least, most, max;
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
    p->blocks = p->least = p->most = PACE_START < p->max ? PACE_START : p->max;
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
    return o->pace ? o->pace->blocks : 0;
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

unsigned wl_cp_pace_next(unsigned blocks, float copy_ms, float interval_ms, unsigned max)
{
    float want;
    unsigned next;
    if (!(copy_ms > 0) || !(interval_ms > 0))
        return blocks;
    want = (float)blocks * copy_ms / (PACE_TARGET * interval_ms);
    next = want < 1 ? 1 : want > 2.0f * blocks ? 2 * blocks : (unsigned)(want + 0.5f);
    if (next < (blocks + 1) / 2)
        next = (blocks + 1) / 2;
    return next > max ? max : next;
}

/* After the copy was waited for (its snapshot and end are done): the
 * steps beside it are waited for too, which the next snapshot would wait
 * for on the GPU anyway. */
void wl_cp_pace_update(struct wl_obj *o)
{
    struct wl_cp_pace *p = o->pace;
    float d = 0, interval = 0;
    unsigned next;
    if (!p || cudaEventSynchronize(p->steps_end) != cudaSuccess ||
        cudaEventElapsedTime(&d, p->snap, p->end) != cudaSuccess ||
        cudaEventElapsedTime(&interval, p->snap, p->steps_end) != cudaSuccess)
        return;
    next = wl_cp_pace_next(p->blocks, d, interval, p->max);
    p->blocks = next;
    if (next < p->least)
        p->least = next;
    if (next > p->most)
        p->most = next;
}

void wl_cp_pace_note(struct wl_ctx *c)
{
    for (int i = 0; i < c->nobj; i++) {
        const struct wl_cp_pace *p = c->obj[i].pace;
        if (p)
            wl_note(c, "cp_blocks=paced:%u(%u-%u)", p->blocks, p->least, p->most);
    }
}
