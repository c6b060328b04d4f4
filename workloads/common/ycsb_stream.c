/* A YCSB-driven workload's parameters and its whole stream (ycsb.h): one
 * reading of --workload, --dist, --records, --ops and --ycsb-trace, and one
 * stream, so that GPHash and gpKVS run the same operations. */
#include <string.h>

#include "harness.h"
#include "ycsb.h"

int wl_ycsb_args(const struct wl_ctx *c, double theta, struct wl_ycsb_args *a)
{
    static const char *const dists[] = {"zipfian", "uniform", "latest"};
    const char *d = wl_str(c, "dist"), *t = wl_str(c, "ycsb-trace");
    memset(a, 0, sizeof *a);
    if (!(a->mix = wl_ycsb_mix(wl_str(c, "workload"))))
        return gpm_set_error("--workload: %s", gpm_last_error());
    /* YCSB's generators draw through a Zipfian even for uniform keys. */
    if (!(theta > 0 && theta < 1))
        return gpm_set_error("--zipf %g: YCSB needs a skew between 0 and 1 (its own is 0.99); "
                             "for uniform keys pass --dist uniform", theta);
    a->dist = -1;
    for (int i = 0; i < 3; i++)
        if (!strcmp(d, dists[i]))
            a->dist = i;
    if (a->dist < 0 && strcmp(d, "mix") != 0)
        return gpm_set_error("--dist %s: pass mix, zipfian, uniform or latest", d);
    a->records = (uint64_t)wl_int(c, "records");
    a->ops = (uint64_t)wl_int(c, "ops");
    a->theta = theta;
    a->trace = strcmp(t, "none") ? t : NULL;
    return 0;
}

static int is_load(const struct wl_ycsb_stream *s) { return !strcmp(s->a.mix->name, "load"); }

int wl_ycsb_stream_open(struct wl_ycsb_stream *s, const struct wl_ycsb_args *a, uint64_t seed)
{
    struct wl_ycsb check;
    memset(s, 0, sizeof *s);
    s->a = *a;
    s->seed = seed;
    if (a->trace && wl_ycsb_trace_read(&s->t, a->trace) != 0)
        return -1;
    /* The generators' own checks, once, before anything is filled. */
    if (wl_ycsb_init(&check, wl_ycsb_mix("load"), -1, 0, a->theta, seed) != 0 ||
        (!a->trace && !is_load(s) &&
         wl_ycsb_init(&check, a->mix, a->dist, a->records, a->theta, seed) != 0)) {
        wl_ycsb_trace_free(&s->t);
        return -1;
    }
    s->load = is_load(s) && !a->trace ? 0 : a->records;
    s->run = a->trace ? s->t.n : is_load(s) ? a->records : a->ops;
    s->keys = a->records;
    if (a->trace) {
        for (uint64_t i = 0; i < s->t.n; i++)
            s->keys += s->t.op[i] == WL_YCSB_INSERT;
    } else if (!is_load(s)) {
        s->keys += (uint64_t)((double)a->ops * a->mix->p[WL_YCSB_INSERT]) + 1;
    }
    return 0;
}

void wl_ycsb_stream_fill(struct wl_ycsb_stream *s,
                         void (*put)(void *arg, uint64_t i, enum wl_ycsb_op op, uint64_t key),
                         void *arg)
{
    struct wl_ycsb load, run;
    enum wl_ycsb_op op;
    uint64_t k;
    int load_is_run = is_load(s) && !s->a.trace;
    /* Both checked by wl_ycsb_stream_open. */
    wl_ycsb_init(&load, wl_ycsb_mix("load"), -1, 0, s->a.theta, s->seed);
    if (!s->a.trace && !is_load(s))
        wl_ycsb_init(&run, s->a.mix, s->a.dist, s->a.records, s->a.theta, s->seed);
    for (uint64_t i = 0; i < (load_is_run ? s->run : s->load); i++) {
        wl_ycsb_next(&load, &op, &k);
        put(arg, i, op, k);
    }
    for (uint64_t i = 0; i < s->run && !load_is_run; i++) {
        if (s->a.trace) {
            op = (enum wl_ycsb_op)s->t.op[i];
            k = s->t.key[i];
        } else {
            wl_ycsb_next(&run, &op, &k);
        }
        put(arg, s->load + i, op, k);
    }
}

void wl_ycsb_stream_close(struct wl_ycsb_stream *s) { wl_ycsb_trace_free(&s->t); }
