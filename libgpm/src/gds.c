/* GPUDirect Storage through libcufile, loaded at run time (gpm/gds.h).
 *
 * The few cuFile types used here are declared from the cuFile API's
 * documented layout, so that no cuFile header is needed to build. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "gpm/gds.h"
#include "gpm/gpm.h"
#include "file_check.h"

/* CUfileError_t: a cuFile status (0: success; 5000 and up: cuFile's own
 * codes) and a CUDA driver status. */
typedef struct {
    int err;
    int cu_err;
} cufile_status;

/* CUfileDescr_t with CU_FILE_HANDLE_TYPE_OPAQUE_FD (1). */
typedef struct {
    int type;
    union {
        int fd;
        void *handle;
    } handle;
    const void *fs_ops;
} cufile_descr;

/* CUfileDrvProps_t: only the nvidia-fs version is read. */
typedef struct {
    struct {
        unsigned int major_version;
        unsigned int minor_version;
        size_t poll_thresh_size;
        size_t max_direct_io_size;
        unsigned int dstatusflags;
        unsigned int dcontrolflags;
    } nvfs;
    unsigned int rest[6];
} cufile_props;

static struct {
    pthread_once_t once, driver_once;
    int ok;             /* the library and its calls are there */
    int driver_ok;      /* cuFileDriverOpen succeeded */
    unsigned nvfs_major;
    char why[512], driver_why[512];
    cufile_status (*driver_open)(void);
    cufile_status (*props)(cufile_props *);
    cufile_status (*handle_register)(void **, cufile_descr *);
    void (*handle_deregister)(void *);
    ssize_t (*write)(void *, const void *, size_t, off_t, off_t);
    ssize_t (*read)(void *, void *, size_t, off_t, off_t);
} lib = {.once = PTHREAD_ONCE_INIT, .driver_once = PTHREAD_ONCE_INIT};

static void *open_library(char *tried, size_t len)
{
    const char *home = getenv("CUDA_HOME");
    char dirs[3][1024];
    void *h = dlopen("libcufile.so.0", RTLD_NOW | RTLD_GLOBAL);
    int n = 0;
    if (h)
        return h;
    snprintf(tried, len, "%s", dlerror());
    if (home && *home)
        snprintf(dirs[n++], sizeof dirs[0], "%s/lib64/libcufile.so.0", home);
    snprintf(dirs[n++], sizeof dirs[0], "/usr/local/cuda/lib64/libcufile.so.0");
    snprintf(dirs[n++], sizeof dirs[0], "/usr/local/cuda/targets/x86_64-linux/lib/libcufile.so.0");
    for (int i = 0; i < n; i++)
        if ((h = dlopen(dirs[i], RTLD_NOW | RTLD_GLOBAL)) != NULL)
            return h;
    return NULL;
}

static void load(void)
{
    char tried[256];
    const char *off = getenv("GPM_GDS");
    void *h;
    if (off && strcmp(off, "off") == 0) {
        snprintf(lib.why, sizeof lib.why,
                 "GPUDirect Storage is turned off here (GPM_GDS=off): unset GPM_GDS to use it");
        return;
    }
    h = open_library(tried, sizeof tried);
    if (!h) {
        snprintf(lib.why, sizeof lib.why,
                 "libcufile.so.0 (GPUDirect Storage) was not found (%s): install CUDA's "
                 "GPUDirect Storage package, or add the folder that holds it to "
                 "LD_LIBRARY_PATH", tried);
        return;
    }
    *(void **)&lib.driver_open = dlsym(h, "cuFileDriverOpen");
    *(void **)&lib.props = dlsym(h, "cuFileDriverGetProperties");
    *(void **)&lib.handle_register = dlsym(h, "cuFileHandleRegister");
    *(void **)&lib.handle_deregister = dlsym(h, "cuFileHandleDeregister");
    *(void **)&lib.write = dlsym(h, "cuFileWrite");
    *(void **)&lib.read = dlsym(h, "cuFileRead");
    if (!lib.driver_open || !lib.props || !lib.handle_register || !lib.handle_deregister ||
        !lib.write || !lib.read) {
        snprintf(lib.why, sizeof lib.why,
                 "libcufile.so.0 lacks the cuFile calls GPMbench uses: install a cuFile of "
                 "CUDA 11.4 or later");
        return;
    }
    lib.ok = 1;
}

/* The driver opens once, at the first file: it makes a CUDA context, which
 * gpm_gds_available (asked by --modes) must not. */
static void open_driver(void)
{
    cufile_props p;
    cufile_status s = lib.driver_open();
    if (s.err != 0) {
        snprintf(lib.driver_why, sizeof lib.driver_why,
                 "cuFileDriverOpen failed (cuFile status %d, CUDA %d): check that a GPU is "
                 "visible and that cufile.json allows compatibility mode where nvidia-fs is "
                 "not loaded", s.err, s.cu_err);
        return;
    }
    memset(&p, 0, sizeof p);
    if (lib.props(&p).err == 0)
        lib.nvfs_major = p.nvfs.major_version;
    lib.driver_ok = 1;
}

int gpm_gds_available(char *why, size_t len)
{
    pthread_once(&lib.once, load);
    if (!lib.ok && why && len)
        snprintf(why, len, "%s", lib.why);
    return lib.ok;
}

void gpm_gds_decide_way(unsigned nvfs, int tmpfs, int direct, char *out, size_t len)
{
    const char *why = !nvfs ? "no-nvidia-fs" : tmpfs ? "tmpfs" : !direct ? "no-o-direct" : NULL;
    if (why)
        snprintf(out, len, "compat:%s", why);
    else
        snprintf(out, len, "gds");
}

static int register_fd(gpm_gds_file *g, int fd, cufile_status *s)
{
    cufile_descr d;
    memset(&d, 0, sizeof d);
    d.type = 1;
    d.handle.fd = fd;
    *s = lib.handle_register(&g->handle, &d);
    return s->err == 0 ? 0 : -1;
}

int gpm_gds_open(gpm_gds_file *g, const char *path)
{
    cufile_status direct_s = {0, 0}, plain_s;
    char why[512], direct[128];
    int fd;
    memset(g, 0, sizeof *g);
    g->fd = -1;
    if (!gpm_gds_available(why, sizeof why))
        return gpm_set_error("%s: %s", path, why);
    pthread_once(&lib.driver_once, open_driver);
    if (!lib.driver_ok)
        return gpm_set_error("%s: %s", path, lib.driver_why);
    /* O_DIRECT first: true GDS needs it. tmpfs and others refuse it, or
     * cuFile refuses the descriptor; then a plain one, for compatibility
     * mode. */
    fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
    if (fd < 0)
        snprintf(direct, sizeof direct, "O_DIRECT refused: %s", strerror(errno));
    if (fd >= 0 && register_fd(g, fd, &direct_s) == 0) {
        g->fd = fd;
        g->direct = 1;
    } else {
        if (fd >= 0) {
            snprintf(direct, sizeof direct, "cuFile status %d with O_DIRECT", direct_s.err);
            close(fd);
        }
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            return gpm_set_error("%s: cannot open for cuFile (%s): check its permissions", path,
                                 strerror(errno));
        if (register_fd(g, fd, &plain_s) != 0) {
            close(fd);
            g->handle = NULL;
            return gpm_set_error("%s: cuFile cannot register the file (%s; cuFile status %d "
                                 "without O_DIRECT): "
                                 "cuFile's log (cufile.log, in the working directory) says "
                                 "why; use cap-fs meanwhile",
                                 path, direct, plain_s.err);
        }
        g->fd = fd;
    }
    gpm_gds_decide_way(lib.nvfs_major, gpm_on_tmpfs(path), g->direct, g->way, sizeof g->way);
    return 0;
}

void gpm_gds_refusal(const char *dir, int tmpfs, unsigned major, unsigned minor,
                     const char *err, char *out, size_t len)
{
    if (tmpfs || major == 0)
        snprintf(out, len, "%s (cuFile looks each file's block device up in udev, and %s has none: "
                 "use a directory on a block device's file system, such as ext4)", err, dir);
    else
        snprintf(out, len, "%s (cuFile looks each file's block device up in udev: where there is "
                 "no udev, as in containers, the record /run/udev/data/b%u:%u holding the line "
                 "E:ID_FS_USAGE=filesystem lets it)", err, major, minor);
}

/* gpm_gds_refusal for DIR as it is. */
static void no_volume(char *out, size_t len, const char *dir, const char *err)
{
    struct stat st;
    int known = stat(dir, &st) == 0;
    gpm_gds_refusal(dir, gpm_on_tmpfs(dir), known ? major(st.st_dev) : 0,
                    known ? minor(st.st_dev) : 0, err, out, len);
}

int gpm_gds_usable(const char *dir, char *why, size_t len)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char asked[4096], answer[640];
    static int known, usable;
    char path[4200];
    gpm_gds_file g;
    int fd, ok;
    pthread_mutex_lock(&mu);
    if (known && strcmp(asked, dir) == 0) {
        ok = usable;
        goto out;
    }
    snprintf(path, sizeof path, "%s/.gpm-gds-probe-%ld", dir, (long)getpid());
    if (!gpm_gds_available(answer, sizeof answer)) {
        usable = 0;
    } else if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0) {
        usable = 0;
        snprintf(answer, sizeof answer, "cannot make a probe file in %s (%s): check the directory",
                 dir, strerror(errno));
    } else {
        int sized = ftruncate(fd, 4096) == 0;
        close(fd);
        usable = sized && gpm_gds_open(&g, path) == 0;
        if (usable)
            gpm_gds_close(&g);
        else
            no_volume(answer, sizeof answer, dir,
                      sized ? gpm_last_error() : "cannot size the probe file");
        unlink(path);
    }
    snprintf(asked, sizeof asked, "%s", dir);
    known = 1;
    ok = usable;
out:
    if (!ok && why && len)
        snprintf(why, len, "%s", answer);
    pthread_mutex_unlock(&mu);
    return ok;
}

void gpm_gds_close(gpm_gds_file *g)
{
    if (g->handle && lib.ok)
        lib.handle_deregister(g->handle);
    g->handle = NULL;
    if (g->fd >= 0)
        close(g->fd);
    g->fd = -1;
}

const char *gpm_gds_way(const gpm_gds_file *g)
{
    return g->way[0] ? g->way : "closed";
}

/* One transfer split into pieces that THREADS threads take in turn. */
struct xfer {
    gpm_gds_file *g;
    char *dev;
    size_t len, piece;
    off_t off;
    int writing;
    size_t next; /* the next piece's first byte (atomic) */
    int failed;  /* set by the first failure (atomic) */
    ssize_t got; /* what the failing call returned */
    int err;     /* and errno then */
};

static void *xfer_worker(void *arg)
{
    struct xfer *x = arg;
    for (;;) {
        size_t at = __atomic_fetch_add(&x->next, x->piece, __ATOMIC_RELAXED);
        if (at >= x->len || __atomic_load_n(&x->failed, __ATOMIC_RELAXED))
            return NULL;
        size_t n = x->len - at < x->piece ? x->len - at : x->piece;
        /* cuFile may move fewer bytes than asked: go on from there. */
        while (n > 0) {
            ssize_t r = x->writing ? lib.write(x->g->handle, x->dev, n, x->off + (off_t)at,
                                               (off_t)at)
                                   : lib.read(x->g->handle, x->dev, n, x->off + (off_t)at,
                                              (off_t)at);
            if (r <= 0) {
                int zero = 0;
                int e = errno;
                if (__atomic_compare_exchange_n(&x->failed, &zero, 1, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED)) {
                    x->got = r;
                    x->err = e;
                }
                return NULL;
            }
            at += (size_t)r;
            n -= (size_t)r;
        }
    }
}

static int xfer(gpm_gds_file *g, char *dev, size_t len, off_t off, int threads, size_t piece,
                int writing)
{
    struct xfer x = {g, dev, len, piece ? piece : len, off, writing, 0, 0, 0, 0};
    char what[160];
    pthread_t tid[64];
    int started = 0;
    if (!g->handle)
        return gpm_set_error("cuFile %s of a file that is not open: call gpm_gds_open first",
                             writing ? "write" : "read");
    if (len == 0)
        return 0;
    if (threads < 1)
        threads = 1;
    if (threads > 64)
        threads = 64;
    if ((size_t)threads > (len + x.piece - 1) / x.piece)
        threads = (int)((len + x.piece - 1) / x.piece);
    for (int i = 1; i < threads; i++)
        if (pthread_create(&tid[started], NULL, xfer_worker, &x) == 0)
            started++;
    xfer_worker(&x);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (!x.failed)
        return 0;
    /* cuFile returns -1 with errno set, or minus one of its own codes. */
    if (x.got == -1)
        snprintf(what, sizeof what, "%s", strerror(x.err));
    else if (x.got < 0)
        snprintf(what, sizeof what, "cuFile status %lld", (long long)-x.got);
    else
        snprintf(what, sizeof what, "no progress");
    return gpm_set_error("cuFile %s of %zu bytes at file offset %lld failed (%s): check the "
                         "file and that the buffer is device memory",
                         writing ? "write" : "read", len, (long long)off, what);
}

int gpm_gds_write(gpm_gds_file *g, const void *dev, size_t len, off_t off, int threads,
                  size_t piece)
{
    return xfer(g, (char *)dev, len, off, threads, piece, 1);
}

int gpm_gds_read(gpm_gds_file *g, void *dev, size_t len, off_t off, int threads, size_t piece)
{
    return xfer(g, dev, len, off, threads, piece, 0);
}
