#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::tile;

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<unsigned> sizePerThread,
                          ArrayRef<unsigned> threadsPerWarp,
                          ArrayRef<unsigned> warpsPerCTA,
                          ArrayRef<unsigned> order) {
  size_t rank = order.size();
  if (sizePerThread.size() != rank || threadsPerWarp.size() != rank ||
      warpsPerCTA.size() != rank)
    return emitError() << "blocked layout: sizePerThread, threadsPerWarp, "
                          "warpsPerCTA and order must have the same length";
  for (ArrayRef<unsigned> sizes : {sizePerThread, threadsPerWarp, warpsPerCTA})
    for (unsigned s : sizes)
      if (!llvm::isPowerOf2_32(s))
        return emitError() << "blocked layout: sizes must be powers of two, got "
                           << s;
  SmallVector<unsigned> sorted(order);
  llvm::sort(sorted);
  for (unsigned i = 0; i < rank; ++i)
    if (sorted[i] != i)
      return emitError() << "blocked layout: order must be a permutation of 0.."
                         << rank - 1;
  return success();
}

static LogicalResult verifyRank(function_ref<InFlightDiagnostic()> emitError, Attribute layout,
                                size_t layoutRank, ArrayRef<int64_t> shape) {
  if (layoutRank == shape.size())
    return success();
  return emitError() << "layout " << layout << " has rank " << layoutRank
                     << " but the tensor has rank " << shape.size();
}

LogicalResult BlockedLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                                function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getOrder().size(), shape);
}

LinearLayout BlockedLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout::blocked(shape, getSizePerThread(), getThreadsPerWarp(),
                               getWarpsPerCTA(), getOrder());
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, BlockedLayoutAttr parent) {
  if (dim >= parent.getOrder().size())
    return emitError() << "slice layout: dim " << dim
                       << " is out of range for a parent of rank "
                       << parent.getOrder().size();
  return success();
}

LogicalResult SliceLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                              function_ref<InFlightDiagnostic()> emitError) const {
  return verifyRank(emitError, *this, getParent().getOrder().size() - 1, shape);
}

LinearLayout SliceLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return getParent().toLinearLayout(parentShape).dropDim(getDim());
}

std::optional<LinearLayout> rocktile::tile::getLinearLayout(RankedTensorType type) {
  Attribute enc = type.getEncoding();
  if (auto b = dyn_cast_or_null<BlockedLayoutAttr>(enc))
    return b.toLinearLayout(type.getShape());
  if (auto s = dyn_cast_or_null<SliceLayoutAttr>(enc))
    return s.toLinearLayout(type.getShape());
  return std::nullopt;
}
