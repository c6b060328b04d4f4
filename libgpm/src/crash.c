/* The SIGKILL watchdog shared by the crash-trial programs and the workload
 * harness's --kill time:S. One per process: armed before the work it is
 * meant to interrupt, disarmed as soon as that work returns, so that a run
 * which finished first is never killed during its verification and then
 * counted as a crash. */
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

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static struct timespec deadline; /* CLOCK_MONOTONIC */
static int armed, cancelled;
static pthread_t thread;

uint64_t gpm_crash_pick_us(uint64_t seed, uint64_t min_us, uint64_t max_us)
{
    /* Mixed, so that seeds 1, 2, 3, ... spread over the window. */
    uint64_t x = gpm_mix64(seed + 0x9e3779b97f4a7c15ull);
    return max_us > min_us ? min_us + x % (max_us - min_us + 1) : min_us;
}

static void *watchdog(void *arg)
{
    int fire = 0;
    (void)arg;
    pthread_mutex_lock(&mu);
    while (!cancelled) {
        int e = pthread_cond_timedwait(&wake, &mu, &deadline);
        if (e == ETIMEDOUT) {
            fire = !cancelled;
            break;
        }
    }
    /* Still holding the lock: a disarm racing with the deadline either
     * cancelled first or waits for a process that is about to die. */
    if (fire)
        kill(getpid(), SIGKILL);
    pthread_mutex_unlock(&mu);
    return NULL;
}

int gpm_crash_arm_us(uint64_t us)
{
    pthread_condattr_t ca;
    int e;
    pthread_mutex_lock(&mu);
    if (armed) {
        pthread_mutex_unlock(&mu);
        return gpm_set_error("the crash watchdog is already armed: disarm it first");
    }
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)(us / 1000000);
    deadline.tv_nsec += (long)(us % 1000000) * 1000;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    cancelled = 0;
    e = pthread_create(&thread, NULL, watchdog, NULL);
    armed = e == 0;
    pthread_mutex_unlock(&mu);
    if (e != 0)
        return gpm_set_error("cannot start the crash watchdog thread (%s)", strerror(e));
    return 0;
}

int gpm_crash_disarm(void)
{
    int was;
    pthread_mutex_lock(&mu);
    was = armed;
    cancelled = 1;
    if (armed)
        pthread_cond_signal(&wake);
    pthread_mutex_unlock(&mu);
    if (!was)
        return 0;
    pthread_join(thread, NULL);
    pthread_mutex_lock(&mu);
    armed = 0;
    pthread_cond_destroy(&wake);
    pthread_mutex_unlock(&mu);
    return 1;
}
