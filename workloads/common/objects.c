/* The PM objects of a run: named files W-TAG.NAME beside the run's identity
 * W-TAG.id, with one lifecycle for all of them.
 *
 *   new run     creates what is missing, reuses files of the right size,
 *               resets checkpoints and logs so nothing of an earlier run is
 *               inherited, and writes a fresh identity;
 *   --recover   reopens everything as it is and refuses, untouched, files
 *               of other sizes, parameters or seed, or of a mode whose
 *               progress could not be resumed;
 *   both        lock every file first, so a second run on the same files is
 *               refused, and check every file before any device allocation.
 *
 * TAG is the scale ("small"), or "custom-<hash of the params>" so that runs
 * with different size flags never share files. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpm/cp_layout.h"
#include "gpm/log_layout.h"
#include "gpm/tx.h"
#include "harness.h"

/* ---- sizes, set by layout() ---- */

void wl_obj_region(struct wl_ctx *c, int i, size_t bytes) { c->h->obj[i].bytes = bytes; }

void wl_obj_checkpoint(struct wl_ctx *c, int i, size_t bytes, int nbuf)
{
    c->h->obj[i].bytes = bytes;
    c->h->obj[i].nbuf = nbuf;
}

void wl_obj_log_hcl(struct wl_ctx *c, int i, size_t bytes, int blocks, int threads)
{
    c->h->obj[i].bytes = bytes;
    c->h->obj[i].log_kind = GPMLOG_HCL;
    c->h->obj[i].log_blocks = blocks;
    c->h->obj[i].log_threads = threads;
    c->h->obj[i].log_parts = 0;
}

void wl_obj_log_conv(struct wl_ctx *c, int i, size_t bytes, int partitions)
{
    c->h->obj[i].bytes = bytes;
    c->h->obj[i].log_kind = GPMLOG_CONV;
    c->h->obj[i].log_parts = partitions;
    c->h->obj[i].log_blocks = c->h->obj[i].log_threads = 0;
}

gpm_region *wl_region(struct wl_ctx *c, int i) { return &c->h->obj[i].region; }
const char *wl_obj_path(const struct wl_ctx *c, int i) { return c->h->obj[i].path; }
size_t wl_obj_bytes(const struct wl_ctx *c, int i) { return c->h->obj[i].bytes; }
gpmcp *wl_checkpoint(struct wl_ctx *c, int i) { return c->h->obj[i].cp; }
gpmlog *wl_log(struct wl_ctx *c, int i) { return &c->h->obj[i].log; }

/* ---- file names and sizes ---- */

static int obj_file_bytes(const struct wl_ctx *c, struct wl_obj *o)
{
    if (o->kind == WL_OBJ_NONE) { /* the mode keeps nothing here */
        o->file_bytes = 0;
        return 0;
    }
    if (o->bytes == 0)
        return gpm_set_error("%s: layout() gave PM object '%s' no size", c->wl->name, o->name);
    if (o->kind == WL_OBJ_REGION || o->kind == WL_OBJ_REDO) {
        o->file_bytes = o->bytes;
    } else if (o->kind == WL_OBJ_CHECKPOINT) {
        gpmcp_header h;
        if (o->nbuf < 1 || o->nbuf > (int)GPMCP_MAX_ELEMENTS ||
            gpmcp_geometry(&h, o->bytes, (uint32_t)o->nbuf, 1) != 0)
            return gpm_set_error("%s: checkpoint '%s' of %d buffers and %zu bytes cannot be "
                                 "laid out: use 1..%u buffers", c->wl->name, o->name, o->nbuf,
                                 o->bytes, GPMCP_MAX_ELEMENTS);
        o->file_bytes = (size_t)h.file_bytes;
    } else {
        gpmlog_header h;
        if (gpmlog_header_init(&h, o->log_kind, o->bytes, (uint32_t)o->log_parts,
                               (uint32_t)o->log_blocks, (uint32_t)o->log_threads) != 0)
            return gpm_set_error("%s: log '%s' of %zu bytes (%u partitions, %d x %d threads) "
                                 "cannot be laid out: check the log sizes", c->wl->name,
                                 o->name, o->bytes, (unsigned)o->log_parts, o->log_blocks,
                                 o->log_threads);
        o->file_bytes = (size_t)h.file_size;
    }
    return 0;
}

static int set_path(const struct wl_ctx *c, const struct wl_run *run, const char *suffix,
                    char *out, size_t len)
{
    char name[512];
    snprintf(name, sizeof name, "%s-%s.%s", c->wl->name, run->tag, suffix);
    return gpm_resolve_path(name, out, len);
}

/* -1 with the message if PATH exists with another size; *EXISTS set. */
static int check_size(const char *path, size_t want, int *exists)
{
    struct stat st;
    *exists = stat(path, &st) == 0;
    if (!*exists)
        return 0;
    if (!S_ISREG(st.st_mode))
        return gpm_set_error("%s: not a regular file: remove it or use another PM directory",
                             path);
    if ((size_t)st.st_size != want)
        return gpm_set_error("%s: has %lld bytes, expected %zu for these sizes: remove it, or "
                             "run with the sizes it was made with", path, (long long)st.st_size,
                             want);
    return 0;
}

/* --recover: a file of another size, where another mode wrote the run,
 * is named by that mode: its files are laid out for it. */
static int size_in_mode(const struct wl_ctx *c, const struct wl_run *run, const char *path)
{
    if (!c->h->opt.recover || !run->found_valid || run->found.mode == (uint32_t)c->h->opt.mode)
        return -1;
    return gpm_set_error("%s: its files were laid out by a %s run: recover it with --mode %s "
                         "(%s)", path, wl_mode_name((enum wl_mode)run->found.mode),
                         wl_mode_name((enum wl_mode)run->found.mode), gpm_last_error());
}

static int nothing_to_recover(const char *path)
{
    return gpm_set_error("%s: does not exist: nothing to recover (run without --recover first, "
                         "or pass the --pm-dir, --scale and size flags of the crashed run)",
                         path);
}

/* ---- opening each kind ---- */

static int open_region(struct wl_ctx *c, struct wl_obj *o)
{
    int flags = (c->h->opt.recover ? 0 : GPM_CREATE) | (c->m->map_host_only ? GPM_HOST_ONLY : 0);
    if (gpm_map(&o->region, o->path, o->file_bytes, flags) != 0)
        return -1;
    o->created = o->region.created;
    /* CAP-fs and CAP-gds write through the file system; the mapping is for
     * reading. */
    if (o->kind == WL_OBJ_REGION && c->m->commit->files) {
        if (gpm_cap_file_open(&o->cf, o->path, o->file_bytes, c->m->commit->file_flags) != 0)
            return -1;
        o->cf_open = 1;
        if (o->cf.use_gds)
            snprintf(c->h->gds_way, sizeof c->h->gds_way, "%s", gpm_gds_way(&o->cf.gds));
    }
    return 0;
}

static int open_checkpoint(struct wl_ctx *c, struct wl_obj *o, int exists)
{
    /* CAP-fs and CAP-gds go through the file; the CPU counterpart
     * checkpoints host buffers, copied by the CPU. */
    int flags = c->m->commit->files ? GPMCP_FILE_IO | c->m->commit->file_flags
                : c->m->needs_gpu     ? 0
                                      : GPM_HOST_ONLY;
    o->cp = exists ? gpmcp_open_flags(o->path, flags)
                   : gpmcp_create_flags(o->path, o->bytes, o->nbuf, 1, flags);
    if (!o->cp)
        return -1;
    if (gpmcp_gds_way(o->cp))
        snprintf(c->h->gds_way, sizeof c->h->gds_way, "%s", gpmcp_gds_way(o->cp));
    o->created = !exists;
    return 0;
}

static int open_log(struct wl_ctx *c, struct wl_obj *o, int exists)
{
    int flags = c->m->needs_gpu ? 0 : GPM_HOST_ONLY, rc;
    const gpmlog_header *h = &o->log.hdr;
    gpmlog_header want;
    gpmlog_header_init(&want, o->log_kind, o->bytes, (uint32_t)o->log_parts,
                       (uint32_t)o->log_blocks, (uint32_t)o->log_threads);
    if (exists) {
        if (gpmlog_open(&o->log, o->path, flags) != 0)
            return -1;
        o->log_open = 1;
        if (h->kind != want.kind || h->n_slots != want.n_slots ||
            h->slot_bytes != want.slot_bytes || h->blocks != want.blocks ||
            h->threads != want.threads)
            return gpm_set_error("%s: a log of another geometry (%" PRIu32 " slots of %" PRIu32
                                 " bytes): remove it, or pass the flags it was made with",
                                 o->path, h->n_slots, h->slot_bytes);
        return 0;
    }
    rc = o->log_kind == GPMLOG_HCL
             ? gpmlog_create_hcl(&o->log, o->path, o->bytes, o->log_blocks, o->log_threads, flags)
             : gpmlog_create_conv(&o->log, o->path, o->bytes, o->log_parts, flags);
    if (rc != 0)
        return -1;
    o->log_open = o->created = 1;
    return 0;
}

/* A new run inherits nothing: no checkpoint, no log entry, no transaction.
 * Regions keep their bytes (the epoch tells old from new) unless the
 * identity that would say which epoch they hold is gone: then they are
 * zeroed, once. */
static int reset_object(struct wl_obj *o, int zero_regions)
{
    switch (o->kind) {
    case WL_OBJ_CHECKPOINT: return o->created ? 0 : gpmcp_reset(o->cp);
    case WL_OBJ_LOG: return o->created ? 0 : gpmtx_reset(&o->log);
    case WL_OBJ_REDO: /* made empty by wl_tx_reset before each repetition */
    case WL_OBJ_NONE:
    case WL_OBJ_TX: return 0;
    default:
        if (!zero_regions || o->created)
            return 0;
        memset(o->region.host, 0, o->region.size);
        return gpm_region_persist(&o->region, o->region.host, o->region.size);
    }
}

static void close_object(struct wl_obj *o)
{
    if (o->cf_open)
        gpm_cap_file_close(&o->cf);
    o->cf_open = 0;
    gpm_unmap(&o->region);
    wl_cp_free(o); /* before its gpmcp closes: a copy may still run */
    if (o->cp)
        gpmcp_close(o->cp);
    o->cp = NULL;
    wl_dev_free(o->rec_dev);
    wl_dev_free(o->dev_copy);
    o->rec_dev = o->dev_copy = NULL;
    wl_volatile_free(o);
    wl_tx_free(o);
    if (o->log_open)
        gpmlog_close(&o->log);
    o->log_open = 0;
    gpm_unlock_file(o->lock_fd);
    o->lock_fd = -1;
}

/* ---- the identity ---- */

static const struct gpm_run_id *slots(const struct wl_run *run)
{
    return (const struct gpm_run_id *)run->id.host;
}

int wl_identity_write(struct wl_ctx *c, struct wl_run *run, enum gpm_run_state state)
{
    struct gpm_run_id s;
    struct gpm_run_id *dst;
    int slot = run->cur < 0 ? 0 : 1 - run->cur;
    memset(&s, 0, sizeof s);
    s.magic = GPM_RUN_ID_MAGIC;
    s.version = GPM_RUN_ID_VERSION;
    s.state = (uint32_t)state;
    s.seq = run->cur < 0 ? 1 : slots(run)[run->cur].seq + 1;
    snprintf(s.workload, sizeof s.workload, "%s", c->wl->name);
    snprintf(s.params, sizeof s.params, "%s", run->params);
    s.params_hash = gpm_run_id_hash_params(run->params);
    s.seed = c->h->opt.seed;
    s.mode = (uint32_t)c->h->opt.mode;
    snprintf(s.mode_name, sizeof s.mode_name, "%s", wl_mode_name(c->h->opt.mode));
    s.nobj = (uint32_t)c->h->nobj;
    s.epoch = c->epoch;
    for (int i = 0; i < c->h->nobj; i++)
        s.obj_bytes[i] = c->h->obj[i].file_bytes;
    s.pid = (uint64_t)getpid();
    s.checksum = gpm_run_id_sum(&s);
    dst = (struct gpm_run_id *)run->id.host + slot;
    memcpy(dst, &s, sizeof s);
    if (gpm_region_persist(&run->id, dst, sizeof s) != 0)
        return -1;
    run->cur = slot;
    return 0;
}

/* --recover: the identity must be this run's, written by a mode whose
 * durable progress this mode can resume (or by this very mode). */
static int check_identity(const struct wl_ctx *c, const struct wl_run *run)
{
    const struct gpm_run_id *id = &run->found;
    enum wl_mode w = (enum wl_mode)id->mode, m = c->h->opt.mode;
    if (!run->found_valid)
        return gpm_set_error("%s: holds no valid run identity (the run was killed while its "
                             "files were being created, or they are not this harness's): "
                             "nothing to recover; run without --recover", run->id.path);
    if (strcmp(id->workload, c->wl->name) != 0)
        return gpm_set_error("%s: written by workload %s, not %s: nothing of %s to recover",
                             run->id.path, id->workload, c->wl->name, c->wl->name);
    if (id->params_hash != gpm_run_id_hash_params(run->params) || id->seed != c->h->opt.seed)
        return gpm_set_error("%s: written with %s and seed %" PRIu64 ": pass the same flags "
                             "and --seed to recover it", run->id.path, id->params, id->seed);
    if (w != m && !wl_resumes(c->wl, w, m))
        return gpm_set_error("%s: written by a %s run, whose progress %s: recover it with "
                             "--mode %s", run->id.path, wl_mode_name(w),
                             wl_resumable(c->wl, w) ? "this mode cannot resume"
                                                    : "is not durable until it ends",
                             wl_mode_name(w));
    if ((int)id->nobj != c->h->nobj)
        return gpm_set_error("%s: records %u PM objects, %s has %d: run without --recover",
                             run->id.path, id->nobj, c->wl->name, c->h->nobj);
    return 0;
}

static int open_identity(struct wl_ctx *c, struct wl_run *run)
{
    char path[4096];
    int exists;
    if (set_path(c, run, "id", path, sizeof path) != 0 ||
        check_size(path, GPM_RUN_ID_FILE_BYTES, &exists) != 0)
        return -1;
    if (!exists && c->h->opt.recover)
        return nothing_to_recover(path);
    if (gpm_map(&run->id, path, GPM_RUN_ID_FILE_BYTES,
                (c->h->opt.recover ? 0 : GPM_CREATE) | GPM_HOST_ONLY) != 0)
        return -1;
    run->id_created = run->id.created;
    if (gpm_lock_file(path, &run->id_lock) != 0)
        return -1;
    run->locked = 1;
    run->cur = gpm_run_id_current(slots(run));
    run->found_valid = run->cur >= 0;
    if (run->found_valid)
        run->found = slots(run)[run->cur];
    return 0;
}

/* ---- the whole set ---- */

static void make_tag(struct wl_ctx *c, struct wl_run *run)
{
    wl_params_string(c, run->params, sizeof run->params);
    if (c->h->opt.custom)
        snprintf(run->tag, sizeof run->tag, "custom-%08x",
                 (unsigned)(gpm_run_id_hash_params(run->params) & 0xffffffffu));
    else
        snprintf(run->tag, sizeof run->tag, "%s", wl_scale_name(c->h->opt.scale));
}

/* A new run over the files of a run that was killed mid-work starts over:
 * say so, once, and how to resume it instead. */
static void note_crashed_run(const struct wl_ctx *c, const struct wl_run *run)
{
    const struct gpm_run_id *id = &run->found;
    if (!run->found_valid || id->state != GPM_RUN_RUNNING ||
        strcmp(id->workload, c->wl->name) != 0)
        return;
    fprintf(stderr, "%s: %s held a %s run that was killed mid-work (epoch %llu): this run "
            "starts over and discards it; to resume it instead, run with --recover --mode %s "
            "and its flags (%s, seed %llu)\n", c->wl->name, run->id.path,
            wl_mode_name((enum wl_mode)id->mode), (unsigned long long)id->epoch,
            wl_mode_name((enum wl_mode)id->mode), id->params, (unsigned long long)id->seed);
}

int wl_objects_open(struct wl_ctx *c, struct wl_run *run)
{
    int exists[WL_MAX_OBJECTS], zero_regions;
    memset(run, 0, sizeof *run);
    run->id_lock = -1;
    run->cur = -1;
    for (int i = 0; i < c->h->nobj; i++)
        c->h->obj[i].lock_fd = -1;
    make_tag(c, run);
    /* --recover reads the identity first: the run it names decides what
     * the files must be, and a mismatch is told in its terms. */
    if (c->h->opt.recover && (open_identity(c, run) != 0 || check_identity(c, run) != 0))
        goto fail;
    /* Every size and path is checked before anything is opened. */
    for (int i = 0; i < c->h->nobj; i++) {
        struct wl_obj *o = &c->h->obj[i];
        exists[i] = 0;
        if (o->kind == WL_OBJ_NONE)
            continue;
        if (obj_file_bytes(c, o) != 0 ||
            set_path(c, run, o->name, o->path, sizeof o->path) != 0)
            goto fail;
        if (check_size(o->path, o->file_bytes, &exists[i]) != 0) {
            size_in_mode(c, run, o->path);
            goto fail;
        }
        if (c->h->opt.recover && !exists[i]) {
            nothing_to_recover(o->path);
            goto fail;
        }
    }
    if (!c->h->opt.recover) {
        if (open_identity(c, run) != 0)
            goto fail;
        note_crashed_run(c, run);
    }
    for (int i = 0; i < c->h->nobj; i++) {
        struct wl_obj *o = &c->h->obj[i];
        int rc;
        if (o->kind == WL_OBJ_NONE)
            continue;
        rc = o->kind == WL_OBJ_REGION || o->kind == WL_OBJ_REDO ? open_region(c, o)
             : o->kind == WL_OBJ_CHECKPOINT                     ? open_checkpoint(c, o, exists[i])
                                                                : open_log(c, o, exists[i]);
        if (rc != 0 || gpm_lock_file(o->path, &o->lock_fd) != 0)
            goto fail;
    }
    if (c->h->opt.recover) {
        c->epoch = (uint32_t)run->found.epoch;
        return 0;
    }
    zero_regions = !(run->found_valid && strcmp(run->found.workload, c->wl->name) == 0);
    for (int i = 0; i < c->h->nobj; i++)
        if (reset_object(&c->h->obj[i], zero_regions) != 0)
            goto fail;
    c->epoch = zero_regions ? 0 : (uint32_t)run->found.epoch;
    if (wl_identity_write(c, run, GPM_RUN_CREATED) != 0)
        goto fail;
    return 0;
fail:
    {
        char why[1024];
        snprintf(why, sizeof why, "%s", gpm_last_error());
        wl_objects_close(c, run, WL_FILES_REMOVE_CREATED);
        return gpm_set_error("%s", why);
    }
}

void wl_objects_close(struct wl_ctx *c, struct wl_run *run, enum wl_files what)
{
    /* Only a run that holds the identity's lock may remove anything: every
     * run takes that lock before it opens an object, so no other run is
     * using these files. */
    int remove = run->locked && what != WL_FILES_KEEP;
    for (int i = 0; i < c->h->nobj; i++) {
        struct wl_obj *o = &c->h->obj[i];
        close_object(o);
        if (remove && (what == WL_FILES_REMOVE || o->created) && o->path[0])
            unlink(o->path);
    }
    if (run->id.host) { /* the region keeps its path once unmapped */
        gpm_unmap(&run->id);
        if (remove && (what == WL_FILES_REMOVE || run->id_created))
            unlink(run->id.path);
    }
    gpm_unlock_file(run->id_lock);
    run->id_lock = -1;
    run->locked = 0;
}
