/* Gray et al.'s Zipfian generator ("Quickly generating billion-record
 * synthetic databases", SIGMOD 1994), as YCSB uses it: rank 0 the most
 * popular of N. gpKVS's keys and the YCSB driver (ycsb.h) draw from it. */
#ifndef WL_ZIPF_H
#define WL_ZIPF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct wl_zipf {
    double theta, alpha, eta, zetan, half_pow;
    uint64_t n;
};

/* zeta(N, THETA) = sum of 1 / i^THETA for i = 1..N, summed in fixed chunks
 * (OpenMP), so that it does not depend on the thread count. */
double wl_zeta(uint64_t n, double theta);
/* Over N ranks with skew THETA (0 < THETA < 1). ZETAN: zeta(N, THETA)
 * where the caller knows it (YCSB's constant for 10^10 items), else 0. */
void wl_zipf_init(struct wl_zipf *z, uint64_t n, double theta, double zetan);
/* Draw I of the uniform stream SEED, in [0, 1): what a rank is drawn
 * with (a hash of SEED and I, so draws can be made in any order). */
double wl_unit(uint64_t seed, uint64_t i);
/* The rank that U (uniform in [0, 1)) draws. */
uint64_t wl_zipf_rank(const struct wl_zipf *z, double u);
/* The same over N2 >= N ranks: zeta extended by the ranks added (YCSB's
 * latest distribution grows with every insert). */
void wl_zipf_grow(struct wl_zipf *z, uint64_t n2);

#ifdef __cplusplus
}
#endif

#endif
