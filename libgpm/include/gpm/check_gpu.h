/* For GPU tests: a case that needs a GPU skips where none is visible, so the
 * GPU tests build and run on any machine. */
#ifndef GPM_CHECK_GPU_H
#define GPM_CHECK_GPU_H

#include <cuda_runtime_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"

static int check_gpu_visible(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

/* For a test whose runs are its children (forked after the check): CUDA
 * must not be initialised in the parent first, so a child looks. */
static inline int check_gpu_visible_in_child(void)
{
    int st;
    pid_t pid = fork();
    if (pid == 0)
        _exit(check_gpu_visible() ? 0 : 1);
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

#define NEED_GPU()                                                                     \
    do {                                                                               \
        if (!check_gpu_visible())                                                      \
            SKIP("no CUDA GPU visible");                                               \
    } while (0)

#endif
