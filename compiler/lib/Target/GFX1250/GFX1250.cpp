// gfx1250: AMD Instinct MI455X (CDNA5 / GFX12.5). Wave32, WMMA, no AGPRs,
// 320 KiB LDS in 64 KiB partitions, Tensor Data Mover.
#include "rocktile/Target/Target.h"

namespace rocktile {
extern const Target gfx1250Target = {
    /*chip=*/"gfx1250", /*product=*/"MI455X", /*waveSize=*/32,
    /*ldsBytes=*/320 * 1024, /*maxWorkgroupSize=*/1024,
    /*hasPermlane32Swap=*/false};
} // namespace rocktile
