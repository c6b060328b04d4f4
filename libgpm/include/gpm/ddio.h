/* DDIO control for the PCIe root port above the GPU (Intel Xeon only).
 *
 * With DDIO on, a GPU's writes to host memory land in the CPU's last-level
 * cache, so a system-scope fence completes before data is durable. The
 * switch is bit 7 (Use_Allocating_Flow_Wr) of the root port's perfctrlsts_0
 * register at config offset 0x180. libgpm touches it only when the user opts
 * in with GPM_DDIO=control, runs as root, and the port is positively
 * identified; otherwise persist_begin/end are no-ops and the reason is kept. */
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
 * file in `lspci -xxxx` format read through libpci's dump access method. */
int gpm_ddio_find_port(const char *gpu_bus_id, const char *dump_file, gpm_ddio_port *port);

/* perfctrlsts_0 with DDIO's allocating writes switched on or off. */
uint32_t gpm_ddio_perfctrl_value(uint32_t old, int ddio_on);

/* "controlled (...)" or "uncontrolled: <reason>" for the platform report;
 * decided once, on first use, for the current CUDA device. */
const char *gpm_ddio_status(void);

#ifdef __cplusplus
}
#endif

#endif
