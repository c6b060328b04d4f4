/* The persistency trace's recorder (gpm/trace.h): the traced mappings, the
 * CPU's stores found through write-protected pages, the events, and the
 * trace file. The kernels' records come through trace_device.c. */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libpmem.h>

#include "gpm/gpm.h"
#include "gpm/trace.h"
#include "trace_internal.h"

#define MAX_OBJECTS 64
#define MAX_SITES 4096
#define MAX_FDS 64
#define GPM_NO_SITE UINT32_MAX /* beyond every site id: named "?" */

struct tobj {
    char *host;
    const char *dev;       /* its address in kernels (NULL: not registered) */
    size_t size;
    char path[4096];
    uint8_t *shadow;       /* the bytes as the trace has them */
    volatile char *dirty;  /* pages written since the last event */
    int live;
};

static struct {
    int open, recording;
    int model; /* gpm_trace_model's + 1; 0: none declared */
    char run[256]; /* gpm_trace_describe's words; "": none */
    char dir[4096];
    FILE *f;
    struct tobj obj[MAX_OBJECTS];
    int nobj;
    const char *site_ptr[MAX_SITES];
    char *site_name[MAX_SITES];
    uint32_t nsites;
    struct { int fd, obj; } fds[MAX_FDS];
    int nfds;
    size_t page;
    int handler;
    struct sigaction old;
} T;
pthread_mutex_t gpm_trace_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- mutants ---- */

int gpm_mutated(const char *site)
{
    static const char *m;
    static int read;
    size_t n, k;
    if (!read) {
        m = getenv("GPM_MUTATE");
        read = 1;
    }
    if (!m || !*m || !site)
        return 0;
    if (strcmp(site, m) == 0)
        return 1;
    /* "tx.c:24" names "libgpm/src/tx.c:24" too. */
    n = strlen(site), k = strlen(m);
    return n > k && site[n - k - 1] == '/' && strcmp(site + n - k, m) == 0;
}

/* ---- the file ---- */

static void emit_by(uint64_t thread, uint32_t kind, uint32_t obj, uint64_t off, uint64_t len,
                    uint32_t site, uint32_t aux, const void *payload, size_t plen)
{
    gpm_trace_rec r = {.kind = kind, .obj = obj, .off = off, .len = len, .thread = thread,
                       .site = site, .aux = aux};
    fwrite(&r, sizeof r, 1, T.f);
    if (plen)
        fwrite(payload, 1, plen, T.f);
}

/* An event of the calling thread. */
static void emit(uint32_t kind, uint32_t obj, uint64_t off, uint64_t len, uint32_t site,
                 uint32_t aux, const void *payload, size_t plen)
{
    emit_by((uint64_t)syscall(SYS_gettid), kind, obj, off, len, site, aux, payload, plen);
}

/* A new site, named NAME (copied); PTR is the pointer callers pass for it,
 * matched before any name is compared. */
static uint32_t add_site(const char *ptr, const char *name)
{
    uint32_t k = T.nsites;
    if (k == MAX_SITES)
        return MAX_SITES - 1;
    T.site_name[k] = strdup(name);
    T.site_ptr[k] = ptr ? ptr : T.site_name[k];
    T.nsites++;
    emit(GPM_TR_SITE, 0, 0, strlen(name), k, 0, name, strlen(name));
    return k;
}

static uint32_t site_id(const char *site)
{
    if (!site)
        site = "?";
    for (uint32_t k = 0; k < T.nsites; k++)
        if (T.site_ptr[k] == site || strcmp(T.site_name[k], site) == 0)
            return k;
    return add_site(site, site);
}

uint32_t gpm_trace_new_site(const char *name) { return add_site(NULL, name); }

/* A later record of site ID gives its name (gpm_ptrace_load keeps the last). */
void gpm_trace_name_site(uint32_t id, const char *name)
{
    if (id >= T.nsites)
        return;
    free(T.site_name[id]);
    T.site_name[id] = strdup(name);
    T.site_ptr[id] = T.site_name[id];
    emit(GPM_TR_SITE, 0, 0, strlen(name), id, 0, name, strlen(name));
}

/* ---- the objects and their pages ---- */

static int obj_of(const void *addr, uint64_t *off)
{
    const char *a = addr;
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live && a >= T.obj[i].host && a < T.obj[i].host + T.obj[i].size) {
            *off = (uint64_t)(a - T.obj[i].host);
            return i;
        }
    return -1;
}

static void on_fault(int sig, siginfo_t *si, void *ctx)
{
    char *a = si->si_addr;
    (void)sig, (void)ctx;
    /* Under the events' lock (the fault is synchronous, and no code that
     * holds the lock writes to a traced mapping): once the page is
     * writable, other threads' writes to it need not fault, and an event
     * one of them makes next must find the page marked. Outside the lock,
     * that event could run between the mprotect and the mark, and miss
     * the writes made before it. */
    pthread_mutex_lock(&gpm_trace_mu);
    for (int i = 0; i < T.nobj; i++) {
        struct tobj *o = &T.obj[i];
        if (o->live && o->dirty && a >= o->host && a < o->host + o->size) {
            size_t p = (size_t)(a - o->host) / T.page;
            mprotect(o->host + p * T.page, T.page, PROT_READ | PROT_WRITE);
            o->dirty[p] = 1;
            pthread_mutex_unlock(&gpm_trace_mu);
            return;
        }
    }
    pthread_mutex_unlock(&gpm_trace_mu);
    /* Not a traced page: the fault is the program's own. Where it was is
     * said here, since the program's handler (or the core) sees it only
     * after this one. */
    {
        static const char msg[] = "gpm trace: a fault outside the traced mappings, at:\n";
        void *frames[32];
        ssize_t w = write(2, msg, sizeof msg - 1);
        (void)w;
        backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
    }
    sigaction(SIGSEGV, &T.old, NULL);
    T.handler = 0;
}

/* The words of page P of object I that differ from the trace's copy, as
 * stores (runs of whole 8-byte words), the copy brought up to date. The
 * page is protected again first: a write after that faults and is found
 * at the next event. */
static void sync_page(int i, size_t p)
{
    struct tobj *o = &T.obj[i];
    size_t lo = p * T.page, hi = lo + T.page < o->size ? lo + T.page : o->size, w, run = 0;
    o->dirty[p] = 0;
    mprotect(o->host + lo, hi - lo, PROT_READ);
    /* The object's last word may be short: it ends at HI. */
    for (w = lo;; w += 8) {
        size_t e = w < hi ? w : hi;
        int differs = w < hi && memcmp(o->host + w, o->shadow + w, hi - w < 8 ? hi - w : 8) != 0;
        if (differs && !run)
            run = w + 1;
        if (!differs && run) {
            size_t a = run - 1;
            memcpy(o->shadow + a, o->host + a, e - a);
            /* No site: the store's line is not known, only its page's. */
            emit(GPM_TR_STORE, (uint32_t)i, a, e - a, GPM_NO_SITE, GPM_TR_CPU, o->shadow + a,
                 e - a);
            run = 0;
        }
        if (w >= hi)
            break;
    }
}

/* Every kernel's store and fence the ring holds, and every page written
 * since the last event, before the next one. */
static void sync_all(void)
{
    gpm_trace_device_drain();
    for (int i = 0; i < T.nobj; i++) {
        struct tobj *o = &T.obj[i];
        if (!o->live || !o->dirty)
            continue;
        for (size_t p = 0; p * T.page < o->size; p++)
            if (o->dirty[p])
                sync_page(i, p);
    }
}

static int start_obj(int i)
{
    struct tobj *o = &T.obj[i];
    char path[4200];
    FILE *f;
    emit(GPM_TR_OBJ, (uint32_t)i, o->size, strlen(o->path), 0, 0, o->path, strlen(o->path));
    snprintf(path, sizeof path, "%s/start-%d", T.dir, i);
    o->shadow = malloc(o->size);
    o->dirty = calloc((o->size + T.page - 1) / T.page, 1);
    if (!o->shadow || !o->dirty || !(f = fopen(path, "wb")))
        return gpm_set_error("%s: cannot write the trace's start image of %s: check the space",
                             path, o->path);
    memcpy(o->shadow, o->host, o->size);
    if (fwrite(o->shadow, 1, o->size, f) != o->size) {
        fclose(f);
        return gpm_set_error("%s: cannot write the trace's start image: check the space", path);
    }
    fclose(f);
    return mprotect(o->host, o->size, PROT_READ) == 0
               ? 0
               : gpm_set_error("%s: cannot write-protect the mapping for the trace (%s)",
                               o->path, strerror(errno));
}

static void stop_obj(int i)
{
    struct tobj *o = &T.obj[i];
    if (o->dirty)
        mprotect(o->host, o->size, PROT_READ | PROT_WRITE);
    free(o->shadow);
    free((void *)o->dirty);
    o->shadow = NULL;
    o->dirty = NULL;
}

/* ---- the API ---- */

int gpm_trace_open(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return gpm_set_error("--trace: %s is not a directory: create it, or pass one", dir);
    snprintf(T.dir, sizeof T.dir, "%s", dir);
    T.page = (size_t)sysconf(_SC_PAGESIZE);
    T.open = 1;
    T.model = 0;
    T.run[0] = '\0';
    return 0;
}

int gpm_trace_active(void) { return T.recording; }

void gpm_trace_model(int model)
{
    if (T.open)
        T.model = model + 1;
}

void gpm_trace_describe(const char *words)
{
    if (T.open)
        snprintf(T.run, sizeof T.run, "%s", words);
}

void gpm_trace_map(const void *host, size_t size, const char *path)
{
    struct tobj *o;
    if (!T.open)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    if (T.nobj < MAX_OBJECTS) {
        o = &T.obj[T.nobj];
        memset(o, 0, sizeof *o);
        o->host = (char *)host;
        o->size = size;
        snprintf(o->path, sizeof o->path, "%s", path);
        o->live = 1;
        if (T.recording && start_obj(T.nobj) != 0)
            fprintf(stderr, "gpm trace: %s\n", gpm_last_error());
        T.nobj++;
    }
    pthread_mutex_unlock(&gpm_trace_mu);
}

void gpm_trace_map_device(const void *host, const void *dev)
{
    int start = 0;
    if (!T.open)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live && T.obj[i].host == host) {
            T.obj[i].dev = dev;
            start = T.recording;
        }
    pthread_mutex_unlock(&gpm_trace_mu);
    if (start && gpm_trace_device_start() != 0)
        fprintf(stderr, "gpm trace: %s\n", gpm_last_error());
}

void gpm_trace_unmap(const void *host)
{
    if (!T.open)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live && T.obj[i].host == host) {
            if (T.recording)
                sync_all();
            stop_obj(i);
            T.obj[i].live = 0;
        }
    pthread_mutex_unlock(&gpm_trace_mu);
}

int gpm_trace_begin(void)
{
    char path[4200];
    uint64_t magic = GPM_TRACE_MAGIC;
    struct sigaction sa;
    int gpu = 0;
    if (!T.open)
        return 0;
    snprintf(path, sizeof path, "%s/trace.bin", T.dir);
    if (!(T.f = fopen(path, "wb")))
        return gpm_set_error("%s: cannot create the trace (%s): check the directory", path,
                             strerror(errno));
    fwrite(&magic, sizeof magic, 1, T.f);
    /* Each trace names the sites it uses. */
    for (uint32_t k = 0; k < T.nsites; k++)
        free(T.site_name[k]);
    T.nsites = 0;
    if (!T.handler) {
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGSEGV, &sa, &T.old) != 0)
            return gpm_set_error("cannot catch the trace's page faults (%s)", strerror(errno));
        T.handler = 1;
    }
    pthread_mutex_lock(&gpm_trace_mu);
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live && start_obj(i) != 0) {
            pthread_mutex_unlock(&gpm_trace_mu);
            return -1;
        }
    T.recording = 1;
    for (int i = 0; i < T.nobj; i++)
        gpu |= T.obj[i].live && T.obj[i].dev;
    pthread_mutex_unlock(&gpm_trace_mu);
    /* Kernels store into the mappings: their records too. */
    return gpu ? gpm_trace_device_start() : 0;
}

int gpm_trace_end(void)
{
    int rc, lost;
    if (!T.recording)
        return 0;
    lost = gpm_trace_device_stop();
    pthread_mutex_lock(&gpm_trace_mu);
    sync_all();
    /* A trace that lost kernel records is cut short: it ends without END. */
    if (T.model)
        emit(GPM_TR_MODEL, 0, 0, 0, 0, (uint32_t)(T.model - 1), NULL, 0);
    if (T.run[0])
        emit(GPM_TR_RUN, 0, 0, strlen(T.run), 0, 0, T.run, strlen(T.run));
    if (lost == 0)
        emit(GPM_TR_END, 0, 0, 0, 0, 0, NULL, 0);
    T.recording = 0;
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live)
            stop_obj(i);
    rc = fclose(T.f) == 0 ? lost : gpm_set_error("%s/trace.bin: cannot finish the trace", T.dir);
    T.f = NULL;
    pthread_mutex_unlock(&gpm_trace_mu);
    return rc;
}

/* One event: the stores before it, then its record. */
static void event(uint32_t kind, uint32_t aux, const void *addr, uint64_t len, const char *site)
{
    uint64_t off = 0;
    int i;
    if (!T.recording) /* every persist of an untraced run comes here: first */
        return;
    if ((i = addr ? obj_of(addr, &off) : 0) < 0)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    if (T.recording) {
        sync_all();
        emit(kind, addr ? (uint32_t)i : 0, off, len, site_id(site), aux, NULL, 0);
    }
    pthread_mutex_unlock(&gpm_trace_mu);
}

void gpm_trace_removed(uint32_t kind, const void *addr, size_t len, const char *site)
{
    event(GPM_TR_REMOVED, kind, addr, len, site);
}

void gpm_trace_flush(const void *addr, size_t len, const char *site)
{
    event(GPM_TR_FLUSH, 0, addr, len, site);
}

void gpm_trace_drain(const char *site) { event(GPM_TR_DRAIN, 0, NULL, 0, site); }

void gpm_trace_persist(const void *addr, size_t len, const char *site)
{
    event(GPM_TR_PERSIST, 0, addr, len, site);
}

static int obj_of_fd(int fd)
{
    for (int k = 0; k < T.nfds; k++)
        if (T.fds[k].fd == fd)
            return T.fds[k].obj;
    return -1;
}

void gpm_trace_fd(int fd, const char *path)
{
    if (!T.open)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    for (int i = 0; i < T.nobj; i++)
        if (T.obj[i].live && strcmp(T.obj[i].path, path) == 0 && T.nfds < MAX_FDS) {
            T.fds[T.nfds].fd = fd;
            T.fds[T.nfds++].obj = i;
            break;
        }
    pthread_mutex_unlock(&gpm_trace_mu);
}

static void fsync_as(int fd, uint32_t kind, uint32_t aux, const char *site)
{
    int i;
    if (!T.recording)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    if (T.recording && (i = obj_of_fd(fd)) >= 0) {
        sync_all();
        emit(kind, (uint32_t)i, 0, 0, site_id(site), aux, NULL, 0);
    }
    pthread_mutex_unlock(&gpm_trace_mu);
}

void gpm_trace_fsync(int fd, const char *site) { fsync_as(fd, GPM_TR_FSYNC, 0, site); }

/* Bytes that reached a traced object without the CPU's stores: recorded as
 * they are, and the trace's copy updated, so no page diff finds them. */
static void stored(int i, uint64_t off, const void *buf, size_t len, uint32_t how,
                   const char *site)
{
    struct tobj *o = &T.obj[i];
    if (off > o->size || len > o->size - off)
        return;
    sync_all();
    memcpy(o->shadow + off, buf, len);
    emit(GPM_TR_STORE, (uint32_t)i, off, len, site_id(site), how, buf, len);
}

static int obj_of_dev(uint64_t addr, uint32_t len, uint64_t *off)
{
    for (int i = 0; i < T.nobj; i++) {
        const struct tobj *o = &T.obj[i];
        uint64_t base = (uint64_t)(uintptr_t)o->dev;
        if (o->live && o->dev && o->size >= len && addr >= base && addr - base <= o->size - len) {
            *off = addr - base;
            return i;
        }
    }
    return -1;
}

void gpm_trace_gpu_store(uint64_t addr, const void *val, uint32_t len, uint64_t thread,
                         uint32_t site)
{
    uint64_t off;
    int i;
    if (!T.recording || (i = obj_of_dev(addr, len, &off)) < 0)
        return; /* device memory, not PM */
    memcpy(T.obj[i].shadow + off, val, len);
    emit_by(thread, GPM_TR_STORE, (uint32_t)i, off, len, site, GPM_TR_GPU, val, len);
}

void gpm_trace_gpu_fence(uint64_t thread, uint32_t site, int removed)
{
    if (T.recording)
        emit_by(thread, removed ? GPM_TR_REMOVED : GPM_TR_FENCE, 0, 0, 0, site,
                removed ? GPM_TR_FENCE : 0, NULL, 0);
}

void gpm_trace_gpu_sbrp(unsigned drec_kind, uint64_t addr, uint32_t scope, uint64_t thread,
                        uint32_t site, int removed)
{
    static const uint32_t kind_of[] = {[GPM_DREC_OFENCE] = GPM_TR_OFENCE,
                                       [GPM_DREC_DFENCE] = GPM_TR_DFENCE,
                                       [GPM_DREC_PREL] = GPM_TR_PREL,
                                       [GPM_DREC_PACQ] = GPM_TR_PACQ};
    /* A flag in a traced mapping is named by its object and offset; one in
     * GPU memory by its address (the fences have none). */
    uint32_t obj = addr ? GPM_TR_DEVICE_OBJ : 0;
    uint64_t off = addr;
    int i;
    if (!T.recording || drec_kind < GPM_DREC_OFENCE || drec_kind > GPM_DREC_PACQ)
        return;
    if (addr && (i = obj_of_dev(addr, 4, &off)) >= 0)
        obj = (uint32_t)i;
    if (removed) /* an oFence or dFence GPM_MUTATE removed */
        emit_by(thread, GPM_TR_REMOVED, 0, 0, 0, site, kind_of[drec_kind], NULL, 0);
    else
        emit_by(thread, kind_of[drec_kind], obj, off, 0, site, scope, NULL, 0);
}

void gpm_trace_write(int fd, off_t off, const void *buf, size_t len, const char *site)
{
    int i;
    if (!T.recording)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    if (T.recording && (i = obj_of_fd(fd)) >= 0)
        stored(i, (uint64_t)off, buf, len, GPM_TR_WRITE, site);
    pthread_mutex_unlock(&gpm_trace_mu);
}

void gpm_trace_dma(const void *addr, size_t len, const char *site)
{
    uint64_t off;
    int i;
    if (!T.recording)
        return;
    pthread_mutex_lock(&gpm_trace_mu);
    if (T.recording && (i = obj_of(addr, &off)) >= 0)
        stored(i, off, T.obj[i].host + off, len, GPM_TR_DMA, site);
    pthread_mutex_unlock(&gpm_trace_mu);
}

/* ---- the persist primitives ---- */

/* Each is recorded before it runs: a store another thread makes meanwhile
 * lands after the event in the trace, which counts it not yet persisted
 * (the cautious order; the other would credit a flush with a store it may
 * have missed). */
void gpm_flush_at(const void *addr, size_t len, const char *site)
{
    if (gpm_mutated(site)) {
        gpm_trace_removed(GPM_TR_FLUSH, addr, len, site);
        return;
    }
    gpm_trace_flush(addr, len, site);
    pmem_flush(addr, len);
}

void gpm_drain_at(const char *site)
{
    if (gpm_mutated(site)) {
        gpm_trace_removed(GPM_TR_DRAIN, NULL, 0, site);
        return;
    }
    gpm_trace_drain(site);
    pmem_drain();
}

int gpm_fsync_at(int fd, const char *site)
{
    int rc;
    if (gpm_mutated(site)) {
        fsync_as(fd, GPM_TR_REMOVED, GPM_TR_FSYNC, site);
        return 0;
    }
    while ((rc = fsync(fd)) != 0 && errno == EINTR)
        ;
    if (rc == 0)
        gpm_trace_fsync(fd, site);
    return rc;
}
