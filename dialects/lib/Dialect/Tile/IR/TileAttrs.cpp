#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace rocktile;
using namespace rocktile::tile;

/// `order` (a layout's dimensions, fastest first) is a permutation.
static LogicalResult verifyOrder(function_ref<InFlightDiagnostic()> emitError, StringRef layout,
                                 ArrayRef<unsigned> order) {
  SmallVector<unsigned> sorted(order);
  llvm::sort(sorted);
  for (unsigned i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i)
      return emitError() << layout << " layout: order must be a permutation of 0.." << order.size() - 1;
  return success();
}

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
  return verifyOrder(emitError, "blocked", order);
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

/// The rank of a slice's parent; none for what cannot be one.
static std::optional<unsigned> parentRank(Attribute parent) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(parent))
    return blocked.getOrder().size();
  if (auto linear = dyn_cast<LinearLayoutAttr>(parent))
    return linear.getRank();
  return std::nullopt;
}

LogicalResult
SliceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        unsigned dim, Attribute parent) {
  std::optional<unsigned> rank = parentRank(parent);
  if (!rank)
    return emitError() << "slice layout: the parent must be a blocked or linear layout, got " << parent;
  if (dim >= *rank)
    return emitError() << "slice layout: dim " << dim
                       << " is out of range for a parent of rank " << *rank;
  return success();
}

/// The parent's shape: `shape` with the sliced dimension re-inserted as 1.
static SmallVector<int64_t> parentShape(SliceLayoutAttr slice, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> parent(shape);
  parent.insert(parent.begin() + std::min<size_t>(slice.getDim(), parent.size()), 1);
  return parent;
}

LogicalResult SliceLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type element,
                                              function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyRank(emitError, *this, *parentRank(getParent()) - 1, shape)))
    return failure();
  return cast<VerifiableTensorEncoding>(getParent())
      .verifyEncoding(parentShape(*this, shape), element, emitError);
}

LinearLayout SliceLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parent = parentShape(*this, shape);
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(getParent()))
    return blocked.toLinearLayout(parent).dropDim(getDim());
  return cast<LinearLayoutAttr>(getParent()).toLinearLayout(parent).dropDim(getDim());
}

LogicalResult SharedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> order,
                                       int64_t vec, int64_t perPhase, int64_t maxPhase, int64_t rowPitch) {
  if (failed(verifyOrder(emitError, "shared", order)))
    return failure();
  for (int64_t v : {vec, perPhase, maxPhase})
    if (v <= 0 || !llvm::isPowerOf2_64(v))
      return emitError() << "shared layout: vec, perPhase and maxPhase must be powers of two, got " << v;
  if (rowPitch < 0 || (rowPitch && maxPhase != 1))
    return emitError() << "shared layout: padded rows (rowPitch " << rowPitch << ") are not swizzled";
  return success();
}

// --- #tile.linear ----------------------------------------------------------

LogicalResult LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned rank,
                                       ArrayRef<int64_t> registers, ArrayRef<int64_t> lanes,
                                       ArrayRef<int64_t> warps) {
  if (rank == 0)
    return emitError() << "linear layout: rank must be positive";
  for (ArrayRef<int64_t> bases : {registers, lanes, warps})
    if (bases.size() % rank)
      return emitError() << "linear layout: every basis must have " << rank << " coordinates";
  return success();
}

static std::array<SmallVector<LinearLayout::Coord>, 3> unflatten(LinearLayoutAttr attr) {
  std::array<SmallVector<LinearLayout::Coord>, 3> bases;
  ArrayRef<int64_t> flat[3] = {attr.getRegisterBases(), attr.getLaneBases(), attr.getWarpBases()};
  for (unsigned in = 0; in < 3; ++in)
    for (size_t i = 0; i < flat[in].size(); i += attr.getRank())
      bases[in].push_back(LinearLayout::Coord(flat[in].slice(i, attr.getRank())));
  return bases;
}

LogicalResult LinearLayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type,
                                               function_ref<InFlightDiagnostic()> emitError) const {
  if (failed(verifyRank(emitError, *this, getRank(), shape)))
    return failure();
  // Every basis inside the tensor; together, one bit per coordinate bit of
  // the tensor (GF(2) rank), so that every element has an owner.
  SmallVector<uint64_t> rows;
  unsigned needed = 0;
  for (int64_t d : shape) {
    if (!llvm::isPowerOf2_64(d))
      return emitError() << "linear layout: tensor dimensions must be powers of two, got " << d;
    needed += llvm::Log2_64(d);
  }
  for (const auto &perIn : unflatten(*this))
    for (const LinearLayout::Coord &c : perIn) {
      uint64_t bits = 0;
      unsigned shift = 0;
      for (auto [v, d] : llvm::zip(c, shape)) {
        if (v < 0 || v >= d)
          return emitError() << "linear layout: a basis lies outside a tensor of shape ["
                             << llvm::make_range(shape.begin(), shape.end()) << "]";
        bits |= uint64_t(v) << shift;
        shift += llvm::Log2_64(d);
      }
      for (uint64_t r : rows) // reduce by the rows so far (each keyed by its top bit)
        if (bits & (uint64_t(1) << llvm::Log2_64(r)))
          bits ^= r;
      if (bits) {
        rows.push_back(bits);
        llvm::sort(rows, std::greater<uint64_t>());
      }
    }
  if (rows.size() != needed)
    return emitError() << "linear layout: its bases reach only 2^" << rows.size()
                       << " of the tensor's 2^" << needed << " elements";
  return success();
}

LinearLayout LinearLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  return LinearLayout(shape, unflatten(*this));
}

static void printBases(AsmPrinter &p, ArrayRef<int64_t> flat, unsigned rank) {
  p << "[";
  for (size_t i = 0; i < flat.size(); i += rank) {
    if (i)
      p << ", ";
    p << "[";
    llvm::interleaveComma(flat.slice(i, rank), p);
    p << "]";
  }
  p << "]";
}

void LinearLayoutAttr::print(AsmPrinter &p) const {
  p << "<register = ";
  printBases(p, getRegisterBases(), getRank());
  p << ", lane = ";
  printBases(p, getLaneBases(), getRank());
  p << ", warp = ";
  printBases(p, getWarpBases(), getRank());
  p << ">";
}

Attribute LinearLayoutAttr::parse(AsmParser &p, Type) {
  SmallVector<int64_t> flat[3];
  std::optional<unsigned> rank;
  auto parseBases = [&](StringRef keyword, SmallVector<int64_t> &out) -> ParseResult {
    if (p.parseKeyword(keyword) || p.parseEqual())
      return failure();
    return p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
      size_t before = out.size();
      if (p.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
            return p.parseInteger(out.emplace_back());
          }))
        return failure();
      unsigned n = out.size() - before;
      if (rank && *rank != n)
        return p.emitError(p.getCurrentLocation(), "every basis must have ") << *rank << " coordinates";
      rank = n;
      return success();
    });
  };
  if (p.parseLess() || parseBases("register", flat[0]) || p.parseComma() ||
      parseBases("lane", flat[1]) || p.parseComma() || parseBases("warp", flat[2]) ||
      p.parseGreater())
    return {};
  if (!rank) {
    p.emitError(p.getNameLoc(), "a linear layout needs at least one basis");
    return {};
  }
  return getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), *rank,
                    ArrayRef<int64_t>(flat[0]), ArrayRef<int64_t>(flat[1]), ArrayRef<int64_t>(flat[2]));
}

std::optional<LinearLayout> rocktile::tile::getLinearLayout(RankedTensorType type) {
  Attribute enc = type.getEncoding();
  if (auto b = dyn_cast_or_null<BlockedLayoutAttr>(enc))
    return b.toLinearLayout(type.getShape());
  if (auto s = dyn_cast_or_null<SliceLayoutAttr>(enc))
    return s.toLinearLayout(type.getShape());
  if (auto l = dyn_cast_or_null<LinearLayoutAttr>(enc))
    return l.toLinearLayout(type.getShape());
  return std::nullopt;
}

LogicalResult rocktile::tile::forEachDefinedValue(Operation *op,
                                                  function_ref<LogicalResult(Value, Operation *)> fn) {
  WalkResult walk = op->walk([&](Operation *inner) {
    for (Value r : inner->getResults())
      if (failed(fn(r, inner)))
        return WalkResult::interrupt();
    for (Region &region : inner->getRegions())
      for (Block &block : region)
        for (Value arg : block.getArguments())
          if (failed(fn(arg, inner)))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

bool rocktile::tile::hasExplicitLayouts(Operation *op) {
  bool any = false;
  LogicalResult all = forEachDefinedValue(op, [&](Value v, Operation *) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    any |= bool(type);
    return success(!type || type.getEncoding());
  });
  return any && succeeded(all);
}
