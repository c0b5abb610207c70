// A target is data: the facts about a chip that generic passes read, and
// never `if (chip == ...)` inside them. Each chip fills one in its own folder
// under lib/Target/.
#ifndef ROCKTILE_TARGET_TARGET_H
#define ROCKTILE_TARGET_TARGET_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <string>

namespace rocktile {

struct MatrixCoreInstr;

/// An LDS read that transposes elements between lanes (gfx950's
/// ds_read_b64_tr_b16, ds_read_b64_tr_b8; gfx1250's ds_load_tr16_b128,
/// ds_load_tr8_b64): within groups of `lanes` lanes, each reading `elements`
/// consecutive elements at its own address, the group reads an
/// elements x lanes tile row by row and lane i receives column i
/// (test/unit/isa/lds_transpose_reads.json). `lanes` = 0: none.
struct LdsTransposeRead {
  unsigned elementBytes = 0, elements = 0, lanes = 0;
  /// Lowered to rocdl.ds.load.tr* on an LDS pointer, for the forms that
  /// amdgpu.transpose_load does not take (MLIR 22 takes only gfx950's).
  bool rocdl = false;
};

/// How a target copies 16-byte runs from global memory into LDS without
/// passing through registers (tile.async_load).
enum class AsyncLoads {
  /// gfx950: `buffer_load_dwordx4 ... lds` / `global_load_lds_dwordx4`,
  /// counted by vmcnt; a wave's lanes write consecutive runs from an
  /// address every lane shares (M0). A masked-off lane reads a buffer
  /// resource out of range and lands zeros.
  DirectToLds,
  /// gfx1250: `global_load_async_to_lds_b128`, counted by asynccnt, to an
  /// LDS address per lane. No buffer form: masked loads cannot use it (a
  /// branch around a masked lane's copy would skip the count when a whole
  /// wave is masked off).
  AsyncToLds,
};

/// How a target converts E2M1 codes times E8M0 scales to bf16 or f16
/// (tile.scaled_upcast).
enum class ScaledUpcast {
  /// gfx950: v_cvt_scalef32_pk_{bf16,f16}_fp4, one byte (two codes) of a
  /// register, which the instruction selects, times an fp32 scale.
  PerByte,
  /// gfx1250: v_cvt_scale_pk8_{bf16,f16}_fp4, a register of eight codes
  /// times an E8M0 scale byte that lane L reads from lane L % 16 (plus the
  /// first scale lane, 0 or 16) of its wave.
  PerDwordFromRowLanes,
};

struct Target {
  llvm::StringRef chip;        // LLVM -mcpu name, e.g. "gfx950"
  llvm::StringRef product;     // e.g. "MI355X"
  unsigned waveSize;           // lanes per wave
  int64_t ldsBytes;            // LDS per workgroup
  unsigned maxWorkgroupSize;   // threads
  bool hasPermlane16Swap;      // v_permlane16_swap: exchange rows of 16 lanes
  bool hasPermlane32Swap;      // v_permlane32_swap: exchange wave halves
  bool hasPermlaneX16;         // v_permlanex16: any lane of the other 16-lane row
  bool hasDppRowXmask;         // DPP row_xmask: lane i reads lane i ^ m of its 16-lane row (GFX10+)
  unsigned ldsBanks;           // LDS banks, 4 bytes wide
  bool hasTensorDataMover;     // tensor_load_to_lds: whole blocks from global memory to LDS
  AsyncLoads asyncLoads;
  ScaledUpcast scaledUpcast;
  unsigned vgprsPerSimd;       // a SIMD's VGPRs per lane, shared by its waves
  unsigned maxWaveVgprs;       // the most one wave may address (AGPRs apart)
  int64_t scratchBytesPerLane; // the most private memory (spills) a lane may have
  unsigned computeUnits;       // CUs on the product
  unsigned simdsPerCu;         // SIMDs per CU, each running its own waves
  unsigned wavesPerSimd;       // wave slots per SIMD
  unsigned vgprGranule;        // a wave's registers per lane are allocated in blocks of this many

  /// Registers per lane (VGPRs and AGPRs) a wave of a workgroup of
  /// `numWarps` may use: its share of each of the (4 per compute unit)
  /// SIMDs running them.
  unsigned waveRegisters(unsigned numWarps) const;
  /// The VGPRs among them.
  unsigned waveVgprs(unsigned numWarps) const { return std::min(maxWaveVgprs, waveRegisters(numWarps)); }
  /// How many workgroups of `numWarps` waves, each wave with `registers`
  /// per lane (VGPRs and AGPRs) and the workgroup with `ldsBytes` of LDS,
  /// one CU holds at once (the fewest its SIMDs' wave slots, its register
  /// files and its LDS allow), how many the chip holds, and why, for a
  /// cooperative launch's error.
  struct Residency {
    int64_t perCu, onChip;
    std::string reason; // "4 per CU by <the bound>, 256 CUs"
  };
  Residency residentWorkgroups(unsigned registers, int64_t ldsBytes, unsigned numWarps) const;
  llvm::ArrayRef<MatrixCoreInstr> matrixInstrs; // in order of preference
  llvm::ArrayRef<LdsTransposeRead> transposeReads; // the ones rocktile uses

  /// The consecutive elements one scaled conversion makes: 2 or 8.
  int64_t scaledUpcastElements() const { return scaledUpcast == ScaledUpcast::PerByte ? 2 : 8; }

  /// The transpose read of `eltBytes`-byte elements, or none (lanes = 0).
  LdsTransposeRead transposeRead(int64_t eltBytes) const;
};

/// The target named `chip`, or nullptr when rocktile does not know it.
const Target *lookupTarget(llvm::StringRef chip);
/// Every target rocktile compiles for.
llvm::ArrayRef<const Target *> allTargets();

} // namespace rocktile

#endif
