/* gpDB's table and the meaning of its two operations, written once for the
 * kernels, the CPU counterpart and the reference (GPM_HD).
 *
 * The table: a 64-byte header whose first word is the row count, then
 * fixed-width 64-byte rows (an int64 key, six int32 and six float columns).
 *
 * INSERT batch B appends N rows, db_row_gen(seed, count + k), and then
 * raises the count. UPDATE statement U is
 *     UPDATE t SET c1 = c1 * 3 + 7 + u WHERE c0 % 20 = u % 20
 * over every row: about 5% of them (c0 is uniform), in place. Integer
 * arithmetic (modulo 2^32) keeps the GPU, the CPU and the reference equal
 * bit for bit. */
#ifndef DB_MODEL_H
#define DB_MODEL_H

#include <stdint.h>

#include "gpm/hd.h"

#define DB_HEADER_BYTES 64
#define DB_ROW_BYTES 64
#define DB_MATCH_MOD 20 /* a statement selects 1 row in 20 */

typedef struct db_row {
    int64_t key;
    int32_t c[6];
    float f[6];
    uint32_t pad[2];
} db_row;

GPM_HD uint64_t db_row_off(uint64_t r)
{
    return DB_HEADER_BYTES + r * DB_ROW_BYTES;
}

GPM_HD db_row db_row_gen(uint64_t seed, uint64_t r)
{
    db_row x;
    uint64_t h = gpm_mix64(seed * 0x9e3779b97f4a7c15ull + r);
    x.key = (int64_t)(r + 1);
    for (int k = 0; k < 6; k++) {
        uint64_t g = gpm_mix64(h + (uint64_t)k);
        x.c[k] = (int32_t)(uint32_t)(g & 0x7fffffffu);
        x.f[k] = (float)(g >> 40) * (1.0f / 16777216.0f);
    }
    x.pad[0] = x.pad[1] = 0;
    return x;
}

GPM_HD int db_matches(const db_row *x, uint64_t u)
{
    return (uint32_t)x->c[0] % DB_MATCH_MOD == u % DB_MATCH_MOD;
}

GPM_HD void db_update(db_row *x, uint64_t u)
{
    x->c[1] = (int32_t)((uint32_t)x->c[1] * 3u + 7u + (uint32_t)u);
}

#endif
