/* The pacing of the checkpoint copy that overlaps the steps, on
 * hand-checked inputs: the next block count makes the copy take 0.9 of an
 * interval, moving at most by half or twice, never past the GPU's. */
#include "gpm/check.h"
#include "harness.h"

static void a_copy_that_fits_takes_fewer_blocks(void)
{
    /* 16 blocks copied in 30 ms of a 60 ms interval: 16 * 30 / 54 = 8.9. */
    CHECK_EQ_INT(wl_cp_pace_next(16, 30, 60, 1056), 9);
    /* Far inside: halved, not more. */
    CHECK_EQ_INT(wl_cp_pace_next(16, 1, 60, 1056), 8);
    CHECK_EQ_INT(wl_cp_pace_next(1, 1, 60, 1056), 1);
}

static void a_copy_that_overran_takes_more(void)
{
    /* 8 blocks took 60 ms of a 50 ms interval: 8 * 60 / 45 = 10.7. */
    CHECK_EQ_INT(wl_cp_pace_next(8, 60, 50, 1056), 11);
    /* Far over: doubled, not more, and never past the GPU. */
    CHECK_EQ_INT(wl_cp_pace_next(8, 500, 50, 1056), 16);
    CHECK_EQ_INT(wl_cp_pace_next(800, 500, 50, 1056), 1056);
}

static void a_steady_copy_keeps_its_count(void)
{
    CHECK_EQ_INT(wl_cp_pace_next(8, 45, 50, 1056), 8);
}

static void no_time_no_change(void)
{
    CHECK_EQ_INT(wl_cp_pace_next(8, 0, 50, 1056), 8);
    CHECK_EQ_INT(wl_cp_pace_next(8, 10, 0, 1056), 8);
    CHECK_EQ_INT(wl_cp_pace_next(8, -1, 50, 1056), 8);
}

int main(void)
{
    RUN(a_copy_that_fits_takes_fewer_blocks);
    RUN(a_copy_that_overran_takes_more);
    RUN(a_steady_copy_keeps_its_count);
    RUN(no_time_no_change);
    CHECK_EXIT();
}
