/* Mapping PM files for the GPU: libpmem maps, CUDA registers, and every
 * failure says which file and what to do about it. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <libpmem.h>

#include "gpm/gpm.h"
#include "file_check.h"

const char *gpm_backend_name(gpm_backend b)
{
    switch (b) {
    case GPM_BACKEND_DAX: return "dax";
    case GPM_BACKEND_TMPFS: return "tmpfs";
    default: return "file";
    }
}

static _Thread_local char pm_dir[PATH_MAX];

const char *gpm_pm_dir(void)
{
    const char *env = getenv("GPM_PM_DIR");
    if (env && *env) {
        snprintf(pm_dir, sizeof pm_dir, "%s", env);
        return pm_dir;
    }
    snprintf(pm_dir, sizeof pm_dir, "/dev/shm/gpm-%u", (unsigned)getuid());
    /* The default directory is ours to create; a user-chosen one is not. If
     * it cannot be made, creating a file there says so and names the fix;
     * files never land in the shared /dev/shm itself. */
    (void)mkdir(pm_dir, 0700);
    return pm_dir;
}

int gpm_resolve_path(const char *path, char *out, size_t out_len)
{
    int n;
    if (!path || !*path)
        return gpm_set_error("empty PM file name: pass a file name or path");
    if (path[0] == '/')
        n = snprintf(out, out_len, "%s", path);
    else
        n = snprintf(out, out_len, "%s/%s", gpm_pm_dir(), path);
    if (n < 0 || (size_t)n >= out_len)
        return gpm_set_error("PM path too long: %s", path);
    return 0;
}

static int parent_dir(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (n == 0)
        n = 1; /* "/" */
    if (n >= len)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

static gpm_backend backend_of(const char *path, int is_pmem)
{
    if (is_pmem)
        return GPM_BACKEND_DAX;
    return gpm_on_tmpfs(path) ? GPM_BACKEND_TMPFS : GPM_BACKEND_FILE;
}

/* Checks the directory and its free space before a file is created, so the
 * user learns what is wrong instead of getting SIGBUS on first touch. */
static int check_can_create(const char *path, size_t size)
{
    char dir[PATH_MAX];
    struct stat st;
    struct statvfs vfs;
    if (parent_dir(path, dir, sizeof dir) != 0)
        return gpm_set_error("%s: path too long", path);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gpm_set_error("%s: PM directory %s does not exist: create it or set GPM_PM_DIR "
                             "to an existing directory on PM (or /dev/shm)", path, dir);
    if (access(dir, W_OK) != 0)
        return gpm_set_error("%s: PM directory %s is not writable: fix its permissions or set "
                             "GPM_PM_DIR", path, dir);
    if (statvfs(dir, &vfs) == 0) {
        unsigned long long avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
        if (avail < size)
            return gpm_set_error("%s: not enough space in %s: need %zu bytes, %llu free; free "
                                 "space there, use a smaller --scale, or set GPM_PM_DIR",
                                 path, dir, size, avail);
    }
    return 0;
}

static int register_with_cuda(gpm_region *r)
{
    cudaError_t e = cudaHostRegister(r->host, r->size,
                                     cudaHostRegisterMapped | cudaHostRegisterPortable);
    if (e != cudaSuccess)
        return gpm_set_error("%s: cudaHostRegister of %zu bytes failed (%s): check that a CUDA "
                             "GPU is visible and that the locked-memory limit (ulimit -l) "
                             "allows the size", r->path, r->size, cudaGetErrorString(e));
    e = cudaHostGetDevicePointer(&r->dev, r->host, 0);
    if (e != cudaSuccess) {
        cudaHostUnregister(r->host);
        r->dev = NULL;
        return gpm_set_error("%s: no device pointer for the registered mapping (%s): the GPU "
                             "must support mapped host memory", r->path, cudaGetErrorString(e));
    }
    return 0;
}

int gpm_map(gpm_region *r, const char *path, size_t size, int flags)
{
    struct stat st;
    size_t mapped = 0;
    int is_pmem = 0;

    memset(r, 0, sizeof *r);
    if (gpm_resolve_path(path, r->path, sizeof r->path) != 0)
        return -1;

    if (stat(r->path, &st) == 0) {
        if (gpm_check_existing(r->path, &st, size) != 0)
            return -1;
        if (st.st_size == 0)
            return gpm_set_error("%s: is empty (0 bytes), so it holds no PM data: remove it "
                                 "or choose another file name", r->path);
        r->host = pmem_map_file(r->path, 0, 0, 0, &mapped, &is_pmem);
        if (!r->host)
            return gpm_set_error("%s: cannot map (%s): check its permissions", r->path,
                                 strerror(errno));
    } else {
        if (!(flags & GPM_CREATE))
            return gpm_set_error("%s: does not exist: create it first (run without --recover) "
                                 "or check GPM_PM_DIR", r->path);
        if (size == 0)
            return gpm_set_error("%s: cannot create a PM file of 0 bytes", r->path);
        if (check_can_create(r->path, size) != 0)
            return -1;
        /* EXCL: a file appearing meanwhile is never truncated. */
        r->host = pmem_map_file(r->path, size, PMEM_FILE_CREATE | PMEM_FILE_EXCL, 0600,
                                &mapped, &is_pmem);
        if (!r->host) {
            int err = errno;
            /* EEXIST: someone else's file appeared meanwhile; leave it. */
            if (err != EEXIST)
                unlink(r->path);
            return gpm_set_error("%s: cannot create %zu bytes (%s): free space or set "
                                 "GPM_PM_DIR", r->path, size, strerror(err));
        }
        r->created = 1;
    }
    r->size = mapped;
    r->is_pmem = is_pmem;
    r->backend = backend_of(r->path, is_pmem);

    if (!(flags & GPM_HOST_ONLY) && register_with_cuda(r) != 0) {
        pmem_unmap(r->host, r->size);
        if (r->created)
            unlink(r->path); /* nothing of the user's was in it */
        r->host = NULL;
        return -1;
    }
    gpm_trace_map(r->host, r->size, r->path);
    if (r->dev)
        gpm_trace_map_device(r->host, r->dev);
    return 0;
}

void gpm_unmap(gpm_region *r)
{
    if (!r->host)
        return;
    gpm_trace_unmap(r->host);
    if (r->dev)
        cudaHostUnregister(r->host);
    pmem_unmap(r->host, r->size);
    r->host = NULL;
    r->dev = NULL;
}

int gpm_region_persist_at(const gpm_region *r, const void *addr, size_t len, const char *site)
{
    if (gpm_mutated(site)) {
        gpm_trace_removed(GPM_TR_PERSIST, addr, len, site);
        return 0;
    }
    gpm_trace_persist(addr, len, site); /* before: the cautious order (trace.c) */
    if (r->backend == GPM_BACKEND_FILE) {
        if (pmem_msync(addr, len) != 0)
            return gpm_set_error("%s: msync failed (%s)", r->path, strerror(errno));
        return 0;
    }
    /* DAX is PM; tmpfs stands in for it, so it pays the same flushes. */
    pmem_persist(addr, len);
    return 0;
}
