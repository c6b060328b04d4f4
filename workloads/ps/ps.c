/* PS in every mode (paper 4.3, Figure 8): prefix sums computed in blocks,
 * each marked done in PM (ps_layout.h), which the harness runs, resumes
 * and verifies (struct wl_blocks); the kernels say which store goes where. */
#include <stdlib.h>

#include "ps.h"

static const struct wl_param ps_params[] = {
    {.flag = "n", .help = "32-bit integers to sum", .sizes = 1,
     .scale = {16ll << 16, 256ll << 20, 1024ll << 20}, .min = 1, .max = 1ll << 33},
    {.flag = "block", .help = "integers per thread block (a power of two, 128..4096)",
     .sizes = 1, .scale = {4096, 4096, 4096}, .min = 128, .max = 4096, .pow2 = 1},
    {0},
};

static const struct wl_obj_decl ps_objects[] = {{"sums", WL_OBJ_REGION}, {NULL, WL_OBJ_REGION}};

static const struct wl_blocks ps_blocks = {
    .compute = ps_compute, .blocks = ps_blocks_of, .pending = ps_pending,
    .finished = ps_finished, .check = ps_check_pm,
};

const struct wl_workload WORKLOAD = {
    .name = "ps",
    .about = "prefix sum with per-block persistence and resume (paper 4.3, Figure 8)",
    .modes = WL_MODES_GPU | WL_MODE_BIT(WL_CPU),
    .sbrp = 1, /* one kernel: pRel/pAcq at block scope per block, at device scope for pre */
    .objects = ps_objects,
    .params = ps_params,
    .blocks = &ps_blocks,
    .state_bytes = sizeof(struct ps_state),
    .layout = ps_layout,
    .setup = ps_setup,
    .run = wl_blocks_run,
    .recover = wl_blocks_recover,
    .verify = wl_blocks_verify,
    .teardown = ps_teardown,
};
