/* The SIGKILL watchdog shared by the crash-trial programs and the workload
 * harness's --crash-after. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpm/crash.h"
#include "gpm/gpm.h"
#include "gpm/hd.h"

uint64_t gpm_crash_pick_us(uint64_t seed, uint64_t min_us, uint64_t max_us)
{
    /* Mixed, so that seeds 1, 2, 3, ... spread over the window. */
    uint64_t x = gpm_mix64(seed + 0x9e3779b97f4a7c15ull);
    return max_us > min_us ? min_us + x % (max_us - min_us + 1) : min_us;
}

static void *watchdog(void *arg)
{
    uint64_t us = (uint64_t)(uintptr_t)arg;
    struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    kill(getpid(), SIGKILL);
    return NULL;
}

int gpm_crash_arm_us(uint64_t us)
{
    pthread_t t;
    int e = pthread_create(&t, NULL, watchdog, (void *)(uintptr_t)us);
    if (e != 0)
        return gpm_set_error("cannot start the crash watchdog thread (%s)", strerror(e));
    pthread_detach(t);
    return 0;
}
