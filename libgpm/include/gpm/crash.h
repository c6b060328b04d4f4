/* Real crashes for crash trials: a watchdog thread sends SIGKILL to its own
 * process, which is what a power failure or an OOM kill looks like to PM
 * (no handler, no flush, no unmap). Files on PM outlive the process. */
#ifndef GPM_CRASH_H
#define GPM_CRASH_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A delay in [MIN_US, MAX_US] determined by SEED (the same seed, the same
 * delay, so a failed trial can be replayed). */
uint64_t gpm_crash_pick_us(uint64_t seed, uint64_t min_us, uint64_t max_us);

/* Starts the watchdog: a thread that sends SIGKILL to this process after US
 * microseconds unless disarmed first. One per process; returns -1 (with
 * gpm_last_error) if it cannot start or one is already armed. */
int gpm_crash_arm_us(uint64_t us);

/* Stops an armed watchdog before it fires and waits for its thread: 1 if
 * one was armed (the kill will not come), 0 if none was. Call it as soon as
 * the work the kill was meant to interrupt has returned. */
int gpm_crash_disarm(void);

#ifdef __cplusplus
}
#endif

#endif
