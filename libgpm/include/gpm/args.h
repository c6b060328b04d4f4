/* Command-line helpers shared by every program of the suite (libgpm's tools
 * and benchmarks, and the workload harness), so that all of them behave the
 * same way:
 *   - options are parsed with getopt_long (opterr = 0: these helpers speak);
 *   - --help prints the usage to stdout and exits 0;
 *   - a bad flag or value prints one line to stderr naming the flag and
 *     what to pass instead, and exits 2.
 *
 * The value checkers return 0, or -1 with that line in gpm_last_error().
 * Sizes may carry a K, M or G suffix (powers of two). Thread-compatible
 * (they touch only their arguments and the per-thread error). */
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
/* A comma list of integers in [MIN, MAX] ("32,128,512"): *N gets how many
 * (at most MAXN). */
int gpm_arg_int_list(const char *flag, const char *val, int min, int max, int *v, int maxn,
                     int *n);
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

#ifdef __cplusplus
}
#endif

#endif
