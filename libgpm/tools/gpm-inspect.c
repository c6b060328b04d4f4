/* gpm-inspect FILE: what a PM file holds (an undo log, a checkpoint, or a
 * file of the workload harness), so a user can see why recovery does what
 * it does. Reads only.
 *
 * The harness keeps a run's objects as W-TAG.NAME beside its identity
 * W-TAG.id (workloads/common/objects.c; TAG is the scale or custom-HASH).
 * Logs and checkpoints carry libgpm headers, printed as for any such file;
 * regions are raw bytes in the workload's own layout, so only their name
 * and size say what they are; the identity (workloads/common/identity.h,
 * whose inline readers this tool shares) is printed field by field. The
 * mode is read by name from the identity, so this tool needs no copy of
 * the harness's mode table.
 * Exit status: 0 printed, 1 error or unknown file, 2 usage. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpm/args.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "gpm/gpm.h"
#include "gpm/log.h"
#include "gpm/log_layout.h"
#include "gpm/run_id.h"

#define PROG "gpm-inspect"

static const char synopsis[] =
    "FILE\n"
    "  prints the geometry and state of a libgpm log or checkpoint file, the run\n"
    "  identity of the workload harness (W-TAG.id), or what a harness file W-TAG.NAME\n"
    "  is; relative names go under GPM_PM_DIR; put -- before a name starting with '-'";

/* ---- harness file names: W-TAG.NAME ---- */

struct harness_name {
    char dir[4096], workload[64], tag[64], object[256];
};

/* 1 if FULL is named W-TAG.NAME as the harness names its files, with the
 * parts in H; 0 otherwise. */
static int parse_name(const char *full, struct harness_name *h)
{
    static const char *const scales[] = {"tiny", "small", "paper"};
    const char *base = strrchr(full, '/'), *dot, *dash = NULL;
    size_t stem, dir = base ? (size_t)(base - full) : 0;
    base = base ? base + 1 : full;
    if (!(dot = strrchr(base, '.')) || !dot[1] || dot == base)
        return 0;
    stem = (size_t)(dot - base);
    for (int i = 0; i < 3 && !dash; i++) {
        size_t n = strlen(scales[i]);
        if (stem > n + 1 && base[stem - n - 1] == '-' &&
            strncmp(base + stem - n, scales[i], n) == 0)
            dash = base + stem - n - 1;
    }
    /* custom-XXXXXXXX: 8 hex digits of the parameters' hash */
    if (!dash && stem > 16 && strncmp(base + stem - 16, "-custom-", 8) == 0 &&
        strspn(base + stem - 8, "0123456789abcdef") >= 8)
        dash = base + stem - 16;
    if (!dash || dash == base || (size_t)(dash - base) >= sizeof h->workload ||
        (size_t)(dot - dash) > sizeof h->tag || strlen(dot + 1) >= sizeof h->object ||
        dir >= sizeof h->dir)
        return 0;
    snprintf(h->dir, sizeof h->dir, "%.*s", (int)(dir ? dir : 1), dir ? full : ".");
    snprintf(h->workload, sizeof h->workload, "%.*s", (int)(dash - base), base);
    snprintf(h->tag, sizeof h->tag, "%.*s", (int)(dot - dash - 1), dash + 1);
    snprintf(h->object, sizeof h->object, "%s", dot + 1);
    return 1;
}

/* ---- the run identity ---- */

static const char *const state_names[] = {"?", "created", "running", "complete", "preparing"};
static const char *const state_meaning[] = {
    "?",
    "the run had not begun its work: --recover starts it anew",
    "a repetition was under way: --recover resumes from its durable progress where the "
    "mode keeps any, else reruns it",
    "the run finished its work: --recover restores what is durable and redoes nothing",
    "a repetition was resetting what it starts from: --recover starts it anew",
};

static int all_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Why slot S is not valid, into WHY. */
static void slot_problem(const struct gpm_run_id *s, char *why, size_t n)
{
    if (all_zero(s, sizeof *s))
        snprintf(why, n, "empty (never written)");
    else if (s->magic != GPM_RUN_ID_MAGIC)
        snprintf(why, n, "not an identity slot (bad magic)");
    else if (s->version != GPM_RUN_ID_VERSION)
        snprintf(why, n, "format version %u, this tool reads %u", s->version, GPM_RUN_ID_VERSION);
    else if (s->checksum != gpm_run_id_sum(s))
        snprintf(why, n, "checksum mismatch (a write torn by a crash, or damage)");
    else
        snprintf(why, n, "a field out of range (state %u, mode %u, %u objects)", s->state,
                 s->mode, s->nobj);
}

/* The other files of the run beside its identity, with their sizes. */
static void print_run_files(const struct harness_name *h)
{
    char prefix[200], path[4400];
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(h->dir);
    int k = 0;
    snprintf(prefix, sizeof prefix, "%s-%s.", h->workload, h->tag);
    if (!d)
        return;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            strcmp(e->d_name + strlen(prefix), "id") != 0) {
            snprintf(path, sizeof path, "%s/%s", h->dir, e->d_name);
            if (stat(path, &st) == 0)
                printf("%s%s (%lld bytes)", k++ ? ", " : "files\t", e->d_name,
                       (long long)st.st_size);
        }
    closedir(d);
    printf(k ? "\n" : "files\tnone beside it\n");
}

static void print_identity(const char *full, const struct gpm_run_id *slot,
                           const struct harness_name *h)
{
    int cur = gpm_run_id_current(slot);
    printf("file\t%s\n", full);
    printf("kind\trun identity of the workload harness: two slots, each sealed by a checksum; "
           "the valid one with the higher sequence is current\n");
    for (int i = 0; i < 2; i++) {
        char why[160];
        if (gpm_run_id_valid(&slot[i])) {
            printf("slot %d\tvalid: sequence %llu, %s, epoch %llu%s\n", i,
                   (unsigned long long)slot[i].seq, state_names[slot[i].state],
                   (unsigned long long)slot[i].epoch, i == cur ? " (current)" : "");
        } else {
            slot_problem(&slot[i], why, sizeof why);
            printf("slot %d\tinvalid: %s\n", i, why);
        }
    }
    if (cur < 0) {
        printf("current\tnone: no run identity to recover (--recover refuses these files)\n");
        return;
    }
    const struct gpm_run_id *s = &slot[cur];
    printf("current\tslot %d\n", cur);
    printf("workload\t%s\n", s->workload);
    printf("state\t%s: %s\n", state_names[s->state], state_meaning[s->state]);
    if (s->mode_name[0] && memchr(s->mode_name, 0, sizeof s->mode_name))
        printf("mode\t%s\n", s->mode_name);
    else
        printf("mode\t%u (a number: written before identities named their mode)\n", s->mode);
    printf("epoch\t%llu\n", (unsigned long long)s->epoch);
    printf("sequence\t%llu\n", (unsigned long long)s->seq);
    printf("seed\t%llu\n", (unsigned long long)s->seed);
    printf("params\t%s\n", s->params);
    printf("pid\t%llu (the process that wrote it last)\n", (unsigned long long)s->pid);
    printf("objects\t%u:", s->nobj);
    for (uint32_t i = 0; i < s->nobj; i++)
        printf(" %llu bytes%s", (unsigned long long)s->obj_bytes[i], i + 1 < s->nobj ? "," : "");
    printf("\n");
    if (h)
        print_run_files(h);
}

/* 1 if FULL is not an identity file; 0 printed; -1 error. */
static int inspect_identity(const char *full, const struct harness_name *h)
{
    static struct gpm_run_id slot[2];
    struct stat st;
    FILE *f;
    size_t n;
    int named = h && strcmp(h->object, "id") == 0;
    if (stat(full, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != GPM_RUN_ID_FILE_BYTES)
        return named && stat(full, &st) == 0
                   ? gpm_set_error("%s: %lld bytes, where a run identity has %u: not one the "
                                   "harness wrote (remove it, or check the file name)",
                                   full, (long long)st.st_size, GPM_RUN_ID_FILE_BYTES)
                   : 1;
    if (!(f = fopen(full, "rb")))
        return gpm_set_error("%s: cannot read it: check its permissions", full);
    n = fread(slot, 1, sizeof slot, f);
    fclose(f);
    if (n != sizeof slot)
        return gpm_set_error("%s: short read: check the file", full);
    if (!named && slot[0].magic != GPM_RUN_ID_MAGIC && slot[1].magic != GPM_RUN_ID_MAGIC)
        return 1;
    print_identity(full, slot, h);
    return 0;
}

/* ---- other harness files ---- */

/* What the identity beside a harness object says, in one line. */
static void print_run_state(const struct harness_name *h)
{
    static struct gpm_run_id slot[2];
    char path[4400];
    FILE *f;
    int cur;
    snprintf(path, sizeof path, "%s/%s-%s.id", h->dir, h->workload, h->tag);
    if (!(f = fopen(path, "rb"))) {
        printf("identity\t%s: absent (files of a run that did not keep it, or no run's)\n", path);
        return;
    }
    cur = fread(slot, 1, sizeof slot, f) == sizeof slot ? gpm_run_id_current(slot) : -1;
    fclose(f);
    if (cur < 0)
        printf("identity\t%s: no valid slot\n", path);
    else
        printf("identity\t%s: %s, epoch %llu, mode %s (gpm-inspect it for the rest)\n", path,
               state_names[slot[cur].state], (unsigned long long)slot[cur].epoch,
               slot[cur].mode_name[0] ? slot[cur].mode_name : "?");
}

/* The first 8 bytes of PATH (0 if it has fewer or cannot be read). */
static uint64_t first_word(const char *path)
{
    uint64_t w = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        if (fread(&w, 1, sizeof w, f) != sizeof w)
            w = 0;
        fclose(f);
    }
    return w;
}

static int describe_region(const char *full, const struct harness_name *h)
{
    struct stat st;
    if (stat(full, &st) != 0)
        return gpm_set_error("%s: cannot stat it: check the name", full);
    printf("file\t%s\n", full);
    printf("kind\tregion '%s' of workload %s (run %s): %lld bytes of raw data in the "
           "workload's own layout (workloads/%s/), no header to read\n",
           h->object, h->workload, h->tag, (long long)st.st_size, h->workload);
    print_run_state(h);
    return 0;
}

int main(int argc, char **argv)
{
    int first, r, named;
    struct gpm_flag flags[] = {
        GPM_FLAGS_REST(&first, 1, 1, "FILE", "pass the log or checkpoint file to inspect")};
    struct harness_name h;
    char full[4096];
    const char *file;

    if ((r = gpm_args_parse(PROG, synopsis, flags, argc, argv)) != 0)
        return r > 0 ? 0 : gpm_args_fail(PROG);
    file = argv[first];
    if (gpm_resolve_path(file, full, sizeof full) != 0)
        snprintf(full, sizeof full, "%s", file);
    named = parse_name(full, &h);
    r = inspect_identity(full, named ? &h : NULL);
    if (r == 1 && named) {
        /* A harness object: a log or a checkpoint by its magic, else a region. */
        uint64_t magic = first_word(full);
        if (magic == GPMLOG_MAGIC || magic == GPMCP_MAGIC)
            printf("harness\tobject '%s' of workload %s (run %s)\n", h.object, h.workload,
                   h.tag);
        else
            r = describe_region(full, &h);
    }
    if (r == 1)
        r = gpmlog_inspect(stdout, file);
    if (r == 1)
        r = gpmcp_inspect(stdout, file);
    if (r == 1) {
        fprintf(stderr, PROG ": %s: neither a libgpm log nor a checkpoint file (unknown "
                        "magic), nor a file of the workload harness (W-TAG.NAME): check the "
                        "file name\n", full);
        return 1;
    }
    if (r != 0) {
        fprintf(stderr, PROG ": %s\n", gpm_last_error());
        return 1;
    }
    return 0;
}
