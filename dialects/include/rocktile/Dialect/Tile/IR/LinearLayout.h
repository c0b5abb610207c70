// Linear layouts: the one representation of how a tile is spread over a
// workgroup. A layout maps the bits of (register, lane, warp) indices to
// tensor coordinates linearly over GF(2): the coordinate held by
// (r, l, w) is the XOR of the bases of the bits set in r, l and w.
// Blocked, slice, and (later) MFMA/WMMA and shared layouts are all
// constructors of this one type, so conversions, vector widths and bank
// analysis are computed from the maps and never written per pair of layouts.
#ifndef ROCKTILE_DIALECT_TILE_IR_LINEARLAYOUT_H
#define ROCKTILE_DIALECT_TILE_IR_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <string>

namespace rocktile {

class LinearLayout {
public:
  enum InDim { Register = 0, Lane = 1, Warp = 2 };
  using Coord = llvm::SmallVector<int64_t, 4>;

  LinearLayout(llvm::ArrayRef<int64_t> shape,
               std::array<llvm::SmallVector<Coord>, 3> bases);

  /// Blocked distribution (see #tile.blocked) of a tensor of `shape`.
  static LinearLayout blocked(llvm::ArrayRef<int64_t> shape,
                              llvm::ArrayRef<unsigned> sizePerThread,
                              llvm::ArrayRef<unsigned> threadsPerWarp,
                              llvm::ArrayRef<unsigned> warpsPerCTA,
                              llvm::ArrayRef<unsigned> order);

  /// This layout with tensor dimension `dim` shrunk to size 1: what held
  /// any element along it holds its one element; registers that then hold
  /// the same element are merged.
  LinearLayout collapseDim(unsigned dim) const;
  /// This layout with tensor dimension `dim` removed (collapsed first).
  LinearLayout dropDim(unsigned dim) const;
  /// This layout of a tile `factor` (a power of two) times shorter along
  /// `dim`: what held element x along it holds element x / factor (a
  /// shift, linear as the bases are); registers that then hold what
  /// others hold are dropped. The layout of the bytes of two-element pairs
  /// (factor 2), or of the scales of blocks of elements.
  LinearLayout divideDim(unsigned dim, int64_t factor) const;
  /// This layout of the same elements in row-major order seen as a tensor
  /// of `newShape` (as many elements, powers of two): every register, lane
  /// and warp holds the elements it held, so a reshape into it moves nothing.
  LinearLayout reshape(llvm::ArrayRef<int64_t> newShape) const;

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  llvm::ArrayRef<Coord> getBases(InDim in) const { return bases[in]; }
  int64_t getNumRegisters() const { return int64_t(1) << bases[Register].size(); }
  int64_t getNumLanes() const { return int64_t(1) << bases[Lane].size(); }
  int64_t getNumWarps() const { return int64_t(1) << bases[Warp].size(); }

  /// The coordinate contributed by `index` of input dimension `in` alone.
  Coord apply(InDim in, uint64_t index) const;
  /// The coordinate held by (reg, lane, warp).
  Coord apply(uint64_t reg, uint64_t lane, uint64_t warp) const;

  /// The index bits of `in` whose basis is zero: a register, lane or warp
  /// with one of them set holds a copy of what another holds.
  uint64_t getCopyBits(InDim in) const;

  /// Number of leading registers that hold consecutive elements along `dim`
  /// (a power of two): the widest vector a lane can access in one go.
  int64_t getContiguousRegisters(unsigned dim) const;

  /// True when no base mixes tensor dimensions and, per dimension, the bases
  /// of different input dimensions touch disjoint bits, so XOR equals ADD.
  bool isAdditive() const;

  bool operator==(const LinearLayout &o) const {
    return shape == o.shape && bases == o.bases;
  }
  bool operator!=(const LinearLayout &o) const { return !(*this == o); }
  std::string str() const;

private:
  llvm::SmallVector<int64_t, 4> shape;
  std::array<llvm::SmallVector<Coord>, 3> bases;
};

} // namespace rocktile

#endif
