/* gpm-inspect FILE: what a PM file holds (an undo log or a checkpoint), so a
 * user can see why recovery does what it does. Reads only.
 * Exit status: 0 printed, 1 error or unknown file, 2 usage. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "gpm/args.h"
#include "gpm/cp.h"
#include "gpm/gpm.h"
#include "gpm/log.h"

#define PROG "gpm-inspect"

static const char usage_text[] =
    "usage: gpm-inspect FILE\n"
    "  prints the geometry and state of a libgpm log or checkpoint file;\n"
    "  relative names resolve under GPM_PM_DIR (a name starting with '-': pass -- first)\n";

int main(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    const char *file;
    int r, c;

    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_text, stdout);
            return 0;
        }
        gpm_args_bad_flag(PROG, c, argv);
        return gpm_args_fail(PROG);
    }
    if (optind >= argc) {
        gpm_set_error("no FILE given: pass the log or checkpoint file to inspect (see "
                      PROG " --help)");
        return gpm_args_fail(PROG);
    }
    file = argv[optind];
    if (optind + 1 < argc) {
        gpm_set_error("unexpected argument '%s': " PROG " takes one FILE", argv[optind + 1]);
        return gpm_args_fail(PROG);
    }
    r = gpmlog_inspect(stdout, file);
    if (r == 1)
        r = gpmcp_inspect(stdout, file);
    if (r == 1) {
        char full[4096];
        if (gpm_resolve_path(file, full, sizeof full) != 0)
            snprintf(full, sizeof full, "%s", file);
        fprintf(stderr, PROG ": %s: neither a libgpm log nor a checkpoint file (unknown "
                        "magic): check the file name\n", full);
        return 1;
    }
    if (r != 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    return 0;
}
