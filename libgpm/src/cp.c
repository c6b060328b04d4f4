/* Checkpoint files: creation, validation, registration, the double-buffered
 * checkpoint with its atomic flip, restore and inspection. The layout and
 * its checks live in gpm/cp_layout.h, shared with the GPU and the tests. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cp_internal.h"

static uint8_t *pm(const gpmcp *cp) { return (uint8_t *)cp->r.host; }

static uint64_t load_flip(const gpmcp_group *g)
{
    return __atomic_load_n(&g->flip, __ATOMIC_ACQUIRE);
}

static void cp_free(gpmcp *cp)
{
    if (!cp)
        return;
    if (cp->dev_xfers)
        cudaFree(cp->dev_xfers);
    if (cp->file_io)
        cpfs_close(cp);
    gpm_unmap(&cp->r);
    free(cp->regs);
    free(cp->nreg);
    free(cp->xfers_stale);
    free(cp);
}

static int alloc_state(gpmcp *cp)
{
    size_t slots = (size_t)cp->h.groups * cp->h.elements;
    cp->regs = calloc(slots, sizeof *cp->regs);
    cp->nreg = calloc(cp->h.groups, sizeof *cp->nreg);
    cp->xfers_stale = calloc(cp->h.groups, 1);
    if (!cp->regs || !cp->nreg || !cp->xfers_stale)
        return gpm_set_error("%s: out of memory for %zu checkpoint registrations", cp->r.path,
                             slots);
    /* The CAP-fs way copies with pwrite, never with the kernel. */
    if (cp->file_io)
        return cpfs_open(cp);
    if (!cp->host_only) {
        cudaError_t e = cudaMalloc((void **)&cp->dev_xfers, slots * sizeof(gpmcp_xfer));
        if (e != cudaSuccess) {
            cp->dev_xfers = NULL;
            return gpm_set_error("%s: cannot allocate the checkpoint copy list on the GPU (%s)",
                                 cp->r.path, cudaGetErrorString(e));
        }
    }
    return 0;
}

static const char *fault_fix(gpmcp_header_fault f)
{
    switch (f) {
    case GPMCP_HEADER_MAGIC:
    case GPMCP_HEADER_TOO_SMALL: return "pass a file made by gpmcp_create";
    case GPMCP_HEADER_VERSION:
        return "use the GPMbench build that wrote it, or remove it and checkpoint again";
    case GPMCP_HEADER_FILE_SIZE:
        return "the file was truncated or extended: restore it from a copy, or remove it and "
               "checkpoint again";
    default: return "restore it from a copy, or remove it and checkpoint again";
    }
}

/* Validates a mapped file's header without writing; a one-line error. */
static int validate_header(const gpm_region *r, gpmcp_header *out)
{
    gpmcp_header h;
    gpmcp_header_fault f;
    memset(&h, 0, sizeof h);
    memcpy(&h, r->host, r->size < sizeof h ? r->size : sizeof h);
    f = gpmcp_header_check(&h, r->size);
    if (f == GPMCP_HEADER_OK) {
        *out = h;
        return 0;
    }
    if (f == GPMCP_HEADER_VERSION)
        return gpm_set_error("%s: checkpoint format version %" PRIu32 ", this build reads "
                             "version %u: %s", r->path, h.version, GPMCP_VERSION,
                             fault_fix(f));
    if (f == GPMCP_HEADER_FILE_SIZE)
        return gpm_set_error("%s: has %zu bytes, its checkpoint header records %" PRIu64
                             ": %s", r->path, r->size, h.file_bytes, fault_fix(f));
    return gpm_set_error("%s: %s: %s", r->path, gpmcp_header_fault_str(f), fault_fix(f));
}

/* A handle with nothing open yet, its kind taken from FLAGS. */
static gpmcp *new_handle(int flags)
{
    gpmcp *cp = calloc(1, sizeof *cp);
    if (!cp)
        return NULL;
    cp->host_only = (flags & GPM_HOST_ONLY) != 0;
    cp->file_io = (flags & GPMCP_FILE_IO) != 0;
    cp->gds = cp->file_io && (flags & GPM_CAP_GDS) != 0;
    cp->rfd = -1;
    cp->cf.fd = -1;
    return cp;
}

/* gpm_map's flags for FLAGS: the CAP-fs way never registers the mapping. */
static int map_flags(int flags)
{
    if (flags & GPMCP_FILE_IO)
        return (flags & ~(GPMCP_FILE_IO | GPM_CAP_GDS)) | GPM_HOST_ONLY;
    return flags & ~GPM_CAP_GDS;
}

gpmcp *gpmcp_create_flags(const char *path, size_t size, int elements, int groups, int flags)
{
    gpmcp_header h;
    char full[4096];
    struct stat st;
    gpmcp *cp;

    if (gpm_resolve_path(path, full, sizeof full) != 0)
        return NULL;
    if (elements <= 0 || (unsigned)elements > GPMCP_MAX_ELEMENTS || groups <= 0 ||
        (unsigned)groups > GPMCP_MAX_GROUPS) {
        gpm_set_error("%s: %d elements and %d groups: each must be 1 to %u", full, elements,
                      groups, GPMCP_MAX_GROUPS);
        return NULL;
    }
    if (size == 0 || (uint64_t)size > GPMCP_MAX_CAPACITY) {
        gpm_set_error("%s: checkpoint size %zu bytes: must be 1 to %llu", full, size,
                      (unsigned long long)GPMCP_MAX_CAPACITY);
        return NULL;
    }
    if (stat(full, &st) == 0) {
        gpm_set_error("%s: already exists: open it with gpmcp_open, or remove it to start a "
                      "new checkpoint", full);
        return NULL;
    }
    gpmcp_geometry(&h, size, (uint32_t)elements, (uint32_t)groups);

    cp = new_handle(flags);
    if (!cp) {
        gpm_set_error("%s: out of memory", full);
        return NULL;
    }
    if (gpm_map(&cp->r, full, h.file_bytes, map_flags(flags) | GPM_CREATE) != 0) {
        free(cp);
        return NULL;
    }
    if (!cp->r.created) {
        /* It appeared between the check and the map: not ours to write. */
        gpm_unmap(&cp->r);
        free(cp);
        gpm_set_error("%s: already exists: open it with gpmcp_open, or remove it to start a "
                      "new checkpoint", full);
        return NULL;
    }
    cp->h = h;
    if (alloc_state(cp) != 0) {
        cp_free(cp);
        unlink(full);
        return NULL;
    }
    /* A new file is zero: every group empty. Tables first, header last, so
     * a crash during creation leaves a header that fails its checksum. */
    memset(pm(cp) + h.group_off, 0, h.data_off - h.group_off);
    if (gpm_region_persist(&cp->r, pm(cp) + h.group_off, h.data_off - h.group_off) != 0) {
        cp_free(cp);
        unlink(full);
        return NULL;
    }
    memcpy(pm(cp), &h, sizeof h);
    if (gpm_region_persist(&cp->r, pm(cp), sizeof h) != 0) {
        cp_free(cp);
        unlink(full);
        return NULL;
    }
    return cp;
}

gpmcp *gpmcp_create(const char *path, size_t size, int elements, int groups)
{
    return gpmcp_create_flags(path, size, elements, groups, 0);
}

gpmcp *gpmcp_open_flags(const char *path, int flags)
{
    gpmcp *cp = new_handle(flags);
    if (!cp) {
        gpm_set_error("%s: out of memory", path ? path : "(null)");
        return NULL;
    }
    if (gpm_map(&cp->r, path, 0, map_flags(flags) & ~GPM_CREATE) != 0) {
        free(cp);
        return NULL;
    }
    if (validate_header(&cp->r, &cp->h) != 0 || alloc_state(cp) != 0) {
        cp_free(cp);
        return NULL;
    }
    return cp;
}

gpmcp *gpmcp_open(const char *path)
{
    return gpmcp_open_flags(path, 0);
}

void gpmcp_close(gpmcp *cp)
{
    cp_free(cp);
}

const char *gpmcp_gds_way(const gpmcp *cp)
{
    return cp && cp->cf.use_gds ? gpm_gds_way(&cp->cf.gds) : NULL;
}

const gpm_region *gpmcp_region(const gpmcp *cp)
{
    return cp ? &cp->r : NULL;
}

static int check_group(const gpmcp *cp, int group)
{
    if (!cp)
        return gpm_set_error("checkpoint handle is NULL: create or open one first");
    if (group < 0 || (uint32_t)group >= cp->h.groups)
        return gpm_set_error("%s: group %d does not exist: the file has groups 0 to %" PRIu32,
                             cp->r.path, group, cp->h.groups - 1);
    return 0;
}

/* A group's state, including that its copies overlap no other group's. */
static gpmcp_group_state group_state(const gpmcp *cp, uint32_t gi)
{
    const gpmcp_group *g = cp_group(cp, gi);
    gpmcp_group_state s = gpmcp_group_check(&cp->h, g, cp_elems(cp, gi), gi);
    if (s != GPMCP_GROUP_LAID_OUT && s != GPMCP_GROUP_CHECKPOINTED)
        return s;
    for (uint32_t j = 0; j < cp->h.groups; j++) {
        const gpmcp_group *o = cp_group(cp, j);
        if (j == gi || o->layout_sum == 0)
            continue;
        gpmcp_group_state so = gpmcp_group_check(&cp->h, o, cp_elems(cp, j), j);
        if ((so == GPMCP_GROUP_LAID_OUT || so == GPMCP_GROUP_CHECKPOINTED) &&
            gpmcp_groups_overlap(g, o))
            return GPMCP_GROUP_CORRUPT;
    }
    return s;
}

static int corrupt_group(const gpmcp *cp, uint32_t g)
{
    return gpm_set_error("%s: checkpoint group %" PRIu32 " has a corrupt layout (its checksum "
                         "or bounds do not verify): restore the file from a copy, or remove "
                         "it and checkpoint again", cp->r.path, g);
}

int gpmcp_register(gpmcp *cp, void *addr, size_t size, int group)
{
    uint32_t k;
    if (check_group(cp, group) != 0)
        return -1;
    k = cp->nreg[group];
    if (!addr || size == 0)
        return gpm_set_error("%s: registration %" PRIu32 " of group %d is empty (address %p, "
                             "%zu bytes): register a buffer", cp->r.path, k, group, addr, size);
    if (k >= cp->h.elements)
        return gpm_set_error("%s: group %d already has %" PRIu32 " registrations, the most "
                             "the file was created for: create it with more elements",
                             cp->r.path, group, k);
    if ((uint64_t)size > cp->h.capacity)
        return gpm_set_error("%s: a buffer of %zu bytes exceeds the checkpoint's capacity of "
                             "%" PRIu64 " bytes: create it with a larger size", cp->r.path,
                             size, cp->h.capacity);
    if (!cp->host_only) {
        struct cudaPointerAttributes a;
        if (cudaPointerGetAttributes(&a, addr) != cudaSuccess ||
            a.type == cudaMemoryTypeUnregistered) {
            cudaGetLastError();
            return gpm_set_error("%s: registration %" PRIu32 " of group %d (%p) is not GPU "
                                 "memory: register buffers from cudaMalloc", cp->r.path, k,
                                 group, addr);
        }
    }
    /* A group already laid out on PM fixes its sizes: say so now rather than
     * at the checkpoint. */
    gpmcp_group_state s = group_state(cp, (uint32_t)group);
    if (s == GPMCP_GROUP_CORRUPT)
        return corrupt_group(cp, (uint32_t)group);
    if (s != GPMCP_GROUP_EMPTY) {
        const gpmcp_group *g = cp_group(cp, (uint32_t)group);
        const gpmcp_elem *e = cp_elems(cp, (uint32_t)group);
        if (k >= g->nelem)
            return gpm_set_error("%s: group %d recorded %" PRIu32 " buffers, this is "
                                 "registration %" PRIu32 ": register the same buffers in the "
                                 "same order as when it was written", cp->r.path, group,
                                 g->nelem, k + 1);
        if (e[k].size != (uint64_t)size)
            return gpm_set_error("%s: registration %" PRIu32 " of group %d has %zu bytes, "
                                 "the checkpoint recorded %" PRIu64 ": register the same "
                                 "buffers in the same order as when it was written",
                                 cp->r.path, k, group, size, e[k].size);
    }
    cp->regs[(size_t)group * cp->h.elements + k].addr = addr;
    cp->regs[(size_t)group * cp->h.elements + k].size = size;
    cp->nreg[group] = k + 1;
    cp->xfers_stale[group] = 1;
    return 0;
}

/* The registrations must be exactly what the file recorded. */
static int match_layout(const gpmcp *cp, uint32_t gi, const char *what)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    if (cp->nreg[gi] != g->nelem)
        return gpm_set_error("%s: cannot %s group %" PRIu32 ": %" PRIu32 " buffers are "
                             "registered, the checkpoint recorded %" PRIu32 ": register the "
                             "same buffers in the same order as when it was written",
                             cp->r.path, what, gi, cp->nreg[gi], g->nelem);
    for (uint32_t k = 0; k < g->nelem; k++)
        if (r[k].size != e[k].size)
            return gpm_set_error("%s: cannot %s group %" PRIu32 ": registration %" PRIu32
                                 " has %" PRIu64 " bytes, the checkpoint recorded %" PRIu64
                                 ": register the same buffers in the same order as when it "
                                 "was written", cp->r.path, what, gi, k, r[k].size, e[k].size);
    return 0;
}

/* Fixes group GI's layout on PM at its first checkpoint, after every other
 * group's copies. The seal is written only once the rest is durable. */
static int lay_out_group(gpmcp *cp, uint32_t gi)
{
    gpmcp_group *g = cp_group(cp, gi);
    gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    uint64_t sizes[GPMCP_MAX_ELEMENTS];
    uint64_t base = cp->h.data_off, used = 0, need = 0, both;

    for (uint32_t j = 0; j < cp->h.groups; j++) {
        const gpmcp_group *o = cp_group(cp, j);
        gpmcp_group_state s;
        if (j == gi)
            continue;
        s = group_state(cp, j);
        if (s == GPMCP_GROUP_CORRUPT)
            return corrupt_group(cp, j);
        if (s == GPMCP_GROUP_EMPTY)
            continue;
        if (o->base + 2 * o->copy_bytes > base)
            base = o->base + 2 * o->copy_bytes;
        used += o->data_bytes;
    }
    for (uint32_t k = 0; k < cp->nreg[gi]; k++) {
        sizes[k] = r[k].size;
        need += r[k].size;
    }
    if (used + need > cp->h.capacity)
        return gpm_set_error("%s: group %" PRIu32 " needs %" PRIu64 " bytes but only %" PRIu64
                             " of the checkpoint's %" PRIu64 " are free: create it with a "
                             "larger size", cp->r.path, gi, need, cp->h.capacity - used,
                             cp->h.capacity);

    __atomic_store_n(&g->layout_sum, 0, __ATOMIC_RELEASE);
    if (gpm_region_persist(&cp->r, &g->layout_sum, sizeof g->layout_sum) != 0)
        return -1;
    both = gpmcp_layout_group(g, e, gi, base, sizes, cp->nreg[gi], cp->h.elements);
    /* Padding is reserved at creation, so this cannot fail for valid input. */
    if (both == 0 || base + both > cp->h.data_off + cp->h.data_bytes)
        return gpm_set_error("%s: group %" PRIu32 " does not fit in the data area: create "
                             "the checkpoint with a larger size", cp->r.path, gi);
    /* The seal may only follow a layout that is durable. */
    if (gpm_region_persist(&cp->r, e, (size_t)cp->nreg[gi] * sizeof *e) != 0 ||
        gpm_region_persist(&cp->r, g, sizeof *g) != 0)
        return -1;
    __atomic_store_n(&g->layout_sum, gpmcp_layout_sum(g, e), __ATOMIC_RELEASE);
    cp->xfers_stale[gi] = 1; /* the offsets the device list holds have moved */
    return gpm_region_persist(&cp->r, &g->layout_sum, sizeof g->layout_sum);
}

static int upload_xfers(gpmcp *cp, uint32_t gi, gpmcp_xfer **dev_list, void *stream)
{
    gpmcp_xfer list[GPMCP_MAX_ELEMENTS];
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    *dev_list = cp->dev_xfers + (size_t)gi * cp->h.elements;
    if (!cp->xfers_stale[gi])
        return 0;
    for (uint32_t k = 0; k < g->nelem; k++) {
        list[k].buf = r[k].addr;
        list[k].pm_off = gpmcp_elem_file_off(g, &e[k], 0);
        list[k].bytes = e[k].size;
    }
    /* From pageable memory: returns once LIST has been staged, and the
     * kernel queued after it on the same stream sees the copy. */
    cudaError_t err = cudaMemcpyAsync(*dev_list, list, g->nelem * sizeof *list,
                                      cudaMemcpyHostToDevice, (cudaStream_t)stream);
    if (err != cudaSuccess)
        return gpm_set_error("%s: cannot upload the checkpoint copy list (%s)", cp->r.path,
                             cudaGetErrorString(err));
    cp->xfers_stale[gi] = 0;
    return 0;
}

/* Makes [addr, addr+len) durable from the CPU: with the pool if there is
 * one, else by this thread; FENCE_ONLY orders without flushing (eADR). */
static int cpu_persist(const gpmcp *cp, const gpmcp_how *how, void *addr, size_t len,
                       int fence_only)
{
    if (how->flusher)
        return gpm_flusher_persist(how->flusher, &cp->r, addr, len, fence_only);
    if (fence_only) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return 0;
    }
    return gpm_region_persist(&cp->r, addr, len);
}

/* Brings the working copy W of group GI to PM, the way HOW says; with
 * !WAIT, the GPU's fenced copy (GPM, GPM-eADR) is queued and not waited
 * for. */
static int write_working_copy(gpmcp *cp, uint32_t gi, uint32_t w, const gpmcp_how *how,
                              int wait)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    const cp_reg *r = cp_regs(cp, gi);
    uint8_t *copy = pm(cp) + g->base + (uint64_t)w * g->copy_bytes;
    int kernel = how->mode == GPMCP_GPM || how->mode == GPMCP_GPM_NDP ||
                 how->mode == GPMCP_GPM_EADR;
    int fenced = how->mode == GPMCP_GPM || how->mode == GPMCP_GPM_EADR;

    if (cp->host_only) {
        /* No GPU: the CPU copies; the persist that follows stands in for the
         * kernel's fences in the GPU modes. */
        for (uint32_t k = 0; k < g->nelem; k++)
            memcpy(copy + e[k].offset, r[k].addr, e[k].size);
        if (fenced)
            return gpm_region_persist(&cp->r, copy, g->copy_bytes);
    } else if (kernel) {
        gpmcp_xfer *list;
        if (upload_xfers(cp, gi, &list, how->stream) != 0)
            return -1;
        if (gpmcp_copy_kernel(cp->r.dev, list, g->nelem, (uint64_t)w * g->copy_bytes,
                              g->data_bytes, fenced, how->stream, how->max_blocks,
                              wait || !fenced) != 0)
            return gpm_set_error("%s: checkpoint of group %" PRIu32 ": %s", cp->r.path, gi,
                                 gpm_last_error());
        if (fenced) /* durable when the kernel ends: finish waits for it */
            return 0;
    } else {
        cudaStream_t st = how->stream ? (cudaStream_t)how->stream : cudaStreamLegacy;
        cudaError_t err = cudaSuccess, serr;
        uint32_t k = 0;
        for (; k < g->nelem && err == cudaSuccess; k++)
            err = cudaMemcpyAsync(copy + e[k].offset, r[k].addr, e[k].size,
                                  cudaMemcpyDeviceToHost, st);
        /* Also after a failure: never return with a DMA still writing. */
        serr = cudaStreamSynchronize(st);
        if (err != cudaSuccess)
            return gpm_set_error("%s: checkpoint of group %" PRIu32 ": cudaMemcpy of "
                                 "element %" PRIu32 " failed (%s)", cp->r.path, gi, k - 1,
                                 cudaGetErrorString(err));
        if (serr != cudaSuccess)
            return gpm_set_error("%s: checkpoint of group %" PRIu32 ": copy failed (%s)",
                                 cp->r.path, gi, cudaGetErrorString(serr));
        for (k = 0; k < g->nelem; k++) /* the DMA's stores, which no CPU made */
            gpm_trace_dma(copy + e[k].offset, e[k].size, GPM_SITE);
    }
    return cpu_persist(cp, how, copy, g->copy_bytes, how->mode == GPMCP_CAP_EADR);
}

/* The CAP-fs way and the handle's kind go together: a mapping that is not
 * registered cannot take the GPU's copies, and CAP-fs needs the file open
 * for pwrite with its staging. Checked before anything is written. */
static int check_mode(const gpmcp *cp, gpmcp_mode mode)
{
    if ((int)mode < GPMCP_GPM || mode > GPMCP_CAP_FS)
        return gpm_set_error("%s: unknown checkpoint mode %d", cp->r.path, (int)mode);
    if (mode == GPMCP_CAP_FS && !cp->file_io)
        return gpm_set_error("%s: a CAP-fs checkpoint needs the file opened with "
                             "GPMCP_FILE_IO: open it with that flag, or use another mode",
                             cp->r.path);
    if (mode != GPMCP_CAP_FS && cp->file_io)
        return gpm_set_error("%s: the file was opened with GPMCP_FILE_IO, so checkpoints "
                             "go through pwrite: use GPMCP_CAP_FS, or open it without the "
                             "flag for mode %d", cp->r.path, (int)mode);
    return 0;
}

/* Makes the working copy W the consistent one with sequence SEQ: one
 * atomic 8-byte store, persisted. */
static int flip_to(gpmcp *cp, uint32_t gi, uint64_t seq, uint32_t w)
{
    gpmcp_group *g = cp_group(cp, gi);
    uint64_t word = gpmcp_flip_word(seq, w);
    if (cp->file_io)
        return cpfs_flip(cp, gi, word);
    __atomic_store_n(&g->flip, word, __ATOMIC_RELEASE);
    return gpm_region_persist(&cp->r, &g->flip, sizeof g->flip);
}

static const gpmcp_how gpm_default = {GPMCP_GPM, NULL, NULL, 0};

/* Only GPM relies on the GPU's own persists reaching PM (DDIO off). */
static int bracketed(const gpmcp_how *how) { return how->mode == GPMCP_GPM; }

/* Checks, lays the group out where it is empty, and writes its working
 * copy: queued only, without WAIT, where the GPU copies. */
static int write_checkpoint(gpmcp *cp, int group, const gpmcp_how *how, int wait)
{
    gpmcp_group_state s;
    uint32_t w;
    int rc;
    if (check_group(cp, group) != 0 || check_mode(cp, how->mode) != 0)
        return -1;
    if (cp->nreg[group] == 0)
        return gpm_set_error("%s: group %d has no registered buffers: call gpmcp_register "
                             "before gpmcp_checkpoint", cp->r.path, group);
    s = group_state(cp, (uint32_t)group);
    if (s == GPMCP_GROUP_CORRUPT)
        return corrupt_group(cp, (uint32_t)group);
    if (s == GPMCP_GROUP_EMPTY) {
        if (lay_out_group(cp, (uint32_t)group) != 0)
            return -1;
    } else if (match_layout(cp, (uint32_t)group, "checkpoint") != 0) {
        return -1;
    }
    w = gpmcp_working_copy(load_flip(cp_group(cp, (uint32_t)group)));
    if (bracketed(how) && gpm_persist_begin() != 0)
        return -1;
    rc = cp->file_io ? cpfs_write_copy(cp, (uint32_t)group, w, how->stream)
                     : write_working_copy(cp, (uint32_t)group, w, how, wait);
    if (rc != 0 && bracketed(how))
        gpm_persist_end();
    return rc;
}

/* The working copy is durable: make it the consistent one. */
static int flip_working_copy(gpmcp *cp, int group, const gpmcp_how *how)
{
    uint64_t flip = load_flip(cp_group(cp, (uint32_t)group));
    int rc = flip_to(cp, (uint32_t)group, gpmcp_flip_seq(flip) + 1, gpmcp_working_copy(flip));
    if (bracketed(how) && gpm_persist_end() != 0)
        rc = -1;
    return rc;
}

int gpmcp_checkpoint_how(gpmcp *cp, int group, const gpmcp_how *how)
{
    if (!how)
        how = &gpm_default;
    return write_checkpoint(cp, group, how, 1) || flip_working_copy(cp, group, how) ? -1 : 0;
}

int gpmcp_checkpoint_start(gpmcp *cp, int group, const gpmcp_how *how)
{
    return write_checkpoint(cp, group, how ? how : &gpm_default, 0);
}

int gpmcp_checkpoint_finish(gpmcp *cp, int group, const gpmcp_how *how)
{
    cudaError_t e;
    if (!how)
        how = &gpm_default;
    if (check_group(cp, group) != 0)
        return -1;
    if (!cp->host_only && !cp->file_io) {
        e = how->stream ? cudaStreamSynchronize((cudaStream_t)how->stream)
                        : cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            if (bracketed(how))
                gpm_persist_end();
            return gpm_set_error("%s: checkpoint of group %d: copy failed (%s)", cp->r.path,
                                 group, cudaGetErrorString(e));
        }
    }
    return flip_working_copy(cp, group, how);
}

int gpmcp_checkpoint(gpmcp *cp, int group)
{
    return gpmcp_checkpoint_how(cp, group, NULL);
}

int gpmcp_restore_on(gpmcp *cp, int group, void *stream)
{
    cudaStream_t st = stream ? (cudaStream_t)stream : cudaStreamLegacy;
    const gpmcp_group *g;
    const gpmcp_elem *e;
    const cp_reg *r;
    gpmcp_group_state s;
    cudaError_t err = cudaSuccess, serr;
    uint32_t c, k = 0;

    if (check_group(cp, group) != 0)
        return -1;
    s = group_state(cp, (uint32_t)group);
    if (s == GPMCP_GROUP_CORRUPT)
        return corrupt_group(cp, (uint32_t)group);
    if (s != GPMCP_GROUP_CHECKPOINTED)
        return gpm_set_error("%s: group %d has no completed checkpoint: nothing to restore "
                             "(start from the beginning)", cp->r.path, group);
    if (match_layout(cp, (uint32_t)group, "restore") != 0)
        return -1;
    g = cp_group(cp, (uint32_t)group);
    e = cp_elems(cp, (uint32_t)group);
    r = cp_regs(cp, (uint32_t)group);
    c = gpmcp_flip_copy(load_flip(g));
    if (cp->file_io)
        return cpfs_restore(cp, (uint32_t)group, c, stream);
    if (cp->host_only) {
        for (k = 0; k < g->nelem; k++)
            memcpy(r[k].addr, pm(cp) + gpmcp_elem_file_off(g, &e[k], c), e[k].size);
        return 0;
    }
    for (; k < g->nelem && err == cudaSuccess; k++)
        err = cudaMemcpyAsync(r[k].addr, pm(cp) + gpmcp_elem_file_off(g, &e[k], c), e[k].size,
                              cudaMemcpyHostToDevice, st);
    serr = cudaStreamSynchronize(st);
    if (err != cudaSuccess)
        return gpm_set_error("%s: restore of group %d: cudaMemcpy of element %" PRIu32
                             " failed (%s)", cp->r.path, group, k - 1, cudaGetErrorString(err));
    if (serr != cudaSuccess)
        return gpm_set_error("%s: restore of group %d: copy failed (%s)", cp->r.path, group,
                             cudaGetErrorString(serr));
    return 0;
}

int gpmcp_restore(gpmcp *cp, int group)
{
    return gpmcp_restore_on(cp, group, NULL);
}

int gpmcp_reset(gpmcp *cp)
{
    gpmcp_group *table;
    size_t table_bytes, elem_bytes;
    if (!cp)
        return gpm_set_error("checkpoint handle is NULL: create or open one first");
    table = cp_group(cp, 0);
    table_bytes = (size_t)cp->h.groups * GPMCP_GROUP_BYTES;
    elem_bytes = (size_t)(cp->h.data_off - cp->h.elem_off);
    /* Through the mapping, also for GPMCP_FILE_IO: one-time metadata, like
     * the layout (see cp_fs.c on mixing the mapping with pwrite).
     * 1. No checkpoint: a crash from here on finds none to restore. */
    for (uint32_t gi = 0; gi < cp->h.groups; gi++)
        __atomic_store_n(&table[gi].flip, 0, __ATOMIC_RELEASE);
    if (gpm_region_persist(&cp->r, table, table_bytes) != 0)
        return -1;
    /* 2. No layout: only once no flip word is left, since a checkpoint
     * without its seal reads as corrupt. */
    for (uint32_t gi = 0; gi < cp->h.groups; gi++)
        __atomic_store_n(&table[gi].layout_sum, 0, __ATOMIC_RELEASE);
    if (gpm_region_persist(&cp->r, table, table_bytes) != 0)
        return -1;
    /* 3. The tables as a new file has them. */
    memset(table, 0, table_bytes);
    memset(cp_elems(cp, 0), 0, elem_bytes);
    if (gpm_region_persist(&cp->r, table, table_bytes) != 0 ||
        gpm_region_persist(&cp->r, cp_elems(cp, 0), elem_bytes) != 0)
        return -1;
    /* Copies will be laid out anew: the device lists must follow. */
    memset(cp->xfers_stale, 1, cp->h.groups);
    return 0;
}

long long gpmcp_seq(const gpmcp *cp, int group)
{
    if (check_group(cp, group) != 0)
        return -1;
    switch (group_state(cp, (uint32_t)group)) {
    case GPMCP_GROUP_CHECKPOINTED:
        return (long long)gpmcp_flip_seq(load_flip(cp_group(cp, (uint32_t)group)));
    case GPMCP_GROUP_CORRUPT: return corrupt_group(cp, (uint32_t)group);
    default: return 0;
    }
}

static void inspect_group(FILE *out, const gpmcp *cp, uint32_t gi)
{
    const gpmcp_group *g = cp_group(cp, gi);
    const gpmcp_elem *e = cp_elems(cp, gi);
    uint64_t flip = load_flip(g);
    switch (group_state(cp, gi)) {
    case GPMCP_GROUP_EMPTY:
        fprintf(out, "group %" PRIu32 ": empty (no checkpoint yet)\n", gi);
        return;
    case GPMCP_GROUP_CORRUPT:
        fprintf(out, "group %" PRIu32 ": CORRUPT layout (flip word 0x%" PRIx64 "): restore "
                "would refuse it\n", gi, flip);
        return;
    case GPMCP_GROUP_LAID_OUT:
        fprintf(out, "group %" PRIu32 ": %" PRIu32 " elements, %" PRIu64 " bytes, no "
                "checkpoint completed yet\n", gi, g->nelem, g->data_bytes);
        break;
    default:
        fprintf(out, "group %" PRIu32 ": %" PRIu32 " elements, %" PRIu64 " bytes, consistent "
                "copy %" PRIu32 ", seq %" PRIu64 " (the working copy %" PRIu32
                " may hold a newer, unfinished one)\n", gi, g->nelem, g->data_bytes,
                gpmcp_flip_copy(flip), gpmcp_flip_seq(flip), 1 - gpmcp_flip_copy(flip));
    }
    fprintf(out, "  copies at file offsets %" PRIu64 " and %" PRIu64 ", %" PRIu64
            " bytes each\n", g->base, g->base + g->copy_bytes, g->copy_bytes);
    for (uint32_t k = 0; k < g->nelem; k++)
        fprintf(out, "  element %" PRIu32 ": %" PRIu64 " bytes at copy offset %" PRIu64 "\n",
                k, e[k].size, e[k].offset);
}

int gpmcp_inspect(FILE *out, const char *path)
{
    gpmcp cp;
    uint64_t magic = 0;
    memset(&cp, 0, sizeof cp);
    if (gpm_map(&cp.r, path, 0, GPM_HOST_ONLY) != 0)
        return -1;
    memcpy(&magic, cp.r.host, cp.r.size < sizeof magic ? cp.r.size : sizeof magic);
    if (magic != GPMCP_MAGIC) {
        gpm_set_error("%s: not a checkpoint file (bad magic)", cp.r.path);
        gpm_unmap(&cp.r);
        return 1;
    }
    if (validate_header(&cp.r, &cp.h) != 0) {
        gpm_unmap(&cp.r);
        return -1;
    }
    fprintf(out, "checkpoint file %s\n", cp.r.path);
    fprintf(out, "format version %" PRIu32 ", %zu bytes, capacity %" PRIu64 " bytes, %" PRIu32
            " groups of at most %" PRIu32 " elements, data at offset %" PRIu64 "\n",
            cp.h.version, cp.r.size, cp.h.capacity, cp.h.groups, cp.h.elements, cp.h.data_off);
    for (uint32_t g = 0; g < cp.h.groups; g++)
        inspect_group(out, &cp, g);
    gpm_unmap(&cp.r);
    return 0;
}
