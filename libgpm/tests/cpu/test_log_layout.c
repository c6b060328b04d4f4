/* HCL and conventional log layouts: the slot arithmetic the kernels run,
 * checked on the CPU through the same GPM_HD functions. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/log_layout.h"

static void header_fields_sit_at_fixed_offsets(void)
{
    CHECK_EQ_INT(sizeof(gpmlog_header), 64);
    CHECK_EQ_INT(offsetof(gpmlog_header, n_slots), 40);
    CHECK_EQ_INT(offsetof(gpmlog_header, checksum), GPMLOG_CHECKED_BYTES);
}

static void hcl_geometry_pads_warps(void)
{
    gpmlog_header h;
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 1 << 20, 0, 3, 40) == 0);
    /* 40 threads are 2 warps: 64 slots per block. */
    CHECK_EQ_INT(h.n_slots, 3 * 64);
    CHECK_EQ_INT(h.slot_bytes, (1 << 20) / (3 * 64) / 4 * 4);
    CHECK_EQ_INT(h.data_off % 4096, 0);
    CHECK_EQ_INT(h.file_size, h.data_off + (uint64_t)h.n_slots * h.slot_bytes);
    CHECK_EQ_INT(gpmlog_header_check(&h, h.file_size), GPMLOG_OK);
}

static void impossible_geometries_are_refused(void)
{
    gpmlog_header h;
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 1 << 20, 0, 0, 32) == -1);
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 1 << 20, 0, 1, 2048) == -1);
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 100, 0, 1, 32) == -1); /* < 4 B/thread */
    CHECK(gpmlog_header_init(&h, GPMLOG_CONV, 1 << 20, 0, 0, 0) == -1);
    CHECK(gpmlog_header_init(&h, GPMLOG_CONV, 1000, 16, 0, 0) == -1); /* < 128 B/part */
    CHECK(gpmlog_header_init(&h, 7, 1 << 20, 4, 0, 0) == -1);
}

/* The property HCL exists for: chunk k of the 32 lanes of a warp forms one
 * aligned 128-byte line, lanes in order. */
static void hcl_warp_chunk_fills_one_line(void)
{
    gpmlog_header h;
    gpmlog_geom g;
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 1 << 20, 0, 4, 96) == 0);
    g = gpmlog_geom_of(&h);
    for (uint32_t b = 0; b < 4; b++)
        for (uint32_t w = 0; w < 3; w++)
            for (uint32_t k = 0; k < g.slot_bytes / 4; k += 7) {
                uint64_t line = gpmlog_hcl_chunk_off(&g, gpmlog_hcl_slot(&g, b, w, 0), k);
                CHECKF(line % GPMLOG_LINE == 0, "block %u warp %u chunk %u at %llu", b, w, k,
                       (unsigned long long)line);
                for (uint32_t l = 0; l < 32; l++)
                    CHECK(gpmlog_hcl_chunk_off(&g, gpmlog_hcl_slot(&g, b, w, l), k) ==
                          line + 4 * l);
            }
}

/* Every chunk of every slot is inside the data area and owned by exactly
 * one (slot, chunk): no two threads ever write the same bytes. */
static void hcl_chunks_partition_the_data_area(void)
{
    gpmlog_header h;
    gpmlog_geom g;
    uint8_t *seen;
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 64 * 1024, 0, 2, 70) == 0);
    g = gpmlog_geom_of(&h);
    seen = calloc((size_t)(h.file_size - h.data_off) / 4, 1);
    CHECK(seen);
    for (uint32_t s = 0; s < g.n_slots; s++)
        for (uint32_t k = 0; k < g.slot_bytes / 4; k++) {
            uint64_t off = gpmlog_hcl_chunk_off(&g, s, k);
            if (off < h.data_off || off + 4 > h.file_size || seen[(off - h.data_off) / 4]) {
                free(seen);
                CHECKF(0, "slot %u chunk %u at %llu overlaps or leaves the data area", s, k,
                       (unsigned long long)off);
            }
            seen[(off - h.data_off) / 4] = 1;
        }
    for (uint64_t i = 0; i < (h.file_size - h.data_off) / 4; i++)
        if (!seen[i]) {
            free(seen);
            CHECKF(0, "chunk %llu of the data area belongs to no slot", (unsigned long long)i);
        }
    free(seen);
}

static void conv_partitions_are_contiguous_and_line_aligned(void)
{
    gpmlog_header h;
    gpmlog_geom g;
    CHECK(gpmlog_header_init(&h, GPMLOG_CONV, 100000, 7, 0, 0) == 0);
    g = gpmlog_geom_of(&h);
    CHECK_EQ_INT(g.slot_bytes % GPMLOG_LINE, 0);
    for (uint32_t p = 0; p < 7; p++) {
        CHECK_EQ_INT(gpmlog_conv_off(&g, p, 0) % GPMLOG_LINE, 0);
        CHECK(gpmlog_conv_off(&g, p, g.slot_bytes - 1) < gpmlog_conv_off(&g, p + 1, 0));
    }
    CHECK_EQ_INT(gpmlog_conv_off(&g, 6, g.slot_bytes), h.file_size);
    CHECK_EQ_INT(gpmlog_tail_off(&g, 6), 4096 + 24);
}

/* A conventional log's default partition: the block's while there are no
 * more partitions than blocks, then the warp's; gpmlog_conv_share is the
 * fullest partition's thread count, counted thread by thread. */
static void conv_default_partitions_and_their_shares(void)
{
    const uint32_t parts[] = {1, 3, 4, 8, 9, 32, 64, 100}, threads[] = {1, 48, 64};
    CHECK_EQ_INT(gpmlog_conv_slot(4, 8, 2, 5, 1), 1);  /* block 5 of 8, 4 partitions */
    CHECK_EQ_INT(gpmlog_conv_slot(16, 8, 2, 5, 1), 11); /* warp 11 of 16, a partition each */
    for (uint32_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        for (uint32_t j = 0; j < sizeof threads / sizeof threads[0]; j++) {
            uint32_t blocks = 8, t = threads[j], wpb = gpmlog_warps_per_block(t), n[100] = {0};
            uint64_t most = 0;
            for (uint32_t b = 0; b < blocks; b++)
                for (uint32_t k = 0; k < t; k++) {
                    uint32_t s = gpmlog_conv_slot(parts[i], blocks, wpb, b, k / GPMLOG_WARP);
                    CHECK(s < parts[i]);
                    most = ++n[s] > most ? n[s] : most;
                }
            CHECKF(gpmlog_conv_share(parts[i], blocks, t) >= most &&
                       gpmlog_conv_share(parts[i], blocks, t) <= most + GPMLOG_WARP,
                   "%u partitions, 8 x %u threads: share %llu, fullest %llu", parts[i], t,
                   (unsigned long long)gpmlog_conv_share(parts[i], blocks, t),
                   (unsigned long long)most);
        }
}

/* Striping an odd-sized entry into chunks and reading it back through the
 * layout gives the same bytes, for both kinds. */
static void striped_entries_round_trip(void)
{
    uint32_t kinds[2] = {GPMLOG_HCL, GPMLOG_CONV};
    for (int ki = 0; ki < 2; ki++) {
        gpmlog_header h;
        gpmlog_geom g;
        uint8_t *img, entry[13], back[13];
        CHECK(gpmlog_header_init(&h, kinds[ki], 32 * 1024, 4, 1, 64) == 0);
        g = gpmlog_geom_of(&h);
        img = calloc(h.file_size, 1);
        CHECK(img);
        for (uint32_t s = 0; s < g.n_slots; s += 3) {
            uint32_t pos = 16; /* a later entry in the slot */
            for (uint32_t i = 0; i < sizeof entry; i++)
                entry[i] = (uint8_t)(s * 31 + i);
            for (uint32_t k = 0; k < gpmlog_round4(sizeof entry) / 4; k++) {
                uint32_t w = gpmlog_chunk_of(entry, sizeof entry, k);
                uint64_t off = kinds[ki] == GPMLOG_HCL ? gpmlog_hcl_chunk_off(&g, s, pos / 4 + k)
                                                       : gpmlog_conv_off(&g, s, pos + 4 * k);
                memcpy(img + off, &w, 4);
            }
            gpmlog_copy_out(&g, img, s, pos, back, sizeof back);
            if (memcmp(entry, back, sizeof entry) != 0) {
                free(img);
                CHECKF(0, "kind %u slot %u: entry changed on the way through the log",
                       kinds[ki], s);
            }
        }
        free(img);
    }
}

static void chunk_of_pads_with_zeros(void)
{
    uint8_t e[5] = {1, 2, 3, 4, 5};
    CHECK_EQ_INT(gpmlog_chunk_of(e, 5, 0), 0x04030201u);
    CHECK_EQ_INT(gpmlog_chunk_of(e, 5, 1), 0x00000005u);
    CHECK_EQ_INT(gpmlog_round4(5), 8);
    CHECK_EQ_INT(gpmlog_round4(8), 8);
}

static void tails_beyond_the_slot_are_untrusted(void)
{
    gpmlog_header h;
    gpmlog_geom g;
    CHECK(gpmlog_header_init(&h, GPMLOG_HCL, 4096, 0, 1, 32) == 0);
    g = gpmlog_geom_of(&h);
    CHECK(gpmlog_tail_valid(&g, 0));
    CHECK(gpmlog_tail_valid(&g, g.slot_bytes));
    CHECK(!gpmlog_tail_valid(&g, g.slot_bytes + 4));
    CHECK(!gpmlog_tail_valid(&g, 6));
}

/* What gpmlog_flush flushes: for random tails, every chunk a tail covers
 * lies in its group's extent, the extent never leaves the group's region,
 * and it ends with the line of the group's last used chunk. */
static void group_extents_cover_exactly_the_used_lines(void)
{
    uint32_t kinds[2] = {GPMLOG_HCL, GPMLOG_CONV};
    for (int ki = 0; ki < 2; ki++) {
        gpmlog_header h;
        gpmlog_geom g;
        uint32_t *tails;
        CHECK(gpmlog_header_init(&h, kinds[ki], 256 * 1024, 7, 3, 40) == 0);
        g = gpmlog_geom_of(&h);
        tails = calloc(g.n_slots, sizeof *tails);
        CHECK(tails);
        for (int round = 0; round < 50; round++) {
            for (uint32_t s = 0; s < g.n_slots; s++)
                tails[s] = check_rand() % 3 == 0
                               ? 0
                               : (uint32_t)(check_rand() % (g.slot_bytes / 4 + 1)) * 4;
            CHECK_EQ_INT(gpmlog_n_groups(&g), ki == 0 ? g.n_slots / 32 : 7);
            for (uint32_t i = 0; i < gpmlog_n_groups(&g); i++) {
                uint64_t off, len = gpmlog_group_extent(&g, tails, i, &off), last = 0;
                uint32_t first = ki == 0 ? i * 32 : i, n = ki == 0 ? 32 : 1, used = 0;
                uint64_t region = ki == 0 ? 32ull * g.slot_bytes : g.slot_bytes;
                CHECK(off == g.data_off + i * region && off % GPMLOG_LINE == 0);
                CHECK(len % GPMLOG_LINE == 0 && len <= region);
                for (uint32_t s = first; s < first + n; s++)
                    for (uint32_t c = 0; c < tails[s] / 4; c++) {
                        uint64_t at = ki == 0 ? gpmlog_hcl_chunk_off(&g, s, c)
                                              : gpmlog_conv_off(&g, s, 4 * c);
                        if (at < off || at + 4 > off + len) {
                            free(tails);
                            CHECKF(0, "kind %u slot %u chunk %u at %llu outside [%llu, +%llu)",
                                   kinds[ki], s, c, (unsigned long long)at,
                                   (unsigned long long)off, (unsigned long long)len);
                        }
                        if (at + 4 > last)
                            last = at + 4;
                        used = 1;
                    }
                if (used ? (last <= off + len - GPMLOG_LINE) : len != 0) {
                    free(tails);
                    CHECKF(0, "kind %u group %u: %llu bytes flushed, last used byte at +%llu",
                           kinds[ki], i, (unsigned long long)len,
                           (unsigned long long)(last - off));
                }
            }
        }
        free(tails);
    }
}

int main(void)
{
    RUN(header_fields_sit_at_fixed_offsets);
    RUN(hcl_geometry_pads_warps);
    RUN(impossible_geometries_are_refused);
    RUN(hcl_warp_chunk_fills_one_line);
    RUN(hcl_chunks_partition_the_data_area);
    RUN(conv_partitions_are_contiguous_and_line_aligned);
    RUN(conv_default_partitions_and_their_shares);
    RUN(striped_entries_round_trip);
    RUN(chunk_of_pads_with_zeros);
    RUN(tails_beyond_the_slot_are_untrusted);
    RUN(group_extents_cover_exactly_the_used_lines);
    CHECK_EXIT();
}
