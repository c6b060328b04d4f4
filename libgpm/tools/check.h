/* gpm-check's parts (gpm-check.c says what the tool does): the options,
 * the images and the counts that its steps pass one another. */
#ifndef GPM_TOOLS_CHECK_H
#define GPM_TOOLS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "gpm/persistency.h"

#define PROG "gpm-check"
#define MAX_ARGS 96
#define IMAGES_PER_PROCESS 25 /* at least, where images share processes */

struct opts {
    int images, jobs, keep, sites, model_given, isolate, nested, rerun;
    gpm_model model;
    unsigned long long seed;
    const char *dir, *out, *from, *honour;
    char **argv; /* PROGRAM ARGS */
    int argc;
};

/* How an image's recovery ended. */
enum verdict { RECOVERED, WRONG_OUTPUT, CRASHED, REFUSED };

struct image {
    uint64_t crash, arg, hash, pending;
    gpm_pick pick;
    const char *strategy;
    int status;   /* the recovery's exit status */
    int work;     /* what it found to do: 2 a transaction to undo, 1 work to resume, 0 none */
    enum verdict verdict;
    char why[512];
    double durable; /* the share of the work it found durable (durable=D/T), or -1 */
    /* A wrong output's measure, from its recovery's row (wl_note_wrong):
     * the share of its units wrong (wrong_units=B/T), or -1 where it says
     * none; its largest error (wrong_max_err), or -1; how that is measured
     * (wrong_err) and what a unit is (units); whether a marker was wrong
     * (wrong_marks=M/N with M > 0). */
    double wrong_share, wrong_err;
    char err_kind[8], units[32];
    int wrong_marks;
};

/* The images chosen, by the strategy that found each. */
struct image_counts {
    int end, persist_points, exhaustive, random, held_back; /* held_back: a mutant's */
};

/* Recoveries by verdict. */
struct verdicts {
    long long recovered, wrong, crashed, refused;
};

/* --nested: what the checks of crashed recoveries add up, from their rows. */
struct nested_counts {
    int checked; /* the recoveries checked */
    long long images;
    struct verdicts by;
    long long removed, held_stores, held_images; /* of a mutant */
};

/* What the steps work on: set up in turn by gpm-check.c's main. */
struct check {
    struct opts o;
    char work[4096];  /* the folder of the run and the images */
    gpm_ptrace t;
    uint64_t *dur;    /* when each event is durable under the model */
    gpm_sbrp *sbrp;   /* --model sbrp: the persist order (an image is a set closed under it) */
    /* A mutant's durability with its removed persist points restored (the
     * original's; NULL where nothing was removed), and what differs. */
    uint64_t *unmutated;
    gpm_held held;
    uint8_t **img;    /* scratch of the objects' sizes, where an image is built */
    struct image *im; /* the images chosen, n of them */
    int n;
};

/* ---- running PROGRAM and reading what it left (check_run.c) ---- */
int run_with(char *const *prefix, int nprefix, const struct opts *o, char *const *extra,
             int nextra, const char *log, int wait);
int run(const struct opts *o, char *const *extra, int nextra, const char *log, int wait);
void last_line(const char *path, char *out, size_t len);
int last_field(const char *rows, const char *col, char *out, size_t len);
double median_s(const char *rows);
int verified(const char *rows);
const char *param_at(const char *params, const char *key);
void remove_tree(const char *dir);
const char *base_name(const char *p);
/* KEY's value in what the traced program said its run is (mode=, scale=,
 * op=: gpm_trace_describe), copied into BUF of N bytes; else DFLT. */
const char *run_word(const gpm_ptrace *t, const char *key, char *buf, size_t n,
                     const char *dflt);

/* ---- choosing and writing the images (check_images.c) ---- */
int plan(struct check *c, struct image_counts *counts);
void image_dir(const char *work, int k, char *dir, size_t len);
int put_image(const struct check *c, const char *dir, const struct image *im);
int round_size(const struct check *c);

/* ---- recovering them (check_recover.c) ---- */
int recover_round(struct check *c, int first, int count, int *alone);
void recovery_found(const char *dir, struct image *im);

/* ---- crashes during recovery (check_nested.c) ---- */
int copy_files(const char *src, const char *dst);
int check_nested(struct check *c, struct nested_counts *total);

/* ---- what the check says (check_report.c) ---- */
void print_verdicts(const struct verdicts *by);
void describe(const struct check *c, const struct image *im);
void list_sites(const gpm_ptrace *t);
unsigned long long mutant_left(const gpm_ptrace *t);
double median_durable(const struct image *im, int n);
void report_wrong(const struct check *c, long long wrong, char *more, size_t len);
void appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
