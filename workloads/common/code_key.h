/* The code this process runs, as one number (code_key.c): what a verdict
 * kept from an earlier process must have been reached by (check_cache.c). */
#ifndef WL_CODE_KEY_H
#define WL_CODE_KEY_H

#include <stdint.h>

/* Sets *KEY to a hash of this executable's bytes and of the identity of
 * every shared library it was linked with; computed once per process,
 * thread-safe. -1 with the message set where the executable cannot be
 * read: then nothing can be keyed on it. */
int wl_code_key(uint64_t *key);

#endif
