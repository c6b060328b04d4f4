/* gpm-inspect FILE: what a PM file holds (an undo log or a checkpoint), so a
 * user can see why recovery does what it does. Reads only.
 * Exit status: 0 printed, 1 error or unknown file, 2 usage. */
#include <stdio.h>
#include <string.h>

#include "gpm/cp.h"
#include "gpm/gpm.h"
#include "gpm/log.h"

int main(int argc, char **argv)
{
    int r;
    if (argc != 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fprintf(stderr, "usage: gpm-inspect FILE\n"
                        "  prints the geometry and state of a libgpm log or checkpoint file;\n"
                        "  relative names resolve under GPM_PM_DIR\n");
        return 2;
    }
    r = gpmlog_inspect(stdout, argv[1]);
    if (r == 1)
        r = gpmcp_inspect(stdout, argv[1]);
    if (r == 1) {
        char full[4096];
        if (gpm_resolve_path(argv[1], full, sizeof full) != 0)
            snprintf(full, sizeof full, "%s", argv[1]);
        fprintf(stderr, "gpm-inspect: %s: neither a libgpm log nor a checkpoint file (unknown "
                        "magic): check the file name\n", full);
        return 1;
    }
    if (r != 0) {
        fprintf(stderr, "gpm-inspect: %s\n", gpm_last_error());
        return 1;
    }
    return 0;
}
