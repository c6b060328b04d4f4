/* The persistence half of every mode: which engine moves the bytes to PM and
 * makes them durable. Workloads call these from their timed region. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "wl.h"

int wl_persist_begin(struct wl_ctx *c)
{
    /* gpm-eadr assumes the LLC is in the persistence domain: DDIO untouched. */
    return c->opt.mode == WL_GPM ? gpm_persist_begin() : 0;
}

int wl_persist_end(struct wl_ctx *c)
{
    return c->opt.mode == WL_GPM ? gpm_persist_end() : 0;
}

int wl_cap_persist(struct wl_ctx *c, size_t off, const void *dev_src, size_t len)
{
    int rc;
    if (len == 0)
        return 0;
    if (off + len > c->pm.size && c->opt.mode != WL_CAP_FS)
        return gpm_set_error("%s: persist of %zu bytes at %zu runs past its %zu bytes",
                             c->pm.path, len, off, c->pm.size);
    switch (c->opt.mode) {
    case WL_CAP_MM: rc = gpm_cap_mm(c->flusher, &c->pm, off, dev_src, len, 0); break;
    case WL_CAP_EADR: rc = gpm_cap_mm(c->flusher, &c->pm, off, dev_src, len, 1); break;
    case WL_CAP_FS: rc = gpm_cap_fs(&c->cf, (off_t)off, dev_src, len); break;
    default:
        return gpm_set_error("wl_cap_persist: mode %s is not a CAP mode",
                             wl_mode_name(c->opt.mode));
    }
    if (rc == 0)
        c->bytes_persisted += (double)len;
    return rc;
}

int wl_ndp_flush(struct wl_ctx *c, size_t off, size_t len)
{
    if (len == 0)
        return 0;
    if (off + len > c->pm.size)
        return gpm_set_error("%s: flush of %zu bytes at %zu runs past its %zu bytes",
                             c->pm.path, len, off, c->pm.size);
    if (gpm_flusher_persist(c->flusher, &c->pm, (char *)c->pm.host + off, len, 0) != 0)
        return -1;
    c->bytes_persisted += (double)len;
    return 0;
}

int wl_pm_write(struct wl_ctx *c, size_t off, const void *src, size_t len)
{
    if (c->cf_open)
        return gpm_cap_fs_host(&c->cf, (off_t)off, src, len);
    if (!c->pm.host || off + len > c->pm.size)
        return gpm_set_error("%s: write of %zu bytes at %zu outside the mapping", c->pm.path,
                             len, off);
    memcpy((char *)c->pm.host + off, src, len);
    return gpm_region_persist(&c->pm, (char *)c->pm.host + off, len);
}

/* --cpu-threads best: one timed persist of the workload's size (at most
 * 1 GiB) with 1..32 threads into a scratch file, never into the data. */
static int calibrate(struct wl_ctx *c, int *best)
{
    static const int counts[] = {1, 2, 4, 8, 16, 32};
    size_t len = c->calib_bytes;
    char name[256];
    gpm_region r;
    void *dev = NULL;
    double best_s = 1e30;
    int rc = -1;

    if (len > (1ull << 30))
        len = 1ull << 30;
    if (len < (1u << 20))
        len = 1u << 20;
    len = (len + 4095) & ~(size_t)4095;
    snprintf(name, sizeof name, "calibrate-%s-%d.pm", c->wl->name, (int)getpid());
    if (gpm_map(&r, name, len, GPM_CREATE) != 0)
        return -1;
    if (cudaMalloc(&dev, len) != cudaSuccess || cudaMemset(dev, 0x5a, len) != cudaSuccess) {
        gpm_set_error("--cpu-threads best: cannot allocate %zu bytes of device memory for "
                      "the calibration: pass --cpu-threads N", len);
        goto out;
    }
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        gpm_flusher *f = gpm_flusher_create(counts[i]);
        double t0, s;
        int e;
        if (!f)
            goto out;
        if (c->opt.mode == WL_GPM_NDP) {
            memset(r.host, (int)i, len); /* dirty lines, as a kernel's stores leave them */
            t0 = wl_now();
            e = gpm_flusher_persist(f, &r, r.host, len, 0);
        } else {
            t0 = wl_now();
            e = gpm_cap_mm(f, &r, 0, dev, len, c->opt.mode == WL_CAP_EADR);
        }
        s = wl_now() - t0;
        gpm_flusher_destroy(f);
        if (e != 0)
            goto out;
        if (s < best_s) {
            best_s = s;
            *best = counts[i];
        }
    }
    rc = 0;
out:
    if (dev)
        cudaFree(dev);
    gpm_unmap(&r);
    unlink(r.path);
    return rc;
}

int wl_flusher_setup(struct wl_ctx *c)
{
    int n = c->opt.cpu_threads;
    c->threads = 0;
    snprintf(c->threads_how, sizeof c->threads_how, "0");
    if (!wl_mode_uses_flusher(c->opt.mode))
        return 0;
    if (n == 0) {
        if (calibrate(c, &n) != 0)
            return -1;
        snprintf(c->threads_how, sizeof c->threads_how, "best:%d", n);
    } else
        snprintf(c->threads_how, sizeof c->threads_how, "%d", n);
    c->flusher = gpm_flusher_create(n);
    if (!c->flusher)
        return -1;
    c->threads = n;
    return 0;
}
