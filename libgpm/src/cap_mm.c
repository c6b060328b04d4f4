/* CAP-mm: the GPU's results are copied with cudaMemcpy straight into the
 * mapped PM file, then CPU threads flush them (or only fence, with eADR).
 * A list of ranges is copied on one stream, synchronised once, and flushed
 * in one pass. */
#include <cuda_runtime_api.h>

#include "gpm/cap.h"

/* Every range is checked before anything is copied. */
static int check_ranges(const gpm_region *r, const gpm_range *v, int n)
{
    if (n < 0 || (n > 0 && !v))
        return gpm_set_error("%s: CAP-mm of %d ranges at %p: pass a list of N >= 0 ranges",
                             r->path, n, (const void *)v);
    for (int i = 0; i < n; i++) {
        if (v[i].off > r->size || v[i].len > r->size - v[i].off)
            return gpm_set_error("%s: CAP-mm copy of %zu bytes at offset %zu (range %d of %d) "
                                 "runs past the %zu-byte file: map a larger file or copy less",
                                 r->path, v[i].len, v[i].off, i, n, r->size);
        if (v[i].len > 0 && !v[i].src)
            return gpm_set_error("%s: CAP-mm range %d of %d has no source: pass the device "
                                 "buffer to copy from", r->path, i, n);
    }
    /* An unregistered destination would make cudaMemcpy bounce through its
     * own staging: a slower baseline than a real user would write. */
    if (!r->dev)
        return gpm_set_error("%s: CAP-mm needs the mapping registered with CUDA: map it "
                             "without GPM_HOST_ONLY", r->path);
    return 0;
}

int gpm_cap_mm_ranges(gpm_flusher *f, const gpm_region *r, const gpm_range *v, int n,
                      int fence_only, void *stream)
{
    cudaStream_t s = stream ? (cudaStream_t)stream : cudaStreamLegacy;
    cudaError_t e = cudaSuccess, se;
    int failed = -1;
    if (!f || !r || !r->host)
        return gpm_set_error("gpm_cap_mm: needs a flusher and a mapped region");
    if (check_ranges(r, v, n) != 0)
        return -1;
    if (n == 0)
        return 0;
    for (int i = 0; i < n && e == cudaSuccess; i++) {
        if (v[i].len == 0)
            continue;
        e = cudaMemcpyAsync((char *)r->host + v[i].off, v[i].src, v[i].len, cudaMemcpyDefault,
                            s);
        if (e != cudaSuccess)
            failed = i;
    }
    /* Also after a failed copy: never return with a DMA still writing. */
    se = cudaStreamSynchronize(s);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-mm cudaMemcpy of %zu bytes (range %d of %d) failed: %s",
                             r->path, v[failed].len, failed, n, cudaGetErrorString(e));
    if (se != cudaSuccess)
        return gpm_set_error("%s: CAP-mm copy of %d ranges failed: %s", r->path, n,
                             cudaGetErrorString(se));
    for (int i = 0; i < n; i++) /* the DMA's stores, which no CPU made */
        gpm_trace_dma((char *)r->host + v[i].off, v[i].len, GPM_SITE);
    return gpm_flusher_persist_ranges(f, r, v, n, fence_only);
}

int gpm_cap_mm(gpm_flusher *f, const gpm_region *r, size_t offset, const void *dev_src,
               size_t len, int fence_only)
{
    gpm_range one;
    one.off = offset;
    one.len = len;
    one.src = dev_src;
    return gpm_cap_mm_ranges(f, r, &one, 1, fence_only, NULL);
}
