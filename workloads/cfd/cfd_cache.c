/* The binary cache of a text mesh: parsing Rodinia's 55 MB missile file
 * takes seconds, reading its arrays back takes milliseconds. The cache
 * records the source's size and modification time (a changed source is
 * parsed again) and a checksum of its arrays (a damaged cache is rebuilt);
 * it is written to a temporary name and renamed, so a crash never leaves a
 * half-written cache under the real name. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfd_mesh.h"
#include "gpm/gpm.h"

#define CACHE_MAGIC "GPMCFDM1"
#define CACHE_VERSION 1u

struct cache_head {
    char magic[8];
    uint32_t version, pad;
    uint64_t src_size;
    int64_t src_mtime_s, src_mtime_ns;
    uint64_t n;
    uint64_t hash;  /* cfd_mesh_hash of the arrays that follow */
};

static size_t payload_bytes(uint64_t n)
{
    return n * (sizeof(float) + CFD_NNB * sizeof(int32_t) + CFD_NNB * 3 * sizeof(float));
}

int cfd_cache_path(const char *path, const char *dir, char *out, size_t len)
{
    char full[PATH_MAX];
    const char *base = strrchr(path, '/');
    uint64_t h = 0x9e3779b97f4a7c15ull;
    if (!realpath(path, full))
        return gpm_set_error("%s: cannot open the mesh (%s): pass an existing file to --mesh, "
                             "or --mesh gen", path, strerror(errno));
    for (const char *p = full; *p; p++)
        h = gpm_mix64(h ^ (unsigned char)*p);
    base = base ? base + 1 : path;
    if ((size_t)snprintf(out, len, "%s/cfd-%.64s-%016llx.mesh", dir, base,
                         (unsigned long long)h) >= len)
        return gpm_set_error("%s: the cache directory's name is too long: set GPM_DATA_DIR to "
                             "a shorter one", dir);
    return 0;
}

/* 0: M holds the cache's mesh; 1: no usable cache (stale, damaged, absent). */
static int read_cache(struct cfd_mesh *m, const char *cpath, const struct stat *src)
{
    struct cache_head h;
    struct stat st;
    FILE *f = fopen(cpath, "rb");
    int ok;
    memset(m, 0, sizeof *m);
    if (!f)
        return 1;
    ok = fstat(fileno(f), &st) == 0 && fread(&h, sizeof h, 1, f) == 1 &&
         memcmp(h.magic, CACHE_MAGIC, 8) == 0 && h.version == CACHE_VERSION &&
         h.src_size == (uint64_t)src->st_size && h.src_mtime_s == (int64_t)src->st_mtim.tv_sec &&
         h.src_mtime_ns == (int64_t)src->st_mtim.tv_nsec && h.n >= 1 &&
         h.n <= (uint64_t)CFD_MAX_ELEMENTS &&
         (uint64_t)st.st_size == sizeof h + payload_bytes(h.n) && cfd_mesh_alloc(m, h.n) == 0;
    ok = ok && fread(m->vol, sizeof *m->vol, h.n, f) == h.n &&
         fread(m->nb, sizeof *m->nb, h.n * CFD_NNB, f) == h.n * CFD_NNB &&
         fread(m->normal, sizeof *m->normal, h.n * CFD_NNB * 3, f) == h.n * CFD_NNB * 3;
    fclose(f);
    if (ok && (m->hash = cfd_mesh_hash(m)) == h.hash)
        return 0;
    cfd_mesh_free(m);
    return 1;
}

static int write_cache(const struct cfd_mesh *m, const char *cpath, const struct stat *src)
{
    struct cache_head h;
    char tmp[PATH_MAX + 32];
    FILE *f;
    int ok;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, CACHE_MAGIC, 8);
    h.version = CACHE_VERSION;
    h.src_size = (uint64_t)src->st_size;
    h.src_mtime_s = (int64_t)src->st_mtim.tv_sec;
    h.src_mtime_ns = (int64_t)src->st_mtim.tv_nsec;
    h.n = m->n;
    h.hash = m->hash;
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", cpath, (int)getpid());
    f = fopen(tmp, "wb");
    if (!f)
        return gpm_set_error("%s: cannot write the mesh cache (%s): set GPM_DATA_DIR to a "
                             "writable directory", tmp, strerror(errno));
    ok = fwrite(&h, sizeof h, 1, f) == 1 &&
         fwrite(m->vol, sizeof *m->vol, m->n, f) == m->n &&
         fwrite(m->nb, sizeof *m->nb, m->n * CFD_NNB, f) == m->n * CFD_NNB &&
         fwrite(m->normal, sizeof *m->normal, m->n * CFD_NNB * 3, f) == m->n * CFD_NNB * 3;
    if (fclose(f) != 0 || !ok || rename(tmp, cpath) != 0) {
        int e = errno;
        unlink(tmp);
        return gpm_set_error("%s: cannot write the mesh cache (%s): free space there or set "
                             "GPM_DATA_DIR to another directory", cpath, strerror(e));
    }
    return 0;
}

int cfd_mesh_load(struct cfd_mesh *m, const char *path, const char *dir,
                  enum cfd_cache_state *state)
{
    char cpath[PATH_MAX];
    struct stat src, cst;
    int had;
    memset(m, 0, sizeof *m);
    if (stat(path, &src) != 0)
        return gpm_set_error("%s: cannot open the mesh (%s): pass an existing file to --mesh, "
                             "or --mesh gen", path, strerror(errno));
    if (!S_ISREG(src.st_mode))
        return gpm_set_error("%s: not a regular file: pass a mesh file to --mesh, or --mesh gen",
                             path);
    if (cfd_cache_path(path, dir, cpath, sizeof cpath) != 0)
        return -1;
    had = stat(cpath, &cst) == 0;
    if (read_cache(m, cpath, &src) == 0) {
        if (state)
            *state = CFD_CACHE_HIT;
        return 0;
    }
    if (cfd_mesh_read_text(m, path) != 0)
        return -1;
    if (write_cache(m, cpath, &src) != 0) {
        cfd_mesh_free(m);
        return -1;
    }
    if (state)
        *state = had ? CFD_CACHE_REBUILT : CFD_CACHE_BUILT;
    return 0;
}
