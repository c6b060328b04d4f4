/* gpm_map on emulated PM (host-only mappings: no GPU needed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/gpm.h"

static void create_then_reopen_keeps_data(void)
{
    gpm_region r;
    CHECKF(gpm_map(&r, "map-keep", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    CHECK(r.created == 1);
    CHECK(r.size == 1 << 20);
    CHECK(r.dev == NULL);
    memset(r.host, 0xab, r.size);
    CHECK(gpm_region_persist(&r, r.host, r.size) == 0);
    gpm_unmap(&r);

    /* Reopening with GPM_CREATE must not truncate. */
    CHECKF(gpm_map(&r, "map-keep", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    CHECK(r.created == 0);
    CHECK(((unsigned char *)r.host)[12345] == 0xab);
    gpm_unmap(&r);
}

static void created_file_is_private(void)
{
    gpm_region r;
    struct stat st;
    CHECK(gpm_map(&r, "map-mode", 4096, GPM_CREATE | GPM_HOST_ONLY) == 0);
    CHECK(stat(r.path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    gpm_unmap(&r);
}

static void relative_paths_resolve_under_pm_dir(void)
{
    char out[4096];
    CHECK(gpm_resolve_path("x.pm", out, sizeof out) == 0);
    CHECK(strncmp(out, gpm_pm_dir(), strlen(gpm_pm_dir())) == 0);
    CHECK(gpm_resolve_path("/abs/y.pm", out, sizeof out) == 0);
    CHECK(strcmp(out, "/abs/y.pm") == 0);
}

static void wrong_size_is_refused_and_file_untouched(void)
{
    gpm_region r;
    struct stat st;
    CHECK(gpm_map(&r, "map-size", 8192, GPM_CREATE | GPM_HOST_ONLY) == 0);
    memset(r.host, 7, 8192);
    gpm_unmap(&r);
    CHECK(gpm_map(&r, "map-size", 4096, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "map-size");
    CHECK_MSG(gpm_last_error(), "8192");
    CHECK(stat(r.path, &st) == 0);
    CHECK_EQ_INT(st.st_size, 8192);
}

static void missing_file_without_create_is_an_error(void)
{
    gpm_region r;
    CHECK(gpm_map(&r, "map-absent", 4096, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "map-absent");
    CHECK_MSG(gpm_last_error(), "does not exist");
}

static void missing_directory_is_named(void)
{
    gpm_region r;
    CHECK(gpm_map(&r, "/nonexistent-gpm-dir/f", 4096, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent-gpm-dir");
    CHECK_MSG(gpm_last_error(), "GPM_PM_DIR");
}

static void too_large_reports_space(void)
{
    gpm_region r;
    CHECK(gpm_map(&r, "map-huge", (size_t)1 << 50, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "not enough space");
    CHECK(access(r.path, F_OK) != 0); /* nothing left behind */
}

static void directory_is_not_a_pm_file(void)
{
    gpm_region r;
    CHECK(gpm_map(&r, gpm_pm_dir(), 0, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "not a regular file");
}

static void empty_file_is_named_not_mapped(void)
{
    gpm_region r;
    char path[4096];
    struct stat st;
    CHECK(gpm_resolve_path("map-empty", path, sizeof path) == 0);
    CHECK(check_write_file(path, "") == 0);
    CHECK(gpm_map(&r, "map-empty", 0, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), path);
    CHECK_MSG(gpm_last_error(), "empty");
    CHECK(gpm_map(&r, "map-empty", 0, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK(stat(path, &st) == 0 && st.st_size == 0); /* left as it was */
    unlink(path);
}

static void registration_failure_removes_created_file(void)
{
    /* Without a GPU, registration must fail cleanly; with one, it works. */
    gpm_region r;
    if (gpm_map(&r, "map-reg", 4096, GPM_CREATE) == 0) {
        CHECK(r.dev != NULL);
        gpm_unmap(&r);
        return;
    }
    CHECK_MSG(gpm_last_error(), "cudaHostRegister");
    CHECK(access(r.path, F_OK) != 0);
}

int main(void)
{
    RUN(create_then_reopen_keeps_data);
    RUN(created_file_is_private);
    RUN(relative_paths_resolve_under_pm_dir);
    RUN(wrong_size_is_refused_and_file_untouched);
    RUN(missing_file_without_create_is_an_error);
    RUN(missing_directory_is_named);
    RUN(too_large_reports_space);
    RUN(directory_is_not_a_pm_file);
    RUN(empty_file_is_named_not_mapped);
    RUN(registration_failure_removes_created_file);
    CHECK_EXIT();
}
