/* Placeholder until DDIO discovery lands: persistence brackets are no-ops. */
#include "gpm/ddio.h"
#include "gpm/gpm.h"

int gpm_persist_begin(void) { return 0; }
int gpm_persist_end(void) { return 0; }
const char *gpm_ddio_status(void) { return "uncontrolled: not implemented"; }
