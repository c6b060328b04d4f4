/* The crash hook: libgpm's SIGKILL watchdog, armed when the first timed
 * repetition starts and disarmed as soon as it returns, so that only kills
 * inside the work happen. The PM files survive for --recover. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "gpm/crash.h"
#include "harness.h"

double wl_crash_pick(double expected_s, unsigned long long salt)
{
    /* Uniform over 5%..95% of the expected operation, so the kill lands
     * inside it rather than at its edges; the clock and pid make repeated
     * trials of one seed land at different moments. (Crash campaigns pass
     * moments drawn from a measured duration instead.) */
    struct timespec now;
    uint64_t x;
    clock_gettime(CLOCK_REALTIME, &now);
    x = (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 32) ^ salt;
    if (expected_s < 0.01)
        expected_s = 0.01;
    return (double)gpm_crash_pick_us(x, (uint64_t)(expected_s * 0.05e6),
                                     (uint64_t)(expected_s * 0.95e6)) / 1e6;
}

int wl_crash_arm(double seconds)
{
    fprintf(stderr, "crash: SIGKILL in %.3f s\n", seconds);
    fflush(stderr);
    return gpm_crash_arm_us((uint64_t)(seconds * 1e6));
}

int wl_crash_disarm(void)
{
    return gpm_crash_disarm();
}
