/* Checkpointing for the workloads: gpmcp in the GPM, NDP, CAP-mm and eADR
 * modes (gpmcp_checkpoint_how picks the copy engine, the flip is the same),
 * and in CAP-fs mode the same discipline through pwrite + fsync (fscp.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "fscp.h"
#include "gpm/cp.h"
#include "gpm/cp_layout.h"
#include "wl.h"

struct wl_cp {
    gpmcp *g;                  /* every mode but cap-fs */
    gpm_cap_file cf;           /* cap-fs: written through the engine */
    int cf_open;
    int rfd;                   /* cap-fs: the same file for reading (the engine's is write-only) */
    int nbuf, maxbuf;
    void *dev[WL_FSCP_MAX_BUF];
    size_t size[WL_FSCP_MAX_BUF];
    size_t bytes;              /* capacity asked for */
    struct wl_fscp_slot slot[2];
    int slot_valid[2];
    void *stage;               /* cap-fs: pinned host buffer restores read through */
    size_t stage_bytes;
};

size_t wl_cp_file_bytes(enum wl_mode m, size_t bytes, int nbuf)
{
    if (m == WL_CAP_FS)
        /* Each buffer padded to 128 bytes, as gpmcp does. */
        return wl_fscp_copy_off(bytes + (size_t)nbuf * WL_FSCP_ALIGN, 2);
    gpmcp_header h;
    if (gpmcp_geometry(&h, bytes, (uint32_t)nbuf, 1) != 0)
        return 0;
    return (size_t)h.file_bytes;
}

static int file_size(const char *path, long long *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    *size = (long long)st.st_size;
    return 0;
}

int wl_cp_open(struct wl_ctx *c, size_t bytes, int nbuf)
{
    struct wl_cp *k;
    char path[4096];
    long long have;
    size_t want = wl_cp_file_bytes(c->opt.mode, bytes, nbuf);
    int exists;

    if (nbuf < 1 || nbuf > WL_FSCP_MAX_BUF || want == 0)
        return gpm_set_error("%s: checkpoint of %d buffers / %zu bytes is out of range",
                             c->pm_name, nbuf, bytes);
    if (gpm_resolve_path(c->pm_name, path, sizeof path) != 0)
        return -1;
    exists = file_size(path, &have) == 0;
    if (!exists && !c->fresh)
        return gpm_set_error("%s: does not exist: nothing to recover (run without --recover "
                             "first, or check --pm-dir and the size flags)", path);
    if (exists && (size_t)have != want)
        return gpm_set_error("%s: has %lld bytes, expected %zu for these sizes: remove it, or "
                             "run with the sizes it was made with", path, have, want);
    k = calloc(1, sizeof *k);
    if (!k)
        return gpm_set_error("out of memory");
    k->maxbuf = nbuf;
    k->bytes = bytes;
    if (c->opt.mode == WL_CAP_FS) {
        if (gpm_cap_file_open(&k->cf, c->pm_name, want, c->fresh ? GPM_CREATE : 0) != 0) {
            free(k);
            return -1;
        }
        k->cf_open = 1;
        k->rfd = open(k->cf.path, O_RDONLY | O_CLOEXEC);
        if (k->rfd < 0) {
            gpm_set_error("%s: cannot open for reading (%s)", k->cf.path, strerror(errno));
            gpm_cap_file_close(&k->cf);
            free(k);
            return -1;
        }
        /* Restores read through pinned memory, allocated here so that a
         * timed restore does not pay for it. */
        k->stage_bytes = want < (64u << 20) ? want : (64u << 20);
        if (cudaHostAlloc(&k->stage, k->stage_bytes, cudaHostAllocDefault) != cudaSuccess) {
            gpm_set_error("%s: cannot allocate %zu bytes of pinned memory to restore through",
                          k->cf.path, k->stage_bytes);
            close(k->rfd);
            gpm_cap_file_close(&k->cf);
            free(k);
            return -1;
        }
    } else {
        k->g = exists ? gpmcp_open(c->pm_name) : gpmcp_create(c->pm_name, bytes, nbuf, 1);
        if (!k->g) {
            free(k);
            return -1;
        }
    }
    c->cp = k;
    return 0;
}

int wl_cp_register(struct wl_ctx *c, void *dev, size_t size)
{
    struct wl_cp *k = c->cp;
    size_t used = 0;
    for (int i = 0; i < k->nbuf; i++)
        used += k->size[i];
    if (k->nbuf >= k->maxbuf)
        return gpm_set_error("%s: more than the %d buffers the checkpoint was opened for",
                             c->pm_name, k->maxbuf);
    if (size > k->bytes - used)
        return gpm_set_error("%s: registering %zu more bytes exceeds the %zu the checkpoint was "
                             "opened for: pass the total to wl_cp_open", c->pm_name, size,
                             k->bytes);
    if (k->g && gpmcp_register(k->g, dev, size, 0) != 0)
        return -1;
    k->dev[k->nbuf] = dev;
    k->size[k->nbuf] = size;
    k->nbuf++;
    return 0;
}

/* Reads both cap-fs slots (they are 4 KiB each: cheap, and never cached). */
static int fscp_read_slots(struct wl_cp *k)
{
    for (int s = 0; s < 2; s++) {
        ssize_t n = pread(k->rfd, &k->slot[s], sizeof k->slot[s], (off_t)s * WL_FSCP_SLOT);
        if (n != (ssize_t)sizeof k->slot[s])
            return gpm_set_error("%s: cannot read checkpoint slot %d (%s)", k->cf.path, s,
                                 n < 0 ? strerror(errno) : "short read");
        k->slot_valid[s] = wl_fscp_slot_valid(&k->slot[s], k->size, k->nbuf);
    }
    return 0;
}

static int fscp_checkpoint(struct wl_ctx *c, struct wl_cp *k)
{
    size_t cb = wl_fscp_copy_bytes(k->size, k->nbuf), off;
    int cons, w;
    struct wl_fscp_slot s;
    uint64_t seq;
    if (fscp_read_slots(k) != 0)
        return -1;
    cons = wl_fscp_consistent(k->slot_valid[0], k->slot[0].seq, k->slot_valid[1],
                              k->slot[1].seq);
    w = cons < 0 ? 0 : 1 - cons;
    seq = cons < 0 ? 1 : k->slot[cons].seq + 1;
    off = wl_fscp_copy_off(cb, w);
    for (int i = 0; i < k->nbuf; i++) {
        if (gpm_cap_fs(&k->cf, (off_t)off, k->dev[i], k->size[i]) != 0)
            return -1;
        off += wl_fscp_align(k->size[i]);
        c->bytes_persisted += (double)k->size[i];
    }
    memset(&s, 0, sizeof s);
    s.magic = WL_FSCP_MAGIC;
    s.seq = seq;
    s.nbuf = (uint64_t)k->nbuf;
    s.copy_bytes = cb;
    for (int i = 0; i < k->nbuf; i++)
        s.size[i] = k->size[i];
    s.checksum = wl_fscp_sum(&s);
    if (gpm_cap_fs_host(&k->cf, (off_t)w * WL_FSCP_SLOT, &s, sizeof s) != 0)
        return -1;
    c->bytes_persisted += (double)sizeof s;
    return 0;
}

static const gpmcp_mode how_of[WL_NMODES] = {
    [WL_GPM] = GPMCP_GPM,       [WL_GPM_NDP] = GPMCP_GPM_NDP,   [WL_GPM_EADR] = GPMCP_GPM_EADR,
    [WL_CAP_MM] = GPMCP_CAP_MM, [WL_CAP_EADR] = GPMCP_CAP_EADR,
};

int wl_cp_checkpoint(struct wl_ctx *c)
{
    struct wl_cp *k = c->cp;
    gpmcp_how how = {0}; /* every field the harness does not set (the stream) is NULL */
    if (k->cf_open)
        return fscp_checkpoint(c, k);
    how.mode = how_of[c->opt.mode];
    how.flusher = c->flusher;
    if (gpmcp_checkpoint_how(k->g, 0, &how) != 0)
        return -1;
    for (int i = 0; i < k->nbuf; i++)
        c->bytes_persisted += (double)k->size[i];
    c->bytes_persisted += 8; /* the flip word */
    return 0;
}

static int fscp_restore(struct wl_cp *k)
{
    size_t cb = wl_fscp_copy_bytes(k->size, k->nbuf), off;
    int cons;
    if (fscp_read_slots(k) != 0)
        return -1;
    cons = wl_fscp_consistent(k->slot_valid[0], k->slot[0].seq, k->slot_valid[1],
                              k->slot[1].seq);
    if (cons < 0)
        return 1;
    off = wl_fscp_copy_off(cb, cons);
    for (int i = 0; i < k->nbuf; i++) {
        for (size_t done = 0; done < k->size[i];) {
            size_t n = k->size[i] - done < k->stage_bytes ? k->size[i] - done : k->stage_bytes;
            ssize_t got = pread(k->rfd, k->stage, n, (off_t)(off + done));
            if (got <= 0)
                return gpm_set_error("%s: cannot read the checkpoint (%s)", k->cf.path,
                                     got < 0 ? strerror(errno) : "short file");
            if (cudaMemcpy((char *)k->dev[i] + done, k->stage, (size_t)got,
                           cudaMemcpyHostToDevice) != cudaSuccess)
                return gpm_set_error("%s: restore copy to the GPU failed", k->cf.path);
            done += (size_t)got;
        }
        off += wl_fscp_align(k->size[i]);
    }
    return 0;
}

int wl_cp_restore(struct wl_ctx *c)
{
    struct wl_cp *k = c->cp;
    long long seq;
    if (k->cf_open)
        return fscp_restore(k);
    seq = gpmcp_seq(k->g, 0);
    if (seq < 0)
        return -1;
    if (seq == 0)
        return 1;
    return gpmcp_restore(k->g, 0);
}

void wl_cp_close(struct wl_ctx *c)
{
    struct wl_cp *k = c->cp;
    if (!k)
        return;
    if (k->g)
        gpmcp_close(k->g);
    if (k->cf_open) {
        gpm_cap_file_close(&k->cf);
        close(k->rfd);
    }
    if (k->stage)
        cudaFreeHost(k->stage);
    free(k);
    c->cp = NULL;
}
