/* The shared option helpers: checked values, and getopt_long's failures
 * turned into one line that names the flag. */
#include <getopt.h>
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

static void lists_and_choices(void)
{
    static const char *const kinds[] = {"hcl", "conv", NULL};
    int v[4], n, k;
    CHECK_EQ_INT(gpm_arg_int_list("--threads", "32,128,2048", 1, 1 << 20, v, 4, &n), 0);
    CHECK(n == 3 && v[0] == 32 && v[1] == 128 && v[2] == 2048);
    CHECK_EQ_INT(gpm_arg_int_list("--threads", "32,,64", 1, 100, v, 4, &n), -1);
    CHECK_MSG(gpm_last_error(), "is not a comma list");
    CHECK_EQ_INT(gpm_arg_int_list("--threads", "32,", 1, 100, v, 4, &n), -1);
    CHECK_MSG(gpm_last_error(), "ends with a comma");
    CHECK_EQ_INT(gpm_arg_int_list("--threads", "1,2,3,4,5", 1, 100, v, 4, &n), -1);
    CHECK_MSG(gpm_last_error(), "more than 4 values");
    CHECK_EQ_INT(gpm_arg_int_list("--threads", "1,0", 1, 100, v, 4, &n), -1);
    CHECK_MSG(gpm_last_error(), "--threads: 0 is out of range");
    CHECK_EQ_INT(gpm_arg_choice("--log", "conv", kinds, &k), 0);
    CHECK_EQ_INT(k, 1);
    CHECK_EQ_INT(gpm_arg_choice("--log", "redo", kinds, &k), -1);
    CHECK_MSG(gpm_last_error(), "--log: unknown value 'redo': use hcl|conv");
}

/* Runs a getopt_long loop like every program's over ARGV; returns the
 * first helper verdict: 0 parsed, -1 with the message set. */
static int parse(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"reps", required_argument, NULL, 'r'}, {0, 0, 0, 0}};
    int c, reps;
    optind = 0; /* glibc: reinitialise for a new argv */
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == 'r') {
            if (gpm_arg_int("--reps", optarg, 1, 100, &reps) != 0)
                return -1;
        } else if (c != 'h')
            return gpm_args_bad_flag("prog", c, argv);
    }
    return gpm_args_no_positional("prog", argc, argv);
}

static void getopt_failures_name_the_flag(void)
{
    char *unknown[] = {"prog", "--reps", "2", "--fast", NULL};
    char *missing[] = {"prog", "--reps", NULL};
    char *valued[] = {"prog", "--help=yes", NULL};
    char *shortopt[] = {"prog", "-x", NULL};
    char *positional[] = {"prog", "--reps=3", "tiny", NULL};
    char *ok[] = {"prog", "--reps", "3", "--help", NULL};
    CHECK_EQ_INT(parse(4, unknown), -1);
    CHECK_MSG(gpm_last_error(), "unknown flag --fast: see prog --help");
    CHECK_EQ_INT(parse(2, missing), -1);
    CHECK_MSG(gpm_last_error(), "--reps: needs a value: see prog --help");
    CHECK_EQ_INT(parse(2, valued), -1);
    CHECK_MSG(gpm_last_error(), "--help: takes no value");
    CHECK_EQ_INT(parse(2, shortopt), -1);
    CHECK_MSG(gpm_last_error(), "unknown flag -x");
    CHECK_EQ_INT(parse(3, positional), -1);
    CHECK_MSG(gpm_last_error(), "unexpected argument 'tiny'");
    CHECK_EQ_INT(parse(4, ok), 0);
}

int main(void)
{
    RUN(integers_with_suffixes_and_ranges);
    RUN(doubles);
    RUN(lists_and_choices);
    RUN(getopt_failures_name_the_flag);
    CHECK_EXIT();
}
