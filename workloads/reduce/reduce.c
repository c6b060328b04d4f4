/* The reduction in every mode (SBRP's Figure 2): blocks' trees of partial
 * sums on PM, each block's marked by the epoch in its slot 0, then the
 * total (reduce_layout.h), which the harness runs, resumes and verifies
 * (struct wl_blocks); the kernels say which store goes where. */
#include "reduce.h"

static const struct wl_param red_params[] = {
    {.flag = "n", .help = "32-bit integers to sum", .sizes = 1,
     .scale = {16ll << 16, 256ll << 20, 1024ll << 20}, .min = 1, .max = 1ll << 33},
    {.flag = "block", .help = "integers per thread block (a power of two, 128..4096)",
     .sizes = 1, .scale = {1024, 1024, 1024}, .min = 128, .max = 4096, .pow2 = 1},
    {0},
};

static const struct wl_obj_decl red_objects[] = {{"tree", WL_OBJ_REGION}, {NULL, WL_OBJ_REGION}};

static const struct wl_blocks red_blocks = {
    .compute = red_compute, .blocks = red_blocks_of, .pending = red_pending,
    .finished = red_finished, .check = red_check_pm,
};

const struct wl_workload WORKLOAD = {
    .name = "reduce",
    .about = "sum of integers, every iteration's partial sums on PM (SBRP's Figure 2)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .sbrp = 1, /* pRel/pAcq at block scope per iteration, at device scope for the total */
    .objects = red_objects,
    .params = red_params,
    .blocks = &red_blocks,
    .state_bytes = sizeof(struct red_state),
    .layout = red_layout,
    .setup = red_setup,
    .run = wl_blocks_run,
    .recover = wl_blocks_recover,
    .verify = wl_blocks_verify,
    .teardown = red_teardown,
};
