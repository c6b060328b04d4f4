#!/bin/sh
# Prints (or, with --run, runs as root) the commands that turn an nd region
# of real PM into a DAX-mounted directory for GPM_PM_DIR. Destroys data on
# the region when run.
#   fsdax.sh REGION MOUNTPOINT USER [--run]    e.g. fsdax.sh region0 /mnt/pmem0 alice
set -eu
[ $# -ge 3 ] || { echo "usage: $0 REGION MOUNTPOINT USER [--run]" >&2; exit 2; }
region=$1 mnt=$2 user=$3 run=${4:-}
if [ "$run" != --run ]; then
    cat <<EOT
# no App Direct region yet? ipmctl create -goal PersistentMemoryType=AppDirect; reboot
ndctl create-namespace --mode=fsdax --region=$region   # prints "blockdev":"pmemN"
mkfs.ext4 -F /dev/pmemN
mkdir -p $mnt && mount -o dax /dev/pmemN $mnt
mkdir -m 0700 $mnt/gpm-$user && chown $user $mnt/gpm-$user
export GPM_PM_DIR=$mnt/gpm-$user
EOT
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "fsdax.sh: --run needs root" >&2; exit 1; }
set -x
out=$(ndctl create-namespace --mode=fsdax --region="$region")
dev=/dev/$(echo "$out" | sed -n 's/.*"blockdev":"\([^"]*\)".*/\1/p' | head -n1)
[ -b "$dev" ] || { echo "fsdax.sh: no block device in: $out" >&2; exit 1; }
mkfs.ext4 -F "$dev"
mkdir -p "$mnt"
mount -o dax "$dev" "$mnt"
mkdir -m 0700 "$mnt/gpm-$user"
chown "$user" "$mnt/gpm-$user"
set +x
echo "export GPM_PM_DIR=$mnt/gpm-$user"
