/* Per-thread last-error message shared by every libgpm call. */
#include <stdarg.h>
#include <stdio.h>

#include "gpm/gpm.h"

static _Thread_local char last_error[1024];

const char *gpm_last_error(void)
{
    return last_error;
}

int gpm_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return -1;
}
