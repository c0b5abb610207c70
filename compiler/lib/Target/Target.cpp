#include "rocktile/Target/Target.h"
#include "llvm/ADT/STLExtras.h"

namespace rocktile {
extern const Target gfx950Target;
extern const Target gfx1250Target;

llvm::ArrayRef<const Target *> allTargets() {
  static const Target *targets[] = {&gfx950Target, &gfx1250Target};
  return targets;
}

LdsTransposeRead Target::transposeRead(int64_t eltBytes) const {
  for (const LdsTransposeRead &read : transposeReads)
    if (read.elementBytes == eltBytes)
      return read;
  return {};
}

unsigned Target::waveRegisters(unsigned numWarps) const {
  // A workgroup's waves spread over a compute unit's 4 SIMDs (as LLVM's
  // AMDGPU backend bounds a kernel's VGPRs by its workgroup size).
  unsigned wavesPerSimd = std::max(1u, (numWarps + 3) / 4);
  return vgprsPerSimd / wavesPerSimd;
}

Target::Residency Target::residentWorkgroups(unsigned registers, int64_t ldsBytes, unsigned numWarps) const {
  unsigned allocated = (registers + vgprGranule - 1) / vgprGranule * vgprGranule;
  unsigned waves = allocated ? std::min(wavesPerSimd, vgprsPerSimd / allocated) : wavesPerSimd;
  // A workgroup's waves may sit on any of the CU's SIMDs.
  int64_t perCu = int64_t(simdsPerCu) * waves / std::max(1u, numWarps);
  std::string limit =
      std::to_string(waves) + " waves per SIMD (" + std::to_string(allocated) + " registers per lane)";
  if (ldsBytes > 0 && ldsBytes * perCu > this->ldsBytes) {
    perCu = this->ldsBytes / ldsBytes;
    limit = std::to_string(ldsBytes) + " bytes of LDS";
  }
  return {perCu, perCu * computeUnits,
          std::to_string(perCu) + " per CU by " + limit + ", " + std::to_string(computeUnits) + " CUs"};
}

const Target *lookupTarget(llvm::StringRef chip) {
  auto it = llvm::find_if(allTargets(),
                          [&](const Target *t) { return t->chip == chip; });
  return it == allTargets().end() ? nullptr : *it;
}
} // namespace rocktile
