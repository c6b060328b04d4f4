/* Checked option values and getopt_long's failures as one-line messages. */
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

int gpm_arg_int_list(const char *flag, const char *val, int min, int max, int *v, int maxn,
                     int *n)
{
    const char *s = val;
    *n = 0;
    if (!val || !*val)
        return gpm_set_error("%s: needs a value: pass numbers from %d to %d separated by commas",
                             flag, min, max);
    while (*s) {
        char item[64];
        size_t len = strcspn(s, ",");
        if (*n >= maxn)
            return gpm_set_error("%s: more than %d values in '%s': pass fewer", flag, maxn, val);
        if (len == 0 || len >= sizeof item)
            return gpm_set_error("%s: '%s' is not a comma list of numbers: pass e.g. %d,%d",
                                 flag, val, min, max);
        memcpy(item, s, len);
        item[len] = '\0';
        if (gpm_arg_int(flag, item, min, max, &v[*n]) != 0)
            return -1;
        (*n)++;
        s += len;
        if (*s == ',' && *++s == '\0')
            return gpm_set_error("%s: '%s' ends with a comma: pass e.g. %d,%d", flag, val, min,
                                 max);
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
