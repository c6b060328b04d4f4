/* The platform report: what a result was measured on. Every field is filled
 * even where nothing can be read (no GPU, no PM), and then says why, so a
 * row never carries an empty or silently guessed value. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "gpm/ddio.h"
#include "gpm/gpm.h"
#include "gpm/platform.h"

#ifndef GPM_GIT_REV
#define GPM_GIT_REV "unknown"
#endif

/* Values go into TSV rows: tabs and newlines become spaces. */
static void set(char *dst, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(char *dst, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, len, fmt, ap);
    va_end(ap);
    for (char *c = dst; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r')
            *c = ' ';
}

/* First line of a small sysfs/proc file, without its newline; 0 or -1. */
static int read_line(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "r");
    int got = f && fgets(out, (int)len, f);
    if (f)
        fclose(f);
    if (!got)
        return -1;
    out[strcspn(out, "\r\n")] = '\0';
    return 0;
}

static void cuda_version(char *dst, size_t len, int v)
{
    set(dst, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

int gpm_platform_pcie_gen(const char *speed)
{
    static const struct { double gts; int gen; } gens[] = {
        {2.5, 1}, {5.0, 2}, {8.0, 3}, {16.0, 4}, {32.0, 5}, {64.0, 6}};
    double v = strtod(speed, NULL);
    for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++)
        if (v > gens[i].gts - 0.01 && v < gens[i].gts + 0.01)
            return gens[i].gen;
    return 0;
}

static void collect_link(gpm_platform *p)
{
    char path[256], speed[64], width[32];
    int gen;
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/current_link_speed", p->gpu_pci);
    if (read_line(path, speed, sizeof speed) != 0) {
        set(p->pcie, sizeof p->pcie, "unknown: no sysfs link speed");
        return;
    }
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/current_link_width", p->gpu_pci);
    if (read_line(path, width, sizeof width) != 0)
        set(width, sizeof width, "?");
    gen = gpm_platform_pcie_gen(speed);
    if (gen)
        set(p->pcie, sizeof p->pcie, "gen%d x%s", gen, width);
    else
        set(p->pcie, sizeof p->pcie, "unknown: speed %.12s x%s", speed, width);
}

int gpm_gpu_check(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaGetLastError(); /* a failed query is not the caller's error */
    if (e == cudaSuccess && n > 0)
        return 0;
    return gpm_set_error("no NVIDIA driver or GPU visible (CUDA: %s)",
                         cudaGetErrorString(e != cudaSuccess ? e : cudaErrorNoDevice));
}

static void collect_gpu(gpm_platform *p)
{
    int dev = 0, v = 0;
    struct cudaDeviceProp prop;
    char bus[32];

    if (cudaDriverGetVersion(&v) == cudaSuccess && v > 0)
        cuda_version(p->driver, sizeof p->driver, v);
    else
        set(p->driver, sizeof p->driver, "none");
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        cuda_version(p->cuda, sizeof p->cuda, v);
    else
        set(p->cuda, sizeof p->cuda, "none");

    if (gpm_gpu_check() != 0) {
        set(p->gpu, sizeof p->gpu, "none (%s)", gpm_last_error());
        set(p->gpu_cc, sizeof p->gpu_cc, "none");
        set(p->gpu_pci, sizeof p->gpu_pci, "none");
        set(p->pcie, sizeof p->pcie, "unknown: no GPU");
        return;
    }
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        set(p->gpu, sizeof p->gpu, "unknown (device %d unreadable)", dev);
        set(p->gpu_cc, sizeof p->gpu_cc, "unknown");
    } else {
        set(p->gpu, sizeof p->gpu, "%s", prop.name);
        set(p->gpu_cc, sizeof p->gpu_cc, "%d.%d", prop.major, prop.minor);
    }
    int d, b, s, f;
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, dev) == cudaSuccess &&
        gpm_ddio_parse_bus_id(bus, &d, &b, &s, &f) == 0) {
        /* sysfs spells bus ids in lower case with a 4-digit domain. */
        set(p->gpu_pci, sizeof p->gpu_pci, "%04x:%02x:%02x.%x", (unsigned)d, (unsigned)b,
            (unsigned)s, (unsigned)f);
        collect_link(p);
    } else {
        set(p->gpu_pci, sizeof p->gpu_pci, "unknown");
        set(p->pcie, sizeof p->pcie, "unknown: no PCI bus id");
    }
}

/* persistence_domain of the nd region behind the DAX file system holding
 * DIR: its block device's sysfs path runs through .../regionN/... */
static void dax_domain(const char *dir, char *out, size_t len)
{
    struct stat st;
    char link[128], real[PATH_MAX], path[PATH_MAX + 32], dom[64];
    const char *reg;
    if (stat(dir, &st) == 0) {
        snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
        if (realpath(link, real) && (reg = strstr(real, "/region"))) {
            size_t n = strcspn(reg + 1, "/") + 1;
            snprintf(path, sizeof path, "%.*s/persistence_domain",
                     (int)(reg - real + (long)n), real);
            if (read_line(path, dom, sizeof dom) == 0) {
                set(out, len, "%s", *dom ? dom : "none (region reports no domain)");
                return;
            }
        }
    }
    /* A DAX mapping not traced to a region (device-dax, CXL, a bind mount):
     * the machine's first region is still better than nothing, if any. */
    if (read_line("/sys/bus/nd/devices/region0/persistence_domain", dom, sizeof dom) == 0 && *dom)
        set(out, len, "%s (region0, not traced to %s)", dom, dir);
    else
        set(out, len, "unknown: no nd region for PM");
}

static void collect_pm(gpm_platform *p)
{
    gpm_region r;
    char probe[64];
    set(p->pm_dir, sizeof p->pm_dir, "%s", gpm_pm_dir());
    snprintf(probe, sizeof probe, ".gpm-platform-probe-%ld", (long)getpid());
    if (gpm_map(&r, probe, 4096, GPM_CREATE | GPM_HOST_ONLY) != 0) {
        set(p->pm_backend, sizeof p->pm_backend, "none");
        p->pm_is_pmem = 0;
        set(p->persist_domain, sizeof p->persist_domain, "unknown: cannot create a file in %s",
            p->pm_dir);
        return;
    }
    p->pm_is_pmem = r.is_pmem;
    set(p->pm_backend, sizeof p->pm_backend, "%s", gpm_backend_name(r.backend));
    gpm_unmap(&r);
    unlink(r.path);
    if (r.backend == GPM_BACKEND_DAX)
        dax_domain(p->pm_dir, p->persist_domain, sizeof p->persist_domain);
    else if (r.backend == GPM_BACKEND_TMPFS)
        set(p->persist_domain, sizeof p->persist_domain, "unknown: emulated PM");
    else
        set(p->persist_domain, sizeof p->persist_domain, "unknown: not PM");
}

static void collect_host(gpm_platform *p)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    set(p->cpu, sizeof p->cpu, "unknown: no model name in /proc/cpuinfo");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            colon[strcspn(colon, "\r\n")] = '\0';
            set(p->cpu, sizeof p->cpu, "%s", colon);
            break;
        }
    }
    if (f)
        fclose(f);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    p->cores = n > 0 ? (int)n : 0;
    if (gethostname(line, sizeof line) == 0) {
        line[sizeof line - 1] = '\0';
        set(p->host, sizeof p->host, "%s", line);
    } else {
        set(p->host, sizeof p->host, "unknown");
    }
}

void gpm_platform_collect(gpm_platform *p)
{
    memset(p, 0, sizeof *p);
    collect_gpu(p);
    collect_pm(p);
    set(p->ddio, sizeof p->ddio, "%s", gpm_ddio_status());
    collect_host(p);
    set(p->git_rev, sizeof p->git_rev, "%s", GPM_GIT_REV);
}

/* One table drives the print, header and values so they cannot disagree. */
#define FIELDS(X)                                                                          \
    X(gpu) X(gpu_cc) X(gpu_pci) X(driver) X(cuda) X(pcie) X(pm_dir) X(pm_backend)          \
    XI(pm_is_pmem) X(persist_domain) X(ddio) X(cpu) XI(cores) X(host) X(git_rev)

void gpm_platform_print(const gpm_platform *p, FILE *out)
{
#define X(f) fprintf(out, "%s\t%s\n", #f, p->f);
#define XI(f) fprintf(out, "%s\t%d\n", #f, p->f);
    FIELDS(X)
#undef X
#undef XI
}

void gpm_platform_tsv_header(FILE *out)
{
    const char *sep = "";
#define X(f) fprintf(out, "%s%s", sep, #f), sep = "\t";
#define XI(f) X(f)
    FIELDS(X)
#undef X
#undef XI
}

void gpm_platform_tsv_values(const gpm_platform *p, FILE *out)
{
    const char *sep = "";
#define X(f) fprintf(out, "%s%s", sep, p->f), sep = "\t";
#define XI(f) fprintf(out, "%s%d", sep, p->f), sep = "\t";
    FIELDS(X)
#undef X
#undef XI
}
