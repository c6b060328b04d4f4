/* libgpm host API: map persistent memory (PM) for GPU kernels and bracket
 * the regions in which GPU writes must become durable.
 *
 * Usable from C11 and CUDA. Every function that can fail returns 0 on
 * success and -1 on failure, and leaves a one-line message naming the file
 * or setting and the fix in gpm_last_error(). */
#ifndef GPM_GPM_H
#define GPM_GPM_H

#include <stddef.h>

#include "gpm/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a mapping reaches durability from the CPU side. */
typedef enum gpm_backend {
    GPM_BACKEND_DAX,   /* pmem_is_pmem: real PM or CXL memory, flush with cache-line writebacks */
    GPM_BACKEND_TMPFS, /* DRAM standing in for PM (/dev/shm): flushed like PM to emulate its cost */
    GPM_BACKEND_FILE   /* an ordinary file system: made durable with msync */
} gpm_backend;

enum gpm_map_flags {
    GPM_CREATE = 1 << 0,    /* create the file if it does not exist (never truncates one that does) */
    GPM_HOST_ONLY = 1 << 1  /* do not register with CUDA: host pointer only (CPU tools and tests) */
};

typedef struct gpm_region {
    void *host;          /* CPU address of the mapping */
    void *dev;           /* the same bytes as seen by kernels; NULL with GPM_HOST_ONLY */
    size_t size;         /* bytes mapped (the file's size) */
    int is_pmem;         /* pmem_is_pmem() of the mapping */
    int created;         /* 1 if this call created the file */
    gpm_backend backend;
    char path[4096];     /* resolved absolute path */
} gpm_region;

/* Maps PATH (relative paths resolve under gpm_pm_dir()). With GPM_CREATE a
 * missing file is created with mode 0600 and SIZE bytes; an existing file is
 * opened as it is and must have exactly SIZE bytes (SIZE 0: any size). */
int gpm_map(gpm_region *r, const char *path, size_t size, int flags);
/* Unregisters and unmaps; the file stays. Safe on a zeroed region. */
void gpm_unmap(gpm_region *r);

/* The directory that relative PM paths resolve under: $GPM_PM_DIR, else
 * /dev/shm/gpm-<uid>, created 0700 on first use. */
const char *gpm_pm_dir(void);
/* Writes the absolute path for PATH into OUT (OUT_LEN bytes). */
int gpm_resolve_path(const char *path, char *out, size_t out_len);

/* Makes [addr, addr+len) of a mapping durable from the CPU, the way its
 * backend requires (cache-line flush + drain, or msync). A persist point
 * named by its call site (gpm/trace.h: traced, and removed by GPM_MUTATE). */
int gpm_region_persist_at(const gpm_region *r, const void *addr, size_t len, const char *site);
#define gpm_region_persist(r, addr, len) gpm_region_persist_at((r), (addr), (len), GPM_SITE)

/* Takes an exclusive lock on the existing file PATH for as long as *FD
 * stays open (gpm_unlock_file closes it). A file locked by another process,
 * or through another descriptor of this one, is refused with one line that
 * names the holder's pid and command. The lock is advisory (flock): every
 * program of the suite takes it before writing a PM object; the kernel drops
 * it when the holder exits or is killed. */
int gpm_lock_file(const char *path, int *fd);
void gpm_unlock_file(int fd);

/* Brackets a region in which GPU writes to PM must become durable. On an
 * Intel Xeon root port with GPM_DDIO=control (and root), DDIO is switched
 * off for the GPU's port and back on; everywhere else these are no-ops whose
 * reason gpm_ddio_status() reports (gpm/ddio.h). A GPM_DDIO value other
 * than unset, empty or "control" makes both fail, naming it. */
int gpm_persist_begin(void);
int gpm_persist_end(void);

/* The last error of this thread, one line, no trailing newline. */
const char *gpm_last_error(void);
/* Sets the last error (printf-style; an argument may be gpm_last_error(),
 * to wrap it); returns -1 for convenience. */
int gpm_set_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

const char *gpm_backend_name(gpm_backend b);

#ifdef __cplusplus
}
#endif

#endif
