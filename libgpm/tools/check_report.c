/* gpm-check: what the check says: the trace's persist sites, a failing
 * image, and the verdicts and measures over all of them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpm/gpm.h"
#include "gpm/results.h"

static const char *const verdict_names[] = {"recovered", "wrong output", "crashed", "refused"};

/* "R recovered, W wrong output, C recovery crashed, F refused" */
void print_verdicts(const struct verdicts *by)
{
    printf("%lld recovered, %lld wrong output, %lld recovery crashed, %lld refused", by->recovered,
           by->wrong, by->crashed, by->refused);
}

/* FMT's text after what BUF (LEN bytes) holds already. */
void appendf(char *buf, size_t len, const char *fmt, ...)
{
    size_t at = strlen(buf);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
}

static const char *site_kind(uint64_t kinds)
{
    /* The first of these kinds that the site has names it. */
    static const struct { int kind; const char *name; } first[] = {
        {GPM_TR_OFENCE, "ofence"}, {GPM_TR_DFENCE, "dfence"}, {GPM_TR_PREL, "prel"},
        {GPM_TR_PACQ, "pacq"}, {GPM_TR_FENCE, "fence"}, {GPM_TR_FSYNC, "fsync"},
        {GPM_TR_PERSIST, "persist"}};
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        if (kinds >> first[i].kind & 1)
            return first[i].name;
    if (kinds >> GPM_TR_DRAIN & 1)
        return kinds >> GPM_TR_FLUSH & 1 ? "flush+drain" : "drain";
    return "flush";
}

/* How many persist points (flushes included) the trace has at site S, and
 * of which kinds: not those GPM_MUTATE removed or narrowed. */
static uint64_t site_points(const gpm_ptrace *t, uint32_t s, uint64_t *kinds)
{
    uint64_t n = 0;
    *kinds = 0;
    for (uint64_t k = 0; k < t->nev; k++)
        /* Not the END record either: it names no site (0, the first one's). */
        if (t->ev[k].kind != GPM_TR_STORE && t->ev[k].kind != GPM_TR_END &&
            t->ev[k].kind != GPM_TR_REMOVED && t->ev[k].site == s &&
            !((t->ev[k].kind == GPM_TR_PREL || t->ev[k].kind == GPM_TR_PACQ) &&
              (t->ev[k].aux & GPM_SCOPE_NARROWED))) {
            n++;
            *kinds |= 1ull << t->ev[k].kind;
        }
    return n;
}

void list_sites(const gpm_ptrace *t)
{
    uint64_t n, kinds;
    for (uint32_t s = 0; s < t->nsites; s++)
        if ((n = site_points(t, s, &kinds)) != 0)
            printf("%s\t%s\t%llu\n", t->site[s] ? t->site[s] : "?", site_kind(kinds),
                   (unsigned long long)n);
}

/* The persist points left at the site GPM_MUTATE removes: 0 where the
 * mutant took. Counted at the site, not against the original's total, which
 * a racing kernel (BFS's frontier) changes from run to run. */
unsigned long long mutant_left(const gpm_ptrace *t)
{
    unsigned long long n = 0;
    uint64_t kinds;
    for (uint32_t s = 0; s < t->nsites; s++)
        if (t->site[s] && gpm_mutated(t->site[s]))
            n += site_points(t, s, &kinds);
    return n;
}

/* What a failing image dropped: the objects and offsets of its pending
 * stores, and the last persist point before its crash. */
void describe(const struct check *c, const struct image *im)
{
    const gpm_ptrace *t = &c->t;
    const uint64_t *dur = c->dur;
    uint64_t shown = 0, last = GPM_NEVER;
    for (uint64_t k = 0; k < im->crash && k < t->nev; k++)
        if (gpm_ptrace_is_persist(t, k))
            last = k;
    printf("  crash point: event %llu of %llu (%s), after %s%s; %llu words pending\n",
           (unsigned long long)im->crash, (unsigned long long)t->nev, im->strategy,
           last == GPM_NEVER ? "no persist point" : "the persist point at ",
           last == GPM_NEVER ? "" : gpm_ptrace_site(t, last), (unsigned long long)im->pending);
    for (uint64_t k = 0; k < im->crash && k < t->nev && shown < 4; k++)
        if (t->ev[k].kind == GPM_TR_STORE && dur[k] >= im->crash) {
            printf("  pending: %s bytes %llu..%llu (%s store%s%s)\n",
                   base_name(t->obj[t->ev[k].obj].path), (unsigned long long)t->ev[k].off,
                   (unsigned long long)(t->ev[k].off + t->ev[k].len - 1),
                   t->ev[k].aux == GPM_TR_GPU ? "GPU" : t->ev[k].aux == GPM_TR_WRITE ? "write()"
                   : t->ev[k].aux == GPM_TR_DMA                                      ? "DMA"
                                                                                     : "CPU",
                   t->ev[k].aux ? " at " : "", t->ev[k].aux ? gpm_ptrace_site(t, k) : "");
            shown++;
        }
    printf("  recovery: %s%s%s\n", verdict_names[im->verdict], im->why[0] ? ": " : "", im->why);
}

/* The median share of the work the recovered images' recoveries found
 * durable, or -1 where none said. */
double median_durable(const struct image *im, int n)
{
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v), m = -1;
    int k = 0;
    for (int i = 0; v && i < n; i++)
        if (im[i].verdict == RECOVERED && im[i].durable >= 0)
            v[k++] = im[i].durable;
    if (k)
        m = gpm_median(v, k);
    free(v);
    return m;
}

/* How wrong the wrong outputs were, over the images whose recoveries
 * measured it: how many (*MEASURED), the median and the largest share of
 * their units wrong (-1 where none), the largest error (-1 where none
 * said), how it is measured and what a unit is (those of the image with
 * the largest error, or the first measured), and how many had a wrong
 * marker (*MARKED, of every wrong output). */
struct wrong_measure {
    int measured, marked;
    double median, max, err;
    const char *err_kind, *units;
};

static struct wrong_measure wrong_measure(const struct image *im, int n)
{
    struct wrong_measure m = {0, 0, -1, -1, -1, "", ""};
    double *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    for (int i = 0; v && i < n; i++) {
        if (im[i].verdict != WRONG_OUTPUT)
            continue;
        m.marked += im[i].wrong_marks;
        if (im[i].wrong_share < 0)
            continue;
        if (!m.measured++)
            m.units = im[i].units;
        v[m.measured - 1] = im[i].wrong_share;
        if (im[i].wrong_share > m.max)
            m.max = im[i].wrong_share;
        if (im[i].wrong_err > m.err) {
            m.err = im[i].wrong_err;
            m.err_kind = im[i].err_kind;
        }
    }
    if (m.measured)
        m.median = gpm_median(v, m.measured);
    free(v);
    return m;
}

/* How wrong the WRONG wrong outputs were, said, and their notes for the
 * row appended to MORE. */
void report_wrong(const struct check *c, long long wrong, char *more, size_t len)
{
    struct wrong_measure wm = wrong_measure(c->im, c->n);
    char err[96] = "";
    if (wm.err >= 0)
        snprintf(err, sizeof err, ", the largest error %.3g (%s)", wm.err, wm.err_kind);
    if (wm.measured)
        printf("gpm-check: the wrong outputs: %d of %lld measured, a median %.1f%% of their "
               "%s wrong, at most %.1f%%%s; %d with a wrong marker\n", wm.measured, wrong,
               100 * wm.median, wm.units, 100 * wm.max, err, wm.marked);
    else
        printf("gpm-check: the wrong outputs: none measured (their rows say no wrong_units); "
               "%d with a wrong marker\n", wm.marked);
    appendf(more, len, ",wrong_measured=%d,wrong_marks_images=%d", wm.measured, wm.marked);
    if (wm.measured)
        appendf(more, len, ",wrong_share_median=%.4g,wrong_share_max=%.4g,units=%s", wm.median,
                wm.max, wm.units[0] ? wm.units : "?");
    if (wm.err >= 0)
        appendf(more, len, ",wrong_max_err=%.3g,wrong_err=%s", wm.err,
                wm.err_kind[0] ? wm.err_kind : "?");
}
