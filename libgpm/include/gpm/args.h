/* Command-line helpers shared by every program of the suite (libgpm's tools
 * and benchmarks, and the workload harness), so that all of them behave the
 * same way: flags are parsed with getopt_long (opterr = 0: these helpers
 * speak); --help prints the usage to stdout and exits 0; a bad flag or value
 * prints one line to stderr naming the flag and what to pass instead, and
 * exits 2. The value checkers return 0, or -1 with that line in
 * gpm_last_error(); sizes may carry a K, M or G suffix (powers of two). They
 * are thread-compatible (they touch only their arguments and the per-thread
 * error); gpm_args_parse is not (getopt's state is global). */
#ifndef GPM_ARGS_H
#define GPM_ARGS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* FLAG is the option as the user wrote it ("--reps"). VAL in [MIN, MAX]. */
int gpm_arg_ll(const char *flag, const char *val, long long min, long long max, long long *out);
int gpm_arg_int(const char *flag, const char *val, int min, int max, int *out);
int gpm_arg_double(const char *flag, const char *val, double min, double max, double *out);
/* VAL must be one of the NULL-terminated WORDS: *OUT gets its index. */
int gpm_arg_choice(const char *flag, const char *val, const char *const *words, int *out);

/* After getopt_long returned '?' or ':' (with ":" leading its optstring):
 * sets the one-line message for the offending ARGV entry, e.g. "unknown
 * flag --x: see PROG --help" or "--reps: needs a value: see PROG --help". */
int gpm_args_bad_flag(const char *prog, int c, char **argv);
/* Positional arguments left after the options are an error, unless the
 * program takes them: "unexpected argument 'x': ...". 0 if none. */
int gpm_args_no_positional(const char *prog, int argc, char **argv);

/* Prints "PROG: <gpm_last_error()>" to stderr and returns 2 (the exit
 * status of a usage error). */
int gpm_args_fail(const char *prog);

/* ---- a program's options as one table ----
 * A row per flag: its name ("--reps"), where its value goes (TO, of the
 * type its macro names, checked), its range or words, its default DEF (a
 * value as the user would write it, stored before the parse and stated in
 * the usage; NULL: none), the value's name ARG in the usage (NULL for a
 * choice: its words) and its HELP (what it does; wrapped to 80 columns):
 *   GPM_FLAG_SET(name, int *to, help)                   no value: *TO = 1
 *   GPM_FLAG_STR(name, const char **to, def, arg, help) the value as given
 *   GPM_FLAG_INT, _LL, _DOUBLE(name, to, min, max, def, arg, help)
 *   GPM_FLAG_RANGE(name, long long to[2], min, max, def, arg, help)  "A:B",
 *                  both in [MIN, MAX], A <= B
 *   GPM_FLAG_CHOICE(name, int *to, words, def, arg, help)  a word's index
 *   GPM_FLAG_WORD(name, const char **to, words, def, arg, help)  the word
 *   GPM_FLAG_INTS(name, int *v, int *n, maxn, min, max, def, arg, help)
 *   GPM_FLAG_WORDS(name, int *v, int *n, maxn, words, def, arg, help)
 *                  comma lists into V: ints, or indices of WORDS; *N gets
 *                  how many (at most MAXN)
 *   GPM_FLAG_CUSTOM(name, fn, void *to, def, arg, help)  FN(name, value,
 *                  TO) checks and stores the value: 0, or -1 and the message
 * The last row says what may follow the flags: GPM_FLAGS_END, nothing;
 * GPM_FLAGS_REST(int *first, min, max, name, help), MIN to MAX arguments
 * NAME among the flags (*FIRST: the index in ARGV of the first; fewer than
 * MIN: "no NAME given: HELP"); GPM_FLAGS_STOP(the same), where the flags
 * end at the first argument (a program, whose own flags follow it). */
enum gpm_flag_kind {
    GPM_KIND_SET, GPM_KIND_STR, GPM_KIND_INT, GPM_KIND_LL, GPM_KIND_DOUBLE, GPM_KIND_CHOICE,
    GPM_KIND_WORD, GPM_KIND_INTS, GPM_KIND_RANGE, GPM_KIND_CUSTOM, GPM_KIND_END, GPM_KIND_REST,
    GPM_KIND_STOP
};

struct gpm_flag {
    const char *name; /* NULL in the last row */
    enum gpm_flag_kind kind;
    void *to;
    long long min, max;
    const char *const *words; /* NULL-terminated */
    int *n, maxn; /* INTS: how many values, at most MAXN */
    int (*fn)(const char *flag, const char *val, void *to);
    const char *def, *arg, *help;
    int seen; /* set by gpm_args_parse: nonzero when given, larger for a later flag */
};

#define GPM_ROW_(nm, k, to, lo, hi, w, n, mx, fn, d, a, h)                                         \
    {nm, k, to, lo, hi, w, n, mx, fn, d, a, h, 0}
#define GPM_TO_(type, p) ((type *)(1 ? (p) : (type *)0))
#define GPM_FLAG_SET(nm, to, h)                                                                    \
    GPM_ROW_(nm, GPM_KIND_SET, GPM_TO_(int, to), 0, 0, 0, 0, 0, 0, 0, 0, h)
#define GPM_FLAG_STR(nm, to, d, a, h)                                                              \
    GPM_ROW_(nm, GPM_KIND_STR, GPM_TO_(const char *, to), 0, 0, 0, 0, 0, 0, d, a, h)
#define GPM_FLAG_INT(nm, to, lo, hi, d, a, h)                                                      \
    GPM_ROW_(nm, GPM_KIND_INT, GPM_TO_(int, to), lo, hi, 0, 0, 0, 0, d, a, h)
#define GPM_FLAG_LL(nm, to, lo, hi, d, a, h)                                                       \
    GPM_ROW_(nm, GPM_KIND_LL, GPM_TO_(long long, to), lo, hi, 0, 0, 0, 0, d, a, h)
#define GPM_FLAG_DOUBLE(nm, to, lo, hi, d, a, h)                                                   \
    GPM_ROW_(nm, GPM_KIND_DOUBLE, GPM_TO_(double, to), lo, hi, 0, 0, 0, 0, d, a, h)
#define GPM_FLAG_CHOICE(nm, to, w, d, a, h)                                                        \
    GPM_ROW_(nm, GPM_KIND_CHOICE, GPM_TO_(int, to), 0, 0, w, 0, 0, 0, d, a, h)
#define GPM_FLAG_WORD(nm, to, w, d, a, h)                                                          \
    GPM_ROW_(nm, GPM_KIND_WORD, GPM_TO_(const char *, to), 0, 0, w, 0, 0, 0, d, a, h)
#define GPM_FLAG_INTS(nm, v, n, mx, lo, hi, d, a, h)                                               \
    GPM_ROW_(nm, GPM_KIND_INTS, GPM_TO_(int, v), lo, hi, 0, GPM_TO_(int, n), mx, 0, d, a, h)
#define GPM_FLAG_WORDS(nm, v, n, mx, w, d, a, h)                                                   \
    GPM_ROW_(nm, GPM_KIND_INTS, GPM_TO_(int, v), 0, 0, w, GPM_TO_(int, n), mx, 0, d, a, h)
#define GPM_FLAG_RANGE(nm, to, lo, hi, d, a, h)                                                    \
    GPM_ROW_(nm, GPM_KIND_RANGE, GPM_TO_(long long, to), lo, hi, 0, 0, 0, 0, d, a, h)
#define GPM_FLAG_CUSTOM(nm, fn, to, d, a, h)                                                       \
    GPM_ROW_(nm, GPM_KIND_CUSTOM, to, 0, 0, 0, 0, 0, fn, d, a, h)
#define GPM_FLAGS_END GPM_ROW_(0, GPM_KIND_END, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
#define GPM_FLAGS_REST(f, lo, hi, a, h)                                                            \
    GPM_ROW_(0, GPM_KIND_REST, GPM_TO_(int, f), lo, hi, 0, 0, 0, 0, 0, a, h)
#define GPM_FLAGS_STOP(f, lo, hi, a, h)                                                            \
    GPM_ROW_(0, GPM_KIND_STOP, GPM_TO_(int, f), lo, hi, 0, 0, 0, 0, 0, a, h)

/* Stores FLAGS' defaults, then parses ARGV's flags into their places with
 * getopt_long and the checkers above (--flag VALUE, --flag=VALUE and an
 * unambiguous beginning of a flag's name all work). --help (or -h) prints
 * "usage: PROG SYNOPSIS" (more lines may follow in SYNOPSIS), then a line
 * per flag, to stdout and returns 1. Returns 0 when parsed, or -1 with the
 * one-line message set (the caller's next step: return
 * gpm_args_fail(PROG)). */
int gpm_args_parse(const char *prog, const char *synopsis, struct gpm_flag *flags, int argc,
                   char **argv);
/* FLAGS' row NAME after a parse: nonzero when it was given. */
int gpm_args_seen(const struct gpm_flag *flags, const char *name);

#ifdef __cplusplus
}
#endif

#endif
