/* The SIGKILL watchdog: deterministic delays in range, and a real kill. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/crash.h"

static void picks_stay_in_range_and_repeat(void)
{
    uint64_t lo = 1000, hi = 200000, seen_lo = hi, seen_hi = lo;
    for (uint64_t seed = 0; seed < 10000; seed++) {
        uint64_t us = gpm_crash_pick_us(seed, lo, hi);
        CHECKF(us >= lo && us <= hi, "seed %llu gave %llu", (unsigned long long)seed,
               (unsigned long long)us);
        CHECK(us == gpm_crash_pick_us(seed, lo, hi));
        seen_lo = us < seen_lo ? us : seen_lo;
        seen_hi = us > seen_hi ? us : seen_hi;
    }
    /* Spread over the window, not bunched at one end. */
    CHECK(seen_lo < lo + (hi - lo) / 20 && seen_hi > hi - (hi - lo) / 20);
    CHECK_EQ_INT(gpm_crash_pick_us(7, 500, 500), 500);
    CHECK_EQ_INT(gpm_crash_pick_us(7, 500, 100), 500);
}

static void armed_watchdog_kills_with_sigkill(void)
{
    int status = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (gpm_crash_arm_us(20000) != 0)
            _exit(3);
        sleep(10); /* the kill must come long before this ends */
        _exit(0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECKF(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "child status %d", status);
}

/* A run that returns before the deadline disarms the watchdog and is never
 * killed afterwards (during its verification, say). */
static void disarmed_watchdog_never_fires(void)
{
    int status = 0;
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (gpm_crash_disarm() != 0 || gpm_crash_arm_us(100000) != 0)
            _exit(3);
        if (gpm_crash_arm_us(100000) == 0)
            _exit(4); /* one watchdog per process */
        usleep(10000);
        if (gpm_crash_disarm() != 1)
            _exit(5);
        usleep(300000); /* well past the old deadline */
        if (gpm_crash_arm_us(1000000) != 0 || gpm_crash_disarm() != 1)
            _exit(6); /* re-armable after a disarm */
        _exit(0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

int main(void)
{
    RUN(picks_stay_in_range_and_repeat);
    RUN(armed_watchdog_kills_with_sigkill);
    RUN(disarmed_watchdog_never_fires);
    CHECK_EXIT();
}
