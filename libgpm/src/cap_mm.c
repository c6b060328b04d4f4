/* CAP-mm: the GPU's results are copied with cudaMemcpy straight into the
 * mapped PM file, then CPU threads flush them (or only fence, with eADR). */
#include <cuda_runtime_api.h>

#include "gpm/cap.h"

int gpm_cap_mm(gpm_flusher *f, const gpm_region *r, size_t offset, const void *dev_src,
               size_t len, int fence_only)
{
    cudaError_t e;
    if (!f || !r || !r->host)
        return gpm_set_error("gpm_cap_mm: needs a flusher and a mapped region");
    if (offset > r->size || len > r->size - offset)
        return gpm_set_error("%s: CAP-mm copy of %zu bytes at offset %zu runs past the "
                             "%zu-byte file: map a larger file or copy less",
                             r->path, len, offset, r->size);
    /* An unregistered destination would make cudaMemcpy bounce through its
     * own staging: a slower baseline than a real user would write. */
    if (!r->dev)
        return gpm_set_error("%s: CAP-mm needs the mapping registered with CUDA: map it "
                             "without GPM_HOST_ONLY", r->path);
    if (len == 0)
        return 0;
    e = cudaMemcpy((char *)r->host + offset, dev_src, len, cudaMemcpyDefault);
    if (e != cudaSuccess)
        return gpm_set_error("%s: CAP-mm cudaMemcpy of %zu bytes failed: %s", r->path, len,
                             cudaGetErrorString(e));
    return gpm_flusher_persist(f, r, (char *)r->host + offset, len, fence_only);
}
