// What is provable about the integer and pointer values of a tile, per
// dimension, so that memory accesses can be vectorized:
//  - contiguity: elements come in runs of this many consecutive values;
//  - divisibility: the first value of each run is a multiple of this
//    (for pointers: the address in bytes);
//  - constancy: elements come in runs of this many equal values.
// All three are powers of two. Scalars are treated as 1-element tiles.
#ifndef ROCKTILE_ANALYSIS_AXISINFO_H
#define ROCKTILE_ANALYSIS_AXISINFO_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace mlir::scf {
class ForOp;
}

namespace rocktile {

struct AxisInfo {
  llvm::SmallVector<int64_t, 4> contiguity, divisibility, constancy;

  /// Knowing nothing about a value of `rank`.
  static AxisInfo unknown(unsigned rank);
  unsigned getRank() const { return contiguity.size(); }
};

class AxisInfoAnalysis {
public:
  /// Analyses every value defined in `root`'s regions, in program order.
  explicit AxisInfoAnalysis(mlir::Operation *root);
  const AxisInfo &get(mlir::Value v) const;

private:
  void visitBlock(mlir::Block &block);
  void visitOp(mlir::Operation *op);
  void visitFor(mlir::scf::ForOp loop);
  void setResults(mlir::Operation *op, llvm::ArrayRef<AxisInfo> results);
  /// What `op`'s single result is, from its operands.
  AxisInfo visit(mlir::Operation *op);
  llvm::DenseMap<mlir::Value, AxisInfo> infos;
};

/// The value of an integer constant or of a splat of one.
std::optional<int64_t> getConstantInt(mlir::Value v);

/// Whether `v` is a constant tile (or a splat of a constant) whose bits are
/// all zero (+0.0, not -0.0): what a buffer load gives masked-off lanes.
bool isZeroBits(mlir::Value v);

/// Whether the integer `v` is provably >= 0: built from non-negative
/// constants, program ids and counts, and loop indices counting up from
/// such, by sums, products, quotients, ... that do not overflow (trusted, as
/// Triton's AMD backend trusts its buffer offsets).
bool isNonNegative(mlir::Value v);

/// Elements per access for a tile of pointers read or written along
/// dimension `dim`, given `contiguousRegisters` consecutive elements per
/// lane: bounded by contiguity, alignment, mask constancy and 128 bits.
int64_t getAccessVectorWidth(const AxisInfoAnalysis &axis, mlir::Value ptr,
                             mlir::Value mask, unsigned dim,
                             int64_t contiguousRegisters);

} // namespace rocktile

#endif
