/* Per-thread last-error message shared by every libgpm call. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gpm/gpm.h"

static _Thread_local char last_error[1024];

const char *gpm_last_error(void)
{
    return last_error;
}

int gpm_set_error(const char *fmt, ...)
{
    char msg[sizeof last_error]; /* an argument may be gpm_last_error() itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(last_error, msg, sizeof msg);
    return -1;
}
