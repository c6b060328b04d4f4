/* The --crash-after watchdog (crash.c). */
#ifndef WL_CRASH_H
#define WL_CRASH_H

#ifdef __cplusplus
extern "C" {
#endif

/* A random delay within a run expected to take EXPECTED_S seconds. */
double wl_crash_pick(double expected_s, unsigned long long salt);
/* Starts the watchdog: SIGKILL to this process after SECONDS. */
int wl_crash_arm(double seconds);

#ifdef __cplusplus
}
#endif

#endif
