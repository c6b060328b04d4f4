/* --cap-chunk's two pure parts, on hand-checked inputs: flagged chunks
 * become ranges (adjacent ones merged, clipped to the table), and the
 * prediction picks the chunk that the measured costs make fastest. */
#include <stdio.h>

#include "gpm/check.h"
#include "harness.h"

#define K 4096u

static char src[10 * K]; /* stands in for a device copy: only addresses are compared */

static void adjacent_chunks_are_one_copy(void)
{
    const uint32_t flags[] = {1, 1, 0, 1, 0, 0, 1, 1, 1};
    gpm_range v[9];
    int n = wl_chunk_ranges(flags, 9, K, 0, 9 * K, src, v);
    CHECK_EQ_INT(n, 3);
    CHECK(v[0].off == 0 && v[0].len == 2 * K && v[0].src == src);
    CHECK(v[1].off == 3 * K && v[1].len == K && v[1].src == src + 3 * K);
    CHECK(v[2].off == 6 * K && v[2].len == 3 * K && v[2].src == src + 6 * K);
}

static void ranges_are_clipped_to_the_table(void)
{
    /* A 64-byte header that is not the table's, and a table that ends
     * 100 bytes before its last chunk does; SRC is the copy of offset 64. */
    const uint32_t flags[] = {1, 0, 1, 1};
    gpm_range v[4];
    int n = wl_chunk_ranges(flags, 4, K, 64, 3 * K - 100, src, v);
    CHECK_EQ_INT(n, 2);
    CHECK(v[0].off == 64 && v[0].len == K - 64 && v[0].src == src);
    CHECK(v[1].off == 2 * K && v[1].len == K - 100 && v[1].src == src + 2 * K - 64);
    CHECK_EQ_INT(wl_chunk_ranges(flags, 4, K, 0, 4 * K, NULL, v), 2);
    CHECK(v[1].src == NULL && v[1].len == 2 * K);
}

static void no_flags_no_ranges(void)
{
    const uint32_t flags[] = {0, 0};
    gpm_range v[2];
    CHECK_EQ_INT(wl_chunk_ranges(flags, 2, K, 0, 2 * K, NULL, v), 0);
}

/* 100 changes 1 MiB apart in a 100 MiB table. */
static void fill_spread(uint64_t *off)
{
    for (int i = 0; i < 100; i++)
        off[99 - i] = (uint64_t)i << 20; /* out of order: the prediction sorts */
}

static void cheap_copies_take_the_smallest_chunk(void)
{
    uint64_t off[100];
    double t;
    fill_spread(off);
    CHECK_EQ_INT(wl_cap_chunk_predict(off, 100, 100u << 20, 0, 1e9, &t), K);
    CHECKF(t > 100 * K / 1e9 * 0.999 && t < 100 * K / 1e9 * 1.001, "predicted %g s", t);
}

static void costly_copies_take_one_run(void)
{
    /* At 1 s a copy, 1 MiB chunks make one run of the whole table
     * (1 s + 100 MiB at 1 GB/s); 2 MiB and up tie with it and lose. */
    uint64_t off[100];
    double t;
    fill_spread(off);
    CHECK_EQ_INT(wl_cap_chunk_predict(off, 100, 100u << 20, 1.0, 1e9, &t), 1u << 20);
    CHECKF(t > 1.1048 && t < 1.1049, "predicted %g s", t);
}

static void chunks_stop_at_the_table(void)
{
    /* A 10000-byte table: 4 KiB (two runs), 8 KiB (one run), 16 KiB (one
     * run, holds it all: the last tried); bytes past the table are not
     * counted. */
    uint64_t off[] = {9000, 0};
    double t;
    CHECK_EQ_INT(wl_cap_chunk_predict(off, 2, 10000, 1e9, 1.0, &t), 2 * K);
    CHECKF(t == 1e9 + 10000, "predicted %.17g s", t);
    CHECK_EQ_INT(wl_cap_chunk_predict(off, 2, 10000, 1.0, 1.0, &t), K);
    CHECKF(t == 2 + 2 * K, "predicted %.17g s", t);
}

int main(void)
{
    RUN(adjacent_chunks_are_one_copy);
    RUN(ranges_are_clipped_to_the_table);
    RUN(no_flags_no_ranges);
    RUN(cheap_copies_take_the_smallest_chunk);
    RUN(costly_copies_take_one_run);
    RUN(chunks_stop_at_the_table);
    CHECK_EXIT();
}
