/* For GPU tests: a case that needs a GPU skips where none is visible, so the
 * GPU tests build and run on any machine. */
#ifndef GPM_CHECK_GPU_H
#define GPM_CHECK_GPU_H

#include <cuda_runtime_api.h>

#include "gpm/check.h"

static int check_gpu_visible(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define NEED_GPU()                                                                     \
    do {                                                                               \
        if (!check_gpu_visible())                                                      \
            SKIP("no CUDA GPU visible");                                               \
    } while (0)

#endif
