/* CFD's command line on the CPU: a mesh that cannot be used is refused in
 * one line naming the file (and line) with exit 2, before any PM file is
 * made, whether or not a GPU is there; a bare name is looked up in the
 * dataset directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "tests/wl_test.h"
#include "wl.h"

static char dir[4096], pm[4200], data[4200], err[4200];

/* ERR's first line contains NEEDLE, and ERR has one line. */
static int said(const char *needle)
{
    char line[2048] = "";
    FILE *f = fopen(err, "r");
    int lines = 0, hit = 0;
    while (f && fgets(line, sizeof line, f)) {
        lines++;
        hit |= lines == 1 && strstr(line, needle) != NULL;
    }
    if (f)
        fclose(f);
    return hit && lines == 1;
}

static int pm_dir_empty(void)
{
    char cmd[8600];
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", pm);
    return system(cmd) == 0;
}

static void unusable_meshes_are_refused_before_any_work(void)
{
    char bad[4300], good[4300];
    snprintf(bad, sizeof bad, "%s/bad.domn", dir);
    snprintf(good, sizeof good, "%s/good.domn", dir);
    CHECK(check_write_file(bad, "2\n1 2 1 0 0 0 0 1 0 -1 0 0 1 -1 1 1 1\n1 3 1 0 0\n") == 0);
    CHECK(check_write_file(good, "1\n1 0 1 0 0 0 0 1 0 -1 0 0 -1 -1 0 0 1\n") == 0);
    {
        char *argv[] = {"cfd", "--mode", "gpm", "--mesh", bad, "--pm-dir", pm};
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, ARGC(argv), err), 2);
        CHECK(said("bad.domn:3: element 2 face 1: neighbour 3 is out of range"));
    }
    {
        char *argv[] = {"cfd", "--mode", "cap-fs", "--mesh", "/no/such.domn", "--pm-dir", pm};
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, ARGC(argv), err), 2);
        CHECK(said("/no/such.domn: cannot open the mesh"));
    }
    {
        char *argv[] = {"cfd", "--mode", "gpm", "--mesh", good, "--elements", "100",
                        "--pm-dir", pm};
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, ARGC(argv), err), 2);
        CHECK(said("--elements: sizes a generated mesh only"));
    }
    {
        char *argv[] = {"cfd", "--mode", "gpm", "--elements", "10", "--pm-dir", pm};
        CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, ARGC(argv), err), 2);
        CHECK(said("--elements"));
    }
    CHECK(pm_dir_empty());
    unlink(bad);
    unlink(good);
}

/* A name without a slash that is not a file here is one in the dataset
 * directory (GPM_DATA_DIR), where datasets/fetch.sh puts the meshes. */
static void bare_name_is_looked_up_in_the_dataset_directory(void)
{
    char p[4300];
    char *argv[] = {"cfd", "--mode", "gpm", "--mesh", "cfd-test-only.domn", "--pm-dir", pm};
    snprintf(p, sizeof p, "%s/cfd-test-only.domn", data);
    CHECK(check_write_file(p, "1\n0 0 1 0 0 0 0 1 0 -1 0 0 -1 -1 0 0\n") == 0);
    CHECK_EQ_INT(wl_test_run(&WORKLOAD, argv, ARGC(argv), err), 2);
    CHECK(said("/data/cfd-test-only.domn:2: element 1 has volume 0"));
    CHECK(pm_dir_empty());
    unlink(p);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/cfd-cli-%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    snprintf(pm, sizeof pm, "%s/pm", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    mkdir(dir, 0700);
    mkdir(pm, 0700);
    mkdir(data, 0700);
    setenv("GPM_DATA_DIR", data, 1);
    RUN(unusable_meshes_are_refused_before_any_work);
    RUN(bare_name_is_looked_up_in_the_dataset_directory);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
