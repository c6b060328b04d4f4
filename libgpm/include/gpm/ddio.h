/* DDIO control for the PCIe root port above the GPU (Intel Xeon only).
 *
 * With DDIO on, a GPU's writes to host memory land in the CPU's last-level
 * cache, so a system-scope fence completes before data is durable. The
 * switch is bit 7 (Use_Allocating_Flow_Wr) of the root port's perfctrlsts_0
 * register at config offset 0x180. libgpm touches it only when the user opts
 * in with GPM_DDIO=control, runs as root, and the port is positively
 * identified; otherwise persist_begin/end are no-ops and the reason is kept.
 *
 * GPM_DDIO takes two values: unset or empty (the default: DDIO is left
 * alone) and "control". Any other value is refused: gpm_persist_begin/end
 * fail naming it, and gpm_ddio_status() says so. "control" where control is
 * impossible (not root, no GPU, a port not positively identified) proceeds
 * without control and prints one warning line to stderr, once per process,
 * saying why. */
#ifndef GPM_DDIO_H
#define GPM_DDIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GPM_PERFCTRLSTS_0 0x180
#define GPM_USE_ALLOCATING_FLOW_WR (1u << 7)

typedef struct gpm_ddio_port {
    int found;               /* a root port above the GPU was located */
    int controllable;        /* it is an Intel Xeon port with perfctrlsts_0 */
    int domain, bus, dev, func;
    uint16_t vendor_id, device_id;
    char why[256];           /* why it is not controllable, or what it is */
} gpm_ddio_port;

/* Finds the root port above the device at GPU_BUS_ID ("0000:17:00.0")
 * using libpci. DUMP_FILE NULL reads the live system; otherwise it is a
 * file in `lspci -xxxx` format read through libpci's dump access method.
 * Returns -1 (with gpm_last_error) when the dump cannot be read or holds no
 * device at GPU_BUS_ID; otherwise 0, with port->found 0 when no bridge lies
 * above the GPU, and port->why saying what the port is or why it is not
 * controllable. Only reads configuration space. */
int gpm_ddio_find_port(const char *gpu_bus_id, const char *dump_file, gpm_ddio_port *port);

/* perfctrlsts_0 with DDIO's allocating writes switched on or off. */
uint32_t gpm_ddio_perfctrl_value(uint32_t old, int ddio_on);

/* The pure steps of discovery, kept apart so that tests can drive them. */

/* A type-1 (bridge) header: where it sits and the buses behind it. */
typedef struct gpm_ddio_bridge {
    int domain, bus, dev, func;
    int secondary, subordinate;
} gpm_ddio_bridge;

/* Index of the top-most bridge of DOMAIN whose secondary..subordinate range
 * holds BUS (the root port of that bus), or -1 when none does. */
int gpm_ddio_pick_root(const gpm_ddio_bridge *bridges, int n, int domain, int bus);

/* 1 if VENDOR:DEVICE is a Xeon root port documented to have perfctrlsts_0
 * at 0x180 (Skylake-SP / Cascade Lake 8086:2030-2033), else 0; NAME (may be
 * NULL) gets the family's name. */
int gpm_ddio_known_port(uint16_t vendor, uint16_t device, const char **name);

/* Decides port->controllable and fills port->why from the port's ids (in
 * PORT), its PCI Express port type (-1: no PCIe capability) and whether
 * perfctrlsts_0 could be read (0: no extended config space). */
void gpm_ddio_classify(gpm_ddio_port *port, int pcie_type, int perfctrl_readable);

/* Parses "0000:17:00.0" or "17:00.0" (any hex case); 0 or -1. */
int gpm_ddio_parse_bus_id(const char *id, int *domain, int *bus, int *dev, int *func);

/* Reads a value of GPM_DDIO (NULL: unset): 0 with *CONTROL 1 for "control"
 * and 0 for unset or empty; -1 for anything else, with a message naming
 * GPM_DDIO, the value and the accepted ones in gpm_last_error(). */
int gpm_ddio_parse_env(const char *value, int *control);

/* "controlled (...)" or "uncontrolled: <reason>" for the platform report;
 * decided once per process, on first use (of this or of
 * gpm_persist_begin/end), from GPM_DDIO and the current CUDA device. */
const char *gpm_ddio_status(void);

#ifdef __cplusplus
}
#endif

#endif
