#!/bin/sh
# Mutants (make mutants): does the persistency checker catch a missing
# persist point that a SIGKILL cannot? For each workload of WORKLOADS, each
# of its operations (OPS) and of the settings whose persists its default run
# does not reach (--check-settings: GPHash's load, gpKVS's YCSB D; none
# where OPS is given), and each mode (MODES, a comma list; by default, as
# check-persistency, every mode whose --recover resumes durable progress
# that runs here: with a GPU the GPM modes, the CAP modes that resume and
# cpu, without one cpu; a workload without a mode MODES names is skipped
# with one line):
#   1. the persist sites of a traced run (gpm-check --sites: SITE, KIND,
#      COUNT), and the unmutated program, which must pass: gpm-check with
#      IMAGES (default 100) crash images, and KILLS (default 3) SIGKILL trials
#      killed just after unit K of progress, K spread over the work (fewer
#      where the work has fewer units)
#      (crash_trial progress:K, scripts/lib/crash-trial.sh), each recovered and
#      verified;
#   2. for every site, the mutant without its persist point (GPM_MUTATE=SITE
#      in every run, the recoveries' too):
#      a. gpm-check: "flagged" where images did not recover; where every
#         image recovered, from what gpm-check measured of the removed
#         points (its trace records them where they would have run):
#         "redundant" where they hold no store back (a later persist makes
#         each durable at the same point: the mutant's images are the
#         original's), else "not flagged", its images at the crash
#         points where stores are held back (those dropped) all recovered:
#         evidence, not proof, that the persist's loss only makes recovery
#         redo work (a progress marker), as more images may fail; these
#         are results, kept and reported, not hidden;
#      b. the same KILLS SIGKILL trials: a trial that does not recover flags
#         the mutant. None is expected to: with DRAM standing in for PM, a
#         SIGKILL loses no store, flushed or not.
#   The traced run's persist points (trace_points) are recorded for the
#   original and each mutant, and the mutant's left at its site
#   (mutant_left): 0 where it took; a mutant that kept any is an error.
#   With RERUN=1 (the default), the original is checked a second time over
#   the files an untraced run of it left (gpm-check --rerun: old output,
#   not fresh files), where it must pass too, and so is every mutant that
#   the first check did not flag: a reset whose persist was removed (a
#   table zeroed before a run) shows only there. The second row follows the
#   first, and is the site's verdict.
#   3. the sites that only a recovery reaches (those of the recovery that
#      had most to do in a small check, gpm-check --nested 1 --keep, listed
#      with --sites --from, less the work's), mutated the same way, the
#      check crashing 3 recoveries too (NESTED=3): their failing images
#      are those of crashed recoveries (site_where=recovery).
# Rows: $RESULTS_DIR/mutants.tsv, op=check rows through gpm-check (mutant=SITE
# in the mutants' params; the original's without), then trace_points,
# site_kind, site_count (the original: sites), kills, kill_units,
# sigkill_recovered, sigkill_flagged, sigkill_mid_work. Report:
# scripts/report/mutants.py.
# Exit 1 where the unmutated program failed either test, a check could not
# run or a program is missing; an unflagged mutant, or one that a SIGKILL trial
# flagged, is a result, said in the output and the report.
# Environment: GPM_BIN, RESULTS_DIR, SCALE (tiny from make), WORKLOADS, OPS,
# MODES, SITES (a comma list: only these sites' mutants), IMAGES, KILLS,
# RERUN (0 or 1), CHECK_ARGS (more flags for every run of the programs:
# --cpu-threads 1 makes a CPU counterpart's traces, and so its images, the
# same every time), GPM_PM_DIR, TRIAL_TIMEOUT.
set -u
name=mutants
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/crash-trial.sh"
. "$(dirname "$0")/../lib/check-run.sh"
unset GPM_MUTATE # the mutants are this script's to choose
CHECKER_FLAGS=   # set for the checks over old files alone
IMAGES=${IMAGES:-100}
KILLS=${KILLS:-3}
RERUN=${RERUN:-1}
out=$RESULTS_DIR/mutants.tsv
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpm-mutants.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
pm_base=${GPM_PM_DIR:-/dev/shm/gpm-$(id -u)}
mkdir -p "$pm_base" || exit 1
bad=0

gpu_or_cpu_only "$name" mutating

# kill_points UNITS: KILLS units of progress to kill after, spread over
# 1..UNITS-1, one per word, each once (fewer where the work has fewer
# units; none where it has fewer than 2).
kill_points() {
    awk -v u="$1" -v n="$KILLS" 'BEGIN {
        if (u < 2) exit
        for (i = 1; i <= n; i++) {
            k = int(i * u / (n + 1) + 0.5); if (k < 1) k = 1; if (k > u - 1) k = u - 1
            if (!(k in seen)) printf "%d ", k; seen[k] = 1 } }'
}

# sigkill SITE: the SIGKILL trials of the program with SITE's persist point
# removed ("" for the original), killed after each of $kills; sets
# SK_RECOVERED, SK_FLAGGED and SK_MID (trials killed mid-work).
sigkill() {
    SK_RECOVERED=0 SK_FLAGGED=0 SK_MID=0
    for _k in $kills; do
        _pm=$(mktemp -d "$pm_base/mutant-trial.XXXXXX") || return 1
        mkdir -p "$tmp/trial"
        (
            [ -z "$1" ] || export GPM_MUTATE="$1"
            GPM_PM_DIR=$_pm
            # shellcheck disable=SC2086 # args is a list of flags
            crash_trial "$w" "$m" "$SCALE" 1 "progress:$_k" "$tmp/trial" $args
            _rc=$?
            echo "$TRIAL" >"$tmp/trial/what"
            exit "$_rc"
        )
        if [ $? -eq 0 ]; then
            SK_RECOVERED=$((SK_RECOVERED + 1))
            [ "$(cat "$tmp/trial/what")" != mid-work ] || SK_MID=$((SK_MID + 1))
            rm -rf "$_pm"
        else
            SK_FLAGGED=$((SK_FLAGGED + 1))
            echo "$name: $lbl ($m)${1:+ without $1}: SIGKILL after unit $_k: NOT RECOVERED: $(cat "$tmp/trial/what"); its PM files stay in $_pm; log:" >&2
            tail -n 5 "$tmp/trial/trial.log" | sed 's/^/    /' >&2
        fi
    done
}

ran=0
for w in $(workloads); do
    have_program "$w" || { bad=1; continue; }
    modes=$(modes_that_resume "$w" | tr '\n' ' ')
    if [ -z "$modes" ]; then
        [ -n "${MODES:-}" ] ||
            echo "$name: $w has no mode to mutate$([ "$gpu" -eq 1 ] || echo " without a GPU"): skipped"
        continue
    fi
    ran=$((ran + 1))
    # Its operations, then (unless OPS picks some) the settings whose
    # persists its default run does not reach (--check-settings), a case a
    # line: NAME, then its flags; a setting's rows say setting=NAME.
    for op in $(ops "$w"); do echo "$op $(op_flag "$op")"; done >"$tmp/cases"
    [ -n "${OPS:-}" ] || "$GPM_BIN/$w" --check-settings 2>/dev/null | sed 's/^/@/' >>"$tmp/cases"
    while read -r op flags <&4; do
        xp=""
        case $op in @*) op=${op#@} xp="setting=$op," ;; esac
        for m in $modes; do
            args="$flags ${CHECK_ARGS:-}"
            lbl=$w
            [ "$op" = run ] || lbl="$w($op)"
            # The persist sites of the traced work.
            # shellcheck disable=SC2086 # args is a list of flags
            if ! "$GPM_BIN/gpm-check" --sites "$GPM_BIN/$w" --mode "$m" --scale "$SCALE" $args \
                >"$tmp/sites" 2>"$tmp/sites.err"; then
                echo "$name: $lbl ($m): cannot list its persist sites: $(tail -n 1 "$tmp/sites.err")" >&2
                bad=1
                continue
            fi
            # The persist sites only a recovery reaches: those of the
            # recovery that had most to do in a small check (its image
            # kept, then its recovery listed with --from), less the work's.
            tab=$(printf '\t')
            rdir=$(check_dir) || exit 1
            : >"$tmp/rsites"
            # shellcheck disable=SC2086
            "$GPM_BIN/gpm-check" --keep --dir "$rdir" --nested 1 --images 8 "$GPM_BIN/$w" \
                --mode "$m" --scale "$SCALE" $args >"$tmp/rsites.log" 2>&1
            img=$(ls -d "$rdir"/nested-*/image 2>/dev/null | head -n 1)
            # shellcheck disable=SC2086
            if [ -n "$img" ] && "$GPM_BIN/gpm-check" --sites --from "$img" "$GPM_BIN/$w" \
                --mode "$m" --scale "$SCALE" $args >"$tmp/rsites.all" 2>&1; then
                while IFS=$tab read -r site kind count; do
                    cut -f1 "$tmp/sites" | grep -qxF -- "$site" ||
                        printf '%s\t%s\t%s\trecovery\n' "$site" "$kind" "$count"
                done <"$tmp/rsites.all" >"$tmp/rsites"
            else
                echo "$name: $lbl ($m): no recovery's sites to mutate: $(tail -n 1 "$tmp/rsites.log")" >&2
            fi
            rm -rf "$rdir"
            cat "$tmp/rsites" >>"$tmp/sites"
            nsites=$(grep -c . "$tmp/sites")
            # Where the SIGKILL trials kill: units of progress of one run.
            # shellcheck disable=SC2086
            timeline=$(measure_work "$w" "$m" "$SCALE" "$tmp" $args) || { bad=1; continue; }
            kills=$(kill_points "${timeline%% *}")
            nk=$(echo $kills | wc -w)
            [ "$nk" -gt 0 ] || [ "$KILLS" -eq 0 ] ||
                echo "$name: $lbl ($m): the work makes ${timeline%% *} unit(s) of progress durable: no SIGKILL trials" >&2
            ku=$(echo $kills | tr ' ' '/')

            # The original: must pass both.
            sigkill ""
            d=$(check_dir) || exit 1
            # shellcheck disable=SC2086
            run_check "$out" "$d" "$IMAGES" \
                "${xp}sites=$nsites,kills=$nk,kill_units=${ku:-none},sigkill_recovered=$SK_RECOVERED,sigkill_flagged=$SK_FLAGGED,sigkill_mid_work=$SK_MID" \
                "$w" "$m" "$SCALE" $args
            base=$(param "$CHECK_PARAMS" trace_points)
            if [ "$CHECK_RC" -eq 0 ] && [ "$SK_FLAGGED" -eq 0 ]; then
                echo "$name: $lbl ($m, $SCALE): the original: $(check_summary "$CHECK_PARAMS"); SIGKILL: $SK_RECOVERED of $nk trials recovered; $nsites persist sites, $base persist points"
                rm -f "$CHECK_LOG"
            else
                bad=1
                echo "$name: $lbl ($m, $SCALE): the original FAILED: ${CHECK_WHY:-$(check_summary "$CHECK_PARAMS")}; SIGKILL: $SK_FLAGGED of $nk trials not recovered; the check's log: $CHECK_LOG" >&2
            fi
            [ -z "$CHECK_WHY" ] || continue
            # Over old files too, where unflagged mutants are checked again.
            if [ "$RERUN" -eq 1 ]; then
                d=$(check_dir) || exit 1
                CHECKER_FLAGS=--rerun
                # shellcheck disable=SC2086
                run_check "$out" "$d" "$IMAGES" \
                    "${xp}sites=$nsites,kills=$nk,kill_units=${ku:-none},sigkill_recovered=$SK_RECOVERED,sigkill_flagged=$SK_FLAGGED,sigkill_mid_work=$SK_MID" \
                    "$w" "$m" "$SCALE" $args
                CHECKER_FLAGS=
                if [ "$CHECK_RC" -eq 0 ]; then
                    echo "$name: $lbl ($m, $SCALE): the original over old files: $(check_summary "$CHECK_PARAMS")"
                    rm -f "$CHECK_LOG"
                else
                    bad=1
                    echo "$name: $lbl ($m, $SCALE): the original over old files FAILED: ${CHECK_WHY:-$(check_summary "$CHECK_PARAMS")}; the check's log: $CHECK_LOG" >&2
                    continue
                fi
            fi

            # Each site's mutant; a recovery's with its crashes checked too.
            while IFS=$tab read -r site kind count where <&3; do
                [ -n "$site" ] || continue
                case ",${SITES:-$site}," in *",$site,"*) ;; *) continue ;; esac
                sigkill "$site"
                d=$(check_dir) || exit 1
                export GPM_MUTATE="$site"
                [ "$where" != recovery ] || export NESTED=3
                extra="${xp}site_kind=$kind,site_count=$count${where:+,site_where=$where},kills=$nk,kill_units=${ku:-none},sigkill_recovered=$SK_RECOVERED,sigkill_flagged=$SK_FLAGGED,sigkill_mid_work=$SK_MID"
                # shellcheck disable=SC2086
                run_check "$out" "$d" "$IMAGES" "$extra" "$w" "$m" "$SCALE" $args
                start=""
                # Not flagged from fresh files: checked again over old ones, where
                # what a reset persists shows (the row after wins).
                if [ "$RERUN" -eq 1 ] && [ -z "$CHECK_WHY" ] && [ "$CHECK_RC" -eq 0 ] &&
                    [ "$(param "$CHECK_PARAMS" complete)" != no ]; then
                    rm -rf "$d" "$CHECK_LOG"
                    d=$(check_dir) || exit 1
                    CHECKER_FLAGS=--rerun
                    # shellcheck disable=SC2086
                    run_check "$out" "$d" "$IMAGES" "$extra" "$w" "$m" "$SCALE" $args
                    CHECKER_FLAGS=
                    start=" over old files"
                fi
                unset GPM_MUTATE NESTED
                p=$CHECK_PARAMS
                # A recovery's site is removed in the crashed recoveries:
                # their counts (nested_) say what it held back.
                pre= of=
                [ "$where" != recovery ] || pre=nested_ of=" (in the crashed recoveries)"
                pts=$(param "$p" trace_points)
                im=$(param "$p" images) ni=$(param "$p" nested_images)
                failed=$(not_recovered "$p")
                if [ -n "$CHECK_WHY" ]; then
                    checker="ERROR: the check could not run: $CHECK_WHY"
                    bad=1
                elif [ "$(param "$p" complete)" = no ]; then
                    checker="incomplete trace: no verdict"
                elif [ "$CHECK_RC" -ne 0 ] && [ "$failed" -gt 0 ] && [ "$where" = recovery ]; then
                    checker="flagged$start: $failed of $((${im:-0} + ${ni:-0})) images failed (${ni:-0} of them of crashed recoveries)"
                elif [ "$CHECK_RC" -ne 0 ] && [ "$failed" -gt 0 ]; then
                    checker="flagged$start: $failed of $(param "$p" images) images failed ($(param "$p" wrong) wrong output, $(param "$p" crashed) recovery crashed, $(param "$p" refused) refused)"
                elif [ "$(param "$p" "${pre}removed")" != 0 ] && [ "$(param "$p" "${pre}held_stores")" = 0 ]; then
                    checker="redundant: its $(param "$p" "${pre}removed") removed persist points$of hold no store back${start:+ (from fresh files or$start)}"
                elif [ "$where" = recovery ]; then
                    checker="not flagged ($(param "$p" nested_removed) persist points removed in the crashed recoveries, $(param "$p" nested_held_stores) stores held back; $(param "$p" nested_held_images) images there, all recovered${start:+, from fresh files or$start})"
                else
                    checker="not flagged ($(param "$p" held_stores) stores held back over $(param "$p" held_points) crash points; $(param "$p" held_images) images there, all recovered${start:+, from fresh files or$start})"
                fi
                # A flush is no persist point: only the others change the
                # count, and only the work's are in it.
                took="; persist points $base -> ${pts:-?}"
                [ "$kind" = flush ] && took=""
                [ "$where" != recovery ] || took="; recovery only"
                # The traced run's points left at the site: none where the
                # mutant took (a recovery-only site has none in that run).
                left=$(param "$p" mutant_left)
                if [ -z "$CHECK_WHY" ] && [ "${left:-0}" != 0 ]; then
                    took="$took (NOT removed: $left persist points left at the site)"
                    bad=1
                fi
                echo "$name: $lbl ($m) without $site ($kind x$count$took): checker $checker; SIGKILL: $SK_FLAGGED of $nk trials flagged"
                # A mutant's failing images are its point, not a problem: its
                # folder goes unless the check itself could not run.
                if [ -z "$CHECK_WHY" ]; then
                    rm -rf "$d" "$CHECK_LOG"
                else
                    echo "$name: its folder and log stay in $d and $CHECK_LOG" >&2
                fi
            done 3<"$tmp/sites"
        done
    done 4<"$tmp/cases"
done
some_ran "$ran" "has a mode to mutate"
exit $bad
