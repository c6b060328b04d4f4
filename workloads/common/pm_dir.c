/* The PM directory: whether PM files can be made in it at all, and what a
 * run there measures. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "harness.h"

/* The name of a pseudo file system (proc, sysfs, ...), or NULL. */
static const char *pseudo_fs(long type)
{
    switch (type) {
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC: return "cgroup";
    case DEBUGFS_MAGIC: return "debugfs";
    case TRACEFS_MAGIC: return "tracefs";
    case SECURITYFS_MAGIC: return "securityfs";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    case BPF_FS_MAGIC: return "bpf";
    default: return NULL;
    }
}

int wl_pm_dir_usable(const char *dir, const char *what)
{
    char probe[4200];
    struct statfs fs;
    const char *pseudo = statfs(dir, &fs) == 0 ? pseudo_fs((long)fs.f_type) : NULL;
    int fd, err;
    if (pseudo)
        return gpm_set_error("%s: %s is on %s, a pseudo file system, not a place for PM files: "
                             "pass a directory on PM (or /dev/shm)", what, dir, pseudo);
    /* Making a file is the test: access() says yes to root on a read-only
     * mount's directory and on /proc alike. */
    snprintf(probe, sizeof probe, "%s/.gpm-probe-XXXXXX", dir);
    if ((fd = mkstemp(probe)) < 0) {
        err = errno;
        return gpm_set_error("%s: %s: cannot create files there (%s): pass a directory you "
                             "can write, on PM (or /dev/shm)%s", what, dir, strerror(err),
                             err == EROFS ? ", or remount it read-write" : "");
    }
    close(fd);
    unlink(probe);
    return 0;
}

/* The name of a disk file system, for the note. */
static const char *disk_fs(long type, char *buf, size_t len)
{
    switch (type) {
    case EXT4_SUPER_MAGIC: return "ext4"; /* ext2 and ext3 share it */
    case XFS_SUPER_MAGIC: return "xfs";
    case BTRFS_SUPER_MAGIC: return "btrfs";
    case NFS_SUPER_MAGIC: return "nfs";
    case OVERLAYFS_SUPER_MAGIC: return "overlayfs";
    default: snprintf(buf, len, "a file system of type 0x%lx", type); return buf;
    }
}

void wl_pm_dir_note(const struct wl_workload *w, const gpm_region *r)
{
    static int said;
    char dir[4096], buf[64];
    const char *slash = strrchr(r->path, '/');
    struct statfs fs;
    /* libgpm's classification of the mapping (dax, tmpfs, file): only a
     * plain file system is made durable with msync, i.e. through its
     * page cache and storage. ramfs is DRAM as tmpfs is. */
    if (said || r->backend != GPM_BACKEND_FILE || !slash)
        return;
    snprintf(dir, sizeof dir, "%.*s", slash == r->path ? 1 : (int)(slash - r->path), r->path);
    if (statfs(dir, &fs) != 0 || fs.f_type == RAMFS_MAGIC)
        return;
    said = 1;
    fprintf(stderr,
            "%s: note: the PM directory %s is on %s without DAX: PM files there are made "
            "durable with msync, so this run measures that file system's write-back, far "
            "slower than PM; for emulated PM use a directory under /dev/shm (the default), "
            "for real PM a DAX mount (pmem-setup/README.md)\n",
            w->name, dir, disk_fs((long)fs.f_type, buf, sizeof buf));
}
