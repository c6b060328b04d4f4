/* gpm-row: appends one result row (the suite's one schema, platform columns
 * first) for scripts that count rather than time, such as crash campaigns,
 * so their rows carry the same provenance as every benchmark's.
 * Exit status: 0 appended, 1 error, 2 usage (nothing written). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpm/args.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"
#include "gpm/results.h"

#define PROG "gpm-row"

static const char synopsis[] =
    "FILE KEY=VALUE...\n"
    "  appends one row, platform columns first, to the TSV FILE (header written once)\n"
    "  KEYs: workload op (both required) mode scale verified params (text);\n"
    "        size_bytes threads reps (integers >= 0);\n"
    "        median_s min_s max_s bytes_persisted rsd_pct (numbers >= 0;\n"
    "        rsd_pct, the repetitions' spread in %, is nan, unknown, unless given)\n"
    "  a FILE starting with '-' is refused: name it ./-name";

/* KEY=VALUE into R; 0, or -1 with the message naming the key. */
static int set_key(gpm_result *r, const char *arg)
{
    const char *eq = strchr(arg, '='), *v;
    char k[32];
    long long n;
    double x;
    if (!eq || eq == arg || eq - arg >= (long)sizeof k)
        return gpm_set_error("%s: expected KEY=VALUE with KEY one of workload op mode scale "
                             "size_bytes threads reps median_s min_s max_s bytes_persisted "
                             "rsd_pct verified params", arg);
    snprintf(k, sizeof k, "%.*s", (int)(eq - arg), arg);
    v = eq + 1;
    if (!strcmp(k, "workload")) r->workload = v;
    else if (!strcmp(k, "op")) r->op = v;
    else if (!strcmp(k, "mode")) r->mode = v;
    else if (!strcmp(k, "scale")) r->scale = v;
    else if (!strcmp(k, "verified")) r->verified = v;
    else if (!strcmp(k, "params")) r->params = v;
    else if (!strcmp(k, "size_bytes") || !strcmp(k, "threads") || !strcmp(k, "reps")) {
        long long max = k[0] == 's' ? LLONG_MAX : INT_MAX;
        if (gpm_arg_ll(k, v, 0, max, &n) != 0)
            return -1;
        if (k[0] == 's') r->size_bytes = (size_t)n;
        else if (k[0] == 't') r->threads = (int)n;
        else r->reps = (int)n;
    } else if (!strcmp(k, "median_s") || !strcmp(k, "min_s") || !strcmp(k, "max_s") ||
               !strcmp(k, "bytes_persisted") || !strcmp(k, "rsd_pct")) {
        if (gpm_arg_double(k, v, 0, 1e300, &x) != 0)
            return -1;
        if (!strcmp(k, "median_s")) r->median_s = x;
        else if (!strcmp(k, "min_s")) r->min_s = x;
        else if (!strcmp(k, "max_s")) r->max_s = x;
        else if (!strcmp(k, "rsd_pct")) r->rsd_pct = x;
        else r->bytes_persisted = x;
    } else
        return gpm_set_error("%s: unknown KEY %s: use one of workload op mode scale size_bytes "
                             "threads reps median_s min_s max_s bytes_persisted rsd_pct verified "
                             "params", arg, k);
    return 0;
}

int main(int argc, char **argv)
{
    int first, rc;
    struct gpm_flag flags[] = {
        GPM_FLAGS_REST(&first, 1, INT_MAX, "FILE", PROG " FILE KEY=VALUE...")};
    /* A count's row has no spread unless one is given: nan, not 0. */
    gpm_result r = {.mode = "", .scale = "", .verified = "n/a", .params = "", .rsd_pct = NAN};
    gpm_platform p;
    const char *file;

    if ((rc = gpm_args_parse(PROG, synopsis, flags, argc, argv)) != 0)
        return rc > 0 ? 0 : gpm_args_fail(PROG);
    file = argv[first];
    /* A flag that slipped through (after --) or a forgotten FILE would
     * otherwise become the name of a new file. */
    if (file[0] == '-') {
        gpm_set_error("FILE '%s' starts with '-': name it ./%s if it is really a file", file,
                      file);
        return gpm_args_fail(PROG);
    }
    if (strchr(file, '=')) {
        gpm_set_error("FILE '%s' looks like KEY=VALUE: give the rows file first", file);
        return gpm_args_fail(PROG);
    }
    for (int i = first + 1; i < argc; i++)
        if (set_key(&r, argv[i]) != 0)
            return gpm_args_fail(PROG);
    if (!r.workload || !r.op) {
        gpm_set_error("workload= and op= are required: add them (see " PROG " --help)");
        return gpm_args_fail(PROG);
    }
    gpm_platform_collect(&p);
    if (gpm_result_append(file, &p, &r) != 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    return 0;
}
