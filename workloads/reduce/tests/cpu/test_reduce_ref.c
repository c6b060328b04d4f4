/* The reduction on the CPU: the tree and the reference against values
 * worked by hand, the layout, and the check that a recovery's trust in
 * slot 0 relies on. */
#include <stdlib.h>
#include <string.h>

#include "gpm/check.h"
#include "../../reduce.h"

/* Stride halving over 8 leaves 1..8: strides 4, 2, 1. */
static void tree_by_hand(void)
{
    uint32_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const uint32_t want[8] = {36, 20, 10, 12, 5, 6, 7, 8};
    red_tree(v, 8);
    CHECK(memcmp(v, want, sizeof want) == 0);
}

/* Inputs of seed 1 (as PS's, computed separately): 873, 44, 104, 872, 748,
 * 251. Six integers in a block of 128 (32 threads): thread 0's leaf is the
 * first four, thread 1's the last two, every other leaf 0. */
static void reference_against_hand_values(void)
{
    uint32_t sums[32];
    red_ref_block(1, 6, 128, 0, sums);
    CHECK_EQ_INT(sums[0], 873 + 44 + 104 + 872 + 748 + 251);
    CHECK_EQ_INT(sums[1], 748 + 251);
    for (int t = 2; t < 32; t++)
        CHECK_EQ_INT(sums[t], 0);
}

static void layout_offsets(void)
{
    /* 1000 integers in blocks of 256 (64 threads): 4 blocks, 256 slots. */
    CHECK_EQ_INT(red_nblocks(1000, 256), 4);
    CHECK_EQ_INT(red_slots_off(), 0);
    CHECK_EQ_INT(red_total_off(1000, 256), 2048);
    CHECK_EQ_INT(red_file_bytes(1000, 256), 2048 + 128);
    /* Paper scale: 1G integers make 2 GiB of slots. */
    CHECK(red_file_bytes(1ull << 30, 1024) == (2ull << 30) + 128);
}

static void slots_and_pending(void)
{
    uint64_t slots[6] = {red_slot(5, 9), 0, red_slot(4, 9), 0, red_slot(5, 1), 0};
    CHECK(red_slot_holds(red_slot(7, 0xffffffffu), 7));
    CHECK(red_slot_sum(red_slot(7, 0xfffffffeu)) == 0xfffffffeu);
    CHECK(!red_slot_holds(red_slot(4, 1), 5) && !red_slot_holds(0, 1));
    /* Slot 0 of each block of 2 threads: 5, 4 and 5. */
    CHECK_EQ_INT(red_count_pending(slots, 3, 2, 5), 1);
    CHECK_EQ_INT(red_count_pending(slots, 3, 2, 4), 2);
}

/* A right tree of EPOCH for N integers of SEED in blocks of 128 (32
 * threads): its slots (malloc'd, NULL where out of memory) and, in *ALL,
 * the sum of every block's sum. */
static uint64_t *right_tree(uint64_t n, uint64_t seed, uint32_t epoch, uint32_t *all)
{
    const uint32_t block = 128, threads = red_threads(block);
    uint64_t nb = red_nblocks(n, block), *slots = malloc(nb * threads * 8);
    uint32_t sums[32];
    *all = 0;
    for (uint64_t b = 0; slots && b < nb; b++) {
        red_ref_block(seed, n, block, b, sums);
        *all += sums[0];
        for (uint32_t t = 0; t < threads; t++)
            slots[b * threads + t] = red_slot(epoch, sums[t]);
    }
    return slots;
}

/* A right tree passes; an empty slot under a durable slot 0 (what a
 * recovery would trust and never recompute), a wrong sum and an empty
 * total each fail, named. */
static void check_finds_each_fault(void)
{
    const uint64_t n = 3000, seed = 3;
    const uint32_t block = 128, epoch = 2, threads = red_threads(block);
    uint32_t all;
    uint64_t *slots = right_tree(n, seed, epoch, &all), total = red_slot(epoch, all);
    CHECK(slots && threads == 32);
    CHECKF(red_check(slots, total, n, block, epoch, seed, NULL) == 0, "%s", gpm_last_error());
    slots[5 * threads + 17] = red_slot(epoch - 1, red_slot_sum(slots[5 * threads + 17]));
    CHECK_EQ_INT(red_check(slots, total, n, block, epoch, seed, NULL), 1);
    CHECK_MSG(gpm_last_error(), "slot 17 of block 5 is empty (epoch 1, not 2)");
    slots[5 * threads + 17] = red_slot(epoch, red_slot_sum(slots[5 * threads + 17]) + 1);
    CHECK_EQ_INT(red_check(slots, total, n, block, epoch, seed, NULL), 1);
    CHECK_MSG(gpm_last_error(), "slot 17 of block 5 holds");
    slots[5 * threads + 17] = red_slot(epoch, red_slot_sum(slots[5 * threads + 17]) - 1);
    CHECK_EQ_INT(red_check(slots, red_slot(epoch - 1, all), n, block, epoch, seed, NULL), 1);
    CHECK_MSG(gpm_last_error(), "the total is empty");
    CHECK_EQ_INT(red_check(slots, red_slot(epoch, all + 1), n, block, epoch, seed, NULL), 1);
    CHECK_MSG(gpm_last_error(), "the total is");
    free(slots);
}

/* The measure counts every wrong slot and the total, of all of them: the
 * first difference is named, the rest counted too. */
static void check_measures_every_sum(void)
{
    const uint64_t n = 3000, seed = 3;
    const uint32_t block = 128, epoch = 2, threads = red_threads(block);
    uint32_t all;
    uint64_t *slots = right_tree(n, seed, epoch, &all);
    struct wl_wrong w = {0};
    CHECK(slots && red_nblocks(n, block) == 24);
    slots[0] = 0;                 /* block 0's sum, empty */
    slots[3 * threads + 9] += 1;  /* another epoch */
    slots[23 * threads + 31] += 1ull << 32; /* another sum */
    CHECK_EQ_INT(red_check(slots, red_slot(epoch, all + 1), n, block, epoch, seed, &w), 1);
    CHECK_MSG(gpm_last_error(), "slot 0 of block 0 is empty");
    CHECK(w.units && strcmp(w.units, "sums") == 0);
    CHECK_EQ_INT(w.bad, 4);
    CHECK_EQ_INT(w.total, 24 * 32 + 1);
    free(slots);
}

int main(void)
{
    RUN(tree_by_hand);
    RUN(reference_against_hand_values);
    RUN(layout_offsets);
    RUN(slots_and_pending);
    RUN(check_finds_each_fault);
    RUN(check_measures_every_sum);
    CHECK_EXIT();
}
