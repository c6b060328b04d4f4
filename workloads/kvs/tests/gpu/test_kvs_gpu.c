/* gpKVS's kernels in the GPU modes that log: an undo record that does not
 * fit leaves its way unchanged, the batch fails, and the undo gives back
 * exactly the table before it (gpm: records fenced in-kernel; gpm-ndp:
 * flushed by the CPU before anything on PM changes). */
#include "../../kvs.h"
#include "../log_overflow.h"
#include "gpm/check_gpu.h"

static char dir[4096], errf[4200];

static void a_full_log_changes_nothing_it_could_not_log_in_gpm(void)
{
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    kvs_log_overflow_case("gpm", dir, errf);
}

static void a_full_log_changes_nothing_it_could_not_log_in_gpm_ndp(void)
{
    if (!check_gpu_visible_in_child())
        SKIP("no CUDA GPU visible");
    kvs_log_overflow_case("gpm-ndp", dir, errf);
}

int main(void)
{
    wl_test_scratch("kvs-gpu", dir, NULL, errf);
    RUN(a_full_log_changes_nothing_it_could_not_log_in_gpm);
    RUN(a_full_log_changes_nothing_it_could_not_log_in_gpm_ndp);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
