/* DDIO discovery against recorded and constructed `lspci -xxxx` dumps
 * (libpci's dump access method), the pure steps of discovery, and the
 * no-op persist brackets, and what GPM_DDIO's values do in a fresh process.
 * Never writes a PCI register. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpm/check.h"
#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

/* Fixtures live under $GPM_ROOT (set by scripts/run-tests.sh), else the
 * current directory is taken to be the repository root. */
static const char *fixture(const char *name)
{
    static char path[4][4096];
    static int next;
    const char *root = getenv("GPM_ROOT");
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/libgpm/tests/fixtures/lspci/%s",
             root && *root ? root : ".", name);
    return p;
}

#define CHECK_PORT(port, d, b, s, f)                                                    \
    CHECKF((port).domain == (d) && (port).bus == (b) && (port).dev == (s) &&             \
               (port).func == (f),                                                       \
           "port %04x:%02x:%02x.%x", (port).domain, (port).bus, (port).dev, (port).func)

static void skylake_gpu_behind_switch_is_controllable(void)
{
    gpm_ddio_port port;
    CHECKF(gpm_ddio_find_port("0000:19:00.0", fixture("skylake-sp.dump"), &port) == 0, "%s",
           gpm_last_error());
    CHECK(port.found);
    CHECKF(port.controllable, "%s", port.why);
    CHECK_PORT(port, 0, 0x16, 0, 0); /* the root port, not the switch ports under it */
    CHECK_EQ_INT(port.vendor_id, 0x8086);
    CHECK_EQ_INT(port.device_id, 0x2030);
    CHECK_MSG(port.why, "0000:16:00.0");
}

static void short_and_upper_case_bus_ids_work(void)
{
    gpm_ddio_port port;
    CHECKF(gpm_ddio_find_port("19:00.0", fixture("skylake-sp.dump"), &port) == 0, "%s",
           gpm_last_error());
    CHECK(port.controllable);
    CHECKF(gpm_ddio_find_port("00000000:3B:00.0", fixture("skylake-sp.dump"), &port) == 0,
           "%s", gpm_last_error());
    CHECK_PORT(port, 0, 0x3a, 0, 0); /* the other stack's root port */
}

static void pch_root_port_is_unrecognised_intel(void)
{
    gpm_ddio_port port;
    CHECK(gpm_ddio_find_port("0000:01:00.0", fixture("skylake-sp.dump"), &port) == 0);
    CHECK(port.found);
    CHECK(!port.controllable);
    CHECK_PORT(port, 0, 0, 0x1c, 0);
    CHECK_MSG(port.why, "8086:a190");
    CHECK_MSG(port.why, "unrecognised");
}

static void amd_root_port_found_not_controllable(void)
{
    gpm_ddio_port port;
    CHECKF(gpm_ddio_find_port("0000:01:00.0", fixture("amd-epyc.dump"), &port) == 0, "%s",
           gpm_last_error());
    CHECK(port.found);
    CHECK(!port.controllable);
    CHECK_PORT(port, 0, 0, 1, 1);
    CHECK_EQ_INT(port.vendor_id, 0x1022);
    CHECK_MSG(port.why, "0000:00:01.1 (1022:1483)");
    CHECK_MSG(port.why, "not an Intel Xeon port with perfctrlsts_0");
}

static void icelake_root_port_is_unrecognised(void)
{
    gpm_ddio_port port;
    CHECK(gpm_ddio_find_port("0000:4b:00.0", fixture("icelake-sp.dump"), &port) == 0);
    CHECK(port.found);
    CHECK(!port.controllable);
    CHECK_MSG(port.why, "8086:347a");
}

static void absent_gpu_is_a_clear_error(void)
{
    gpm_ddio_port port;
    CHECK(gpm_ddio_find_port("0000:99:00.0", fixture("skylake-sp.dump"), &port) == -1);
    CHECK_MSG(gpm_last_error(), "0000:99:00.0");
    CHECK_MSG(gpm_last_error(), "not found");
    CHECK_MSG(gpm_last_error(), "skylake-sp.dump");
    CHECK(!port.found);
}

static void no_extended_config_is_not_controllable(void)
{
    gpm_ddio_port port;
    CHECKF(gpm_ddio_find_port("0000:19:00.0", fixture("skylake-sp-no-ext.dump"), &port) == 0,
           "%s", gpm_last_error());
    CHECK(port.found);
    CHECK_EQ_INT(port.device_id, 0x2030);
    CHECK(!port.controllable);
    CHECK_MSG(port.why, "0x180");
    CHECK_MSG(port.why, "unreadable");
}

static void missing_dump_and_bad_bus_id_are_errors(void)
{
    gpm_ddio_port port;
    CHECK(gpm_ddio_find_port("0000:19:00.0", "/nonexistent/lspci.dump", &port) == -1);
    CHECK_MSG(gpm_last_error(), "/nonexistent/lspci.dump");
    CHECK(gpm_ddio_find_port("gpu0", fixture("skylake-sp.dump"), &port) == -1);
    CHECK_MSG(gpm_last_error(), "gpu0");
}

/* The dump recorded on the suite's GPU machine (no lspci there: written
 * from sysfs by capture.sh): a virtual machine whose H200 (10de:2335, bus id
 * 0000:00:06.0 as CUDA reports it) sits on root bus 00 with no bridge above
 * it, so there is no root port to control. */
static void recorded_vm_dump_is_not_controllable(void)
{
    gpm_ddio_port port;
    const char *dump = fixture("h200-vm.dump");
    CHECKF(gpm_ddio_find_port("0000:00:06.0", dump, &port) == 0, "%s", gpm_last_error());
    CHECK(!port.found);
    CHECK(!port.controllable);
    CHECK_MSG(port.why, "no PCIe bridge above GPU 0000:00:06.0");
    CHECK_MSG(port.why, "root bus 00");
    /* The GPU's presence is what made that an answer, not an error. */
    CHECK(gpm_ddio_find_port("0000:00:07.0", dump, &port) == -1);
    CHECK_MSG(gpm_last_error(), "not found");
}

static void perfctrl_bit_logic(void)
{
    static const uint32_t samples[] = {0, 0x80, 0x88, 0xffffffffu, 0x7f, 0x12345678u};
    CHECK_EQ_INT(GPM_USE_ALLOCATING_FLOW_WR, 0x80);
    CHECK_EQ_INT(gpm_ddio_perfctrl_value(0x88, 0), 0x08);
    CHECK_EQ_INT(gpm_ddio_perfctrl_value(0x08, 1), 0x88);
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        uint32_t v = samples[i], off = gpm_ddio_perfctrl_value(v, 0);
        uint32_t on = gpm_ddio_perfctrl_value(v, 1);
        CHECK((off & 0x80) == 0 && (on & 0x80) == 0x80);
        CHECK((off & ~0x80u) == (v & ~0x80u)); /* no other bit moves */
        CHECK((on & ~0x80u) == (v & ~0x80u));
        CHECK(gpm_ddio_perfctrl_value(off, 0) == off); /* idempotent */
    }
}

static void pick_root_walks_bus_ranges(void)
{
    const gpm_ddio_bridge b[] = {
        {0, 0x18, 8, 0, 0x19, 0x19},  /* switch downstream port */
        {0, 0x16, 0, 0, 0x17, 0x1a},  /* root port */
        {0, 0x17, 0, 0, 0x18, 0x1a},  /* switch upstream port */
        {0, 0x3a, 0, 0, 0x3b, 0x3b},  /* another root port */
        {1, 0x00, 1, 0, 0x01, 0x20},  /* another domain */
        {0, 0x00, 3, 0, 0x00, 0x00},  /* unconfigured bridge */
    };
    int n = (int)(sizeof b / sizeof b[0]);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 0, 0x19), 1);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 0, 0x1a), 1);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 0, 0x3b), 3);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 1, 0x19), 4);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 0, 0x00), -1);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, n, 0, 0x50), -1);
    CHECK_EQ_INT(gpm_ddio_pick_root(b, 0, 0, 0x19), -1);
}

static void classify_needs_all_three_facts(void)
{
    gpm_ddio_port p = {.found = 1, .bus = 0x16, .vendor_id = 0x8086, .device_id = 0x2031};
    gpm_ddio_classify(&p, 4, 1);
    CHECKF(p.controllable, "%s", p.why);
    gpm_ddio_classify(&p, 4, 0);
    CHECK(!p.controllable);
    CHECK_MSG(p.why, "unreadable");
    gpm_ddio_classify(&p, 6, 1);
    CHECK(!p.controllable);
    CHECK_MSG(p.why, "not a root port");
    gpm_ddio_classify(&p, -1, 1);
    CHECK(!p.controllable);
    CHECK_MSG(p.why, "no PCI Express capability");
    p.vendor_id = 0x1022;
    gpm_ddio_classify(&p, 4, 1);
    CHECK(!p.controllable);
    CHECK_MSG(p.why, "(1022:2031) is not an Intel Xeon port");
}

static void known_port_table(void)
{
    const char *name = NULL;
    for (uint16_t d = 0x2030; d <= 0x2033; d++)
        CHECK(gpm_ddio_known_port(0x8086, d, &name) && name && strstr(name, "Skylake"));
    CHECK(!gpm_ddio_known_port(0x8086, 0x2034, NULL));
    CHECK(!gpm_ddio_known_port(0x8086, 0x347a, NULL));
    CHECK(!gpm_ddio_known_port(0x1022, 0x2030, NULL));
}

static void bus_id_parsing(void)
{
    int d, b, s, f;
    CHECK(gpm_ddio_parse_bus_id("0000:17:00.0", &d, &b, &s, &f) == 0);
    CHECK(d == 0 && b == 0x17 && s == 0 && f == 0);
    CHECK(gpm_ddio_parse_bus_id("00000001:AB:1f.7", &d, &b, &s, &f) == 0);
    CHECK(d == 1 && b == 0xab && s == 0x1f && f == 7);
    CHECK(gpm_ddio_parse_bus_id("3b:00.1", &d, &b, &s, &f) == 0);
    CHECK(d == 0 && b == 0x3b && f == 1);
    CHECK(gpm_ddio_parse_bus_id("0000:17:20.0", &d, &b, &s, &f) == -1); /* device > 31 */
    CHECK(gpm_ddio_parse_bus_id("0000:17:00.0x", &d, &b, &s, &f) == -1);
    CHECK(gpm_ddio_parse_bus_id("", &d, &b, &s, &f) == -1);
    CHECK(gpm_ddio_parse_bus_id(NULL, &d, &b, &s, &f) == -1);
}

static void *bracket_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < 1000; i++) {
        if (gpm_persist_begin() != 0 || gpm_persist_begin() != 0 || gpm_persist_end() != 0 ||
            gpm_persist_end() != 0)
            return (void *)1;
    }
    return NULL;
}

/* Without GPM_DDIO=control the brackets are no-ops that still nest and
 * balance, from many threads at once. */
static void uncontrolled_brackets_nest_and_balance(void)
{
    pthread_t t[4];
    void *rv;
    int bad = 0;
    unsetenv("GPM_DDIO");
    CHECK_MSG(gpm_ddio_status(), "uncontrolled: GPM_DDIO not set to control");
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&t[i], NULL, bracket_many, NULL) == 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], &rv);
        bad |= rv != NULL;
    }
    CHECK(!bad);
    CHECK(gpm_persist_end() == -1); /* every begin was matched */
    CHECK_MSG(gpm_last_error(), "without a matching gpm_persist_begin");
    CHECK(gpm_persist_begin() == 0 && gpm_persist_end() == 0);
}

static void env_values_accepted_and_refused(void)
{
    static const char *const bad[] = {"contrl", "Control", "on", "1", "control ", "off"};
    int control = -1;
    CHECK(gpm_ddio_parse_env(NULL, &control) == 0 && control == 0);
    CHECK(gpm_ddio_parse_env("", &control) == 0 && control == 0);
    CHECK(gpm_ddio_parse_env("control", &control) == 0 && control == 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[64];
        CHECKF(gpm_ddio_parse_env(bad[i], &control) == -1, "'%s' accepted", bad[i]);
        snprintf(want, sizeof want, "GPM_DDIO=%s is not accepted", bad[i]);
        CHECK_MSG(gpm_last_error(), want);
        CHECK_MSG(gpm_last_error(), "set GPM_DDIO=control");
        CHECK_MSG(gpm_last_error(), "or unset it");
    }
}

/* What a fresh process says with GPM_DDIO=VALUE (NULL: unset), as nobody
 * when DROP_ROOT: DDIO's decision is made once per process, so each case
 * needs its own. */
typedef struct child_view {
    int begin, end, again; /* gpm_persist_begin, _end, then a second pair */
    char begin_error[400];
    char status[400];      /* gpm_ddio_status(), asked twice */
    char err[1024];        /* everything written to stderr */
} child_view;

static size_t read_all(int fd, void *buf, size_t len)
{
    size_t got = 0;
    ssize_t n;
    while (got < len && (n = read(fd, (char *)buf + got, len - got)) > 0)
        got += (size_t)n;
    return got;
}

static void child_body(const char *value, int drop_root, int out)
{
    child_view c;
    memset(&c, 0, sizeof c);
    if (value)
        setenv("GPM_DDIO", value, 1);
    else
        unsetenv("GPM_DDIO");
    /* nobody: a user that cannot write PCI configuration space */
    if (drop_root && geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
        _exit(3);
    snprintf(c.status, sizeof c.status, "%s", gpm_ddio_status());
    gpm_ddio_status();
    c.begin = gpm_persist_begin();
    snprintf(c.begin_error, sizeof c.begin_error, "%s", c.begin ? gpm_last_error() : "");
    c.end = gpm_persist_end();
    c.again = gpm_persist_begin() == 0 && gpm_persist_end() == 0 ? 0 : -1;
    _exit(write(out, &c, sizeof c) == (ssize_t)sizeof c ? 0 : 4);
}

static int in_child(const char *value, int drop_root, child_view *v)
{
    int out[2], err[2], status;
    pid_t pid;
    memset(v, 0, sizeof *v);
    if (pipe(out) != 0)
        return -1;
    if (pipe(err) != 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(err[0]);
        dup2(err[1], 2);
        child_body(value, drop_root, out[1]);
    }
    close(out[1]);
    close(err[1]);
    size_t got = pid > 0 ? read_all(out[0], v, sizeof *v) : 0;
    size_t n = pid > 0 ? read_all(err[0], v->err, sizeof v->err - 1) : 0;
    v->err[n] = '\0';
    close(out[0]);
    close(err[0]);
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    if (WEXITSTATUS(status) == 3)
        return -2; /* could not drop root */
    return WEXITSTATUS(status) == 0 && got == sizeof *v ? 0 : -1;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Unset or empty: DDIO left alone, silently. */
static void default_is_silent(void)
{
    child_view v;
    CHECK(in_child(NULL, 0, &v) == 0);
    CHECK_MSG(v.status, "uncontrolled: GPM_DDIO not set to control");
    CHECK(v.begin == 0 && v.end == 0 && v.again == 0);
    CHECKF(v.err[0] == '\0', "stderr: %s", v.err);
    CHECK(in_child("", 0, &v) == 0);
    CHECK_MSG(v.status, "uncontrolled: GPM_DDIO not set to control");
    CHECK(v.begin == 0 && v.end == 0);
    CHECKF(v.err[0] == '\0', "stderr: %s", v.err);
}

/* A misspelled value is an error of the first persist bracket, naming the
 * variable, the value and the accepted ones; the report says so too. */
static void unknown_value_is_refused(void)
{
    child_view v;
    CHECK(in_child("contrl", 0, &v) == 0);
    CHECK(v.begin == -1 && v.end == -1 && v.again == -1);
    CHECK_MSG(v.begin_error, "GPM_DDIO=contrl is not accepted: set GPM_DDIO=control");
    CHECK_MSG(v.begin_error, "unset it");
    CHECK(strchr(v.begin_error, '\n') == NULL);
    CHECK_MSG(v.status, "uncontrolled: GPM_DDIO=contrl is not accepted");
    CHECKF(v.err[0] == '\0', "the library printed: %s", v.err); /* the program says it */
}

/* GPM_DDIO=control without root: no control, one warning line saying why,
 * however often the status and the brackets are used. */
static void control_without_root_warns_once(void)
{
    child_view v;
    int rc = in_child("control", 1, &v);
    if (rc == -2)
        SKIP("root that cannot become nobody (setuid refused)");
    CHECK(rc == 0);
    CHECK_MSG(v.status, "uncontrolled: not root");
    CHECK(v.begin == 0 && v.end == 0 && v.again == 0);
    CHECKF(lines(v.err) == 1, "stderr has %d lines: %s", lines(v.err), v.err);
    CHECK_MSG(v.err, "warning: GPM_DDIO=control, but DDIO is left as it is: not root");
}

/* As root without a GPU (this machine, when so): no port to find, the same
 * single warning with CUDA's reason. */
static void control_without_gpu_warns_once(void)
{
    child_view v;
    if (geteuid() != 0)
        SKIP("not root: the not-root case covers this process");
    if (gpm_gpu_check() == 0)
        SKIP("root with a GPU: GPM_DDIO=control could switch a real port");
    CHECK(in_child("control", 0, &v) == 0);
    CHECK_MSG(v.status, "uncontrolled: no NVIDIA driver or GPU visible");
    CHECK(v.begin == 0 && v.end == 0 && v.again == 0);
    CHECKF(lines(v.err) == 1, "stderr has %d lines: %s", lines(v.err), v.err);
    CHECK_MSG(v.err, "GPM_DDIO=control, but DDIO is left as it is: no NVIDIA driver or GPU "
                     "visible (CUDA: ");
}

int main(void)
{
    RUN(skylake_gpu_behind_switch_is_controllable);
    RUN(short_and_upper_case_bus_ids_work);
    RUN(pch_root_port_is_unrecognised_intel);
    RUN(amd_root_port_found_not_controllable);
    RUN(icelake_root_port_is_unrecognised);
    RUN(absent_gpu_is_a_clear_error);
    RUN(no_extended_config_is_not_controllable);
    RUN(missing_dump_and_bad_bus_id_are_errors);
    RUN(recorded_vm_dump_is_not_controllable);
    RUN(perfctrl_bit_logic);
    RUN(pick_root_walks_bus_ranges);
    RUN(classify_needs_all_three_facts);
    RUN(known_port_table);
    RUN(bus_id_parsing);
    RUN(env_values_accepted_and_refused);
    RUN(default_is_silent);
    RUN(unknown_value_is_refused);
    RUN(control_without_root_warns_once);
    RUN(control_without_gpu_warns_once);
    RUN(uncontrolled_brackets_nest_and_balance);
    CHECK_EXIT();
}
