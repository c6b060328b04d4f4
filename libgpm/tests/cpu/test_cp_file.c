/* Checkpoint files on emulated PM through the host API (GPM_HOST_ONLY: the
 * CPU copies, the flip protocol and the checks are the production ones). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpm/cap.h"
#include "gpm/check.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "cp_files.h"

#define HO GPM_HOST_ONLY


static void round_trip_two_groups(void)
{
    char path[4096];
    static uint32_t a[1000], b[77], c[4096];
    gpmcp *cp;
    fresh("cp-rt", path);
    cp = gpmcp_create_flags("cp-rt", sizeof a + sizeof b + sizeof c, 4, 2, HO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0);
    CHECK(gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_register(cp, c, sizeof c, 1) == 0);
    CHECK(gpmcp_seq(cp, 0) == 0);
    fill(a, sizeof a, 1), fill(b, sizeof b, 2), fill(c, sizeof c, 3);
    CHECKF(gpmcp_checkpoint(cp, 0) == 0, "%s", gpm_last_error());
    CHECKF(gpmcp_checkpoint(cp, 1) == 0, "%s", gpm_last_error());
    fill(a, sizeof a, 11), fill(b, sizeof b, 12);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    CHECK(gpmcp_seq(cp, 0) == 2 && gpmcp_seq(cp, 1) == 1);
    gpmcp_close(cp);

    /* A new process's view: open, register in the same order, restore. */
    memset(a, 0, sizeof a), memset(b, 0, sizeof b), memset(c, 0, sizeof c);
    cp = gpmcp_open_flags("cp-rt", HO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0);
    CHECK(gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_register(cp, c, sizeof c, 1) == 0);
    CHECK(gpmcp_restore(cp, 1) == 0);
    CHECK(holds(c, sizeof c, 3));
    CHECK(a[1] == 0 && a[999] == 0); /* group 1's restore leaves group 0 alone */
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(a, sizeof a, 11) && holds(b, sizeof b, 12));
    gpmcp_close(cp);
}

static void copies_alternate_and_data_is_aligned(void)
{
    char path[4096];
    static uint8_t x[300], y[5];
    gpmcp *cp;
    const gpm_region *r;
    fresh("cp-alt", path);
    cp = gpmcp_create_flags("cp-alt", 1000, 2, 1, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, x, sizeof x, 0) == 0 && gpmcp_register(cp, y, sizeof y, 0) == 0);
    r = gpmcp_region(cp);
    const gpmcp_header *h = r->host;
    gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    for (uint32_t i = 1; i <= 6; i++) {
        uint32_t before = gpmcp_working_copy(g->flip);
        CHECK(gpmcp_checkpoint(cp, 0) == 0);
        CHECK(gpmcp_flip_copy(g->flip) == before);
        CHECK(gpmcp_flip_seq(g->flip) == i);
        CHECK(i == 1 || gpmcp_flip_copy(g->flip) == (i - 1) % 2);
    }
    const gpmcp_elem *e = gpmcp_elems_of(r->host, h, 0);
    for (int k = 0; k < 2; k++)
        for (uint32_t c = 0; c < 2; c++)
            CHECK(gpmcp_elem_file_off(g, &e[k], c) % 128 == 0);
    gpmcp_close(cp);
}

/* A crash in the middle of a checkpoint leaves garbage in the working
 * copy only: the restore returns the last completed checkpoint. */
static void torn_working_copy_is_ignored(void)
{
    char path[4096];
    static uint32_t v[2048];
    gpmcp *cp;
    fresh("cp-torn", path);
    cp = gpmcp_create_flags("cp-torn", sizeof v, 1, 1, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, v, sizeof v, 0) == 0);
    fill(v, sizeof v, 41);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    fill(v, sizeof v, 42);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    const gpm_region *r = gpmcp_region(cp);
    const gpmcp_header *h = r->host;
    gpmcp_group *g = gpmcp_group_at(r->host, h, 0);
    /* The next checkpoint's copy, half written, then the process dies. */
    uint8_t *work = (uint8_t *)r->host + g->base + gpmcp_working_copy(g->flip) * g->copy_bytes;
    memset(work, 0xee, sizeof v / 2);
    gpmcp_close(cp);
    memset(v, 0, sizeof v);
    cp = gpmcp_open_flags("cp-torn", HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, v, sizeof v, 0) == 0);
    CHECK(gpmcp_seq(cp, 0) == 2);
    CHECK(gpmcp_restore(cp, 0) == 0);
    CHECK(holds(v, sizeof v, 42));
    gpmcp_close(cp);
}

static void registration_mismatches_are_errors(void)
{
    char path[4096];
    static uint8_t a[256], b[512], big[600];
    gpmcp *cp;
    fresh("cp-mis", path);
    cp = gpmcp_create_flags("cp-mis", 1024, 2, 2, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_restore(cp, 0) == -1);
    CHECK_MSG(gpm_last_error(), "no completed checkpoint");
    CHECK(gpmcp_checkpoint(cp, 0) == -1);
    CHECK_MSG(gpm_last_error(), "no registered buffers");
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0 && gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == -1);
    CHECK_MSG(gpm_last_error(), "more elements");
    CHECK(gpmcp_register(cp, a, sizeof a, 2) == -1);
    CHECK_MSG(gpm_last_error(), "group 2 does not exist");
    CHECK(gpmcp_register(cp, NULL, 8, 1) == -1);
    CHECK(gpmcp_register(cp, a, 0, 1) == -1);
    CHECK(gpmcp_checkpoint(cp, 0) == 0);
    /* Group 1 would exceed the capacity left by group 0. */
    CHECK(gpmcp_register(cp, big, sizeof big, 1) == 0);
    CHECK(gpmcp_checkpoint(cp, 1) == -1);
    CHECK_MSG(gpm_last_error(), "larger size");
    CHECK(gpmcp_checkpoint(cp, 5) == -1);
    gpmcp_close(cp);

    /* Reopened: fewer buffers, another size, more buffers. */
    cp = gpmcp_open_flags("cp-mis", HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 0) == 0);
    CHECK(gpmcp_restore(cp, 0) == -1);
    CHECK_MSG(gpm_last_error(), "1 buffers are registered, the checkpoint recorded 2");
    CHECK(gpmcp_checkpoint(cp, 0) == -1);
    CHECK(gpmcp_register(cp, b, 500, 0) == -1);
    CHECK_MSG(gpm_last_error(), "500 bytes, the checkpoint recorded 512");
    CHECK(gpmcp_register(cp, b, sizeof b, 0) == 0);
    CHECK(gpmcp_restore(cp, 0) == 0);
    gpmcp_close(cp);

    cp = gpmcp_open_flags("cp-mis", HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, b, sizeof b, 0) == -1); /* swapped order: sizes differ */
    CHECK_MSG(gpm_last_error(), "same order");
    gpmcp_close(cp);
}

static void create_never_overwrites(void)
{
    char path[4096];
    gpmcp *cp;
    int fd;
    fresh("cp-exists", path);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "precious", 8) == 8);
    close(fd);
    uint64_t before = file_hash(path);
    cp = gpmcp_create_flags("cp-exists", 4096, 1, 1, HO);
    CHECK(cp == NULL);
    CHECK_MSG(gpm_last_error(), "already exists");
    CHECK_MSG(gpm_last_error(), path);
    CHECK(file_hash(path) == before);
    CHECK(gpmcp_create_flags("cp-bad-args", 0, 1, 1, HO) == NULL);
    CHECK(gpmcp_create_flags("cp-bad-args", 10, 0, 1, HO) == NULL);
    CHECK(gpmcp_create_flags("cp-bad-args", 10, 1, -1, HO) == NULL);
    CHECK(gpmcp_open_flags("cp-absent", HO) == NULL);
    CHECK_MSG(gpm_last_error(), "does not exist");
}

static void open_rejects_foreign_and_damaged_files(void)
{
    char path[4096];
    gpmcp *cp;
    int fd;
    struct stat st;
    fresh("cp-foreign", path);
    fd = open(path, O_CREAT | O_WRONLY, 0600);
    for (int i = 0; i < 64; i++)
        CHECK(write(fd, "not a checkpoint", 16) == 16);
    close(fd);
    uint64_t before = file_hash(path);
    CHECK(gpmcp_open_flags("cp-foreign", HO) == NULL);
    CHECK_MSG(gpm_last_error(), "not a checkpoint file");
    CHECK(file_hash(path) == before);
    CHECK(gpmcp_inspect(stdout, path) == 1);

    fresh("cp-dmg", path);
    cp = gpmcp_create_flags("cp-dmg", 4096, 2, 2, HO);
    CHECK(cp != NULL);
    gpmcp_close(cp);
    CHECK(stat(path, &st) == 0);
    /* Another version (with a valid checksum, as a future build would write). */
    gpmcp_header h;
    fd = open(path, O_RDWR);
    CHECK(pread(fd, &h, sizeof h, 0) == sizeof h);
    gpmcp_header v = h;
    v.version = 9;
    v.checksum = gpmcp_header_sum(&v);
    CHECK(pwrite(fd, &v, sizeof v, 0) == sizeof v);
    CHECK(gpmcp_open_flags("cp-dmg", HO) == NULL);
    CHECK_MSG(gpm_last_error(), "version 9");
    /* A torn header. */
    v = h;
    v.data_off += 128;
    CHECK(pwrite(fd, &v, sizeof v, 0) == sizeof v);
    CHECK(gpmcp_open_flags("cp-dmg", HO) == NULL);
    CHECK_MSG(gpm_last_error(), "checksum");
    CHECK(gpmcp_inspect(stdout, path) == -1);
    /* Intact header, truncated file. */
    CHECK(pwrite(fd, &h, sizeof h, 0) == sizeof h);
    CHECK(ftruncate(fd, st.st_size - 128) == 0);
    CHECK(gpmcp_open_flags("cp-dmg", HO) == NULL);
    CHECK_MSG(gpm_last_error(), "truncated");
    close(fd);
}

/* Random damage to the header: every open fails with a one-line message
 * naming the file, nothing crashes, and the file is left as it was. */
static void fuzzed_headers_are_refused(void)
{
    char path[4096];
    gpmcp *cp;
    fresh("cp-fuzz", path);
    cp = gpmcp_create_flags("cp-fuzz", 10000, 3, 3, HO);
    CHECK(cp != NULL);
    gpmcp_close(cp);
    int fd = open(path, O_RDWR), accepted = 0;
    gpmcp_header good;
    CHECK(pread(fd, &good, sizeof good, 0) == sizeof good);
    for (int i = 0; i < 3000; i++) {
        gpmcp_header bad = good;
        int n = 1 + (int)(check_rand() % 6);
        for (int j = 0; j < n; j++)
            ((uint8_t *)&bad)[check_rand() % sizeof bad] ^= (uint8_t)(1 + check_rand() % 255);
        /* Sometimes a forged checksum over the damage: the geometry checks
         * must still catch it, unless it describes this very file. */
        int forged = i % 7 == 0;
        if (forged)
            bad.checksum = gpmcp_header_sum(&bad);
        if (memcmp(&bad, &good, sizeof bad) == 0)
            continue;
        CHECK(pwrite(fd, &bad, sizeof bad, 0) == sizeof bad);
        uint64_t before = file_hash(path);
        cp = gpmcp_open_flags("cp-fuzz", HO);
        if (forged && cp) {
            const gpmcp_header *h = gpmcp_region(cp)->host;
            CHECKF(h->file_bytes == good.file_bytes && h->data_off == good.data_off &&
                   h->groups == good.groups && h->elements == good.elements,
                   "forged header %d with another geometry was accepted", i);
            gpmcp_close(cp);
            accepted++;
            continue;
        }
        CHECKF(cp == NULL, "damaged header %d was accepted", i);
        CHECKF(strchr(gpm_last_error(), '\n') == NULL && strstr(gpm_last_error(), path),
               "message \"%s\"", gpm_last_error());
        CHECK(gpmcp_inspect(stdout, path) != 0);
        CHECK(file_hash(path) == before);
    }
    CHECK(pwrite(fd, &good, sizeof good, 0) == sizeof good);
    close(fd);
    CHECKF(accepted < 50, "%d forged headers accepted", accepted);
    cp = gpmcp_open_flags("cp-fuzz", HO);
    CHECKF(cp != NULL, "%s", gpm_last_error());
    gpmcp_close(cp);
}

/* Random damage to a checkpointed group's layout (anything but its flip
 * word) makes restore refuse the group rather than copy the wrong bytes. */
static void fuzzed_group_tables_are_refused(void)
{
    char path[4096];
    static uint8_t a[1000], b[3000];
    gpmcp *cp;
    fresh("cp-gfuzz", path);
    cp = gpmcp_create_flags("cp-gfuzz", 4000, 2, 2, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 1) == 0 && gpmcp_register(cp, b, sizeof b, 1) == 0);
    CHECK(gpmcp_checkpoint(cp, 1) == 0);
    const gpmcp_header *h = gpmcp_region(cp)->host;
    uint8_t *g = (uint8_t *)gpmcp_group_at(gpmcp_region(cp)->host, h, 1);
    uint8_t *e = (uint8_t *)gpmcp_elems_of(gpmcp_region(cp)->host, h, 1);
    uint8_t saved_g[128], saved_e[32];
    memcpy(saved_g, g, sizeof saved_g);
    memcpy(saved_e, e, sizeof saved_e);
    for (int i = 0; i < 2000; i++) {
        /* Bytes 8..47 of the entry (its layout fields and seal), or a row. */
        if (check_rand() % 2)
            g[8 + check_rand() % 40] ^= (uint8_t)(1 + check_rand() % 255);
        else
            e[check_rand() % 32] ^= (uint8_t)(1 + check_rand() % 255);
        CHECKF(gpmcp_restore(cp, 1) == -1, "damage %d accepted", i);
        CHECK_MSG(gpm_last_error(), "corrupt");
        CHECK(gpmcp_checkpoint(cp, 1) == -1);
        memcpy(g, saved_g, sizeof saved_g);
        memcpy(e, saved_e, sizeof saved_e);
    }
    CHECK(gpmcp_restore(cp, 1) == 0);
    gpmcp_close(cp);
}

/* Every checkpoint variant's CPU side, with a flusher pool and without. */
static void every_mode_round_trips(void)
{
    static const gpmcp_mode modes[] = {GPMCP_GPM, GPMCP_GPM_NDP, GPMCP_GPM_EADR, GPMCP_CAP_MM,
                                       GPMCP_CAP_EADR};
    char path[4096];
    static uint32_t v[5000], w[33];
    gpm_flusher *f = gpm_flusher_create(2);
    CHECKF(f != NULL, "%s", gpm_last_error());
    fresh("cp-modes", path);
    gpmcp *cp = gpmcp_create_flags("cp-modes", sizeof v + sizeof w, 2, 1, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, v, sizeof v, 0) == 0 && gpmcp_register(cp, w, sizeof w, 0) == 0);
    uint32_t tag = 100;
    for (int use_pool = 0; use_pool < 2; use_pool++)
        for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
            gpmcp_how how = {modes[m], use_pool ? f : NULL, NULL, 0};
            long long seq = gpmcp_seq(cp, 0);
            fill(v, sizeof v, ++tag), fill(w, sizeof w, tag + 1000);
            CHECKF(gpmcp_checkpoint_how(cp, 0, &how) == 0, "mode %d: %s", (int)modes[m],
                   gpm_last_error());
            CHECK(gpmcp_seq(cp, 0) == seq + 1);
            memset(v, 0, sizeof v), memset(w, 0, sizeof w);
            CHECK(gpmcp_restore(cp, 0) == 0);
            CHECKF(holds(v, sizeof v, tag) && holds(w, sizeof w, tag + 1000), "mode %d",
                   (int)modes[m]);
        }
    gpmcp_how bad = {(gpmcp_mode)42, NULL, NULL, 0};
    CHECK(gpmcp_checkpoint_how(cp, 0, &bad) == -1);
    CHECK_MSG(gpm_last_error(), "unknown checkpoint mode");
    gpmcp_close(cp);
    gpm_flusher_destroy(f);
}

static void inspect_tells_the_state(void)
{
    char path[4096], out[8192];
    static uint8_t a[200];
    fresh("cp-insp", path);
    gpmcp *cp = gpmcp_create_flags("cp-insp", 1000, 2, 3, HO);
    CHECK(cp != NULL);
    CHECK(gpmcp_register(cp, a, sizeof a, 2) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(gpmcp_checkpoint(cp, 2) == 0);
    gpmcp_close(cp);
    FILE *m = fmemopen(out, sizeof out, "w");
    CHECK(m != NULL);
    CHECK(gpmcp_inspect(m, path) == 0);
    fclose(m);
    CHECK_MSG(out, "3 groups");
    CHECK_MSG(out, "group 0: empty");
    CHECK_MSG(out, "group 2: 1 elements, 200 bytes, consistent copy 0, seq 3");
    CHECK_MSG(out, "element 0: 200 bytes");
}

/* Real crashes on the CPU: a child checkpoints in a loop and is killed with
 * SIGKILL at a random moment; the file must then hold exactly one of the
 * last two completed checkpoints, whole. */
static void sigkill_during_checkpoints_recovers(void)
{
    static uint32_t buf[1 << 18];
    sigkill_trials("cp-kill", buf, sizeof buf, 20, HO, NULL);
}

int main(void)
{
    RUN(round_trip_two_groups);
    RUN(copies_alternate_and_data_is_aligned);
    RUN(torn_working_copy_is_ignored);
    RUN(registration_mismatches_are_errors);
    RUN(create_never_overwrites);
    RUN(open_rejects_foreign_and_damaged_files);
    RUN(fuzzed_headers_are_refused);
    RUN(fuzzed_group_tables_are_refused);
    RUN(every_mode_round_trips);
    RUN(inspect_tells_the_state);
    RUN(sigkill_during_checkpoints_recovers);
    CHECK_EXIT();
}
