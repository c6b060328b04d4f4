/* Inside libgpm: the rule every PM or CAP-fs file that already exists must
 * meet before it is reused, so a wrong file is refused, never resized; and
 * what file system a file lives on. */
#ifndef GPM_FILE_CHECK_H
#define GPM_FILE_CHECK_H

#include <linux/magic.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "gpm/gpm.h"

/* PATH (whose stat is ST) must be a regular file of SIZE bytes (SIZE 0:
 * any size); otherwise -1 with a message naming it and the fix. */
static inline int gpm_check_existing(const char *path, const struct stat *st, size_t size)
{
    if (!S_ISREG(st->st_mode))
        return gpm_set_error("%s: not a regular file: choose another file name", path);
    if (size != 0 && (size_t)st->st_size != size)
        return gpm_set_error("%s: has %lld bytes, expected %zu: remove the file to recreate "
                             "it, or run with the size it was made with",
                             path, (long long)st->st_size, size);
    return 0;
}

/* PATH lives on tmpfs (DRAM standing in for PM, /dev/shm). */
static inline int gpm_on_tmpfs(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

#endif
