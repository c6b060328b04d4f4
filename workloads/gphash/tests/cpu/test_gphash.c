/* GPHash on the CPU: the layout's keys, candidates and one-key state
 * machine (a batch redone after a crash ends as it first would), and the
 * CPU counterpart end to end on every YCSB workload and on a YCSB trace,
 * killed with SIGKILL mid-run and recovered, a claimed slot cleared, a
 * damaged value and missing keys caught and measured. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpm/check.h"
#include "../../gphash.h"
#include "tests/wl_test.h"

static char dir[4096], rows[4200], errf[4200];

static int run_main(char **argv, int argc)
{
    return wl_test_run(&WORKLOAD, argv, argc, errf);
}

static void keys_are_ycsb_record_names(void)
{
    uint64_t w[4], k;
    char name[32];
    gph_key_words(wl_ycsb_key(0), 4, w);
    CHECK(wl_ycsb_key_name(wl_ycsb_key(0), name, sizeof name) == 0);
    CHECK(memcmp(w, name, 32) == 0); /* little-endian words of the name */
    CHECK(gph_key_number(w, 4, &k) == 0 && k == wl_ycsb_key(0));
    gph_key_words(7, 1, w);
    CHECK(w[0] == 7 && gph_key_number(w, 1, &k) == 0 && k == 7);
    w[0] = 0x7265737578; /* "xuser" */
    CHECK(gph_key_number(w, 4, &k) == -1);
}

static void fingerprints_avoid_the_two_states(void)
{
    for (uint64_t k = 0; k < 100000; k++)
        CHECK(gph_fingerprint(&k, 1) > GPH_INSERT);
}

static void candidates_fill_a_warp_and_skip_repeats(void)
{
    struct gph_geom g = {64, 8, 1, 8};
    CHECK_EQ_INT(gph_candidate(&g, 5, 9, 0), 5);
    CHECK_EQ_INT(gph_candidate(&g, 5, 9, 1), 9);
    CHECK_EQ_INT(gph_candidate(&g, 5, 9, 2), 64 + 2);
    CHECK_EQ_INT(gph_candidate(&g, 5, 9, 3), 64 + 4);
    CHECK(gph_candidate(&g, 5, 5, 1) == GPH_NO_BUCKET);
    CHECK(gph_candidate(&g, 4, 5, 3) == GPH_NO_BUCKET); /* 4 and 5 share 64 + 2 */
    CHECK_EQ_INT(gph_buckets(&g), 96);
    CHECK(gph_cell_at(&g, 2 * gph_slots(&g) - 1) + 8 <= gph_file_bytes(&g));
}

/* A record: state, ref, the key, then the two cells, the first 16-byte
 * aligned; what an insert writes before the fingerprint (ref, key, cell
 * 2S) is one run of bytes right after the state, and no two slots'
 * records overlap. */
static void records_hold_state_ref_key_and_cells(void)
{
    struct gph_geom g = {64, 8, 4, 128};
    uint64_t s = 7;
    CHECK_EQ_INT(gph_head_bytes(&g), 48);
    CHECK_EQ_INT(gph_rec_bytes(&g), 304);
    CHECK_EQ_INT(gph_state_at(&g, 0), GPH_HEADER);
    CHECK_EQ_INT(gph_ref_at(&g, s), gph_state_at(&g, s) + 8);
    CHECK_EQ_INT(gph_key_at(&g, s), gph_state_at(&g, s) + 16);
    CHECK_EQ_INT(gph_cell_at(&g, 2 * s), gph_state_at(&g, s) + 48);
    CHECK_EQ_INT(gph_cell_at(&g, 2 * s + 1), gph_cell_at(&g, 2 * s) + 128);
    CHECK_EQ_INT(gph_state_at(&g, s + 1), gph_cell_at(&g, 2 * s + 1) + 128);
    g.kw = 1, g.vbytes = 8;
    CHECK_EQ_INT(gph_head_bytes(&g), 32);
    CHECK_EQ_INT(gph_rec_bytes(&g), 48);
    CHECK(gph_cell_at(&g, 2) % 16 == 0 && gph_cell_at(&g, 3) % 16 == 8);
}

/* The header's done word counts only this run's batches: an older run's
 * word (another epoch, or 0: none written) counts none, so its header is
 * never trusted. On the CPU the word shares the header's first line, so
 * each batch's done write writes the header back too. */
static void an_older_runs_done_word_counts_nothing(void)
{
    CHECK_EQ_INT(gph_durable_batches(gph_done_word(7, 5), 7), 5);
    CHECK_EQ_INT(gph_durable_batches(gph_done_word(6, 5), 7), 0);
    CHECK_EQ_INT(gph_durable_batches(gph_done_word(8, 5), 7), 0);
    CHECK_EQ_INT(gph_durable_batches(0, 1), 0);
    CHECK(offsetof(struct gph_header, done) + 8 <= 64);
}

static void steps_follow_ycsb(void)
{
    uint64_t cur = 0;
    CHECK_EQ_INT(gph_step(GPH_UPDATE, 5, &cur), 0);
    CHECK_EQ_INT(cur, 0); /* an update of an absent key changes nothing */
    gph_step(GPH_INSERT_OP, 6, &cur);
    CHECK_EQ_INT(gph_step(GPH_READ, 7, &cur), 6);
    CHECK_EQ_INT(gph_step(GPH_RMW, 8, &cur), 6);
    CHECK_EQ_INT(cur, 8);
    gph_step(GPH_INSERT_OP, 9, &cur); /* an insert of a present key updates it */
    CHECK_EQ_INT(cur, 9);
    gph_step(GPH_DELETE, 10, &cur);
    CHECK_EQ_INT(cur, 0);
    CHECK(gph_answers(GPH_READ) && gph_answers(GPH_RMW) && !gph_answers(GPH_UPDATE));
}

/* A crash may leave one key's run applied or not; redoing the batch from
 * either state must end the same. Every sequence of up to 6 operations
 * from either start. */
static void redoing_a_run_ends_as_doing_it_once(void)
{
    for (uint32_t code = 0; code < 15625; code++) { /* 5^6 */
        for (int len = 1; len <= 6; len++) {
            for (uint64_t start = 0; start <= 1; start++) {
                uint64_t once = start, twice;
                uint32_t c = code;
                unsigned ops[6];
                for (int i = 0; i < len; i++, c /= 5)
                    ops[i] = c % 5;
                for (int i = 0; i < len; i++)
                    gph_step(ops[i], 10 + (uint64_t)i, &once);
                twice = once;
                for (int i = 0; i < len; i++)
                    gph_step(ops[i], 10 + (uint64_t)i, &twice);
                CHECKF(once == twice, "sequence %u of %d from %llu", code, len,
                       (unsigned long long)start);
            }
        }
    }
}

/* The composed steps (the kernels' scan) give what stepping one at a time
 * gives: every prefix of every sequence of up to 6 operations, from an
 * absent key and a present one, composed left to right and in pairs. */
static void composed_steps_are_the_steps(void)
{
    for (uint32_t code = 0; code < 15625; code++) { /* 5^6 */
        for (uint64_t start = 0; start <= 7; start += 7) {
            uint64_t cur = start;
            struct gph_fn all = {0, GPH_KEEP}, pair = {0, GPH_KEEP}, pairs = {0, GPH_KEEP};
            uint32_t c = code;
            for (int i = 0; i < 6; i++, c /= 5) {
                struct gph_fn f = gph_fn_of(c % 5, 10 + (uint64_t)i);
                uint64_t before = gph_step(c % 5, 10 + (uint64_t)i, &cur);
                CHECKF(gph_apply(all, start) == before, "sequence %u, op %d from %llu", code, i,
                       (unsigned long long)start);
                all = gph_then(all, f);
                pair = i % 2 ? gph_then(pair, f) : f;
                if (i % 2)
                    pairs = gph_then(pairs, pair); /* ((f0 f1) (f2 f3)) (f4 f5) */
                CHECKF(gph_apply(all, start) == cur, "sequence %u after op %d from %llu", code,
                       i, (unsigned long long)start);
            }
            CHECKF(gph_apply(pairs, start) == cur, "sequence %u in pairs from %llu", code,
                   (unsigned long long)start);
        }
    }
}

static void every_workload_verifies(void)
{
    static const char *const mixes[] = {"load", "a", "b", "c", "d", "f", "search",
                                        "search-miss", "insert", "update", "delete"};
    unlink(rows);
    for (size_t i = 0; i < sizeof mixes / sizeof *mixes; i++) {
        char *argv[] = {"gphash", "--mode", "cpu", "--workload", (char *)mixes[i],
                        "--records", "20000", "--ops", "30000", "--batch", "1024",
                        "--pm-dir", dir, "--reps", "2", "--out", rows};
        CHECKF(run_main(argv, ARGC(argv)) == 0, "workload %s", mixes[i]);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tgphash\trun\tcpu\tcustom\t"), 11);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\tworkload="), 11);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",batch_p99_us="), 11);
}

/* 8-byte keys and values, 2-slot buckets on a table sized to fill: the
 * inserts race for few free slots. */
static void small_keys_and_a_full_table(void)
{
    char *ok[] = {"gphash", "--mode", "cpu", "--workload", "load", "--records", "3000",
                  "--key-bytes", "8", "--value-bytes", "8", "--slots", "2", "--buckets",
                  "2048", "--batch", "512", "--pm-dir", dir, "--reps", "1"};
    char *full[] = {"gphash", "--mode", "cpu", "--workload", "load", "--records", "8000",
                    "--slots", "2", "--buckets", "1024", "--pm-dir", dir, "--reps", "1"};
    char line[512];
    CHECK_EQ_INT(run_main(ok, ARGC(ok)), 0);
    CHECK_EQ_INT(run_main(full, ARGC(full)), 1);
    wl_test_line(errf, 1, line, sizeof line);
    CHECK_MSG(line, "--buckets: the table is full");
}

static void bad_flags_are_one_line(void)
{
    char *kb[] = {"gphash", "--mode", "cpu", "--key-bytes", "16", "--pm-dir", dir};
    char *wk[] = {"gphash", "--mode", "cpu", "--workload", "e", "--pm-dir", dir};
    char *sl[] = {"gphash", "--mode", "cpu", "--slots", "3", "--pm-dir", dir};
    char *bk[] = {"gphash", "--mode", "cpu", "--buckets", "1000", "--pm-dir", dir};
    char *lg[] = {"gphash", "--mode", "cpu", "--log", "conv", "--pm-dir", dir};
    char *cl[] = {"gphash", "--mode", "cpu", "--cache-loading", "lazy", "--pm-dir", dir};
    char *mi[] = {"gphash", "--mode", "cpu", "--mirror", "1", "--pm-dir", dir};
    char line[512];
    CHECK_EQ_INT(run_main(kb, ARGC(kb)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "--key-bytes 16: pass 8 or 32");
    CHECK_EQ_INT(run_main(wk, ARGC(wk)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "--workload: no YCSB workload 'e'");
    CHECK_EQ_INT(run_main(sl, ARGC(sl)), 2);
    CHECK_EQ_INT(run_main(bk, ARGC(bk)), 2);
    /* Log-free where it can persist as it goes: no log to choose. */
    CHECK_EQ_INT(run_main(lg, ARGC(lg)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "--log: mode cpu runs gphash without transactions (it keeps no log): "
                    "drop --log");
    CHECK_EQ_INT(run_main(cl, ARGC(cl)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "--cache-loading: unknown value 'lazy': use concurrent|blocking");
    /* The CPU counterpart reads the mapping itself: no mirror. */
    CHECK_EQ_INT(run_main(mi, ARGC(mi)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "--mirror: mode cpu runs on the CPU, on the mapping itself: drop "
                    "--mirror");
}

/* A run fed YCSB's own trace (its basic binding's verbose lines): reads
 * and updates of loaded keys, inserts of new ones, a delete, a read of a key
 * never inserted; every answer checked. A SCAN is refused naming the file. */
static void a_ycsb_trace_replaces_the_run(void)
{
    char path[4200], arg[4300], line[512];
    FILE *f;
    char *argv[] = {"gphash", "--mode", "cpu", "--records", "100", "--ycsb-trace", arg,
                    "--pm-dir", dir, "--reps", "2", "--out", rows};
    snprintf(path, sizeof path, "%s/trace.txt", dir);
    snprintf(arg, sizeof arg, "%s", path);
    f = fopen(path, "w");
    CHECK(f);
    fprintf(f, "Loading workload...\n");
    for (uint64_t k = 0; k < 100; k++) {
        uint64_t key = wl_ycsb_key(k);
        fprintf(f, "READ usertable user%llu [ <all fields>]\n", (unsigned long long)key);
        if (k % 3 == 0)
            fprintf(f, "UPDATE usertable user%llu [ field0=x ]\n", (unsigned long long)key);
        if (k % 10 == 0)
            fprintf(f, "DELETE usertable user%llu\n", (unsigned long long)key);
        fprintf(f, "INSERT usertable user%llu [ field0=y ]\n",
                (unsigned long long)wl_ycsb_key(100 + k));
        fprintf(f, "READ usertable user%llu [ <all fields>]\n", (unsigned long long)key);
    }
    fprintf(f, "READ usertable user42 [ <all fields>]\n[OVERALL], RunTime(ms), 12\n");
    fclose(f);
    unlink(rows);
    CHECK_EQ_INT(run_main(argv, ARGC(argv)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",run_ops=345,load_ops=100,"), 1);
    f = fopen(path, "a");
    CHECK(f);
    fprintf(f, "SCAN usertable user1 10 [ <all fields>]\n");
    fclose(f);
    CHECK_EQ_INT(run_main(argv, ARGC(argv)), 2);
    wl_test_line(errf, 0, line, sizeof line);
    CHECK_MSG(line, "SCAN (YCSB's workload E) is not supported");
}

/* A real SIGKILL after K operations are durable (never on a clock), then
 * --recover: the batches done are reused, the cut one redone. */
static void crash_then_recover(void)
{
    char at[16];
    char *crash[] = {"gphash", "--mode", "cpu", "--workload", "a", "--records", "20000",
                     "--ops", "40000", "--batch", "1024", "--pm-dir", dir, "--reps", "1",
                     "--kill", at, "--cpu-threads", "2"};
    char *rec[] = {"gphash", "--mode", "cpu", "--workload", "a", "--records", "20000",
                   "--ops", "40000", "--batch", "1024", "--pm-dir", dir, "--recover",
                   "--out", rows, "--cpu-threads", "2"};
    unlink(rows);
    for (int trial = 0; trial < 3; trial++) {
        snprintf(at, sizeof at, "progress:%d", 500 + 15000 * trial);
        CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
        CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    }
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tgphash\trecover\tcpu\tcustom\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tok\t"), 3);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",trial=mid-work,"), 2); /* durable progress >0 */
    CHECK_EQ_INT(wl_test_count_lines(rows, ",resumed_from_batch="), 3);
}

/* A crash between an insert's CAS and its fingerprint leaves a slot
 * INSERT: recovery clears it. A value word damaged on PM is caught by
 * verification, naming the slot. */
static void recovery_clears_claims_and_damage_is_caught(void)
{
    char *crash[] = {"gphash", "--mode", "cpu", "--workload", "insert", "--records", "4000",
                     "--ops", "8000", "--batch", "512", "--pm-dir", dir, "--reps", "1",
                     "--kill", "progress:3000", "--cpu-threads", "1"};
    char *rec[] = {"gphash", "--mode", "cpu", "--workload", "insert", "--records", "4000",
                   "--ops", "8000", "--batch", "512", "--pm-dir", dir, "--recover", "--out",
                   rows, "--cpu-threads", "1", "--keep"};
    char path[4200], line[512];
    struct gph_geom g = {0, 8, 4, 128};
    struct gph_header h;
    uint64_t v, s = 0;
    FILE *f;
    unlink(rows);
    CHECK_EQ_INT(run_main(crash, ARGC(crash)), 128 + SIGKILL);
    CHECK(wl_test_path(dir, "gphash-custom-*.table", path, sizeof path) == 0);
    f = fopen(path, "r+");
    CHECK(f && fread(&h, sizeof h, 1, f) == 1);
    g.top = h.top;
    /* Claim the first free slot as a crashed insert would have. */
    for (s = 0; s < gph_slots(&g); s++) {
        CHECK(fseek(f, (long)gph_state_at(&g, s), SEEK_SET) == 0 && fread(&v, 8, 1, f) == 1);
        if (v == GPH_EMPTY)
            break;
    }
    v = GPH_INSERT;
    CHECK(fseek(f, (long)gph_state_at(&g, s), SEEK_SET) == 0 && fwrite(&v, 8, 1, f) == 1);
    fclose(f);
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 0);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",insert_slots_cleared=1,"), 1);
    /* Now damage a value: the last word of a valid slot's cell. */
    f = fopen(path, "r+");
    CHECK(f);
    for (s = 0; s < gph_slots(&g); s++) {
        CHECK(fseek(f, (long)gph_state_at(&g, s), SEEK_SET) == 0 && fread(&v, 8, 1, f) == 1);
        if (v > GPH_INSERT)
            break;
    }
    CHECK(fseek(f, (long)gph_ref_at(&g, s), SEEK_SET) == 0 && fread(&v, 8, 1, f) == 1);
    CHECK(fseek(f, (long)(gph_cell_at(&g, v) + 120), SEEK_SET) == 0);
    v = 12345;
    CHECK(fwrite(&v, 8, 1, f) == 1);
    /* And two slots emptied: their keys go missing. */
    for (int k = 0; k < 2; k++) {
        for (s = s + 1; s < gph_slots(&g); s++) {
            CHECK(fseek(f, (long)gph_state_at(&g, s), SEEK_SET) == 0 &&
                  fread(&v, 8, 1, f) == 1);
            if (v > GPH_INSERT)
                break;
        }
        v = GPH_EMPTY;
        CHECK(fseek(f, (long)gph_state_at(&g, s), SEEK_SET) == 0 &&
              fwrite(&v, 8, 1, f) == 1);
    }
    fclose(f);
    /* A recovery of a finished run only verifies; its row measures the
     * keys: 3 of the 12000 (4000 loaded, 8000 inserted) wrong. */
    CHECK_EQ_INT(run_main(rec, ARGC(rec)), 1);
    snprintf(line, sizeof line, "%s", "");
    CHECK(wl_test_count_lines(errf, "not all that value's") == 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, "\tfail\t"), 1);
    CHECK_EQ_INT(wl_test_count_lines(rows, ",wrong_units=3/12000,units=keys"), 1);
}

int main(void)
{
    wl_test_scratch("gphash-cpu", dir, rows, errf);
    RUN(keys_are_ycsb_record_names);
    RUN(fingerprints_avoid_the_two_states);
    RUN(records_hold_state_ref_key_and_cells);
    RUN(candidates_fill_a_warp_and_skip_repeats);
    RUN(an_older_runs_done_word_counts_nothing);
    RUN(steps_follow_ycsb);
    RUN(redoing_a_run_ends_as_doing_it_once);
    RUN(composed_steps_are_the_steps);
    RUN(every_workload_verifies);
    RUN(small_keys_and_a_full_table);
    RUN(bad_flags_are_one_line);
    RUN(a_ycsb_trace_replaces_the_run);
    RUN(crash_then_recover);
    RUN(recovery_clears_claims_and_damage_is_caught);
    wl_test_scratch_remove(dir);
    CHECK_EXIT();
}
