// Where the elements of a tile go in LDS when they move between two
// register layouts (a layout conversion, a dot operand's staging), and what
// the accesses cost in bank cycles. The arrangement is chosen by measuring
// both sides' accesses against the target's banks, so "conflict-free" is a
// computed property, not a formula per pair of layouts.
#ifndef ROCKTILE_ANALYSIS_LDSLAYOUT_H
#define ROCKTILE_ANALYSIS_LDSLAYOUT_H

#include "rocktile/Dialect/Tile/IR/LinearLayout.h"
#include "rocktile/Target/Target.h"
#include <optional>
#include <string>
#include <vector>

namespace rocktile {

/// Elements in LDS row-major over `order` (fastest dimension first), with
/// an XOR swizzle: along the fastest dimension, groups of `vec` elements
/// swap places by a phase of the row (the index along order[1]): the XOR
/// of `row >> s` over `phaseShifts` (`row << -s` for a negative s), modulo
/// maxPhase; and, when
/// `rowShift` is not 0, rows (along order[1]) swap with their neighbours by
/// bit `rowShift` of their index (so that lanes whose rows all have one
/// parity reach both halves of the banks when a row fills half of them). For
/// power-of-two shapes the map is linear over GF(2), so the offset of a
/// lane's element is the XOR of its thread part and a constant per register.
struct LdsLayout {
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<unsigned, 4> order;
  int64_t vec = 1, maxPhase = 1, rowShift = 0;
  llvm::SmallVector<int64_t, 2> phaseShifts;
  /// The read side uses the target's transpose reads (transposeReadLayout).
  bool transposedRead = false;
  /// Elements from one row (along order[1]) to the next; 0: the row's length.
  /// Padded rows, as the Tensor Data Mover can land them, are unswizzled:
  /// offsets then add up over the coordinates (not XOR).
  int64_t rowPitch = 0;

  /// Row-major, unswizzled.
  static LdsLayout rowMajor(llvm::ArrayRef<int64_t> shape);
  int64_t phaseOf(int64_t row) const {
    int64_t phase = 0;
    for (int64_t s : phaseShifts)
      phase ^= s >= 0 ? row >> s : row << -s;
    return phase & (maxPhase - 1);
  }
  /// The element offset of `coord`.
  int64_t offsetOf(llvm::ArrayRef<int64_t> coord) const;
  std::string str() const;
};

/// How a lane of `layout` accesses `lds`: vectors of registers that are
/// consecutive and aligned in LDS, at most `maxBytes`. The registers need not
/// be consecutive in the lane: `bits` are the register-index bits that step
/// 1, 2, 4, ... elements along the fastest dimension (gathered by shuffles).
struct LdsAccess {
  llvm::SmallVector<unsigned, 4> bits;

  int64_t width() const { return int64_t(1) << bits.size(); }
  /// The registers of the access whose first register is `first`.
  llvm::SmallVector<int64_t> registers(int64_t first) const;
  /// The first register of each access (those of registers that copy others
  /// skipped when asked).
  llvm::SmallVector<int64_t> firstRegisters(const LinearLayout &layout, bool skipCopies) const;
};
LdsAccess ldsAccess(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, int64_t maxBytes = 16);

/// The layout whose plain reads of `read.elements` elements give the
/// addresses of the transpose reads that hand `to`'s lanes their elements,
/// or nullopt where `to` cannot be read so. Its registers [0, log E) are
/// `to`'s lanes [0, log E), which step 1, 2, ... along the dimension the
/// reads are contiguous in; its lanes [0, log G/E) are `to`'s lanes
/// [log E, log G) and its next log E lanes `to`'s registers [0, log E),
/// the elements each lane receives: register r + e of `to` (r a multiple of
/// E) is element e of the read of register r.
std::optional<LinearLayout> transposeReadLayout(const LinearLayout &to, const LdsTransposeRead &read,
                                                int64_t eltBytes);

/// One side of an exchange, per wave: its LDS instructions and the cycles
/// they take (one per phase of lanes the banks serve at once, plus one per
/// extra dword a bank is asked for within a phase).
struct LdsCost {
  int64_t instructions = 0, cycles = 0, conflictCycles = 0;
};
/// The accesses of `layout` (its owning lanes only, for a write) to `lds`
/// with `banks` 4-byte banks.
LdsCost ldsCost(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, unsigned banks,
                bool write, int64_t maxBytes = 16);

/// Which lanes use which bank in each phase of the first access of `layout`
/// to `lds` (a lane's later dwords too): a bank with two lanes in one phase
/// is a conflict. For pictures and tools; the compiler prices by ldsCost.
struct LdsBankMap {
  int64_t accessBytes = 0, lanesPerPhase = 0;
  LdsCost cost;
  std::vector<std::vector<std::vector<int64_t>>> lanes; // [phase][bank] -> lanes
};
LdsBankMap ldsBankMap(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, unsigned banks,
                      bool write, int64_t maxBytes = 16);

/// An exchange from `from` to `to` through LDS on `target`: the arrangement
/// the compiler chooses (or the plain row-major one), and both sides' banks
/// (the read at the addresses the lanes supply, for transpose reads).
struct LdsExchangeMap {
  LdsLayout lds;
  LdsBankMap write, read;
};
LdsExchangeMap ldsExchangeMap(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes,
                              const Target &target, bool rowMajor = false);

/// The arrangement for writing a tile in layout `from` and reading it back in
/// layout `to` (with the target's transpose reads where they are cheaper)
/// at the fewest cycles of bank service, issue and register packing (then
/// instructions, then the plainest swizzle).
LdsLayout chooseLdsLayout(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes,
                          unsigned banks, const LdsTransposeRead &transposeRead = {});
/// `lds` (an arrangement fixed by whatever writes it, as a Tensor Data Mover
/// copy) read in layout `to`: with the target's transpose reads where they
/// are cheaper than plain ones. `cycles`, if given, gets the read's cost.
LdsLayout chooseLdsRead(LdsLayout lds, const LinearLayout &to, int64_t eltBytes, unsigned banks,
                        const LdsTransposeRead &transposeRead = {}, int64_t *cycles = nullptr);

/// Bytes each lane copies per direct-to-LDS or async load (tile.async_load).
constexpr int64_t kCopyRunBytes = 16;
/// The arrangement for a tile that tile.async_load copies into LDS, in runs
/// of kCopyRunBytes contiguous along dimension `dim` (so its swizzle moves
/// whole runs), read back in layout `to` at the fewest cycles: the copies
/// write runs in lane order, without bank conflicts, so only the reads are
/// priced.
LdsLayout chooseCopiedLdsLayout(const LinearLayout &to, unsigned dim, int64_t eltBytes, unsigned banks,
                                const LdsTransposeRead &transposeRead = {});
/// The layout of the pointers whose lanes copy consecutive runs of `lds`
/// (a wave's lanes in order, as gfx950's direct-to-LDS loads must write):
/// offset bits within a run are registers, the next ones lanes, the highest
/// ones warps, the rest registers. None when the tile is not a power of two
/// or smaller than one run per lane of the workgroup.
std::optional<LinearLayout> copyWriterLayout(const LdsLayout &lds, int64_t eltBytes, unsigned waveSize,
                                             unsigned numWarps);
/// Whether pointers in `layout` copy runs of `lds` as the async loads write
/// them: each register group of a run is consecutive in the slot and a
/// wave's lanes write consecutive runs, whichever higher bits of the slot
/// the other registers and the warps take (copyWriterLayout's is one such).
bool copiesRunsInLaneOrder(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes);

} // namespace rocktile

#endif
