/* One result-row schema for every benchmark in the suite: the platform
 * columns, then what was run and what it measured. Report scripts read these
 * rows by column name, so columns are only ever appended. The last two
 * came last: rsd_pct, then rep_s. Files written before them end at params
 * or at rsd_pct, and the reports read every one (such rows' spread, or
 * their repetitions beyond min, median and max, are unknown). */
#ifndef GPM_RESULTS_H
#define GPM_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include "gpm/platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most repetitions a row lists in rep_s: 100 times of at most 15
 * characters keep the field near 1.5 KB. A row of more keeps only its
 * median, min, max and spread, and leaves rep_s empty. */
#define GPM_RESULT_MAX_REP_S 100

typedef struct gpm_result {
    const char *workload;      /* "ps", "persist-scaling", ... */
    const char *op;            /* "sum", "cap-mm-flush", ... */
    const char *mode;          /* gpm | gpm-ndp | gpm-eadr | cap-mm | cap-fs | cap-eadr | cpu */
    const char *scale;         /* tiny | small | paper | custom */
    size_t size_bytes;         /* size of the PM-resident data */
    int threads;               /* CPU or GPU threads where that is the variable, else 0 */
    int reps;                  /* repetitions behind the median */
    double median_s, min_s, max_s;
    double rsd_pct;            /* the repetitions' relative standard deviation, % (sample
                                * SD over the mean); written as nan, unknown, where it is
                                * NAN or reps < 2 */
    double bytes_persisted;    /* bytes written to PM per repetition */
    const char *verified;      /* "ok" | "fail" | "n/a" */
    const char *params;        /* free-form "k=v,k=v" or "" */
    int n_rep_s;               /* times in rep_s, written comma-separated as the rep_s
                                * column; 0 (an empty field) where the row keeps none:
                                * a count's row, or more than GPM_RESULT_MAX_REP_S */
    double rep_s[GPM_RESULT_MAX_REP_S]; /* each repetition's time, in the order run */
} gpm_result;

/* Seconds on the monotonic clock: the difference of two is a time taken. */
double gpm_now_s(void);

/* Median of N values (sorts a copy). */
double gpm_median(const double *v, int n);

/* Sets RES's reps, median_s, min_s, max_s and rsd_pct from the N timed
 * repetitions T (all zero when N < 1; rsd_pct NAN when N < 2), and copies
 * T into rep_s where N <= GPM_RESULT_MAX_REP_S (n_rep_s 0 otherwise). */
void gpm_result_set_times(gpm_result *res, const double *t, int n);
/* RES as the row of one timed point, its fields in their order: what ran,
 * its N times T (as gpm_result_set_times), the bytes it persisted each
 * time, and whether it was verified (OK: "ok", else "fail"); params "". */
void gpm_result_point(gpm_result *res, const char *workload, const char *op, const char *mode,
                      const char *scale, size_t size_bytes, int threads, const double *t, int n,
                      double bytes_persisted, int ok);

/* Appends one row to PATH, writing the header first if the file is new or
 * empty; a non-empty file whose first line is not the schema's header is
 * refused and left as it is (one of the schema before rsd_pct or before
 * rep_s too: its rows would end a column or two short). Throughput is
 * bytes_persisted / median_s in GB/s (1e9). A row that cannot be written
 * whole (a full disk) is an error that leaves the file as it was: a file
 * this call created is removed. */
int gpm_result_append(const char *path, const gpm_platform *p, const gpm_result *res);

/* Checks, before any work is done, that rows can later be appended to
 * PATH: an existing file must be a results file of this schema (or empty)
 * and writable; a new one must have a writable directory. Creates nothing. */
int gpm_result_check_out(const char *path);

void gpm_result_tsv_header(FILE *out);
void gpm_result_tsv_row(FILE *out, const gpm_platform *p, const gpm_result *res);

#ifdef __cplusplus
}
#endif

#endif
