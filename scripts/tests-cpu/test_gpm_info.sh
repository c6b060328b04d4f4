#!/bin/sh
# gpm-info on this machine: exits 0 (GPU or not), prints the header and
# every platform key once, and names the PM backend of GPM_PM_DIR the way
# the file system holding it says; without a GPU, --check-gpu and the gpu
# field say so in the same words.
set -u
bin=${GPM_BIN:-build/bin}/gpm-info
root=${GPM_ROOT:-.}
fail=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1: $2"; fail=1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT

if "$bin" >"$out" 2>&1; then ok gpm_info_exits_0; else bad gpm_info_exits_0 "$bin exited $?: $(head -c 300 "$out")"; fi

if [ "$(head -n1 "$out")" = "$(printf 'key\tvalue')" ]; then ok gpm_info_header
else bad gpm_info_header "first line is '$(head -n1 "$out")'"; fi

missing=""
for k in gpu gpu_cc gpu_pci driver cuda pcie pm_dir pm_backend pm_is_pmem persist_domain \
         ddio cpu cores host git_rev; do
    n=$(awk -F'\t' -v k="$k" '$1 == k && $2 != "" && NF == 2' "$out" | wc -l)
    [ "$n" -eq 1 ] || missing="$missing $k"
done
if [ -z "$missing" ]; then ok gpm_info_every_key; else bad gpm_info_every_key "missing or empty:$missing"; fi

val() { awk -F'\t' -v k="$1" '$1 == k {print $2}' "$out"; }

# The backend as the file system reports it (tmpfs for /dev/shm).
fstype=$(stat -f -c %T "${GPM_PM_DIR:?}" 2>/dev/null)
backend=$(val pm_backend)
case "$fstype" in
tmpfs) want=tmpfs ;;
*) want=$( [ "$(val pm_is_pmem)" = 1 ] && echo dax || echo file) ;;
esac
if [ "$backend" = "$want" ] && [ "$(val pm_dir)" = "$GPM_PM_DIR" ]; then ok gpm_info_pm_backend
else bad gpm_info_pm_backend "pm_backend '$backend' for $GPM_PM_DIR on $fstype, want $want"; fi

# Under /dev/shm explicitly: emulated PM.
shm=$(mktemp -d /dev/shm/gpm-info-test.XXXXXX)
GPM_PM_DIR=$shm "$bin" >"$out" 2>&1
if [ "$(val pm_backend)" = tmpfs ] && [ "$(val persist_domain)" = "unknown: emulated PM" ] &&
   [ -z "$(ls -A "$shm")" ]; then ok gpm_info_shm_is_emulated_pm
else bad gpm_info_shm_is_emulated_pm "pm_backend '$(val pm_backend)', persist_domain '$(val persist_domain)', left: $(ls -A "$shm")"; fi
rm -rf "$shm"

# Without GPM_DDIO=control DDIO is left alone, and the report says so.
GPM_DDIO= "$bin" >"$out" 2>&1
if [ "$(val ddio)" = "uncontrolled: GPM_DDIO not set to control" ]; then ok gpm_info_ddio_uncontrolled
else bad gpm_info_ddio_uncontrolled "ddio is '$(val ddio)'"; fi

# The port query on a recorded Xeon dump (reads only).
dump=$root/libgpm/tests/fixtures/lspci/skylake-sp.dump
if "$bin" --ddio-port --dump "$dump" --gpu 0000:19:00.0 >"$out" 2>&1 &&
   [ "$(val port)" = 0000:16:00.0 ] && [ "$(val controllable)" = yes ]; then ok gpm_info_ddio_port_dump
else bad gpm_info_ddio_port_dump "$(tr '\n' ' ' <"$out" | head -c 300)"; fi

if "$bin" --ddio-port --dump "$dump" --gpu 0000:99:00.0 >"$out" 2>&1; then
    bad gpm_info_ddio_port_absent_gpu "exited 0 for a GPU not in the dump"
elif grep -q "0000:99:00.0 not found" "$out"; then ok gpm_info_ddio_port_absent_gpu
else bad gpm_info_ddio_port_absent_gpu "message: $(head -c 300 "$out")"; fi
# GPU presence: --check-gpu is silent with a GPU; without one (CUDA reports
# no device, or, with the toolkit but no driver, an insufficient driver) it
# says so on one stderr line and exits 1, and the report's gpu field agrees.
err=$(mktemp)
"$bin" --check-gpu >"$out" 2>"$err"
rc=$?
if [ "$rc" -eq 0 ]; then
    if [ -s "$out" ] || [ -s "$err" ]; then bad gpm_info_check_gpu "GPU visible, but it printed: $(cat "$out" "$err")"
    else echo "skip - gpm_info_check_gpu_without_gpu: a GPU is visible (--check-gpu exits 0 silently)"; fi
elif [ "$rc" -eq 1 ] && [ ! -s "$out" ] && [ "$(wc -l <"$err")" -eq 1 ] &&
     grep -q "no NVIDIA driver or GPU visible (CUDA: " "$err"; then
    ok gpm_info_check_gpu_without_gpu
    "$bin" >"$out" 2>/dev/null
    case "$(val gpu)" in
    "none (no NVIDIA driver or GPU visible (CUDA: "*) ok gpm_info_gpu_field_says_no_gpu ;;
    *) bad gpm_info_gpu_field_says_no_gpu "gpu is '$(val gpu)'" ;;
    esac
else
    bad gpm_info_check_gpu_without_gpu "exit $rc, stdout '$(cat "$out")', stderr '$(cat "$err")'"
fi
rm -f "$err"
exit $fail
