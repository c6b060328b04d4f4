/* The CAP-fs way of checkpointing without a GPU (GPMCP_FILE_IO with
 * GPM_HOST_ONLY buffers: pwrite + fsync, pread; the file format, flip
 * protocol and checks are the production ones), and gpmcp_reset.
 *
 * This program defines fsync, pmem_persist and pmem_msync, so libgpm's
 * calls land here first: they are counted, and a child process can be
 * SIGKILLed right after the Nth one, between two steps of a checkpoint. */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "cp_files.h"

#define HO GPM_HOST_ONLY
#define FIO (GPMCP_FILE_IO | GPM_HOST_ONLY)

static long fsyncs, persists;
static long kill_after_fsync, kill_after_persist; /* 0: never */

int fsync(int fd)
{
    int rc = (int)syscall(SYS_fsync, fd);
    if (++fsyncs == kill_after_fsync)
        raise(SIGKILL);
    return rc;
}

static void persisted(void)
{
    if (++persists == kill_after_persist)
        raise(SIGKILL);
}

void pmem_persist(const void *addr, size_t len)
{
    static void (*real)(const void *, size_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pmem_persist");
    real(addr, len);
    persisted();
}

int pmem_msync(const void *addr, size_t len)
{
    static int (*real)(const void *, size_t);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pmem_msync");
    int rc = real(addr, len);
    persisted();
    return rc;
}

static const gpmcp_how CAP_FS = {GPMCP_CAP_FS, NULL, NULL, 0};

/* Where group G's element K of copy C lies in the file, read with pread
 * (not through any mapping). */
static int file_holds(const char *path, uint32_t gi, uint32_t k, uint32_t c, size_t n,
                      uint32_t tag)
{
    gpmcp_header h;
    gpmcp_group g;
    gpmcp_elem e;
    int ok = 0, fd = open(path, O_RDONLY);
    void *buf = malloc(n);
    if (fd >= 0 && buf && pread(fd, &h, sizeof h, 0) == sizeof h &&
        pread(fd, &g, sizeof g, (off_t)(h.group_off + gi * GPMCP_GROUP_BYTES)) == sizeof g &&
        pread(fd, &e, sizeof e,
              (off_t)(h.elem_off + ((uint64_t)gi * h.elements + k) * GPMCP_ELEM_BYTES)) ==
            sizeof e &&
        pread(fd, buf, n, (off_t)gpmcp_elem_file_off(&g, &e, c)) == (ssize_t)n)
        ok = holds(buf, n, tag);
    free(buf);
    if (fd >= 0)
        close(fd);
    return ok;
}

static void round_trip_through_pwrite_and_pread(void)
{
    char path[4096], out[4096];
    static uint32_t a[3000], b[33], c[70000];
    gpmcp *cp;
    fresh("cpfs-rt", path);
    cp = gpmcp_create_flags("cpfs-rt", sizeof a + sizeof b + sizeof c, 2, 2, FIO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_region(cp)->dev == NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_register(cp, c, sizeof c, 1) == 0);
    for (uint32_t i = 1; i <= 5; i++) {
        fill(a, sizeof a, i), fill(b, sizeof b, 100 + i), fill(c, sizeof c, 200 + i);
        long before = fsyncs;
        CHECKF(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == 0, "%s", gpm_last_error());
        /* The working copy, then the flip: one fsync each. */
        CHECK_EQ_INT(fsyncs - before, 2);
        CHECKF(gpmcp_checkpoint_how(cp, 1, &CAP_FS) == 0, "%s", gpm_last_error());
        CHECK(gpmcp_seq(cp, 0) == i && gpmcp_seq(cp, 1) == i);
        /* The bytes are in the file, in the copy the flip names. */
        CHECK(file_holds(path, 0, 0, (i - 1) % 2, sizeof a, i));
        CHECK(file_holds(path, 1, 0, (i - 1) % 2, sizeof c, 200 + i));
    }
    memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(c, 0, sizeof c);
    CHECKF(gpmcp_restore(cp, 0) == 0, "%s", gpm_last_error());
    CHECK(holds(a, sizeof a, 5) && holds(b, sizeof b, 105));
    CHECK(gpmcp_restore_on(cp, 1, NULL) == 0);
    CHECK(holds(c, sizeof c, 205));
    gpmcp_close(cp);

    /* One format: the mapped way reads what the CAP-fs way wrote, and the
     * other way round. */
    memset(a, 0, sizeof a), memset(b, 0, sizeof b);
    cp = gpmcp_open_flags("cpfs-rt", HO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_seq(cp, 0) == 5);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(a, sizeof a, 5) && holds(b, sizeof b, 105));
    fill(a, sizeof a, 6), fill(b, sizeof b, 106);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    gpmcp_close(cp);
    memset(a, 0, sizeof a), memset(b, 0, sizeof b);
    cp = gpmcp_open_flags("cpfs-rt", FIO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_seq(cp, 0) == 6);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(a, sizeof a, 6) && holds(b, sizeof b, 106));
    gpmcp_close(cp);

    FILE *m = fmemopen(out, sizeof out, "w");
    CHECK(m != NULL);
    CHECK(gpmcp_inspect(m, path) == 0);
    fclose(m);
    CHECK_MSG(out, "group 0: 2 elements");
    CHECK_MSG(out, "seq 6");
}

/* Runs BODY in a child that SIGKILLs itself right after fsync number
 * KILL_FSYNC or persist number KILL_PERSIST of BODY (0: not that way);
 * returns 1 if it was killed so. */
static int killed_in(void (*body)(void), long kill_fsync, long kill_persist)
{
    int st;
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        fsyncs = persists = 0;
        kill_after_fsync = kill_fsync;
        kill_after_persist = kill_persist;
        body();
        _exit(0);
    }
    return waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static uint32_t torn_v[5000];

/* Checkpoint 1 (tag 41) already in the file: checkpoint tag 42. */
static void second_checkpoint(void)
{
    gpmcp *cp = gpmcp_open_flags("cpfs-torn", FIO);
    if (!cp || gpmcp_register(cp, torn_v, sizeof torn_v, 0) != 0)
        _exit(2);
    fill(torn_v, sizeof torn_v, 42);
    if (gpmcp_checkpoint_how(cp, 0, &CAP_FS) != 0)
        _exit(3);
    gpmcp_close(cp);
}

static void torn_flip_restores_the_previous_checkpoint(void)
{
    char path[4096];
    fresh("cpfs-torn", path);
    gpmcp *cp = gpmcp_create_flags("cpfs-torn", sizeof torn_v, 1, 1, FIO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, torn_v, sizeof torn_v, 0) == 0);
    fill(torn_v, sizeof torn_v, 41);
    CHECK(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == 0);
    gpmcp_close(cp);

    /* Killed after the working copy's fsync, before the flip's pwrite. */
    CHECK(killed_in(second_checkpoint, 1, 0));
    CHECK(file_holds(path, 0, 0, 1, sizeof torn_v, 42)); /* the copy landed, */
    memset(torn_v, 0, sizeof torn_v);
    cp = gpmcp_open_flags("cpfs-torn", FIO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, torn_v, sizeof torn_v, 0) == 0);
    CHECK_EQ_INT(gpmcp_seq(cp, 0), 1); /* but the flip did not */
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(torn_v, sizeof torn_v, 41));
    gpmcp_close(cp);

    /* Killed after the flip's fsync: the new checkpoint is the one. */
    CHECK(killed_in(second_checkpoint, 2, 0));
    cp = gpmcp_open_flags("cpfs-torn", FIO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, torn_v, sizeof torn_v, 0) == 0);
    CHECK_EQ_INT(gpmcp_seq(cp, 0), 2);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(torn_v, sizeof torn_v, 42));
    gpmcp_close(cp);
}

/* Real crashes at random moments, as in test_cp_file.c, the CAP-fs way. */
static void sigkill_during_cap_fs_checkpoints_recovers(void)
{
    static uint32_t buf[1 << 16];
    sigkill_trials("cpfs-kill", buf, sizeof buf, 12, FIO, &CAP_FS);
}

/* The way and the handle must match, and the registrations the file;
 * every refusal is one line and leaves the file as it was. */
static void mismatches_are_refused_and_file_unchanged(void)
{
    char path[4096];
    static uint8_t a[256], b[512];
    const gpmcp_how mm = {GPMCP_CAP_MM, NULL, NULL, 0};
    gpmcp *cp;
    uint64_t before;
    fresh("cpfs-mis", path);
    cp = gpmcp_create_flags("cpfs-mis", 1024, 2, 2, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    before = file_hash(path);
    /* A first checkpoint would lay the group out: not even that happens. */
    CHECK(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == -1);
    CHECK_MSG(gpm_last_error(), path);
    CHECK_MSG(gpm_last_error(), "needs the file opened with GPMCP_FILE_IO");
    CHECK(strchr(gpm_last_error(), '\n') == NULL);
    CHECK(file_hash(path) == before);
    CHECK_EQ_INT(gpmcp_seq(cp, 0), 0);
    gpmcp_close(cp);

    cp = gpmcp_open_flags("cpfs-mis", FIO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_checkpoint(cp, 0) == -1);
    CHECK_MSG(gpm_last_error(), "opened with GPMCP_FILE_IO");
    CHECK_MSG(gpm_last_error(), "use GPMCP_CAP_FS");
    CHECK(gpmcp_checkpoint_how(cp, 0, &mm) == -1);
    CHECK(file_hash(path) == before);
    CHECK(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == 0);
    gpmcp_close(cp);

    /* Registrations that differ from the file: gpmcp's own errors. */
    before = file_hash(path);
    cp = gpmcp_open_flags("cpfs-mis", FIO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0);
    CHECK(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == -1);
    CHECK_MSG(gpm_last_error(), "1 buffers are registered, the checkpoint recorded 2");
    CHECK(gpmcp_restore(cp, 0) == -1);
    CHECK(gpmcp_register(cp, b, 500, 0) == -1);
    CHECK_MSG(gpm_last_error(), "500 bytes, the checkpoint recorded 512");
    CHECK(file_hash(path) == before);
    gpmcp_close(cp);
    CHECK(gpmcp_restore_on(NULL, 0, NULL) == -1);
    CHECK(gpmcp_reset(NULL) == -1);
    CHECK_MSG(gpm_last_error(), "NULL");
}

/* Device buffers need the pinned staging, hence a GPU: without one the
 * create fails cleanly and leaves no file behind. */
static void device_file_io_without_gpu_leaves_no_file(void)
{
    char path[4096];
    fresh("cpfs-dev", path);
    gpmcp *cp = gpmcp_create_flags("cpfs-dev", 4096, 1, 1, GPMCP_FILE_IO);
    if (cp) {
        CHECK(gpmcp_region(cp)->dev == NULL); /* never registered */
        gpmcp_close(cp);
        unlink(path);
        return;
    }
    CHECK_MSG(gpm_last_error(), path);
    CHECK(access(path, F_OK) != 0);
}

static uint32_t reset_x[1000], reset_y[300];

/* Checkpoints both groups of NAME as a run would (0, or -1). */
static int checkpoint_both(const char *name, int flags, uint32_t tag)
{
    gpmcp *cp = gpmcp_open_flags(name, flags);
    const gpmcp_how *how = (flags & GPMCP_FILE_IO) ? &CAP_FS : NULL;
    int rc = cp && gpmcp_register(cp, reset_x, sizeof reset_x, 0) == 0 &&
                     gpmcp_register(cp, reset_y, sizeof reset_y, 1) == 0
                 ? 0
                 : -1;
    fill(reset_x, sizeof reset_x, tag), fill(reset_y, sizeof reset_y, tag + 1);
    if (rc == 0 && (gpmcp_checkpoint_how(cp, 0, how) != 0 || gpmcp_checkpoint_how(cp, 1, how) != 0))
        rc = -1;
    gpmcp_close(cp);
    return rc;
}

static void reset_child(void)
{
    gpmcp *cp = gpmcp_open_flags("cpfs-reset", FIO);
    if (!cp || gpmcp_reset(cp) != 0)
        _exit(2);
    gpmcp_close(cp);
}

/* After a reset nothing of the earlier run is visible: no checkpoint, no
 * layout (other sizes are accepted), the header and size kept. */
static void reset_leaves_no_checkpoint_or_layout(void)
{
    char path[4096], out[4096];
    gpmcp_header h0, h1;
    struct stat st0, st1;
    static uint32_t other[2000];
    const int kinds[] = {FIO, HO};
    for (int kind = 0; kind < 2; kind++) {
        fresh("cpfs-reset", path);
        gpmcp *cp = gpmcp_create_flags("cpfs-reset", sizeof other + sizeof reset_y, 2, 2,
                                       kinds[kind]);
        CHECKF(cp != NULL, "%s", gpm_last_error());
        gpmcp_close(cp);
        CHECKF(checkpoint_both("cpfs-reset", kinds[kind], 7) == 0, "%s", gpm_last_error());
        CHECK(checkpoint_both("cpfs-reset", kinds[kind], 9) == 0);
        int fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, &h0, sizeof h0, 0) == sizeof h0);
        close(fd);
        CHECK(stat(path, &st0) == 0);

        cp = gpmcp_open_flags("cpfs-reset", kinds[kind]);
        CHECK(cp != NULL);
        CHECK(gpmcp_register(cp, reset_x, sizeof reset_x, 0) == 0);
        CHECK_EQ_INT(gpmcp_seq(cp, 0), 2);
        CHECKF(gpmcp_reset(cp) == 0, "%s", gpm_last_error());
        CHECK_EQ_INT(gpmcp_seq(cp, 0), 0);
        CHECK_EQ_INT(gpmcp_seq(cp, 1), 0);
        CHECK(gpmcp_restore(cp, 0) == -1);
        CHECK_MSG(gpm_last_error(), "no completed checkpoint");
        /* The handle keeps its registration and checkpoints afresh. */
        fill(reset_x, sizeof reset_x, 11);
        CHECK(gpmcp_checkpoint_how(cp, 0, (kinds[kind] & GPMCP_FILE_IO) ? &CAP_FS : NULL) == 0);
        CHECK_EQ_INT(gpmcp_seq(cp, 0), 1);
        CHECK(gpmcp_reset(cp) == 0);
        gpmcp_close(cp);

        FILE *m = fmemopen(out, sizeof out, "w");
        CHECK(m != NULL);
        CHECK(gpmcp_inspect(m, path) == 0);
        fclose(m);
        CHECK_MSG(out, "group 0: empty");
        CHECK_MSG(out, "group 1: empty");
        fd = open(path, O_RDONLY);
        CHECK(fd >= 0 && pread(fd, &h1, sizeof h1, 0) == sizeof h1);
        close(fd);
        CHECK(memcmp(&h0, &h1, sizeof h0) == 0);
        CHECK(stat(path, &st1) == 0 && st1.st_size == st0.st_size);

        /* A new run with other sizes: group 0 is laid out anew. */
        cp = gpmcp_open_flags("cpfs-reset", kinds[kind]);
        CHECK(cp != NULL);
        CHECK(gpmcp_register(cp, other, sizeof other, 0) == 0);
        fill(other, sizeof other, 5);
        CHECK(gpmcp_checkpoint_how(cp, 0, (kinds[kind] & GPMCP_FILE_IO) ? &CAP_FS : NULL) == 0);
        memset(other, 0, sizeof other);
        CHECK(gpmcp_restore(cp, 0) == 0);
        CHECK(holds(other, sizeof other, 5));
        gpmcp_close(cp);
    }
}

/* Killed after each durable step of a reset (flip words, seals, tables):
 * every group reads as having no checkpoint, none as corrupt, and a reset
 * run again finishes the job. */
static void reset_killed_midway_leaves_no_checkpoint_and_nothing_corrupt(void)
{
    char path[4096];
    for (long step = 1; step <= 3; step++) {
        fresh("cpfs-reset", path);
        gpmcp *cp = gpmcp_create_flags("cpfs-reset", sizeof reset_x + sizeof reset_y, 2, 2,
                                       FIO);
        CHECKF(cp != NULL, "%s", gpm_last_error());
        gpmcp_close(cp);
        CHECKF(checkpoint_both("cpfs-reset", FIO, 3) == 0, "%s", gpm_last_error());
        CHECK(checkpoint_both("cpfs-reset", FIO, 4) == 0);
        CHECKF(killed_in(reset_child, 0, step), "step %ld", step);
        cp = gpmcp_open_flags("cpfs-reset", FIO);
        CHECKF(cp != NULL, "%s", gpm_last_error());
        CHECK(gpmcp_register(cp, reset_x, sizeof reset_x, 0) == 0);
        CHECKF(gpmcp_seq(cp, 0) == 0 && gpmcp_seq(cp, 1) == 0, "step %ld: %s", step,
               gpm_last_error());
        CHECK(gpmcp_restore(cp, 0) == -1);
        CHECK_MSG(gpm_last_error(), "no completed checkpoint");
        CHECK(gpmcp_reset(cp) == 0);
        fill(reset_x, sizeof reset_x, 12);
        CHECK(gpmcp_checkpoint_how(cp, 0, &CAP_FS) == 0);
        memset(reset_x, 0, sizeof reset_x);
        CHECK(gpmcp_restore(cp, 0) == 0 && holds(reset_x, sizeof reset_x, 12));
        gpmcp_close(cp);
    }
}

int main(void)
{
    RUN(round_trip_through_pwrite_and_pread);
    RUN(torn_flip_restores_the_previous_checkpoint);
    RUN(sigkill_during_cap_fs_checkpoints_recovers);
    RUN(mismatches_are_refused_and_file_unchanged);
    RUN(device_file_io_without_gpu_leaves_no_file);
    RUN(reset_leaves_no_checkpoint_or_layout);
    RUN(reset_killed_midway_leaves_no_checkpoint_and_nothing_corrupt);
    CHECK_EXIT();
}
