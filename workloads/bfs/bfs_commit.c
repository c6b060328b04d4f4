/* What one commit per level makes durable where the kernels do not persist
 * in-kernel (gpm-ndp and the CAP modes), as a list of region ranges for
 * wl_commit: the new frontier, each new node's cost (gpm-ndp: the kernel
 * stored them, scattered), the level starts, the cost array at the end
 * (CAP: otherwise derived from the frontiers), and the count last, so
 * that a copy in order (cap-mm's one stream, cap-fs's sequential pwrites)
 * reaches it after the rest. */
#include "bfs.h"

static gpm_range range(uint64_t off, uint64_t len, const void *src)
{
    gpm_range v = {(size_t)off, (size_t)len, src};
    return v;
}

int bfs_commit_ranges(const struct bfs_kern *k, int cap, const uint32_t *pm_seq, uint32_t base,
                      uint32_t next, uint32_t start_at, int start_words, int final,
                      gpm_range *v)
{
    uint64_t n = k->n;
    int r = 0;
    if (next)
        v[r++] = range(bfs_seq_off(n) + 4ull * base, 4ull * next, cap ? k->dseq + base : NULL);
    for (uint32_t j = 0; !cap && j < next; j++)
        v[r++] = range(bfs_cost_off() + 4ull * pm_seq[base + j], 4, NULL);
    v[r++] = range(bfs_start_off(n) + 4ull * start_at, 4ull * (unsigned)start_words,
                   cap ? k->start + start_at : NULL);
    if (cap && final)
        v[r++] = range(bfs_cost_off(), 4 * n, k->claim);
    v[r++] = range(bfs_count_off(), 8, cap ? (const void *)k->count : NULL);
    return r;
}
