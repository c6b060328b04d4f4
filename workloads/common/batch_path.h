/* The batch path of the stores that serve batches of operations (GPHash,
 * gpKVS), with no device-wide synchronisation between batches:
 *
 *   pipe   three streams: a batch's inputs are copied on the copy stream
 *          into one of two device buffers, where kernels that read only
 *          them (its grouping) may follow, while the batch before runs;
 *          its other kernels go on the run stream once those are done; its
 *          answers, in one of two device buffers, go back on the out
 *          stream while the next batch runs. Its times come from events,
 *          read when the host waits for the oldest of the WL_PIPE_DEPTH
 *          batches in flight (or drains);
 *   group  a batch's operations ordered stably by a key of BITS bits, in
 *          one kernel of one block where the batch fits it (cub's device
 *          radix sort, several kernels, beyond).
 *
 * A batch's time (lat) runs from its inputs' copy to its answers' arrival,
 * both on the GPU's clock: with batches in flight it includes the wait
 * behind the batch before, as a client's would. Its kernels' time (kernel)
 * runs from the start of its kernels on the run stream to their end: what
 * it holds the run stream, and so the batches' throughput, for.
 *
 * Not thread-safe: one host thread drives a pipe. Host buffers given to it
 * must be pinned (cudaHostRegister) for the copies to overlap. */
#ifndef BATCH_PATH_H
#define BATCH_PATH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WL_PIPE_DEPTH 4
#define WL_GROUP_BLOCK_ITEMS 4096 /* the most one block groups */

struct wl_pipe {
    void *copy, *run, *out;  /* cudaStream_t */
    uint8_t *in[2], *ans[2]; /* the inputs' and the answers' device buffers */
    size_t in_bytes, ans_bytes;
    void *landed[2];         /* cudaEvent_t: a buffer's inputs copied, prepared */
    int last[2];             /* the slot of ev of the batch that used buffer k last */
    void *ev[WL_PIPE_DEPTH][4]; /* a batch's copy in, kernels, kernels' end, answers out */
    uint64_t batch[WL_PIPE_DEPTH]; /* the batch each holds, */
    int busy[WL_PIPE_DEPTH];       /* and whether its times are still to be read */
    uint64_t cur;                  /* the batch between wl_pipe_in and wl_pipe_out */
    double *lat;             /* each batch's time, by batch number */
    double kernel_s;         /* the batches' kernels' time, added up */
};

/* Buffers of IN_BYTES and ANS_BYTES, two of each, streams and events; LAT
 * has a place for every batch number to come. 0 or -1 (message set). */
int wl_pipe_open(struct wl_pipe *p, size_t in_bytes, size_t ans_bytes, double *lat);
void wl_pipe_close(struct wl_pipe *p);
/* Batch B's inputs: N pieces, SRC[i] of BYTES[i] (pinned host memory),
 * copied one after another into a buffer, whose device address it returns
 * (NULL: failed, message set). Waits first, if WL_PIPE_DEPTH batches are in
 * flight, for the oldest. Kernels that read only the inputs may then go on
 * wl_pipe_prep; wl_pipe_go starts the rest. */
uint8_t *wl_pipe_in(struct wl_pipe *p, uint64_t b, const void *const *src, const size_t *bytes,
                    int n);
void *wl_pipe_prep(const struct wl_pipe *p);
/* The batch's kernels may go on wl_pipe_stream now, after those on
 * wl_pipe_prep; its answers' device buffer (NULL: failed, message set). */
uint8_t *wl_pipe_go(struct wl_pipe *p);
void *wl_pipe_stream(const struct wl_pipe *p);
/* After the batch's kernels: OUT_BYTES of its answers copied to OUT_HOST
 * (pinned; none where OUT_BYTES is 0). */
int wl_pipe_out(struct wl_pipe *p, void *out_host, size_t out_bytes);
/* Waits for every batch in flight; their times then are in lat. */
int wl_pipe_drain(struct wl_pipe *p);

struct wl_group {
    uint64_t cap;           /* the most operations a batch */
    uint32_t *key, *idx;    /* the grouped keys and their positions (device) */
    uint32_t *in_idx;       /* cub's path: the positions 0..N-1 */
    void *tmp;              /* and its scratch */
    size_t tmp_bytes;
};
int wl_group_alloc(struct wl_group *g, uint64_t cap);
void wl_group_free(struct wl_group *g);
/* The N keys at KEYS (device) ordered by their low BITS bits, stably
 * (equal keys keep their batch order), on STREAM: g->key the keys, g->idx
 * their positions. */
int wl_group_sort(struct wl_group *g, const uint32_t *keys, uint64_t n, int bits, void *stream);

#ifdef __cplusplus
}
#endif

#endif
