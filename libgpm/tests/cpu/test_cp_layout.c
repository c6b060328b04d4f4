/* Checkpoint layout arithmetic, header checks and group classification: the
 * GPM_HD code of gpm/cp_layout.h, exactly as the GPU compiles it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "gpm/cp_layout.h"


static void geometry_is_aligned_and_ordered(void)
{
    gpmcp_header h;
    for (int i = 0; i < 2000; i++) {
        uint64_t cap = 1 + check_rand() % (1ull << 32);
        uint32_t el = 1 + (uint32_t)(check_rand() % 300), gr = 1 + (uint32_t)(check_rand() % 300);
        CHECK(gpmcp_geometry(&h, cap, el, gr) == 0);
        CHECK(h.group_off % GPMCP_ALIGN == 0);
        CHECK(h.data_off % GPMCP_ALIGN == 0);
        CHECK(h.data_bytes % GPMCP_ALIGN == 0);
        CHECK(h.group_off >= GPMCP_HEADER_BYTES);
        CHECK(h.elem_off == h.group_off + (uint64_t)gr * GPMCP_GROUP_BYTES);
        CHECK(h.data_off >= h.elem_off + (uint64_t)gr * el * GPMCP_ELEM_BYTES);
        CHECK(h.data_bytes >= 2 * cap);
        CHECK(h.file_bytes == h.data_off + h.data_bytes);
        CHECK(gpmcp_header_check(&h, h.file_bytes) == GPMCP_HEADER_OK);
    }
}

static void geometry_rejects_out_of_range(void)
{
    gpmcp_header h;
    CHECK(gpmcp_geometry(&h, 0, 1, 1) == -1);
    CHECK(gpmcp_geometry(&h, 1, 0, 1) == -1);
    CHECK(gpmcp_geometry(&h, 1, 1, 0) == -1);
    CHECK(gpmcp_geometry(&h, GPMCP_MAX_CAPACITY + 1, 1, 1) == -1);
    CHECK(gpmcp_geometry(&h, 1, GPMCP_MAX_ELEMENTS + 1, 1) == -1);
    CHECK(gpmcp_geometry(&h, 1, 1, GPMCP_MAX_GROUPS + 1) == -1);
    CHECK(gpmcp_geometry(&h, GPMCP_MAX_CAPACITY, GPMCP_MAX_ELEMENTS, GPMCP_MAX_GROUPS) == 0);
    CHECK(gpmcp_header_check(&h, h.file_bytes) == GPMCP_HEADER_OK);
}

static void header_faults_are_told_apart(void)
{
    gpmcp_header h, c;
    CHECK(gpmcp_geometry(&h, 1 << 20, 4, 2) == 0);
    CHECK(gpmcp_header_check(&h, 100) == GPMCP_HEADER_TOO_SMALL);
    CHECK(gpmcp_header_check(&h, h.file_bytes + 128) == GPMCP_HEADER_FILE_SIZE);
    c = h;
    c.magic ^= 1;
    CHECK(gpmcp_header_check(&c, h.file_bytes) == GPMCP_HEADER_MAGIC);
    c = h;
    c.version = 2;
    c.checksum = gpmcp_header_sum(&c);
    CHECK(gpmcp_header_check(&c, h.file_bytes) == GPMCP_HEADER_VERSION);
    c = h;
    c.capacity++;
    CHECK(gpmcp_header_check(&c, h.file_bytes) == GPMCP_HEADER_CHECKSUM);
    /* A consistent checksum over an inconsistent geometry is still refused. */
    c.checksum = gpmcp_header_sum(&c);
    CHECK(gpmcp_header_check(&c, h.file_bytes) == GPMCP_HEADER_GEOMETRY);
    CHECK(strstr(gpmcp_header_fault_str(GPMCP_HEADER_CHECKSUM), "corrupt") != NULL);
}

static void every_single_bit_flip_is_caught(void)
{
    gpmcp_header h, c;
    CHECK(gpmcp_geometry(&h, 123456, 7, 3) == 0);
    for (unsigned byte = 0; byte < sizeof h; byte++)
        for (int bit = 0; bit < 8; bit++) {
            c = h;
            ((uint8_t *)&c)[byte] ^= (uint8_t)(1u << bit);
            CHECKF(gpmcp_header_check(&c, h.file_bytes) != GPMCP_HEADER_OK,
                   "flip of bit %d of byte %u went unnoticed", bit, byte);
        }
}

static void flip_word_alternates_copies(void)
{
    uint64_t flip = 0;
    CHECK(gpmcp_working_copy(0) == 0);
    for (uint64_t seq = 1; seq < 100; seq++) {
        uint32_t w = gpmcp_working_copy(flip);
        if (flip != 0)
            CHECK(w != gpmcp_flip_copy(flip)); /* never overwrite the consistent copy */
        flip = gpmcp_flip_word(gpmcp_flip_seq(flip) + 1, w);
        CHECK(gpmcp_flip_seq(flip) == seq);
        CHECK(gpmcp_flip_copy(flip) == w);
        CHECK(flip != 0);
    }
}

/* Random groups laid out one after another never overlap, stay aligned and
 * fit the data area whenever their sizes sum to at most the capacity. */
static void layouts_fit_and_do_not_overlap(void)
{
    enum { G = 8, E = 16 };
    static gpmcp_group gs[G];
    static gpmcp_elem es[G][E];
    for (int trial = 0; trial < 500; trial++) {
        gpmcp_header h;
        uint64_t cap = 1 + check_rand() % 100000, used = 0, base;
        CHECK(gpmcp_geometry(&h, cap, E, G) == 0);
        base = h.data_off;
        memset(gs, 0, sizeof gs);
        for (uint32_t g = 0; g < G; g++) {
            uint64_t sizes[E];
            uint32_t n = 1 + (uint32_t)(check_rand() % E);
            uint64_t want = 0;
            for (uint32_t k = 0; k < n; k++) {
                sizes[k] = 1 + check_rand() % (cap / n + 1);
                want += sizes[k];
            }
            if (used + want > cap)
                break;
            uint64_t both = gpmcp_layout_group(&gs[g], es[g], g, base, sizes, n, E);
            CHECK(both > 0);
            gs[g].layout_sum = gpmcp_layout_sum(&gs[g], es[g]);
            CHECK(base + both <= h.data_off + h.data_bytes);
            CHECK(gpmcp_group_check(&h, &gs[g], es[g], g) == GPMCP_GROUP_LAID_OUT);
            for (uint32_t k = 0; k < n; k++) {
                CHECK(gpmcp_elem_file_off(&gs[g], &es[g][k], 0) % GPMCP_ALIGN == 0);
                CHECK(gpmcp_elem_file_off(&gs[g], &es[g][k], 1) % GPMCP_ALIGN == 0);
                CHECK(gpmcp_elem_file_off(&gs[g], &es[g][k], 1) >=
                      gpmcp_elem_file_off(&gs[g], &es[g][n - 1], 0) + es[g][n - 1].size);
                if (k > 0)
                    CHECK(es[g][k].offset >= es[g][k - 1].offset + es[g][k - 1].size);
            }
            for (uint32_t o = 0; o < g; o++)
                CHECK(!gpmcp_groups_overlap(&gs[g], &gs[o]));
            used += want;
            base += both;
        }
    }
}

static void group_states(void)
{
    gpmcp_header h;
    gpmcp_group g;
    gpmcp_elem e[4];
    uint64_t sizes[3] = {100, 1000, 129};
    CHECK(gpmcp_geometry(&h, 4096, 4, 2) == 0);
    memset(&g, 0, sizeof g);
    memset(e, 0, sizeof e);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_EMPTY);
    CHECK(gpmcp_layout_group(&g, e, 1, h.data_off, sizes, 3, 4) == 2 * (128 + 1024 + 256));
    /* Fields written but not yet sealed: a crash here loses nothing. */
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_EMPTY);
    g.layout_sum = gpmcp_layout_sum(&g, e);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_LAID_OUT);
    CHECK(gpmcp_group_check(&h, &g, e, 0) == GPMCP_GROUP_EMPTY); /* misplaced entry */
    g.flip = gpmcp_flip_word(1, 0);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CHECKPOINTED);
    e[1].size++;
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CORRUPT);
    e[1].size--;
    g.base += 128;
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CORRUPT);
    g.base -= 128;
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CHECKPOINTED);
    /* A sealed layout outside the data area is refused even if it sums. */
    g.base = h.data_off + h.data_bytes;
    g.layout_sum = gpmcp_layout_sum(&g, e);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CORRUPT);
    g.base = h.data_off + 64;
    g.layout_sum = gpmcp_layout_sum(&g, e);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CORRUPT);
    /* Nor more elements than the geometry allows. */
    g.base = h.data_off;
    g.nelem = 5;
    g.layout_sum = gpmcp_layout_sum(&g, e);
    CHECK(gpmcp_group_check(&h, &g, e, 1) == GPMCP_GROUP_CORRUPT);
}

static void layout_rejects_bad_counts(void)
{
    gpmcp_group g;
    gpmcp_elem e[2];
    uint64_t sizes[3] = {1, 2, 3};
    CHECK(gpmcp_layout_group(&g, e, 0, 0, sizes, 0, 2) == 0);
    CHECK(gpmcp_layout_group(&g, e, 0, 0, sizes, 3, 2) == 0);
    CHECK(gpmcp_align(0) == 0 && gpmcp_align(1) == 128 && gpmcp_align(128) == 128 &&
          gpmcp_align(129) == 256);
}

int main(void)
{
    RUN(geometry_is_aligned_and_ordered);
    RUN(geometry_rejects_out_of_range);
    RUN(header_faults_are_told_apart);
    RUN(every_single_bit_flip_is_caught);
    RUN(flip_word_alternates_copies);
    RUN(layouts_fit_and_do_not_overlap);
    RUN(group_states);
    RUN(layout_rejects_bad_counts);
    CHECK_EXIT();
}
