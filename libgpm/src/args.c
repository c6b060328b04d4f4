/* Checked option values, getopt_long's failures as one-line messages, and
 * the table that parses a program's flags and prints its usage. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/args.h"
#include "gpm/gpm.h"

int gpm_arg_ll(const char *flag, const char *val, long long min, long long max, long long *out)
{
    char *end;
    long long x;
    int outside = 0;
    if (!val || !*val)
        return gpm_set_error("%s: needs a value: pass a number from %lld to %lld", flag, min,
                             max);
    errno = 0;
    x = strtoll(val, &end, 0);
    if (end != val && (*end == 'K' || *end == 'M' || *end == 'G') && end[1] == '\0') {
        int sh = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        /* Never shifted out of range: that could overflow. */
        if (x < 0 || x > (LLONG_MAX >> sh) || (x << sh) > max)
            outside = 1;
        else
            x <<= sh;
        end++;
    }
    if (errno == ERANGE)
        outside = 1;
    else if (errno || end == val || *end != '\0')
        return gpm_set_error("%s: expects an integer, got '%s': pass a number from %lld to %lld",
                             flag, val, min, max);
    if (outside || x < min || x > max)
        return gpm_set_error("%s: %s is out of range: pass a value from %lld to %lld", flag, val,
                             min, max);
    *out = x;
    return 0;
}

int gpm_arg_int(const char *flag, const char *val, int min, int max, int *out)
{
    long long x;
    if (gpm_arg_ll(flag, val, min, max, &x) != 0)
        return -1;
    *out = (int)x;
    return 0;
}

int gpm_arg_double(const char *flag, const char *val, double min, double max, double *out)
{
    char *end;
    double x;
    if (!val || !*val)
        return gpm_set_error("%s: needs a value: pass a number from %g to %g", flag, min, max);
    errno = 0;
    x = strtod(val, &end);
    if (end == val || *end != '\0' || !isfinite(x))
        return gpm_set_error("%s: expects a number, got '%s': pass a number from %g to %g",
                             flag, val, min, max);
    if (errno == ERANGE || x < min || x > max)
        return gpm_set_error("%s: %s is out of range: pass a value from %g to %g", flag, val,
                             min, max);
    *out = x;
    return 0;
}

/* A comma list into V[*N], at most MAXN: integers in [MIN, MAX], or with
 * WORDS some of them (their indices). */
static int comma_list(const char *flag, const char *val, const char *const *words, int min,
                      int max, int *v, int maxn, int *n)
{
    const char *s = val;
    char eg[64];
    *n = 0;
    if (words)
        snprintf(eg, sizeof eg, "%s,%s", words[0], words[1] ? words[1] : words[0]);
    else
        snprintf(eg, sizeof eg, "%d,%d", min, max);
    if (!val || !*val)
        return gpm_set_error("%s: needs a value: pass a comma list, e.g. %s", flag, eg);
    while (*s) {
        char item[64];
        size_t len = strcspn(s, ",");
        if (*n >= maxn)
            return gpm_set_error("%s: more than %d values in '%s': pass fewer", flag, maxn, val);
        if (len == 0 || len >= sizeof item)
            return gpm_set_error("%s: '%s' is not a comma list: pass e.g. %s", flag, val, eg);
        snprintf(item, sizeof item, "%.*s", (int)len, s);
        if ((words ? gpm_arg_choice(flag, item, words, &v[*n])
                   : gpm_arg_int(flag, item, min, max, &v[*n])) != 0)
            return -1;
        (*n)++;
        s += len;
        if (*s == ',' && *++s == '\0')
            return gpm_set_error("%s: '%s' ends with a comma: pass e.g. %s", flag, val, eg);
    }
    return 0;
}

int gpm_arg_choice(const char *flag, const char *val, const char *const *words, int *out)
{
    char list[256];
    size_t n = 0;
    for (int i = 0; words[i]; i++)
        if (val && strcmp(val, words[i]) == 0) {
            *out = i;
            return 0;
        }
    list[0] = '\0';
    for (int i = 0; words[i] && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? "|" : "", words[i]);
    return gpm_set_error("%s: unknown value '%s': use %s", flag, val ? val : "", list);
}

int gpm_args_bad_flag(const char *prog, int c, char **argv)
{
    /* getopt_long has advanced optind past the offending entry. */
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    char name[128];
    if (c == ':') {
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
        return gpm_set_error("%s: needs a value: see %s --help", name, prog);
    }
    if (optopt && strncmp(arg, "--", 2) != 0)
        return gpm_set_error("unknown flag -%c: see %s --help", optopt, prog);
    /* A long option that takes no value but was given one also lands here. */
    if (strchr(arg, '='))
        return gpm_set_error("%.*s: takes no value, or is unknown: see %s --help",
                             (int)strcspn(arg, "="), arg, prog);
    return gpm_set_error("unknown flag %s: see %s --help", arg, prog);
}

int gpm_args_no_positional(const char *prog, int argc, char **argv)
{
    if (optind < argc)
        return gpm_set_error("unexpected argument '%s': flags start with -- (see %s --help)",
                             argv[optind], prog);
    return 0;
}

int gpm_args_fail(const char *prog)
{
    fprintf(stderr, "%s: %s\n", prog, gpm_last_error());
    return 2;
}

/* ---- the table ---- */

enum { MAX_FLAGS = 64, FIRST_VAL = 256, WIDTH = 80, MAX_LABEL = 24 };

/* "A:B" into TO[0] and TO[1]: both in F's range, A <= B. */
static int range(const struct gpm_flag *f, const char *val, long long *to)
{
    const char *colon = strchr(val, ':');
    char a[64];
    if (!colon || (size_t)(colon - val) >= sizeof a)
        return gpm_set_error("%s: expects MIN:MAX, got '%s': pass e.g. %s", f->name, val,
                             f->def ? f->def : "1:2");
    snprintf(a, sizeof a, "%.*s", (int)(colon - val), val);
    if (gpm_arg_ll(f->name, a, f->min, f->max, &to[0]) != 0 ||
        gpm_arg_ll(f->name, colon + 1, f->min, f->max, &to[1]) != 0)
        return -1;
    if (to[1] < to[0])
        return gpm_set_error("%s: MAX %lld is below MIN %lld: pass MIN:MAX with MIN <= MAX",
                             f->name, to[1], to[0]);
    return 0;
}

/* The row's value into its place: 0, or -1 with the message set. */
static int store(const struct gpm_flag *f, const char *val)
{
    int k;
    switch (f->kind) {
    case GPM_KIND_SET: *(int *)f->to = 1; return 0;
    case GPM_KIND_STR: *(const char **)f->to = val; return 0;
    case GPM_KIND_INT: return gpm_arg_int(f->name, val, (int)f->min, (int)f->max, f->to);
    case GPM_KIND_LL: return gpm_arg_ll(f->name, val, f->min, f->max, f->to);
    case GPM_KIND_DOUBLE:
        return gpm_arg_double(f->name, val, (double)f->min, (double)f->max, f->to);
    case GPM_KIND_CHOICE: return gpm_arg_choice(f->name, val, f->words, f->to);
    case GPM_KIND_WORD:
        if (gpm_arg_choice(f->name, val, f->words, &k) != 0)
            return -1;
        *(const char **)f->to = f->words[k];
        return 0;
    case GPM_KIND_INTS:
        return comma_list(f->name, val, f->words, (int)f->min, (int)f->max, f->to, f->maxn,
                          f->n);
    case GPM_KIND_RANGE: return range(f, val, f->to);
    case GPM_KIND_CUSTOM: return f->fn(f->name, val, f->to);
    default: return gpm_set_error("%s: a row that is no flag", f->name);
    }
}

/* "--name ARG" (a choice without ARG: its words) into OUT; its length. */
static int label(const struct gpm_flag *f, char *out, size_t len)
{
    size_t n = (size_t)snprintf(out, len, "%s%s%s", f->name, f->arg ? " " : "",
                                f->arg ? f->arg : "");
    for (int i = 0; !f->arg && f->words && f->words[i] && n < len; i++)
        n += (size_t)snprintf(out + n, len - n, "%c%s", i ? '|' : ' ', f->words[i]);
    return n < len ? (int)n : (int)len - 1;
}

/* TEXT from column COL on, wrapped at spaces to lines of WIDTH at most. */
static void wrap(const char *text, int col)
{
    int at = col;
    for (const char *w = text; *w; w += strspn(w, " ")) {
        int n = (int)strcspn(w, " ");
        if (at > col && at + 1 + n > WIDTH) {
            printf("\n%*s", col, "");
            at = col;
        }
        at += printf("%s%.*s", at > col ? " " : "", n, w);
        w += n;
    }
    putchar('\n');
}

static void usage(const char *prog, const char *synopsis, const struct gpm_flag *flags)
{
    char s[128], help[1024];
    int w = 6, n; /* "--help" */
    for (const struct gpm_flag *f = flags; f->name; f++)
        if ((n = label(f, s, sizeof s)) > w && n <= MAX_LABEL)
            w = n;
    printf("usage: %s %s\n", prog, synopsis);
    for (const struct gpm_flag *f = flags; f->name; f++) {
        if (label(f, s, sizeof s) > w) /* wider than the column: help on the next line */
            printf("  %s\n%*s", s, 4 + w, "");
        else
            printf("  %-*s  ", w, s);
        snprintf(help, sizeof help, "%s%s%s%s", f->help, f->def ? " (default " : "",
                 f->def ? f->def : "", f->def ? ")" : "");
        wrap(help, 4 + w);
    }
    printf("  %-*s  this text\n", w, "--help");
}

int gpm_args_parse(const char *prog, const char *synopsis, struct gpm_flag *flags, int argc,
                   char **argv)
{
    struct option opts[MAX_FLAGS + 2] = {{0}};
    struct gpm_flag *end = flags;
    int c, i = 0;
    for (; end->name; end++, i++) {
        int has = end->kind == GPM_KIND_SET ? no_argument : required_argument;
        if (i == MAX_FLAGS)
            return gpm_set_error("%s: more than %d flags: raise MAX_FLAGS", prog, MAX_FLAGS);
        opts[i] = (struct option){end->name + 2, has, NULL, FIRST_VAL + i};
        end->seen = 0;
        if (end->def && store(end, end->def) != 0)
            return -1;
    }
    opts[i] = (struct option){"help", no_argument, NULL, 'h'};
    optind = 0; /* glibc: start afresh */
    opterr = 0;
    while ((c = getopt_long(argc, argv, end->kind == GPM_KIND_STOP ? "+:h" : ":h", opts,
                            NULL)) != -1) {
        if (c == 'h') {
            usage(prog, synopsis, flags);
            return 1;
        }
        if (c < FIRST_VAL)
            return gpm_args_bad_flag(prog, c, argv);
        flags[c - FIRST_VAL].seen = optind;
        if (store(&flags[c - FIRST_VAL], optarg) != 0)
            return -1;
    }
    if (end->kind == GPM_KIND_END)
        return gpm_args_no_positional(prog, argc, argv);
    if (argc - optind < end->min)
        return gpm_set_error("no %s given: %s (see %s --help)", end->arg, end->help, prog);
    if (argc - optind > end->max)
        return gpm_set_error("unexpected argument '%s': %s takes at most %lld %s",
                             argv[optind + end->max], prog, end->max, end->arg);
    *(int *)end->to = optind;
    return 0;
}

int gpm_args_seen(const struct gpm_flag *flags, const char *name)
{
    for (; flags->name; flags++)
        if (strcmp(flags->name, name) == 0)
            return flags->seen;
    return 0;
}
