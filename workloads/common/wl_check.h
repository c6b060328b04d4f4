/* What a workload's verify() uses: the checks that compare its output,
 * the one format of how wrong it is, and the checks made once. */
#ifndef WL_CHECK_H
#define WL_CHECK_H

#include "wl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- checks made once (check_cache.c) ----
 * A workload whose check is costly (it recomputes the whole run) digests
 * its output once restored, then asks whether a process of the same code
 * (this executable's bytes and the shared libraries it was linked with:
 * code_key.h), workload, parameters, input files and seed, in any mode,
 * already checked output with that digest: Figure 9 runs three or four
 * modes whose outputs must be the same bytes, and only the first need pay
 * for the check. Any change to the code, committed or not, is another key,
 * so a changed reference never meets a verdict of the old one; so is an
 * input file (or a file of an input folder) that a string parameter names,
 * rewritten in place (its size, inode or times). Verdicts are kept in
 * wl_data_dir()/checked.tsv. GPM_CHECK_CACHE=off checks every time (on,
 * the default, caches; another value is an error).
 *   wl_check_digest(c, p, bytes, on_device)  adds BYTES at P to the digest
 *   wl_check_known(c)   1: that digest passed before (the row notes
 *                       check=cached), 0: check it, -1: error
 *   wl_check_passed(c)  after the check passed: records the digest */
int wl_check_digest(struct wl_ctx *c, const void *p, size_t bytes, int on_device);
int wl_check_known(struct wl_ctx *c);
int wl_check_passed(struct wl_ctx *c);

/* ---- verification ----
 * A verify returns 0, or 1 with gpm_set_error naming the first difference.
 * On a mismatch it also says how wrong the output is, in the workload's own
 * error measure, with wl_note_wrong: one format for every workload, in the
 * row's params (gpm-check reads it from a wrong restart's row):
 *   wrong_units=B/T,units=WORD  B of the T units of the output differ from
 *       the reference; WORD, plural, names a unit (sums, pixels, nodes,
 *       keys, rows, cells, options, elements, images)
 *   wrong_max_err=X,wrong_err=abs|rel  where the output is floating point:
 *       the largest error of any element, absolute or relative as the
 *       workload's tolerance measures it (inf for a NaN)
 *   wrong_marks=M/N  M of the N progress markers the check reads (done
 *       markers, a durable count, the last checkpoint's record, the log's
 *       committed count) are missing or not the run's: a failed check of
 *       its own kind, kept out of wrong_units; the output is compared
 *       whatever the markers say
 * The check helpers below add what they compared to a struct wl_wrong. */
struct wl_wrong {
    const char *units;       /* what a unit is; NULL: the output was not compared */
    uint64_t bad, total;     /* units wrong, of those compared */
    const char *err;         /* "abs" or "rel" where max_err is measured, else NULL */
    double max_err;          /* the largest error, of every element compared */
    uint64_t marks_bad, marks; /* progress markers wrong, of those read */
};
/* Notes what W measured (above): wrong_units where W->units is set,
 * wrong_max_err where W->err is, wrong_marks where W->marks is not 0. */
void wl_note_wrong(struct wl_ctx *c, const struct wl_wrong *w);
/* Every one of the N elements of GOT against WANT: 0 if all are equal,
 * else 1 with the first difference in the message ("WHAT: element I is G,
 * expected E"). Adds the elements that differ to W->bad and N to W->total
 * (W may be NULL). Compared in parallel. */
int wl_check_u32(const char *what, const uint32_t *got, const uint32_t *want, size_t n,
                 struct wl_wrong *w);
/* The first of the N records of SIZE bytes at A and B that differ, or N;
 * compared in parallel (a paper-scale table holds gigabytes). */
size_t wl_first_difference(const void *a, const void *b, size_t n, size_t size);
/* The closeness rule of the float checks: |got - want| <= abs_tol +
 * rel_tol * |want| (a NaN is never close). */
static inline int wl_close(double got, double want, double abs_tol, double rel_tol)
{
    double d = got - want, a = want < 0 ? -want : want;
    return (d < 0 ? -d : d) <= abs_tol + rel_tol * a;
}
/* wl_close for every element: 0 if all are close, else 1 with the first
 * that is not in the message. Adds those that are not to W->bad, N to
 * W->total, and raises W->max_err to the largest error of any element:
 * absolute where REL_TOL is 0 (W->err "abs"), else relative to |WANT|
 * (W->err "rel"; absolute where WANT is 0). W may be NULL. */
int wl_check_close_f32(const char *what, const float *got, const double *want, size_t n,
                       double abs_tol, double rel_tol, struct wl_wrong *w);

#ifdef __cplusplus
}
#endif

#endif
