#!/bin/sh
# gpm-check end to end on the CPU counterparts, tiny scale, few images: PS
# and gpDB pass as they are (gpDB under sbrp too); a mutant that drops PS's block-sum persist,
# and one that drops the persist of the transaction word (libgpm/src/tx.c),
# fail, naming what they left pending; the same tx.c mutant passes a real
# SIGKILL crash trial, deterministic ones (at a commit, at a unit of
# progress), since on DRAM a kill loses nothing the page cache holds: the
# reason the checker exists. Then --out's row, --sites, a write that
# bypasses the mappings (an incomplete trace), recoveries that share a
# process and fail to finish or claim failure (recovered again alone),
# crashes during recovery (--nested) that catch a recovery's missing
# persist, a reset's missing persist caught over old files (--rerun), and
# bad input (exit 2, one line naming the flag).
# Environment: GPM_BIN, GPM_PM_DIR (from run-tests.sh); GPM_ROOT (the
# sources, to find the mutants' lines; without them, --sites finds them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=${GPM_ROOT:-$(cd "$here/../.." && pwd)}
bin=${GPM_BIN:?GPM_BIN not set}
check=$bin/gpm-check
for p in gpm-check ps db; do
    if [ ! -x "$bin/$p" ]; then
        echo "skip - gpm-check end to end: no $bin/$p"
        exit 0
    fi
done
tmp=$(mktemp -d "${GPM_PM_DIR:-/tmp}/gpm-check-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
unset GPM_MUTATE
fail=0
ok() { echo "ok - $1"; }
bad() { echo "not ok - $1: $2"; fail=1; }
. "$here/../lib/tsv.sh"
n=0
# gpm-check ARGS...: its output in $out, its status in $rc; each run has a
# folder of its own in $tmp (a failing one is kept there until the end).
run_check() {
    n=$((n + 1))
    out=$tmp/check-$n.out
    "$check" --dir "$tmp/check-$n" "$@" >"$out" 2>&1
    rc=$?
}
show() { tr '\n' ' ' <"$out" | head -c 600; }

# The persist point on the first line of FILE that PATTERN (grep) matches,
# as the site SUFFIX:LINE, where it is one of the sites that --sites lists
# for PROGRAM ARGS; without the sources (a bundle), the first persist of
# FILE there (the sites are listed as the run first reached them). Empty
# when there is none.
find_site() { # file suffix pattern program args...
    _f=$1 _suffix=$2 _pat=$3
    shift 3
    "$check" --dir "$tmp/sites-$_suffix" --sites "$@" >"$tmp/sites.out" 2>&1 || return 0
    if [ -f "$root/$_f" ]; then
        _line=$(grep -n -- "$_pat" "$root/$_f" | head -n 1 | cut -d: -f1)
        if [ -n "$_line" ] &&
            grep -q "^$_f:$_line	persist	" "$tmp/sites.out"; then
            echo "$_suffix:$_line"
            return 0
        fi
    fi
    [ -f "$root/$_f" ] && return 0
    _site=$(grep "^$_f:[0-9]*	persist	" "$tmp/sites.out" | head -n 1 | cut -f1)
    [ -n "$_site" ] && echo "$_suffix:${_site##*:}"
    return 0
}

# 1. The originals pass: every image recovers.
run_check --images 30 --out "$tmp/rows.tsv" "$bin/ps" --mode cpu --scale tiny
recovered=$(sed -n 's/^gpm-check: \([0-9]*\) images tested: \([0-9]*\) recovered, 0 wrong output, 0 recovery crashed, 0 refused$/\1 \2/p' "$out")
if [ "$rc" -eq 0 ] && grep -q '^gpm-check: complete: ' "$out" && [ -n "$recovered" ] &&
    [ "${recovered% *}" = "${recovered#* }" ] && [ "${recovered% *}" -gt 0 ] &&
    ! grep -q FAILED "$out"; then
    ok "gpm-check ps cpu: complete, ${recovered% *} images tested, all recovered"
else
    bad "gpm-check ps cpu passes" "exit $rc: $(show)"
fi
params=$(last_field "$tmp/rows.tsv" params)
if [ "$(last_field "$tmp/rows.tsv" verified)" = ok ] &&
    [ "$(last_field "$tmp/rows.tsv" workload)" = ps ] &&
    [ "$(last_field "$tmp/rows.tsv" op)" = check ] &&
    [ "$(last_field "$tmp/rows.tsv" mode)" = cpu ] &&
    [ "$(last_field "$tmp/rows.tsv" scale)" = tiny ] &&
    case $params in "model=strict,images=${recovered% *},"*",recovered=${recovered% *},wrong=0,crashed=0,refused=0,complete=yes,seed=1,alone=0,choose_s="*",run_s="*) true ;; *) false ;; esac
then
    ok "--out writes a verified row: $params"
else
    bad "--out row" "verified $(last_field "$tmp/rows.tsv" verified), params $params"
fi
if [ ! -e "$tmp/check-$n" ]; then ok "a passing check removes its folder"
else bad "a passing check removes its folder" "$tmp/check-$n is left"; fi

run_check --images 30 "$bin/db" --mode cpu --op update --scale tiny
if [ "$rc" -eq 0 ] && grep -q '^gpm-check: complete: ' "$out" &&
    grep -q '^gpm-check: [0-9]* images tested: [0-9]* recovered, 0 wrong output, 0 recovery crashed, 0 refused$' "$out"
then ok "gpm-check db cpu update: complete, every image recovered"
else bad "gpm-check db cpu update passes" "exit $rc: $(show)"; fi

# Under sbrp the CPU's stores are as under strict: gpDB's CPU counterpart
# passes it too (its images come from the persist order's closure).
run_check --images 30 --model sbrp "$bin/db" --mode cpu --op update --scale tiny
if [ "$rc" -eq 0 ] && grep -q '^gpm-check: cpu, model sbrp: ' "$out" &&
    grep -q '^gpm-check: [0-9]* images tested: [0-9]* recovered, 0 wrong output, 0 recovery crashed, 0 refused$' "$out"
then ok "gpm-check --model sbrp db cpu update: every image recovered"
else bad "gpm-check --model sbrp db cpu update passes" "exit $rc: $(show)"; fi

# 2. PS without the persist of a block's sums before its marker.
site=$(find_site workloads/ps/ps_ref.c ps_ref.c 'wl_pm_persist(c, PS_SUMS, &out\[lo\]' \
    "$bin/ps" --mode cpu --scale tiny)
if [ -z "$site" ]; then
    bad "ps mutant" "no persist of the block sums among the sites: $(tr '\n' ' ' <"$tmp/sites.out")"
else
    GPM_MUTATE=$site run_check --images 30 "$bin/ps" --mode cpu --scale tiny
    if [ "$rc" -eq 1 ] && grep -q '^gpm-check: FAILED image ' "$out" &&
        grep -q '^  pending: ps-tiny\.sums bytes [0-9]*\.\.[0-9]* (CPU store)$' "$out" &&
        grep -q '^  recovery: wrong output' "$out" &&
        grep -q '^gpm-check: [0-9]* images tested: .* [1-9][0-9]* wrong output' "$out" &&
        grep -q '^gpm-check: the wrong outputs: \([0-9]*\) of \1 measured, a median [0-9.]*% of their sums wrong, at most [0-9.]*%; [0-9]* with a wrong marker$' "$out" &&
        grep -q "^gpm-check: the run, its trace and the first ten failing images stay in $tmp/check-$n\$" "$out"
    then
        ok "GPM_MUTATE=$site (ps): fails, naming the pending sums, and measures every wrong output in sums"
    else
        bad "GPM_MUTATE=$site (ps) fails" "exit $rc: $(show)"
    fi
fi

# 3. gpDB without the persist of the transaction word.
site=$(find_site libgpm/src/tx.c tx.c 'gpm_region_persist(&log->region, word_of(log)' \
    "$bin/db" --mode cpu --op update --scale tiny)
if [ -z "$site" ]; then
    bad "tx.c mutant" "no persist of the transaction word among the sites: $(tr '\n' ' ' <"$tmp/sites.out")"
    exit 1
fi
ok "--sites lists the transaction word's persist, libgpm/src/$site"
GPM_MUTATE=libgpm/src/$site run_check --images 30 "$bin/db" --mode cpu --op update --scale tiny
if [ "$rc" -eq 1 ] && grep -q '^gpm-check: FAILED image ' "$out" &&
    grep -q '^  pending: db-tiny\.log bytes ' "$out"; then
    ok "GPM_MUTATE=libgpm/src/$site (db update): fails, naming the pending log word"
else
    bad "GPM_MUTATE=libgpm/src/$site (db update) fails" "exit $rc: $(show)"
fi

# 4. The same mutant under real SIGKILL crash trials, killed at fixed
# points (before the 2nd commit: a transaction active; after the 1st unit
# of progress): each recovers and verifies.
for at in commit:2 progress:1; do
    mkdir -p "$tmp/kill-$at"
    trial=$(
        GPM_PM_DIR=$tmp/kill-$at GPM_MUTATE=libgpm/src/$site
        export GPM_PM_DIR GPM_MUTATE GPM_BIN
        . "$here/../lib/crash-trial.sh"
        crash_trial db cpu tiny 3 "$at" "$tmp/kill-$at" --op update
        echo "$? $TRIAL $TRIAL_PARAMS"
    )
    want=mid-work
    [ "$at" = commit:2 ] && want="mid-work .*tx_was_active=1"
    if echo "$trial" | grep -q "^0 $want" && grep -q 'crash: SIGKILL' "$tmp/kill-$at/trial.log"
    then
        ok "GPM_MUTATE=libgpm/src/$site survives a SIGKILL at $at: recovered and verified ($(echo "$trial" | grep -o 'tx_was_active=[0-9]*,undone=[0-9]*'))"
    else
        bad "GPM_MUTATE=libgpm/src/$site under a SIGKILL at $at" \
            "$trial; $(tr '\n' ' ' <"$tmp/kill-$at/trial.log" | head -c 400)"
    fi
done

# 5. A write to a PM file that no mapping made: the trace is incomplete.
cat >"$tmp/ps-poke" <<EOF
#!/bin/sh
# PS, and with --trace a byte of its sums changed behind the mappings.
"$bin/ps" "\$@" || exit \$?
dir= prev= traced=0
for a in "\$@"; do
    [ "\$prev" = --pm-dir ] && dir=\$a
    [ "\$a" = --trace ] && traced=1
    prev=\$a
done
[ "\$traced" -eq 1 ] || exit 0
b=\$(od -An -tu1 -j 100 -N 1 "\$dir/ps-tiny.sums" | tr -d ' ')
printf "\\\\\$(printf %03o \$(((b + 1) % 256)))" |
    dd of="\$dir/ps-tiny.sums" bs=1 seek=100 conv=notrunc 2>/dev/null
EOF
chmod +x "$tmp/ps-poke"
run_check --images 3 "$tmp/ps-poke" --mode cpu --scale tiny
if [ "$rc" -eq 1 ] &&
    grep -q "^gpm-check: INCOMPLETE: $tmp/check-$n/run/ps-tiny.sums: 1 bytes written by a path the trace does not see, from offset 100 to 100\$" "$out" &&
    grep -q '; trace incomplete$' "$out"; then
    ok "a write that bypasses the mappings: the trace is incomplete, naming the file and offset"
else
    bad "a write that bypasses the mappings" "exit $rc: $(show)"
fi

# 6. Recoveries that share a process (GPM_RECOVER_EACH): where two
# processes that share the list recover its first image (one claims it)
# and are then killed, the rest go unreached; where one recovers them all
# but then says that all but the first failed, it is not believed (and
# what it recovered is no crash image any more). Each such image is
# written again and recovered in a process of its own, and the check
# passes with every image counted once. --isolate never shares.
for how in killed lying; do
    cat >"$tmp/ps-$how" <<EOF
#!/bin/sh
# PS; recovering a list of images, it is $how after the first.
[ -n "\${GPM_RECOVER_EACH:-}" ] || exec "$bin/ps" "\$@"
list=\$GPM_RECOVER_EACH
if [ $how = killed ]; then
    head -n 1 "\$list" >"\$list.first"
    GPM_RECOVER_EACH=\$list.first "$bin/ps" "\$@"
    kill -9 \$\$
fi
"$bin/ps" "\$@" || exit \$?
sed 1d "\$list" | while read -r d; do echo 1 >"\$d/status"; done
EOF
    chmod +x "$tmp/ps-$how"
    # Two processes (one per 25 images) share one round (--jobs x 25) of
    # images; one lies, so that no other overwrites its statuses.
    set -- --images 30 --jobs 2
    [ $how = killed ] || set -- --images 8 --jobs 1
    run_check "$@" "$tmp/ps-$how" --mode cpu --scale tiny
    tested=$(sed -n 's/^gpm-check: \([0-9]*\) images tested: \1 recovered, 0 wrong output, 0 recovery crashed, 0 refused$/\1/p' "$out")
    alone=$(sed -n 's/^gpm-check: \([0-9]*\) images were recovered again, each in a process of its own: .*/\1/p' "$out")
    if [ "$rc" -eq 0 ] && [ -n "$tested" ] && [ "$tested" -gt 2 ] && [ "$alone" = $((tested - 1)) ] &&
        { [ $how = lying ] || [ "$tested" -gt 25 ]; }
    then
        ok "recoveries that share a process, $how after the list's first image: the $alone others are recovered alone, all $tested pass"
    else
        bad "recoveries that share a process, $how after the list's first image" "exit $rc, alone '$alone': $(show)"
    fi
done
run_check --images 6 --isolate "$bin/ps" --mode cpu --scale tiny
if [ "$rc" -eq 0 ] && grep -q '^gpm-check: each image was recovered in a process of its own (--isolate)$' "$out"
then ok "--isolate: every image in a process of its own"
else bad "--isolate" "exit $rc: $(show)"; fi
GPM_RECOVER_EACH=$tmp/no-such-list GPM_PM_DIR=$tmp "$bin/ps" --mode cpu --scale tiny --recover \
    >"$tmp/u.out" 2>"$tmp/u.err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/u.err")" -eq 1 ] &&
    grep -q "^ps: GPM_RECOVER_EACH: $tmp/no-such-list: cannot open the list of image folders\$" "$tmp/u.err"
then ok "GPM_RECOVER_EACH naming no list: exit 2, one line naming it"
else bad "GPM_RECOVER_EACH naming no list" "exit $rc: $(head -c 300 "$tmp/u.err")"; fi

# 7. Crashes during recovery (--nested): the CPU undo's persist of the
# bytes it restores, removed (libgpm/src/tx.c; only a recovery runs it),
# passes the images of the work, and fails the images of recoveries
# crashed mid-undo: the undo record is gone, the change it undid is not.
# The unmutated program passes both.
undo=$(grep -n 'gpm_region_persist(target, (uint8_t \*)target->host + r.off, r.len)' \
    "$root/libgpm/src/tx.c" 2>/dev/null | head -n 1 | cut -d: -f1)
if [ -z "$undo" ]; then
    echo "skip - --nested: no libgpm/src/tx.c here to find the undo's persist in"
else
    run_check --images 20 --nested 3 "$bin/db" --mode cpu --op update --scale tiny --cpu-threads 1
    if [ "$rc" -eq 0 ] &&
        grep -q '^gpm-check: 3 recoveries checked for crashes: \([0-9]*\) images, \1 recovered, 0 wrong output' "$out"
    then ok "--nested 3 (db update): the crashes of 3 recoveries all recover again"
    else bad "--nested 3 (db update) passes" "exit $rc: $(show)"; fi
    # One CPU thread: one trace, so the same images every time (14 of the
    # 30 fail).
    GPM_MUTATE=libgpm/src/tx.c:$undo run_check --images 40 "$bin/db" --mode cpu --op update \
        --scale tiny --cpu-threads 1
    plain=$rc
    GPM_MUTATE=libgpm/src/tx.c:$undo run_check --images 40 --nested 3 "$bin/db" --mode cpu \
        --op update --scale tiny --cpu-threads 1
    if [ "$plain" -eq 0 ] && [ "$rc" -eq 1 ] &&
        grep -q '^gpm-check: 3 recoveries checked for crashes: [0-9]* images, [0-9]* recovered, [1-9][0-9]* wrong output' "$out" &&
        grep -q '^    gpm-check: FAILED image ' "$out" && grep -q '^      pending: db-tiny\.table bytes ' "$out"
    then ok "GPM_MUTATE=libgpm/src/tx.c:$undo (the undo's persist): passes the work's images, flagged by --nested"
    else bad "GPM_MUTATE=libgpm/src/tx.c:$undo under --nested" "plain exit $plain, nested exit $rc: $(show)"; fi
fi

# 7b. Over old files (--rerun): gpKVS's reset of its table, whose persist
# removed passes from fresh files (zeros over zeros), fails where the table
# held the last run's pairs; the original passes both ways.
reset=$(grep -n 'gpm_region_persist(r, r->host, c->data_bytes)' "$root/workloads/kvs/kvs.c" \
    2>/dev/null | head -n 1 | cut -d: -f1)
if [ -z "$reset" ] || [ ! -x "$bin/kvs" ]; then
    echo "skip - --rerun: no workloads/kvs/kvs.c here, or no kvs"
else
    run_check --images 60 --rerun --out "$tmp/rerun.tsv" "$bin/kvs" --mode cpu --scale tiny \
        --cpu-threads 1
    orig=$rc
    GPM_MUTATE=workloads/kvs/kvs.c:$reset run_check --images 60 "$bin/kvs" --mode cpu \
        --scale tiny --cpu-threads 1
    fresh=$rc
    GPM_MUTATE=workloads/kvs/kvs.c:$reset run_check --images 60 --rerun "$bin/kvs" --mode cpu \
        --scale tiny --cpu-threads 1
    if [ "$orig" -eq 0 ] && [ "$fresh" -eq 0 ] && [ "$rc" -eq 1 ] &&
        grep -q '^gpm-check: 60 images tested: .* [1-9][0-9]* wrong output' "$out" &&
        last_field "$tmp/rerun.tsv" params | grep -q ',start=old'; then
        ok "--rerun: kvs.c:$reset (the table reset's persist) passes from fresh files, flagged over old ones; the original passes"
    else
        bad "--rerun on kvs.c:$reset" "original exit $orig, fresh exit $fresh, rerun exit $rc: $(show)"
    fi
    # The row names the run as the program said it (its trace), not as
    # its command line spelled it: kvs's default operation, given nowhere.
    if [ "$(last_field "$tmp/rerun.tsv" mode)" = cpu ] &&
        [ "$(last_field "$tmp/rerun.tsv" scale)" = tiny ] &&
        last_field "$tmp/rerun.tsv" params | grep -q '^op=set,model=strict,'; then
        ok "gpm-check's row: mode, scale and the default op=set from the traced program's words"
    else
        bad "gpm-check's row names kvs's mode, scale and op" \
            "$(last_field "$tmp/rerun.tsv" mode) $(last_field "$tmp/rerun.tsv" scale) $(last_field "$tmp/rerun.tsv" params | cut -c1-80)"
    fi
fi

# 8. Bad input: exit 2, one line on stderr naming the flag, nothing else.
usage() { # name expected args...
    _name=$1 _want=$2
    shift 2
    GPM_PM_DIR=$tmp "$check" "$@" >"$tmp/u.out" 2>"$tmp/u.err"
    _rc=$?
    if [ "$_rc" -eq 2 ] && [ "$(wc -l <"$tmp/u.err")" -eq 1 ] && grep -q -- "$_want" "$tmp/u.err" &&
        [ ! -s "$tmp/u.out" ]; then ok "$_name"
    else bad "$_name" "exit $_rc, stderr: $(head -c 300 "$tmp/u.err")"; fi
}
usage "no PROGRAM: exit 2" "^gpm-check: no PROGRAM"
usage "--pm-dir among PROGRAM's flags: exit 2" "^gpm-check: --pm-dir: gpm-check passes it" \
    "$bin/ps" --mode cpu --pm-dir "$tmp"
usage "--model bogus: exit 2, naming the models" "^gpm-check: --model: .*bogus.*strict, eadr, ndp, none or sbrp" \
    --model bogus "$bin/ps" --mode cpu
usage "--images 0: exit 2" "^gpm-check: --images: 0 " --images 0 "$bin/ps" --mode cpu
usage "--from a missing folder: exit 2, naming it" "^gpm-check: --from $tmp/none: not a folder" \
    --from "$tmp/none" "$bin/ps" --mode cpu
usage "--rerun with --from: exit 2" "^gpm-check: --rerun with --from" \
    --rerun --from "$tmp" "$bin/ps" --mode cpu
if [ -z "$(find "$tmp" -maxdepth 1 -name 'gpm-check.*')" ]; then ok "bad input leaves no folder"
else bad "bad input leaves no folder" "$(ls "$tmp")"; fi
exit $fail
