/* The shared option helpers: checked values, and the table of flags that
 * parses a command line into them, prints its usage, and turns getopt_long's
 * failures into one line that names the flag. */
#include <limits.h>

#include "gpm/args.h"
#include "gpm/check.h"
#include "gpm/gpm.h"

static void integers_with_suffixes_and_ranges(void)
{
    long long x;
    int i;
    CHECK_EQ_INT(gpm_arg_ll("--n", "4M", 1, 1ll << 40, &x), 0);
    CHECK_EQ_INT(x, 4ll << 20);
    CHECK_EQ_INT(gpm_arg_ll("--n", "0x10", 1, 100, &x), 0);
    CHECK_EQ_INT(x, 16);
    CHECK_EQ_INT(gpm_arg_ll("--n", "0", 1, 100, &x), -1);
    CHECK_MSG(gpm_last_error(), "--n: 0 is out of range: pass a value from 1 to 100");
    CHECK_EQ_INT(gpm_arg_ll("--n", "9999999999999999G", 1, LLONG_MAX, &x), -1);
    CHECK_MSG(gpm_last_error(), "out of range");
    CHECK_EQ_INT(gpm_arg_ll("--n", "99999999999999999999", 1, LLONG_MAX, &x), -1);
    CHECK_MSG(gpm_last_error(), "out of range");
    CHECK_EQ_INT(gpm_arg_ll("--n", "-1K", 0, 100, &x), -1);
    CHECK_MSG(gpm_last_error(), "out of range");
    CHECK_EQ_INT(gpm_arg_ll("--n", "12x", 0, 100, &x), -1);
    CHECK_MSG(gpm_last_error(), "--n: expects an integer, got '12x'");
    CHECK_EQ_INT(gpm_arg_ll("--n", "", 0, 100, &x), -1);
    CHECK_MSG(gpm_last_error(), "--n: needs a value");
    CHECK_EQ_INT(gpm_arg_int("--threads", "33", 32, 1024, &i), 0);
    CHECK_EQ_INT(i, 33);
}

static void doubles(void)
{
    double d;
    CHECK_EQ_INT(gpm_arg_double("--lr", "0.05", 0, 1, &d), 0);
    CHECK(d == 0.05);
    CHECK_EQ_INT(gpm_arg_double("--lr", "nan", 0, 1, &d), -1);
    CHECK_MSG(gpm_last_error(), "--lr: expects a number, got 'nan'");
    CHECK_EQ_INT(gpm_arg_double("--lr", "2", 0, 1, &d), -1);
    CHECK_MSG(gpm_last_error(), "--lr: 2 is out of range");
}

static void choices(void)
{
    static const char *const kinds[] = {"hcl", "conv", NULL};
    int k;
    CHECK_EQ_INT(gpm_arg_choice("--log", "conv", kinds, &k), 0);
    CHECK_EQ_INT(k, 1);
    CHECK_EQ_INT(gpm_arg_choice("--log", "redo", kinds, &k), -1);
    CHECK_MSG(gpm_last_error(), "--log: unknown value 'redo': use hcl|conv");
}

/* Where a table of every kind puts its values. */
struct vals {
    int set, i, choice, ints[4], nints, kinds[4], nkinds, first;
    long long ll, window[2];
    double d;
    const char *str, *word;
    char custom[16];
    int reps_after_keep; /* from gpm_args_seen */
};

static int custom(const char *flag, const char *val, void *to)
{
    if (strlen(val) >= 16)
        return gpm_set_error("%s: '%s' is too long", flag, val);
    strcpy(to, val);
    return 0;
}

/* gpm_args_parse of ARGV (NULL-terminated) over a table of every kind,
 * whose last row is of kind LAST; the usage, if printed, into USAGE. */
static int parse(char **argv, struct vals *v, enum gpm_flag_kind last, char *usage, size_t len)
{
    static const char *const words[] = {"hcl", "conv", NULL};
    struct gpm_flag flags[] = {
        GPM_FLAG_SET("--keep", &v->set, "keep it"),
        GPM_FLAG_STR("--file", &v->str, NULL, "NAME", "the file"),
        GPM_FLAG_INT("--reps", &v->i, 1, 100, "5", "N", "repetitions, 1..100"),
        GPM_FLAG_LL("--size", &v->ll, 8, 1ll << 40, "1K", "BYTES", "bytes, K/M/G allowed"),
        GPM_FLAG_DOUBLE("--budget", &v->d, 0, 60, NULL, "S", "seconds"),
        GPM_FLAG_CHOICE("--log", &v->choice, words, NULL, NULL, "log kind"),
        GPM_FLAG_WORD("--kind", &v->word, words, "hcl", "K", "the same, as a word"),
        GPM_FLAG_INTS("--threads", v->ints, &v->nints, 4, 1, 64, NULL, "LIST",
                      "threads, a comma list of at most four counts from 1 to 64, each run in "
                      "turn and recorded in a row of its own"),
        GPM_FLAG_WORDS("--kinds", v->kinds, &v->nkinds, 4, words, NULL, NULL, "a list of them"),
        GPM_FLAG_RANGE("--window", v->window, 0, 100, "1:2", "MIN:MAX", "a window"),
        GPM_FLAG_CUSTOM("--custom", custom, v->custom, NULL, "a-value-whose-name-is-very-long",
                        "checked by a function"),
        GPM_FLAGS_END};
    FILE *out = tmpfile(), *saved = stdout;
    int argc = 0, rc;
    struct gpm_flag *end = &flags[sizeof flags / sizeof *flags - 1];
    *end = (struct gpm_flag)GPM_FLAGS_REST(&v->first, 1, 3, "ARG", "pass one to three");
    end->kind = last;
    while (argv[argc])
        argc++;
    stdout = out;
    rc = gpm_args_parse("prog", "[options]", flags, argc, argv);
    stdout = saved;
    rewind(out);
    usage[fread(usage, 1, len - 1, out)] = '\0';
    fclose(out);
    v->reps_after_keep = gpm_args_seen(flags, "--reps") > gpm_args_seen(flags, "--keep");
    return rc;
}

static void table_fills_every_kind_and_defaults_stand(void)
{
    char *all[] = {"prog", "--keep", "--file=f", "--reps", "7", "--size", "4K", "--budget",
                   "2.5", "--log", "conv", "--kind", "conv", "--threads", "1,2,64", "--kinds",
                   "conv,hcl,conv", "--window", "3:9", "--custom", "x", "--re", "8", NULL};
    char *none[] = {"prog", NULL}, usage[2048];
    struct vals v = {0};
    CHECK_EQ_INT(parse(all, &v, GPM_KIND_END, usage, sizeof usage), 0);
    CHECK(v.set == 1 && !strcmp(v.str, "f") && v.i == 8 && v.ll == 4096 && v.d == 2.5);
    CHECK(v.choice == 1 && !strcmp(v.word, "conv") && !strcmp(v.custom, "x"));
    CHECK(v.nints == 3 && v.ints[0] == 1 && v.ints[2] == 64);
    CHECK(v.nkinds == 3 && v.kinds[0] == 1 && v.kinds[1] == 0 && v.kinds[2] == 1);
    CHECK(v.window[0] == 3 && v.window[1] == 9 && v.reps_after_keep);
    memset(&v, 0, sizeof v);
    CHECK_EQ_INT(parse(none, &v, GPM_KIND_END, usage, sizeof usage), 0);
    CHECK(v.i == 5 && v.ll == 1024 && !strcmp(v.word, "hcl") && v.window[1] == 2 && !v.str);
}

/* Each ARGV is refused with a message holding its WANT. */
static void bad_flags_and_values_name_the_flag(void)
{
    static const struct {
        char *argv[4];
        const char *want;
    } cases[] = {
        {{"prog", "--fast"}, "unknown flag --fast: see prog --help"},
        {{"prog", "-x"}, "unknown flag -x"},
        {{"prog", "--k"}, "unknown flag --k"}, /* --keep or --kind? */
        {{"prog", "--reps"}, "--reps: needs a value: see prog --help"},
        {{"prog", "--keep=yes"}, "--keep: takes no value"},
        {{"prog", "--help=yes"}, "--help: takes no value"},
        {{"prog", "--reps=3", "tiny"}, "unexpected argument 'tiny'"},
        {{"prog", "--reps", "0"}, "--reps: 0 is out of range"},
        {{"prog", "--log", "redo"}, "--log: unknown value 'redo': use hcl|conv"},
        {{"prog", "--threads", "1,,2"}, "--threads: '1,,2' is not a comma list: pass e.g. 1,64"},
        {{"prog", "--threads", "1,2,"}, "--threads: '1,2,' ends with a comma"},
        {{"prog", "--threads", "1,2,3,4,5"}, "--threads: more than 4 values in '1,2,3,4,5'"},
        {{"prog", "--threads", "1,0"}, "--threads: 0 is out of range"},
        {{"prog", "--kinds", "hcl,redo"}, "--kinds: unknown value 'redo': use hcl|conv"},
        {{"prog", "--kinds="}, "--kinds: needs a value: pass a comma list, e.g. hcl,conv"},
        {{"prog", "--window", "5"}, "--window: expects MIN:MAX, got '5': pass e.g. 1:2"},
        {{"prog", "--window", "9:5"}, "--window: MAX 5 is below MIN 9"},
        {{"prog", "--window", "1:101"}, "--window: 101 is out of range"},
        {{"prog", "--custom", "0123456789abcdef"}, "--custom: '0123456789abcdef' is too"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct vals v = {0};
        char usage[2048], *argv[4];
        memcpy(argv, cases[k].argv, sizeof argv);
        CHECK_EQ_INT(parse(argv, &v, GPM_KIND_END, usage, sizeof usage), -1);
        CHECK_MSG(gpm_last_error(), cases[k].want);
    }
}

static void positional_arguments_where_the_table_takes_them(void)
{
    char *among[] = {"prog", "a", "--reps", "3", "b", NULL};
    char *stop[] = {"prog", "--reps", "3", "run", "--reps", "x", NULL};
    char *few[] = {"prog", "--reps", "3", NULL}, *many[] = {"prog", "a", "b", "c", "d", NULL};
    struct vals v = {0};
    char usage[2048];
    CHECK_EQ_INT(parse(among, &v, GPM_KIND_REST, usage, sizeof usage), 0);
    CHECK(v.i == 3 && v.first == 3 && !strcmp(among[3], "a") && !strcmp(among[4], "b"));
    CHECK_EQ_INT(parse(stop, &v, GPM_KIND_STOP, usage, sizeof usage), 0);
    CHECK(v.first == 3 && !strcmp(stop[v.first + 1], "--reps"));
    CHECK_EQ_INT(parse(few, &v, GPM_KIND_REST, usage, sizeof usage), -1);
    CHECK_MSG(gpm_last_error(), "no ARG given: pass one to three (see prog --help)");
    CHECK_EQ_INT(parse(many, &v, GPM_KIND_REST, usage, sizeof usage), -1);
    CHECK_MSG(gpm_last_error(), "unexpected argument 'd': prog takes at most 3 ARG");
}

/* --help: the usage on stdout, every line within 80 columns, a label
 * wider than the column on a line of its own. */
static void help_prints_the_usage_made_from_the_rows(void)
{
    char *argv[] = {"prog", "--reps", "3", "--help", "--bogus", NULL};
    struct vals v = {0};
    char usage[2048], *line;
    CHECK_EQ_INT(parse(argv, &v, GPM_KIND_END, usage, sizeof usage), 1);
    CHECK_MSG(usage, "usage: prog [options]\n  --keep            keep it\n");
    CHECK_MSG(usage, "  --reps N          repetitions, 1..100 (default 5)\n");
    CHECK_MSG(usage, "  --log hcl|conv    log kind\n");
    CHECK_MSG(usage, "from 1 to 64,\n                    each run");
    CHECK_MSG(usage, "  --custom a-value-whose-name-is-very-long\n                    checked by");
    CHECK_MSG(usage, "  --help            this text\n");
    for (line = strtok(usage, "\n"); line; line = strtok(NULL, "\n"))
        CHECKF(strlen(line) <= 80, "a line of %zu characters: %s", strlen(line), line);
}

int main(void)
{
    RUN(integers_with_suffixes_and_ranges);
    RUN(doubles);
    RUN(choices);
    RUN(table_fills_every_kind_and_defaults_stand);
    RUN(bad_flags_and_values_name_the_flag);
    RUN(positional_arguments_where_the_table_takes_them);
    RUN(help_prints_the_usage_made_from_the_rows);
    CHECK_EXIT();
}
