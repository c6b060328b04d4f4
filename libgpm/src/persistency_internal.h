/* What the persistency model's files (persistency.c, sbrp.c) share. */
#ifndef GPM_PERSISTENCY_INTERNAL_H
#define GPM_PERSISTENCY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* *P, an array of *CAP elements of ELEM bytes, grown (doubling) to hold at
 * least NEED: 0, or -1 with a message. It starts small: a model keeps one
 * such list per GPU thread, and a trace has up to millions of threads. */
int gpm_grow(void **p, uint64_t *cap, uint64_t need, size_t elem);

#endif
