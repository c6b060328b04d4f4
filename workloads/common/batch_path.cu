/* The batch path: the pipe and the grouping of batch_path.h. */
#include <string.h>

#include <cuda_runtime.h>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include "batch_path.h"
#include "gpm/gpm.h"

#define GROUP_THREADS 1024
#define GROUP_ITEMS (WL_GROUP_BLOCK_ITEMS / GROUP_THREADS)

enum { EV_IN, EV_KERNELS, EV_KERNELS_END, EV_OUT };

static cudaStream_t stream_of(void *s) { return (cudaStream_t)s; }
static cudaEvent_t event(void *e) { return (cudaEvent_t)e; }

static int failed(cudaError_t e, const char *what)
{
    return e == cudaSuccess ? 0 : gpm_set_error("%s failed (%s)", what, cudaGetErrorString(e));
}

extern "C" int wl_pipe_open(struct wl_pipe *p, size_t in_bytes, size_t ans_bytes, double *lat)
{
    cudaError_t e = cudaSuccess;
    void **streams[3] = {&p->copy, &p->run, &p->out};
    memset(p, 0, sizeof *p);
    p->in_bytes = in_bytes;
    p->ans_bytes = ans_bytes;
    p->lat = lat;
    p->last[0] = p->last[1] = -1;
    /* Blocking streams: work a workload still puts on the legacy stream
     * (BktCache's, the transactions' copies) stays ordered with them. */
    for (int i = 0; e == cudaSuccess && i < 3; i++)
        e = cudaStreamCreate((cudaStream_t *)streams[i]);
    for (int k = 0; e == cudaSuccess && k < 2; k++) {
        e = cudaMalloc((void **)&p->in[k], in_bytes ? in_bytes : 1);
        if (e == cudaSuccess)
            e = cudaMalloc((void **)&p->ans[k], ans_bytes ? ans_bytes : 1);
        if (e == cudaSuccess)
            e = cudaEventCreateWithFlags((cudaEvent_t *)&p->landed[k], cudaEventDisableTiming);
    }
    for (int d = 0; e == cudaSuccess && d < WL_PIPE_DEPTH; d++)
        for (int k = 0; e == cudaSuccess && k < 4; k++)
            e = cudaEventCreate((cudaEvent_t *)&p->ev[d][k]);
    if (e != cudaSuccess) {
        wl_pipe_close(p);
        return gpm_set_error("setting up the batches' streams and %zu-byte buffers failed (%s)",
                             in_bytes, cudaGetErrorString(e));
    }
    return 0;
}

void wl_pipe_close(struct wl_pipe *p)
{
    void *streams[3] = {p->copy, p->run, p->out};
    for (int i = 0; i < 3; i++)
        if (streams[i])
            cudaStreamSynchronize(stream_of(streams[i]));
    for (int k = 0; k < 2; k++) {
        if (p->in[k])
            cudaFree(p->in[k]);
        if (p->ans[k])
            cudaFree(p->ans[k]);
        if (p->landed[k])
            cudaEventDestroy(event(p->landed[k]));
    }
    for (int d = 0; d < WL_PIPE_DEPTH; d++)
        for (int k = 0; k < 4; k++)
            if (p->ev[d][k])
                cudaEventDestroy(event(p->ev[d][k]));
    for (int i = 0; i < 3; i++)
        if (streams[i])
            cudaStreamDestroy(stream_of(streams[i]));
    memset(p, 0, sizeof *p);
}

void *wl_pipe_stream(const struct wl_pipe *p) { return p->run; }
void *wl_pipe_prep(const struct wl_pipe *p) { return p->copy; }

static float between(void *a, void *b)
{
    float ms = 0;
    cudaEventElapsedTime(&ms, event(a), event(b));
    return ms / 1e3f;
}

/* Slot D's batch done: its times read. */
static int settle(struct wl_pipe *p, int d)
{
    if (!p->busy[d])
        return 0;
    if (failed(cudaEventSynchronize(event(p->ev[d][EV_OUT])), "a batch on the GPU") != 0)
        return -1;
    p->busy[d] = 0;
    p->lat[p->batch[d]] = between(p->ev[d][EV_IN], p->ev[d][EV_OUT]);
    p->kernel_s += between(p->ev[d][EV_KERNELS], p->ev[d][EV_KERNELS_END]);
    return 0;
}

/* STREAM waits for event I of the batch that used buffer K last, if any:
 * its kernels' end frees the inputs' buffer, its answers' arrival the
 * answers'. (A slot recorded again since by a later batch only makes the
 * wait longer, never short.) */
static cudaError_t after_last(const struct wl_pipe *p, int k, int i, void *stream)
{
    return p->last[k] < 0 ? cudaSuccess
                          : cudaStreamWaitEvent(stream_of(stream), event(p->ev[p->last[k]][i]), 0);
}

uint8_t *wl_pipe_in(struct wl_pipe *p, uint64_t b, const void *const *src, const size_t *bytes,
                    int n)
{
    int d = (int)(b % WL_PIPE_DEPTH), k = (int)(b % 2);
    size_t at = 0;
    cudaError_t e;
    if (settle(p, d) != 0)
        return NULL;
    p->batch[d] = b;
    p->cur = b;
    e = after_last(p, k, EV_KERNELS_END, p->copy);
    if (e == cudaSuccess)
        e = cudaEventRecord(event(p->ev[d][EV_IN]), stream_of(p->copy));
    for (int i = 0; e == cudaSuccess && i < n; i++) {
        if (at + bytes[i] > p->in_bytes) {
            gpm_set_error("batch %llu's inputs need more than the pipe's %zu bytes",
                          (unsigned long long)b, p->in_bytes);
            return NULL;
        }
        e = cudaMemcpyAsync(p->in[k] + at, src[i], bytes[i], cudaMemcpyHostToDevice,
                            stream_of(p->copy));
        at += bytes[i];
    }
    if (e != cudaSuccess) {
        gpm_set_error("copying batch %llu to the GPU failed (%s)", (unsigned long long)b,
                      cudaGetErrorString(e));
        return NULL;
    }
    return p->in[k];
}

uint8_t *wl_pipe_go(struct wl_pipe *p)
{
    int d = (int)(p->cur % WL_PIPE_DEPTH), k = (int)(p->cur % 2);
    cudaError_t e = cudaGetLastError(); /* a launch of its preparation refused */
    if (e == cudaSuccess)
        e = cudaEventRecord(event(p->landed[k]), stream_of(p->copy));
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(stream_of(p->run), event(p->landed[k]), 0);
    if (e == cudaSuccess)
        e = after_last(p, k, EV_OUT, p->run);
    if (e == cudaSuccess)
        e = cudaEventRecord(event(p->ev[d][EV_KERNELS]), stream_of(p->run));
    if (e != cudaSuccess) {
        gpm_set_error("preparing batch %llu on the GPU failed (%s)", (unsigned long long)p->cur,
                      cudaGetErrorString(e));
        return NULL;
    }
    p->last[k] = d;
    p->busy[d] = 1;
    return p->ans[k];
}

int wl_pipe_out(struct wl_pipe *p, void *out_host, size_t out_bytes)
{
    int d = (int)(p->cur % WL_PIPE_DEPTH), k = (int)(p->cur % 2);
    cudaStream_t out = stream_of(p->out);
    cudaError_t e = cudaGetLastError(); /* a launch the batch's kernels had refused */
    if (out_bytes > p->ans_bytes)
        return gpm_set_error("batch %llu's answers need more than the pipe's %zu bytes",
                             (unsigned long long)p->cur, p->ans_bytes);
    if (e == cudaSuccess)
        e = cudaEventRecord(event(p->ev[d][EV_KERNELS_END]), stream_of(p->run));
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(out, event(p->ev[d][EV_KERNELS_END]), 0);
    if (e == cudaSuccess && out_bytes)
        e = cudaMemcpyAsync(out_host, p->ans[k], out_bytes, cudaMemcpyDeviceToHost, out);
    if (e == cudaSuccess)
        e = cudaEventRecord(event(p->ev[d][EV_OUT]), out);
    if (e != cudaSuccess)
        return gpm_set_error("batch %llu on the GPU failed (%s)", (unsigned long long)p->cur,
                             cudaGetErrorString(e));
    return 0;
}

int wl_pipe_drain(struct wl_pipe *p)
{
    int rc = 0;
    for (uint64_t i = 0; i < WL_PIPE_DEPTH; i++) {
        /* Oldest first, though any order gives the same times. */
        int d = (int)((p->cur + 1 + i) % WL_PIPE_DEPTH);
        if (settle(p, d) != 0)
            rc = -1;
    }
    return rc;
}

/* ---- grouping ---- */

/* One block sorts the whole batch: keys and positions in a blocked
 * arrangement, positions past N carrying the largest key so they sort
 * last (after any real key equal to it: the sort is stable). */
__global__ void __launch_bounds__(GROUP_THREADS)
    group_kernel(const uint32_t *keys, uint32_t n, int bits, uint32_t *key_out, uint32_t *idx_out)
{
    typedef cub::BlockRadixSort<uint32_t, GROUP_THREADS, GROUP_ITEMS, uint32_t> sort_t;
    __shared__ typename sort_t::TempStorage tmp;
    uint32_t k[GROUP_ITEMS], v[GROUP_ITEMS];
    for (int j = 0; j < GROUP_ITEMS; j++) {
        uint32_t i = threadIdx.x * GROUP_ITEMS + j;
        k[j] = i < n ? keys[i] : 0xffffffffu;
        v[j] = i;
    }
    sort_t(tmp).Sort(k, v, 0, bits);
    for (int j = 0; j < GROUP_ITEMS; j++) {
        uint32_t i = threadIdx.x * GROUP_ITEMS + j;
        if (i < n) {
            key_out[i] = k[j];
            idx_out[i] = v[j];
        }
    }
}

__global__ void positions_kernel(uint32_t *idx, uint64_t n)
{
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        idx[i] = (uint32_t)i;
}

extern "C" int wl_group_alloc(struct wl_group *g, uint64_t cap)
{
    cudaError_t e;
    memset(g, 0, sizeof *g);
    g->cap = cap;
    e = cudaMalloc((void **)&g->key, cap * 4);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&g->idx, cap * 4);
    if (e == cudaSuccess && cap > WL_GROUP_BLOCK_ITEMS) {
        e = cudaMalloc((void **)&g->in_idx, cap * 4);
        if (e == cudaSuccess)
            positions_kernel<<<(unsigned)((cap + 255) / 256 < 65535 ? (cap + 255) / 256 : 65535),
                               256>>>(g->in_idx, cap);
        if (e == cudaSuccess)
            e = cub::DeviceRadixSort::SortPairs(NULL, g->tmp_bytes, (const uint32_t *)NULL,
                                                g->key, (const uint32_t *)g->in_idx, g->idx,
                                                (int)cap);
        if (e == cudaSuccess)
            e = cudaMalloc(&g->tmp, g->tmp_bytes);
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
    }
    if (e != cudaSuccess) {
        wl_group_free(g);
        return gpm_set_error("setting up the grouping of batches of %llu failed (%s)",
                             (unsigned long long)cap, cudaGetErrorString(e));
    }
    return 0;
}

void wl_group_free(struct wl_group *g)
{
    cudaFree(g->key);
    cudaFree(g->idx);
    cudaFree(g->in_idx);
    cudaFree(g->tmp);
    memset(g, 0, sizeof *g);
}

extern "C" int wl_group_sort(struct wl_group *g, const uint32_t *keys, uint64_t n, int bits,
                             void *stream)
{
    cudaStream_t s = stream_of(stream);
    cudaError_t e;
    if (n > g->cap || bits < 1 || bits > 32)
        return gpm_set_error("grouping %llu operations by %d bits: at most %llu, 1 to 32 bits",
                             (unsigned long long)n, bits, (unsigned long long)g->cap);
    if (n <= WL_GROUP_BLOCK_ITEMS) {
        group_kernel<<<1, GROUP_THREADS, 0, s>>>(keys, (uint32_t)n, bits, g->key, g->idx);
        e = cudaGetLastError();
    } else {
        e = cub::DeviceRadixSort::SortPairs(g->tmp, g->tmp_bytes, keys, g->key, g->in_idx, g->idx,
                                            (int)n, 0, bits, s);
    }
    return failed(e, "grouping a batch's operations");
}
