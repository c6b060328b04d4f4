/* gpm-row: appends one result row (the suite's one schema, platform columns
 * first) for scripts that count rather than time, such as crash campaigns,
 * so their rows carry the same provenance as every benchmark's.
 *
 *   gpm-row FILE KEY=VALUE...
 * KEYs: workload op mode scale size_bytes threads reps median_s min_s max_s
 * bytes_persisted verified params (workload and op are required). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/gpm.h"
#include "gpm/platform.h"
#include "gpm/results.h"

static int bad(const char *arg)
{
    fprintf(stderr, "gpm-row: %s: expected KEY=VALUE with KEY one of workload op mode scale "
                    "size_bytes threads reps median_s min_s max_s bytes_persisted verified "
                    "params\n", arg);
    return 2;
}

static int number(const char *v, double *out)
{
    char *end;
    *out = strtod(v, &end);
    return *v != '\0' && *end == '\0';
}

int main(int argc, char **argv)
{
    gpm_result r = {.mode = "", .scale = "", .verified = "n/a", .params = ""};
    gpm_platform p;
    if (argc < 2)
        return bad("(nothing)");
    for (int i = 2; i < argc; i++) {
        const char *eq = strchr(argv[i], '='), *v = eq ? eq + 1 : NULL;
        char k[32];
        double x = 0;
        if (!eq || eq - argv[i] >= (long)sizeof k)
            return bad(argv[i]);
        snprintf(k, sizeof k, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (!strcmp(k, "workload")) r.workload = v;
        else if (!strcmp(k, "op")) r.op = v;
        else if (!strcmp(k, "mode")) r.mode = v;
        else if (!strcmp(k, "scale")) r.scale = v;
        else if (!strcmp(k, "verified")) r.verified = v;
        else if (!strcmp(k, "params")) r.params = v;
        else if (!number(v, &x)) return bad(argv[i]);
        else if (!strcmp(k, "size_bytes")) r.size_bytes = (size_t)x;
        else if (!strcmp(k, "threads")) r.threads = (int)x;
        else if (!strcmp(k, "reps")) r.reps = (int)x;
        else if (!strcmp(k, "median_s")) r.median_s = x;
        else if (!strcmp(k, "min_s")) r.min_s = x;
        else if (!strcmp(k, "max_s")) r.max_s = x;
        else if (!strcmp(k, "bytes_persisted")) r.bytes_persisted = x;
        else return bad(argv[i]);
    }
    if (!r.workload || !r.op)
        return bad("workload= and op= are required");
    gpm_platform_collect(&p);
    if (gpm_result_append(argv[1], &p, &r) != 0) {
        fprintf(stderr, "gpm-row: %s\n", gpm_last_error());
        return 1;
    }
    return 0;
}
