/* Gray et al.'s Zipfian generator (zipf.h). */
#include <math.h>

#include "gpm/hd.h"
#include "zipf.h"

double wl_unit(uint64_t seed, uint64_t i)
{
    return (double)(gpm_mix64(seed * 0xd6e8feb86659fd93ull + i) >> 11) *
           (1.0 / 9007199254740992.0);
}

double wl_zeta(uint64_t n, double theta)
{
    enum { CHUNKS = 256 };
    double part[CHUNKS], sum = 0;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < CHUNKS; k++) {
        uint64_t lo = n * (uint64_t)k / CHUNKS, hi = n * (uint64_t)(k + 1) / CHUNKS;
        double s = 0;
        for (uint64_t i = lo; i < hi; i++)
            s += 1.0 / pow((double)(i + 1), theta);
        part[k] = s;
    }
    for (int k = 0; k < CHUNKS; k++)
        sum += part[k];
    return sum;
}

static void derive(struct wl_zipf *z)
{
    double zeta2 = 1.0 + pow(0.5, z->theta);
    z->alpha = 1.0 / (1.0 - z->theta);
    z->eta = (1.0 - pow(2.0 / (double)z->n, 1.0 - z->theta)) / (1.0 - zeta2 / z->zetan);
    z->half_pow = zeta2;
}

void wl_zipf_init(struct wl_zipf *z, uint64_t n, double theta, double zetan)
{
    z->n = n;
    z->theta = theta;
    z->zetan = zetan > 0 ? zetan : wl_zeta(n, theta);
    derive(z);
}

void wl_zipf_grow(struct wl_zipf *z, uint64_t n2)
{
    for (uint64_t i = z->n; i < n2; i++)
        z->zetan += 1.0 / pow((double)(i + 1), z->theta);
    if (n2 > z->n) {
        z->n = n2;
        derive(z);
    }
}

uint64_t wl_zipf_rank(const struct wl_zipf *z, double u)
{
    double uz = u * z->zetan;
    uint64_t r;
    if (uz < 1.0)
        return 0;
    if (uz < z->half_pow)
        return 1;
    r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
    return r < z->n ? r : z->n - 1;
}
