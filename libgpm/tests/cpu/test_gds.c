/* GPUDirect Storage where libcufile may be missing: the mode's way is
 * decided from what the machine has, and a missing library is one line
 * that names it and the fix, with no file of the user's touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/gds.h"
#include "gpm/gpm.h"

static void way_says_gds_only_with_driver_direct_io_and_a_real_fs(void)
{
    char w[64];
    gpm_gds_decide_way(2, 0, 1, w, sizeof w);
    CHECK(strcmp(w, "gds") == 0);
    gpm_gds_decide_way(0, 0, 1, w, sizeof w);
    CHECK(strcmp(w, "compat:no-nvidia-fs") == 0);
    gpm_gds_decide_way(0, 1, 0, w, sizeof w); /* the first reason */
    CHECK(strcmp(w, "compat:no-nvidia-fs") == 0);
    gpm_gds_decide_way(2, 1, 1, w, sizeof w);
    CHECK(strcmp(w, "compat:tmpfs") == 0);
    gpm_gds_decide_way(2, 0, 0, w, sizeof w);
    CHECK(strcmp(w, "compat:no-o-direct") == 0);
}

static void refusal_names_the_way_out(void)
{
    char w[512];
    gpm_gds_refusal("/dev/shm/pm", 1, 0, 41, "cuFileHandleRegister failed", w, sizeof w);
    CHECK(strncmp(w, "cuFileHandleRegister failed (", 29) == 0);
    CHECK(strstr(w, "/dev/shm/pm has none") && strstr(w, "ext4") && !strstr(w, "/run/udev"));
    /* An overlay or another file system without a block device. */
    gpm_gds_refusal("/data", 0, 0, 77, "e", w, sizeof w);
    CHECK(strstr(w, "/data has none") && !strstr(w, "/run/udev"));
    gpm_gds_refusal("/mnt/ram", 0, 7, 3, "e", w, sizeof w);
    CHECK(strstr(w, "/run/udev/data/b7:3 holding the line E:ID_FS_USAGE=filesystem") != NULL);
}

static void answer_is_the_same_every_time(void)
{
    char a[512] = "", b[512] = "";
    int first = gpm_gds_available(a, sizeof a);
    CHECK_EQ_INT(gpm_gds_available(b, sizeof b), first);
    CHECK(strcmp(a, b) == 0);
    CHECK_EQ_INT(gpm_gds_available(NULL, 0), first);
}

/* Where libcufile is missing: the reason names the library and the fix;
 * opening a file for GDS fails with it, and an existing file keeps its
 * bytes while a file it would have created is not left behind. */
static void missing_library_is_one_line_and_touches_nothing(void)
{
    char why[512], path[4096];
    static const char keep[] = "the user's bytes";
    gpm_cap_file cf;
    struct stat st;
    FILE *f;
    if (gpm_gds_available(why, sizeof why))
        SKIP("libcufile loads here");
    CHECK_MSG(why, "libcufile.so.0 (GPUDirect Storage) was not found");
    CHECK_MSG(why, "LD_LIBRARY_PATH");
    CHECK(strchr(why, '\n') == NULL);

    CHECK(gpm_cap_file_open(&cf, "gds-new", 4096, GPM_CREATE | GPM_CAP_GDS) == -1);
    CHECK_MSG(gpm_last_error(), "gds-new: libcufile.so.0");
    CHECK(gpm_resolve_path("gds-new", path, sizeof path) == 0);
    CHECK(stat(path, &st) != 0);

    CHECK(gpm_resolve_path("gds-old", path, sizeof path) == 0);
    f = fopen(path, "wb");
    CHECK(f && fwrite(keep, 1, sizeof keep, f) == sizeof keep && fclose(f) == 0);
    CHECK(gpm_cap_file_open(&cf, "gds-old", sizeof keep, GPM_CAP_GDS) == -1);
    size_t len = 0;
    char *back = (char *)check_read_file(path, &len);
    CHECK(back && len == sizeof keep && memcmp(back, keep, len) == 0);
    free(back);
    unlink(path);
}

int main(void)
{
    RUN(way_says_gds_only_with_driver_direct_io_and_a_real_fs);
    RUN(refusal_names_the_way_out);
    RUN(answer_is_the_same_every_time);
    RUN(missing_library_is_one_line_and_touches_nothing);
    CHECK_EXIT();
}
