// A target is data: the facts about a chip that generic passes read, and
// never `if (chip == ...)` inside them. Each chip fills one in its own folder
// under lib/Target/.
#ifndef ROCKTILE_TARGET_TARGET_H
#define ROCKTILE_TARGET_TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace rocktile {

struct MatrixCoreInstr;

struct Target {
  llvm::StringRef chip;        // LLVM -mcpu name, e.g. "gfx950"
  llvm::StringRef product;     // e.g. "MI355X"
  unsigned waveSize;           // lanes per wave
  int64_t ldsBytes;            // LDS per workgroup
  unsigned maxWorkgroupSize;   // threads
  bool hasPermlane32Swap;      // v_permlane32_swap: exchange wave halves
  unsigned ldsBanks;           // LDS banks, 4 bytes wide
  llvm::ArrayRef<MatrixCoreInstr> matrixInstrs; // in order of preference
};

/// The target named `chip`, or nullptr when rocktile does not know it.
const Target *lookupTarget(llvm::StringRef chip);
/// Every target rocktile compiles for.
llvm::ArrayRef<const Target *> allTargets();

} // namespace rocktile

#endif
