/* CAP-fs without a GPU: the pwrite + fsync half, file creation and the
 * refusals that keep a user's file intact. This program defines fsync, so
 * libgpm's calls land here first and are counted. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/gpm.h"

static int fsyncs;

int fsync(int fd)
{
    fsyncs++;
    return (int)syscall(SYS_fsync, fd);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i >> 3) * 131 + i + seed);
}

static void writes_reach_the_file(void)
{
    const size_t size = (3 << 20) + 5;
    gpm_cap_file cf;
    unsigned char *want = malloc(size), *got;
    size_t len = 0;
    CHECK(want != NULL);
    CHECKF(gpm_cap_file_open(&cf, "capfs-data", size, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    CHECK_EQ_INT(cf.size, size);
    fill(want, size, 1);
    CHECKF(gpm_cap_fs_host(&cf, 0, want, size) == 0, "%s", gpm_last_error());
    /* A second, partial write at an odd offset lands only there. */
    fill(want + 4097, 100003, 77);
    CHECKF(gpm_cap_fs_host(&cf, 4097, want + 4097, 100003) == 0, "%s", gpm_last_error());
    CHECK(gpm_cap_fs_host(&cf, (off_t)size, want, 0) == 0);
    gpm_cap_file_close(&cf);
    gpm_cap_file_close(&cf); /* a second close is harmless */

    char path[4096];
    CHECK(gpm_resolve_path("capfs-data", path, sizeof path) == 0);
    got = check_read_file(path, &len);
    CHECK(got != NULL);
    CHECK_EQ_INT(len, size);
    CHECK(memcmp(got, want, size) == 0);
    free(got);
    free(want);
}

static void created_file_is_private_and_sized(void)
{
    gpm_cap_file cf;
    struct stat st;
    CHECKF(gpm_cap_file_open(&cf, "capfs-mode", 12345, GPM_CREATE | GPM_HOST_ONLY) == 0, "%s",
           gpm_last_error());
    CHECK(stat(cf.path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0600);
    CHECK_EQ_INT(st.st_size, 12345);
    gpm_cap_file_close(&cf);
    /* Reopening with GPM_CREATE neither recreates nor truncates it. */
    CHECK(gpm_cap_file_open(&cf, "capfs-mode", 12345, GPM_CREATE | GPM_HOST_ONLY) == 0);
    gpm_cap_file_close(&cf);
    CHECK(gpm_cap_file_open(&cf, "capfs-mode", 0, GPM_HOST_ONLY) == 0);
    CHECK_EQ_INT(cf.size, 12345);
    gpm_cap_file_close(&cf);
}

static void wrong_size_is_refused_and_file_untouched(void)
{
    const size_t size = 8192;
    gpm_cap_file cf;
    unsigned char want[8192], *got;
    size_t len = 0;
    char path[4096];
    CHECK(gpm_cap_file_open(&cf, "capfs-size", size, GPM_CREATE | GPM_HOST_ONLY) == 0);
    fill(want, size, 5);
    CHECK(gpm_cap_fs_host(&cf, 0, want, size) == 0);
    gpm_cap_file_close(&cf);
    CHECK(gpm_resolve_path("capfs-size", path, sizeof path) == 0);

    CHECK(gpm_cap_file_open(&cf, "capfs-size", 4096, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), path);
    CHECK_MSG(gpm_last_error(), "8192");
    CHECK(gpm_cap_file_open(&cf, "capfs-size", 1 << 20, GPM_CREATE | GPM_HOST_ONLY) == -1);
    gpm_cap_file_close(&cf); /* harmless after a failed open */
    got = check_read_file(path, &len);
    CHECK(got != NULL);
    CHECK_EQ_INT(len, size);
    CHECK(memcmp(got, want, size) == 0);
    free(got);
}

static void write_past_the_end_is_refused(void)
{
    gpm_cap_file cf;
    unsigned char buf[4096];
    memset(buf, 0x5a, sizeof buf);
    CHECK(gpm_cap_file_open(&cf, "capfs-range", 4096, GPM_CREATE | GPM_HOST_ONLY) == 0);
    CHECK(gpm_cap_fs_host(&cf, 1, buf, 4096) == -1);
    CHECK_MSG(gpm_last_error(), "capfs-range");
    CHECK_MSG(gpm_last_error(), "runs past");
    CHECK(gpm_cap_fs_host(&cf, -1, buf, 1) == -1);
    CHECK(gpm_cap_fs_host(&cf, 4097, buf, 0) == -1);
    gpm_cap_file_close(&cf);
    CHECK(gpm_cap_fs_host(&cf, 0, buf, 1) == -1);
    CHECK_MSG(gpm_last_error(), "not open");
}

static void missing_file_and_bad_paths(void)
{
    gpm_cap_file cf;
    CHECK(gpm_cap_file_open(&cf, "capfs-absent", 4096, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "capfs-absent");
    CHECK_MSG(gpm_last_error(), "does not exist");
    CHECK(gpm_cap_file_open(&cf, gpm_pm_dir(), 0, GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "not a regular file");
    CHECK(gpm_cap_file_open(&cf, "/nonexistent-gpm-dir/f", 4096, GPM_CREATE | GPM_HOST_ONLY) ==
          -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent-gpm-dir/f");
    CHECK(gpm_cap_file_open(&cf, "capfs-zero", 0, GPM_CREATE | GPM_HOST_ONLY) == -1);
    CHECK_MSG(gpm_last_error(), "0 bytes");
}

static void device_path_needs_staging(void)
{
    gpm_cap_file cf;
    char byte = 1;
    CHECK(gpm_cap_file_open(&cf, "capfs-host", 4096, GPM_CREATE | GPM_HOST_ONLY) == 0);
    CHECK(gpm_cap_fs(&cf, 0, &byte, 1) == -1);
    CHECK_MSG(gpm_last_error(), "GPM_HOST_ONLY");
    CHECK(gpm_cap_file_set_chunk(&cf, 1 << 20) == -1);
    gpm_cap_file_close(&cf);
}

/* Without a GPU, opening for device data fails cleanly and leaves no file
 * behind; with one, the staging is there. */
static void staging_failure_removes_created_file(void)
{
    gpm_cap_file cf;
    if (gpm_cap_file_open(&cf, "capfs-gpu", 1 << 20, GPM_CREATE) == 0) {
        CHECK(cf.stage[0] != NULL && cf.stage[1] != NULL);
        CHECK_EQ_INT(cf.chunk, 1 << 20); /* never more staging than the file */
        gpm_cap_file_close(&cf);
        return;
    }
    CHECK_MSG(gpm_last_error(), "capfs-gpu");
    char path[4096];
    CHECK(gpm_resolve_path("capfs-gpu", path, sizeof path) == 0);
    CHECK(access(path, F_OK) != 0);
}

/* Scattered ranges (out of order, touching, one empty) land at their
 * offsets with one fsync for the whole list; the rest of the file keeps
 * its bytes. */
static void host_ranges_land_with_one_fsync(void)
{
    const size_t size = (1 << 20) + 77;
    gpm_cap_file cf;
    unsigned char *want = malloc(size), *src = malloc(size), *got;
    size_t len = 0;
    char path[4096];
    CHECK(want != NULL && src != NULL);
    CHECK(gpm_cap_file_open(&cf, "capfs-ranges", size, GPM_CREATE | GPM_HOST_ONLY) == 0);
    fill(want, size, 3);
    CHECK(gpm_cap_fs_host(&cf, 0, want, size) == 0);
    fill(src, size, 90);
    const gpm_range v[] = {{500000, 70000, src},         {5, 1, src + 1},
                           {6, 4093, src + 2},           {size - 11, 11, src + 3},
                           {4096 * 3, 0, NULL},          {200000, 299999, src + 4}};
    const int n = (int)(sizeof v / sizeof *v);
    for (int i = 0; i < n; i++)
        if (v[i].len)
            memcpy(want + v[i].off, v[i].src, v[i].len);
    fsyncs = 0;
    CHECKF(gpm_cap_fs_host_ranges(&cf, v, n) == 0, "%s", gpm_last_error());
    CHECK_EQ_INT(fsyncs, 1);
    /* An empty list still syncs, like a write of 0 bytes. */
    CHECK(gpm_cap_fs_host_ranges(&cf, NULL, 0) == 0);
    CHECK_EQ_INT(fsyncs, 2);
    snprintf(path, sizeof path, "%s", cf.path);
    gpm_cap_file_close(&cf);
    got = check_read_file(path, &len);
    CHECK(got != NULL);
    CHECK_EQ_INT(len, size);
    CHECK(memcmp(got, want, size) == 0);
    free(got);
    free(want);
    free(src);
}

/* One bad range refuses the whole list before any byte is written. */
static void a_bad_range_writes_nothing(void)
{
    gpm_cap_file cf;
    unsigned char buf[8192], *before, *after;
    size_t len = 0, len2 = 0;
    char path[4096];
    fill(buf, sizeof buf, 8);
    CHECK(gpm_cap_file_open(&cf, "capfs-badrange", 8192, GPM_CREATE | GPM_HOST_ONLY) == 0);
    snprintf(path, sizeof path, "%s", cf.path);
    before = check_read_file(path, &len);
    CHECK(before != NULL);
    gpm_range v[3] = {{0, 100, buf}, {200, 100, buf}, {8000, 193, buf}};
    fsyncs = 0;
    CHECK(gpm_cap_fs_host_ranges(&cf, v, 3) == -1);
    CHECK_MSG(gpm_last_error(), "capfs-badrange");
    CHECK_MSG(gpm_last_error(), "range 2 of 3");
    CHECK_MSG(gpm_last_error(), "runs past");
    v[2].len = 1;
    v[2].src = NULL;
    CHECK(gpm_cap_fs_host_ranges(&cf, v, 3) == -1);
    CHECK_MSG(gpm_last_error(), "no source");
    v[2].off = (size_t)-1; /* off + len wraps */
    v[2].src = buf;
    CHECK(gpm_cap_fs_host_ranges(&cf, v, 3) == -1);
    CHECK(gpm_cap_fs_host_ranges(&cf, v, -1) == -1);
    CHECK(gpm_cap_fs_host_ranges(&cf, NULL, 2) == -1);
    CHECK_EQ_INT(fsyncs, 0);
    after = check_read_file(path, &len2);
    CHECK(after != NULL && len2 == len && memcmp(before, after, len) == 0);
    free(before);
    free(after);
    /* The device path needs the staging that GPM_HOST_ONLY leaves out. */
    v[2].off = 0;
    CHECK(gpm_cap_fs_ranges(&cf, v, 3, NULL) == -1);
    CHECK_MSG(gpm_last_error(), "GPM_HOST_ONLY");
    gpm_cap_file_close(&cf);
    CHECK(gpm_cap_fs_host_ranges(&cf, v, 1) == -1);
    CHECK_MSG(gpm_last_error(), "not open");
}

int main(void)
{
    RUN(writes_reach_the_file);
    RUN(created_file_is_private_and_sized);
    RUN(wrong_size_is_refused_and_file_untouched);
    RUN(write_past_the_end_is_refused);
    RUN(missing_file_and_bad_paths);
    RUN(device_path_needs_staging);
    RUN(staging_failure_removes_created_file);
    RUN(host_ranges_land_with_one_fsync);
    RUN(a_bad_range_writes_nothing);
    CHECK_EXIT();
}
