// gfx950: AMD Instinct MI355X (CDNA4). Wave64, MFMA with AGPRs, 160 KiB LDS.
#include "rocktile/Target/Target.h"

namespace rocktile {
extern const Target gfx950Target = {
    /*chip=*/"gfx950", /*product=*/"MI355X", /*waveSize=*/64,
    /*ldsBytes=*/160 * 1024, /*maxWorkgroupSize=*/1024,
    /*hasPermlane32Swap=*/true};
} // namespace rocktile
