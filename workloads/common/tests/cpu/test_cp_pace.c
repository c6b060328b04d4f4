/* The search for the checkpoint copy's block count: on model intervals
 * (steps slowed by each block the copy holds, a copy slower with fewer
 * blocks) it settles near the shortest interval within a few intervals,
 * never leaves 1..max, ignores an interval it could not time, and stays
 * where it settled. */
#include "gpm/check.h"
#include "harness.h"

/* One interval with B blocks: the longer of the steps, slowed 1% a block,
 * and a copy of WORK block-milliseconds that cannot beat LINK ms. */
static float model_ms(unsigned b, float steps, float work, float link)
{
    float s = steps * (1 + 0.01f * (float)b), c = work / (float)b;
    c = c < link ? link : c;
    return s > c ? s : c;
}

/* What N intervals of the search did. */
struct outcome {
    unsigned count;  /* the count it ended on */
    int settled;     /* the interval after which the search ended, -1: never */
    int out_of_range; /* a count outside 1..max was returned */
    int moved_after; /* a count changed after the search ended */
};

static struct outcome search(unsigned start, unsigned max, int n, float steps, float work,
                             float link)
{
    struct wl_pace_search s;
    struct outcome o = {0, -1, 0, 0};
    wl_pace_search_init(&s, start);
    for (int i = 0; i < n; i++) {
        unsigned before = s.trial;
        unsigned next = wl_pace_search_next(&s, model_ms(s.trial, steps, work, link), max);
        o.out_of_range |= next < 1 || next > max;
        o.moved_after |= o.settled >= 0 && next != before;
        if (o.settled < 0 && s.step < 1.1f)
            o.settled = i;
    }
    o.count = s.trial;
    return o;
}

/* The best count of the model, by brute force, and its interval. */
static float best_ms(unsigned max, float steps, float work, float link)
{
    float best = model_ms(1, steps, work, link);
    for (unsigned b = 2; b <= max; b++) {
        float t = model_ms(b, steps, work, link);
        best = t < best ? t : best;
    }
    return best;
}

/* BLK on an H100: the copy needs about as long as the steps at any count,
 * so the best count is where the copy just reaches the link's rate. */
static void a_copy_that_cannot_fit_settles_where_it_reaches_the_link(void)
{
    struct outcome o = search(16, 1056, 103, 37, 300, 41);
    CHECK(o.settled >= 0 && o.settled <= 20);
    CHECK(!o.out_of_range && !o.moved_after);
    CHECK(model_ms(o.count, 37, 300, 41) <= 1.05f * best_ms(1056, 37, 300, 41));
}

/* HS: the copy is short beside the steps, so few blocks are best. */
static void a_short_copy_settles_on_few_blocks(void)
{
    struct outcome o = search(16, 1056, 100, 66, 80, 20);
    CHECK(o.settled >= 0 && o.settled <= 20);
    CHECK(!o.out_of_range && !o.moved_after);
    CHECK(o.count <= 4);
    CHECK(model_ms(o.count, 66, 80, 20) <= 1.05f * best_ms(1056, 66, 80, 20));
}

/* A copy that needs many blocks: the search climbs, never past max. */
static void a_slow_copy_climbs_to_max(void)
{
    struct outcome o = search(16, 64, 100, 10, 20000, 1);
    CHECK(o.settled >= 0 && !o.out_of_range && !o.moved_after);
    CHECK_EQ_INT(o.count, 64);
}

/* At 1 block and a copy that any count fits, it never goes below 1. */
static void one_block_is_the_floor(void)
{
    struct outcome o = search(1, 1056, 50, 50, 1, 1);
    CHECK(o.settled >= 0 && !o.out_of_range && !o.moved_after);
    CHECK_EQ_INT(o.count, 1);
}

static void an_interval_not_timed_changes_nothing(void)
{
    struct wl_pace_search s;
    wl_pace_search_init(&s, 16);
    CHECK_EQ_INT(wl_pace_search_next(&s, 0, 1056), 16);
    CHECK_EQ_INT(wl_pace_search_next(&s, -1, 1056), 16);
    CHECK(s.best_ms == 0);
    /* The first timed interval: try twice the count. */
    CHECK_EQ_INT(wl_pace_search_next(&s, 50, 1056), 32);
    /* Worse: the other side. */
    CHECK_EQ_INT(wl_pace_search_next(&s, 60, 1056), 8);
    /* Better: on the same way. */
    CHECK_EQ_INT(wl_pace_search_next(&s, 40, 1056), 4);
    /* Worse, and the other side is the count it came from: a smaller step,
     * on the same way first. */
    CHECK_EQ_INT(wl_pace_search_next(&s, 45, 1056), 6);
    CHECK_EQ_INT(s.best, 8);
}

int main(void)
{
    RUN(a_copy_that_cannot_fit_settles_where_it_reaches_the_link);
    RUN(a_short_copy_settles_on_few_blocks);
    RUN(a_slow_copy_climbs_to_max);
    RUN(one_block_is_the_floor);
    RUN(an_interval_not_timed_changes_nothing);
    CHECK_EXIT();
}
