/* The platform a result was measured on: every benchmark row carries it so
 * that a number is never read without knowing the GPU, the link, what stood
 * in for PM and whether DDIO was under control. */
#ifndef GPM_PLATFORM_H
#define GPM_PLATFORM_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_PLAT_STR 128

typedef struct gpm_platform {
    char gpu[GPM_PLAT_STR];            /* "NVIDIA H200" or "none" */
    char gpu_cc[16];                   /* "9.0" */
    char gpu_pci[32];                  /* "0000:17:00.0" */
    char driver[32];                   /* CUDA driver API version, "13.0" */
    char cuda[32];                     /* runtime the binary was built with */
    char pcie[32];                     /* "gen5 x16" from sysfs, or "unknown" */
    char pm_dir[GPM_PLAT_STR];         /* directory PM files live in */
    char pm_backend[16];               /* dax | tmpfs | file */
    int pm_is_pmem;                    /* pmem_is_pmem() of a probe mapping */
    char persist_domain[64];           /* memory_controller | cpu_cache | unknown: emulated PM | ... */
    char ddio[GPM_PLAT_STR];           /* "controlled (0000:16:00.0)" or "uncontrolled: <why>" */
    char cpu[GPM_PLAT_STR];            /* model name from /proc/cpuinfo */
    int cores;                         /* online CPUs */
    char host[64];
    char git_rev[48];                  /* revision the binary was built from */
} gpm_platform;

/* 0 if the CUDA runtime sees a GPU (a driver that answers and at least one
 * device); else -1 with gpm_last_error() "no NVIDIA driver or GPU visible
 * (CUDA: <CUDA's error string>)". A machine with the toolkit but no driver
 * (CUDA: "driver version is insufficient") reads the same way. Creates no
 * CUDA context (cheap enough for every program to call up front; a device
 * that is visible but busy still counts). Thread-compatible. */
int gpm_gpu_check(void);

/* Collects everything; fields that cannot be read say why in their value
 * (gpu: "none (<gpm_gpu_check's message>)" without a GPU). */
void gpm_platform_collect(gpm_platform *p);

/* One "key<TAB>value" line per field. */
void gpm_platform_print(const gpm_platform *p, FILE *out);

/* TSV support for result rows: the header names and the values, in one
 * order, tab-separated, no trailing tab or newline. */
void gpm_platform_tsv_header(FILE *out);
void gpm_platform_tsv_values(const gpm_platform *p, FILE *out);

/* PCIe generation of a sysfs current_link_speed ("16.0 GT/s PCIe" -> 4),
 * 0 when the speed is not one of 2.5/5/8/16/32/64 GT/s. */
int gpm_platform_pcie_gen(const char *link_speed);

#ifdef __cplusplus
}
#endif

#endif
