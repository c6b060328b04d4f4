/* The crash hook: a watchdog thread kills the whole process with SIGKILL,
 * the crash a power failure or an OOM kill looks like to PM: no handler,
 * no flush, no unmap. The PM file survives for --recover. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "crash.h"

static double crash_delay;

static void *watchdog(void *arg)
{
    struct timespec ts;
    (void)arg;
    ts.tv_sec = (time_t)crash_delay;
    ts.tv_nsec = (long)((crash_delay - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0)
        ;
    kill(getpid(), SIGKILL);
    return NULL;
}

double wl_crash_pick(double expected_s, unsigned long long salt)
{
    /* Uniform over 5%..95% of the expected operation, so the kill lands
     * inside it rather than in setup or after the end. */
    struct timespec now;
    unsigned long long x;
    clock_gettime(CLOCK_REALTIME, &now);
    x = (unsigned long long)now.tv_nsec ^ ((unsigned long long)getpid() << 32) ^ salt;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    if (expected_s < 0.01)
        expected_s = 0.01;
    return expected_s * (0.05 + 0.9 * (double)(x % 1000000) / 1e6);
}

int wl_crash_arm(double seconds)
{
    pthread_t t;
    crash_delay = seconds;
    fprintf(stderr, "crash: SIGKILL in %.3f s\n", seconds);
    fflush(stderr);
    if (pthread_create(&t, NULL, watchdog, NULL) != 0)
        return -1;
    pthread_detach(t);
    return 0;
}
