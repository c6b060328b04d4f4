/* DDIO discovery (root port above the GPU, through libpci) and control
 * (perfctrlsts_0 bit 7 of that port around persist regions).
 *
 * Control is opt-in and narrow on purpose: a wrong write to a root port's
 * config space can hang the machine, so the register is touched only with
 * GPM_DDIO=control, as root, on a port whose id is in a table of ports
 * documented to have perfctrlsts_0 at 0x180. Everything else is a no-op
 * whose reason gpm_ddio_status() gives. */
#include <errno.h> /* program_invocation_short_name */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <pci/pci.h>

#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

/* ---- pure logic ---------------------------------------------------------- */

uint32_t gpm_ddio_perfctrl_value(uint32_t old, int ddio_on)
{
    return ddio_on ? (old | GPM_USE_ALLOCATING_FLOW_WR) : (old & ~GPM_USE_ALLOCATING_FLOW_WR);
}

/* Root ports of the Xeon Scalable server I/O stacks whose perfctrlsts_0 is at
 * 0x180 with Use_Allocating_Flow_Wr in bit 7 (Skylake-SP and Cascade Lake
 * share these ids). Later generations moved or changed the register, so
 * they are reported as unrecognised rather than guessed at. */
static const struct {
    uint16_t device;
    const char *name;
} xeon_ports[] = {
    {0x2030, "Skylake-SP/Cascade Lake root port A"},
    {0x2031, "Skylake-SP/Cascade Lake root port B"},
    {0x2032, "Skylake-SP/Cascade Lake root port C"},
    {0x2033, "Skylake-SP/Cascade Lake root port D"},
};

int gpm_ddio_known_port(uint16_t vendor, uint16_t device, const char **name)
{
    if (vendor != 0x8086)
        return 0;
    for (size_t i = 0; i < sizeof xeon_ports / sizeof xeon_ports[0]; i++)
        if (xeon_ports[i].device == device) {
            if (name)
                *name = xeon_ports[i].name;
            return 1;
        }
    return 0;
}

int gpm_ddio_pick_root(const gpm_ddio_bridge *b, int n, int domain, int bus)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        /* A configured bridge forwards to buses above its own; an
         * unconfigured one (secondary 0) holds nothing. */
        if (b[i].domain != domain || b[i].secondary <= b[i].bus ||
            b[i].subordinate < b[i].secondary)
            continue;
        if (bus < b[i].secondary || bus > b[i].subordinate)
            continue;
        /* The bridges holding BUS form one chain; the top one sits on the
         * lowest bus number. */
        if (best < 0 || b[i].bus < b[best].bus)
            best = i;
    }
    return best;
}

void gpm_ddio_classify(gpm_ddio_port *p, int pcie_type, int perfctrl_readable)
{
    char loc[48];
    const char *family = NULL;
    snprintf(loc, sizeof loc, "%04x:%02x:%02x.%x (%04x:%04x)", (unsigned)p->domain,
             (unsigned)p->bus, (unsigned)p->dev, (unsigned)p->func, p->vendor_id,
             p->device_id);
    p->controllable = 0;
    if (pcie_type != 4 /* PCI Express Root Port */) {
        if (pcie_type < 0)
            snprintf(p->why, sizeof p->why,
                     "bridge %s above the GPU has no PCI Express capability, so it is not a "
                     "root port with perfctrlsts_0", loc);
        else
            snprintf(p->why, sizeof p->why,
                     "bridge %s above the GPU is a PCI Express port of type %d, not a root port",
                     loc, pcie_type);
    } else if (!gpm_ddio_known_port(p->vendor_id, p->device_id, &family)) {
        snprintf(p->why, sizeof p->why,
                 "root port %s is not an Intel Xeon port with perfctrlsts_0%s", loc,
                 p->vendor_id == 0x8086 ? " (unrecognised Intel device id; only "
                                          "8086:2030-2033, Skylake-SP/Cascade Lake, are known)"
                                        : "");
    } else if (!perfctrl_readable) {
        snprintf(p->why, sizeof p->why,
                 "root port %s, %s: perfctrlsts_0 at 0x180 is unreadable (extended config "
                 "space needs root; a dump needs lspci -xxxx)", loc, family);
    } else {
        p->controllable = 1;
        snprintf(p->why, sizeof p->why, "root port %s, %s, perfctrlsts_0 at 0x180", loc, family);
    }
}

int gpm_ddio_parse_bus_id(const char *id, int *domain, int *bus, int *dev, int *func)
{
    unsigned d = 0, b, s, f;
    int n = -1;
    /* sscanf alone would take "0x" prefixes and signs. */
    if (!id || !*id || id[strspn(id, "0123456789abcdefABCDEF:.")] != '\0')
        return -1;
    if (sscanf(id, "%x:%x:%x.%x%n", &d, &b, &s, &f, &n) != 4 || id[n] != '\0') {
        d = 0;
        n = -1;
        if (sscanf(id, "%x:%x.%x%n", &b, &s, &f, &n) != 3 || id[n] != '\0')
            return -1;
    }
    if (d > 0xffff || b > 0xff || s > 0x1f || f > 7)
        return -1;
    *domain = (int)d, *bus = (int)b, *dev = (int)s, *func = (int)f;
    return 0;
}

/* ---- libpci access --------------------------------------------------------- */

/* libpci reports fatal errors through a callback that must not return; it
 * jumps back to the libgpm call that was using the library. */
static _Thread_local jmp_buf *pci_jump;
static _Thread_local char pci_msg[256];

__attribute__((format(printf, 1, 2))) static _Noreturn void pci_fatal(char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pci_msg, sizeof pci_msg, fmt, ap);
    va_end(ap);
    longjmp(*pci_jump, 1);
}

/* Warnings (an unreadable sysfs file of an unrelated device) are not ours. */
__attribute__((format(printf, 1, 2))) static void pci_quiet(char *fmt, ...)
{
    (void)fmt;
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Runs inside a guarded region: walks the scanned devices. */
static int find_in(struct pci_access *a, const char *gpu_id, const char *source,
                   gpm_ddio_port *port, struct pci_dev **port_dev)
{
    int gd, gb, gs, gf, n = 0, gpu_seen = 0, root;
    struct pci_dev *d;
    gpm_ddio_bridge *bridges;
    struct pci_dev **devs;

    if (gpm_ddio_parse_bus_id(gpu_id, &gd, &gb, &gs, &gf) != 0)
        return gpm_set_error("GPU bus id \"%s\" is not of the form 0000:17:00.0",
                             gpu_id ? gpu_id : "(null)");
    for (d = a->devices; d; d = d->next)
        n++;
    bridges = calloc((size_t)n + 1, sizeof *bridges);
    devs = calloc((size_t)n + 1, sizeof *devs);
    if (!bridges || !devs) {
        free(bridges);
        free(devs);
        return gpm_set_error("out of memory scanning %d PCI devices", n);
    }
    n = 0;
    for (d = a->devices; d; d = d->next) {
        if (d->domain == gd && d->bus == gb && d->dev == gs && d->func == gf)
            gpu_seen = 1;
        if ((pci_read_byte(d, PCI_HEADER_TYPE) & 0x7f) != PCI_HEADER_TYPE_BRIDGE)
            continue;
        bridges[n] = (gpm_ddio_bridge){d->domain, d->bus, d->dev, d->func,
                                       pci_read_byte(d, PCI_SECONDARY_BUS),
                                       pci_read_byte(d, PCI_SUBORDINATE_BUS)};
        devs[n++] = d;
    }
    if (!gpu_seen) {
        free(bridges);
        free(devs);
        return gpm_set_error("GPU %s not found in %s: check the bus id (nvidia-smi "
                             "--query-gpu=pci.bus_id) and that the device is listed there",
                             gpu_id, source);
    }
    root = gpm_ddio_pick_root(bridges, n, gd, gb);
    if (root < 0) {
        snprintf(port->why, sizeof port->why,
                 "no PCIe bridge above GPU %04x:%02x:%02x.%x: it sits on root bus %02x "
                 "(virtual machine or integrated device)", (unsigned)gd, (unsigned)gb,
                 (unsigned)gs, (unsigned)gf, (unsigned)gb);
        free(bridges);
        free(devs);
        return 0;
    }
    d = devs[root];
    free(bridges);
    free(devs);

    pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CAPS);
    port->found = 1;
    port->domain = d->domain, port->bus = d->bus, port->dev = d->dev, port->func = d->func;
    port->vendor_id = d->vendor_id, port->device_id = d->device_id;

    struct pci_cap *cap = pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
    int type = cap ? (pci_read_word(d, cap->addr + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_TYPE) >> 4 : -1;
    uint8_t reg[4];
    int readable = pci_read_block(d, GPM_PERFCTRLSTS_0, reg, 4);
    gpm_ddio_classify(port, type, readable);
    if (port_dev)
        *port_dev = d;
    return 0;
}

/* Opens libpci on DUMP_FILE (or the live system) and finds the port. With
 * KEEP and a controllable port, the access and the port's device stay open
 * for control (*KEEP, *PORT_DEV); otherwise the access is freed and
 * *PORT_DEV is NULL, so no caller holds a device of a released access (nor
 * one that is not positively identified). */
static int discover(const char *gpu_id, const char *dump_file, gpm_ddio_port *port,
                    struct pci_access **keep, struct pci_dev **port_dev)
{
    jmp_buf here;
    struct pci_access *volatile a = NULL;
    const char *source = dump_file ? dump_file : "this system's PCI devices";
    int rc;

    memset(port, 0, sizeof *port);
    if (port_dev)
        *port_dev = NULL;
    if (dump_file) {
        FILE *f = fopen(dump_file, "r");
        if (!f)
            return gpm_set_error("lspci dump %s cannot be opened: give the path of an "
                                 "`lspci -xxxx` dump", dump_file);
        fclose(f);
    }
    pci_jump = &here;
    if (setjmp(here) != 0) {
        pci_jump = NULL;
        /* The access state is undefined after a fatal libpci error: leak it. */
        return gpm_set_error("libpci on %s: %s", source, pci_msg);
    }
    a = pci_alloc();
    a->error = pci_fatal;
    a->warning = pci_quiet;
    if (dump_file) {
        a->method = PCI_ACCESS_DUMP;
        pci_set_param(a, "dump.name", (char *)dump_file);
    }
    pci_init(a);
    pci_scan_bus(a);
    rc = find_in(a, gpu_id, source, port, port_dev);
    pci_jump = NULL;
    if (rc == 0 && keep && port->controllable) {
        *keep = a;
    } else {
        pci_cleanup(a);
        if (port_dev)
            *port_dev = NULL;
    }
    return rc;
}

int gpm_ddio_find_port(const char *gpu_bus_id, const char *dump_file, gpm_ddio_port *port)
{
    return discover(gpu_bus_id, dump_file, port, NULL, NULL);
}

/* ---- control of the current CUDA device's port ------------------------------ */

static pthread_once_t decide_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t ctl_lock = PTHREAD_MUTEX_INITIALIZER;
static char ddio_status[320];
static struct pci_access *ctl_pci; /* non-NULL only when controlled */
static struct pci_dev *ctl_port;
static int ctl_depth;              /* nesting of persist_begin/end */
static int ctl_switched;           /* the outermost begin wrote the register */
static uint32_t ctl_saved;         /* perfctrlsts_0 as begin found it */
static char ctl_name[32];          /* the port, "0000:16:00.0" */

/* Reads or writes perfctrlsts_0 of the controlled port; 0 or -1. */
static int perfctrl_rw(int write, uint32_t *val)
{
    jmp_buf here;
    uint8_t b[4];
    int ok;
    pci_jump = &here;
    if (setjmp(here) != 0) {
        pci_jump = NULL;
        return gpm_set_error("DDIO: libpci failed on root port %s: %s", ctl_name, pci_msg);
    }
    if (write) {
        b[0] = (uint8_t)*val, b[1] = (uint8_t)(*val >> 8);
        b[2] = (uint8_t)(*val >> 16), b[3] = (uint8_t)(*val >> 24);
        ok = pci_write_block(ctl_port, GPM_PERFCTRLSTS_0, b, 4);
    } else {
        ok = pci_read_block(ctl_port, GPM_PERFCTRLSTS_0, b, 4);
        *val = le32(b);
    }
    pci_jump = NULL;
    if (!ok)
        return gpm_set_error("DDIO: cannot %s perfctrlsts_0 (0x180) of root port %s: unset "
                             "GPM_DDIO to run without DDIO control", write ? "write" : "read",
                             ctl_name);
    return 0;
}

/* A process that exits inside a persist region must not leave DDIO off. */
static void restore_at_exit(void)
{
    pthread_mutex_lock(&ctl_lock);
    if (ctl_switched) {
        perfctrl_rw(1, &ctl_saved);
        ctl_switched = 0;
    }
    pthread_mutex_unlock(&ctl_lock);
}

int gpm_ddio_parse_env(const char *value, int *control)
{
    *control = 0;
    if (!value || !*value)
        return 0;
    if (strcmp(value, "control") == 0) {
        *control = 1;
        return 0;
    }
    /* Short enough for the platform report's ddio field. */
    return gpm_set_error("GPM_DDIO=%.24s is not accepted: set GPM_DDIO=control (as root) or "
                         "unset it", value);
}

static char env_error[256]; /* GPM_DDIO's refusal, when its value is not accepted */

/* Why control, though asked for, is impossible: kept in the status and said
 * once on stderr, since results measured with DDIO on differ. */
static void refuse_control(const char *why)
{
    snprintf(ddio_status, sizeof ddio_status, "uncontrolled: %s", why);
    fprintf(stderr, "%s: warning: GPM_DDIO=control, but DDIO is left as it is: %s\n",
            program_invocation_short_name, why);
}

static void decide(void)
{
    char bus_id[32];
    int dev, control;
    cudaError_t e;
    gpm_ddio_port port;

    if (gpm_ddio_parse_env(getenv("GPM_DDIO"), &control) != 0) {
        snprintf(env_error, sizeof env_error, "%s", gpm_last_error());
        snprintf(ddio_status, sizeof ddio_status, "uncontrolled: %s", env_error);
        return;
    }
    if (!control) {
        snprintf(ddio_status, sizeof ddio_status, "uncontrolled: GPM_DDIO not set to control");
        return;
    }
    if (geteuid() != 0) {
        refuse_control("not root (GPM_DDIO=control needs root to write the root port)");
        return;
    }
    if (gpm_gpu_check() != 0) {
        refuse_control(gpm_last_error());
        return;
    }
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, dev)) != cudaSuccess) {
        char why[160];
        snprintf(why, sizeof why, "no PCI bus id for the CUDA device (%s)",
                 cudaGetErrorString(e));
        cudaGetLastError(); /* the failed query is not the caller's error */
        refuse_control(why);
        return;
    }
    if (discover(bus_id, NULL, &port, &ctl_pci, &ctl_port) != 0) {
        refuse_control(gpm_last_error());
        return;
    }
    if (!port.found || !port.controllable) {
        refuse_control(port.why);
        return;
    }
    snprintf(ctl_name, sizeof ctl_name, "%04x:%02x:%02x.%x", (unsigned)port.domain,
             (unsigned)port.bus, (unsigned)port.dev, (unsigned)port.func);
    snprintf(ddio_status, sizeof ddio_status, "controlled (%s)", ctl_name);
    atexit(restore_at_exit);
}

const char *gpm_ddio_status(void)
{
    pthread_once(&decide_once, decide);
    return ddio_status;
}

int gpm_persist_begin(void)
{
    int rc = 0;
    pthread_once(&decide_once, decide);
    if (env_error[0])
        return gpm_set_error("%s", env_error);
    pthread_mutex_lock(&ctl_lock);
    if (ctl_depth == 0 && ctl_port) {
        uint32_t off;
        if (perfctrl_rw(0, &ctl_saved) != 0) {
            rc = -1;
            goto out;
        }
        off = gpm_ddio_perfctrl_value(ctl_saved, 0);
        ctl_switched = 0;
        if (off != ctl_saved) {
            if (perfctrl_rw(1, &off) != 0) {
                rc = -1;
                goto out;
            }
            ctl_switched = 1;
        }
    }
    ctl_depth++;
out:
    pthread_mutex_unlock(&ctl_lock);
    return rc;
}

int gpm_persist_end(void)
{
    int rc = 0;
    pthread_once(&decide_once, decide);
    if (env_error[0])
        return gpm_set_error("%s", env_error);
    pthread_mutex_lock(&ctl_lock);
    if (ctl_depth == 0) {
        rc = gpm_set_error("gpm_persist_end without a matching gpm_persist_begin");
    } else if (--ctl_depth == 0 && ctl_switched) {
        /* Restore exactly what begin found, not just the bit. */
        if (perfctrl_rw(1, &ctl_saved) != 0)
            rc = -1;
        else
            ctl_switched = 0;
    }
    pthread_mutex_unlock(&ctl_lock);
    return rc;
}
