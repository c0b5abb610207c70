#include "rocktile/Analysis/LdsScratch.h"
#include "llvm/Support/MathExtras.h"
#include <optional>
#include <tuple>

using namespace mlir;
using namespace rocktile;

SmallVector<unsigned> rocktile::getReducedWarpBits(tile::ReduceOp op) {
  auto type = cast<RankedTensorType>(op.getSrcs()[0].getType());
  LinearLayout layout = *tile::getLinearLayout(type);
  SmallVector<unsigned> bits;
  for (auto [bit, basis] : llvm::enumerate(layout.getBases(LinearLayout::Warp)))
    if (basis[op.getAxis()] != 0)
      bits.push_back(bit);
  return bits;
}

int64_t rocktile::exchangeBytes(RankedTensorType type) {
  Type elt = type.getElementType();
  if (isa<tile::PointerType>(elt))
    return 8; // element indices
  return std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1);
}

bool rocktile::needsLdsExchange(tile::ReshapeOp op) {
  LinearLayout from = *tile::getLinearLayout(op.getSrc().getType());
  return *tile::getLinearLayout(op.getType()) != from.reshape(op.getType().getShape());
}

bool rocktile::needsLdsExchange(tile::ConvertLayoutOp op) {
  LinearLayout from = *tile::getLinearLayout(op.getSrc().getType());
  LinearLayout to = *tile::getLinearLayout(op.getType());
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    if (from.getBases(in) != to.getBases(in))
      return true;
  // Same lanes and warps: the registers hold the same set of elements.
  llvm::SmallVector<LinearLayout::Coord> a, b;
  for (int64_t r = 0; r < from.getNumRegisters(); ++r)
    a.push_back(from.apply(LinearLayout::Register, r));
  for (int64_t r = 0; r < to.getNumRegisters(); ++r)
    b.push_back(to.apply(LinearLayout::Register, r));
  llvm::sort(a);
  llvm::sort(b);
  return a != b;
}

/// `layout` restricted to the registers whose coordinate has `value` clear
/// along `dim` (held by register bit `regBit`), with that coordinate bit
/// squeezed out of the shape.
static LinearLayout squeeze(const LinearLayout &layout, unsigned dim, int64_t value, unsigned regBit) {
  llvm::SmallVector<int64_t, 4> shape(layout.getShape());
  shape[dim] /= 2;
  std::array<llvm::SmallVector<LinearLayout::Coord>, 3> bases;
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (auto [bit, basis] : llvm::enumerate(layout.getBases(in))) {
      if (in == LinearLayout::Register && bit == regBit)
        continue;
      LinearLayout::Coord c(basis);
      c[dim] = (c[dim] & (value - 1)) | ((c[dim] >> 1) & ~(value - 1));
      bases[in].push_back(c);
    }
  return LinearLayout(shape, std::move(bases));
}

ExchangePieces rocktile::splitExchange(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes) {
  ExchangePieces pieces{{}, {}, from, to};
  int64_t bytes = ShapedType::getNumElements(from.getShape()) * eltBytes;
  while (bytes > kMaxExchangeBytes) {
    // The highest coordinate bit that both pieces' layouts hold in a register.
    std::optional<std::tuple<unsigned, int64_t, unsigned, unsigned>> best;
    for (unsigned d = 0; d < pieces.from.getRank(); ++d)
      for (int64_t v = pieces.from.getShape()[d] / 2; v >= 1 && !best; v /= 2) {
        LinearLayout::Coord unit(pieces.from.getRank(), 0);
        unit[d] = v;
        auto f = llvm::find(pieces.from.getBases(LinearLayout::Register), unit);
        auto t = llvm::find(pieces.to.getBases(LinearLayout::Register), unit);
        if (f != pieces.from.getBases(LinearLayout::Register).end() &&
            t != pieces.to.getBases(LinearLayout::Register).end())
          best = {d, v, unsigned(f - pieces.from.getBases(LinearLayout::Register).begin()),
                  unsigned(t - pieces.to.getBases(LinearLayout::Register).begin())};
      }
    if (!best)
      break;
    auto [d, v, f, t] = *best;
    // Register bits are named in the original layouts: count the ones
    // already removed below this one.
    auto original = [](llvm::ArrayRef<unsigned> removed, unsigned bit) {
      llvm::SmallVector<unsigned> sorted(removed);
      llvm::sort(sorted);
      for (unsigned r : sorted)
        if (r <= bit)
          ++bit;
      return bit;
    };
    pieces.fromBits.push_back(original(pieces.fromBits, f));
    pieces.toBits.push_back(original(pieces.toBits, t));
    pieces.from = squeeze(pieces.from, d, v, f);
    pieces.to = squeeze(pieces.to, d, v, t);
    bytes /= 2;
  }
  return pieces;
}

LdsLayout rocktile::blockCopyLayout(RankedTensorType block, const Target &target) {
  int64_t eltBytes = exchangeBytes(block);
  LdsLayout plain = LdsLayout::rowMajor(block.getShape());
  std::optional<LinearLayout> to = tile::getLinearLayout(block);
  if (!to || block.getRank() != 2)
    return plain;
  LdsTransposeRead transposeRead = target.transposeRead(eltBytes);
  int64_t cycles = 0;
  LdsLayout best = chooseLdsRead(plain, *to, eltBytes, target.ldsBanks, transposeRead, &cycles);
  int64_t rowDwords = block.getDimSize(1) * eltBytes / 4;
  // The copy pads after every pad-interval dwords: a power of two, 2 to 256.
  if (!llvm::isPowerOf2_64(rowDwords) || rowDwords < 2 || rowDwords > 256)
    return best;
  for (int64_t padDwords : {4, 8}) {
    LdsLayout padded = plain;
    padded.rowPitch = block.getDimSize(1) + padDwords * 4 / eltBytes;
    int64_t c = 0;
    padded = chooseLdsRead(padded, *to, eltBytes, target.ldsBanks, transposeRead, &c);
    if (c < cycles)
      cycles = c, best = padded;
  }
  return best;
}

int64_t rocktile::blockCopyElements(const LdsLayout &lds) {
  int64_t elements = 1;
  for (auto [i, d] : llvm::enumerate(lds.order))
    elements *= i == 0 && lds.rowPitch ? lds.rowPitch : lds.shape[d];
  return elements;
}

RankedTensorType rocktile::slotType(tile::LocalAllocOp buffer) {
  for (Operation *user : buffer->getUsers())
    if (auto load = dyn_cast<tile::LocalLoadOp>(user))
      return load.getType();
  MemRefType type = buffer.getType();
  return RankedTensorType::get(type.getShape().drop_front(), type.getElementType());
}

LdsLayout rocktile::asyncLoadLayout(RankedTensorType read, const Target &target) {
  int64_t eltBytes = exchangeBytes(read);
  std::optional<LinearLayout> to = tile::getLinearLayout(read);
  if (!to) // a slot no layout reads yet
    return LdsLayout::rowMajor(read.getShape());
  return chooseCopiedLdsLayout(*to, read.getRank() - 1, eltBytes, target.ldsBanks, target.transposeRead(eltBytes));
}

LdsLayout rocktile::slotLayout(tile::LocalAllocOp buffer, const Target &target) {
  if (tile::SharedLayoutAttr own = buffer.getArrangementAttr()) {
    LdsLayout lds = LdsLayout::rowMajor(buffer.getType().getShape().drop_front());
    lds.order.assign(own.getOrder().begin(), own.getOrder().end());
    lds.vec = own.getVec();
    // The phase swizzles groups within a row: phases past the row's
    // groups wrap (as Triton's swizzled layouts do for narrow blocks).
    int64_t groups = std::max<int64_t>(lds.shape[lds.order[0]] / lds.vec, 1);
    lds.maxPhase = std::min<int64_t>(own.getMaxPhase(), groups);
    lds.phaseShifts = {int64_t(llvm::Log2_64(own.getPerPhase()))};
    lds.rowPitch = own.getRowPitch();
    return lds;
  }
  bool asyncLoads = llvm::any_of(buffer->getUsers(), llvm::IsaPred<tile::AsyncLoadOp>);
  return asyncLoads ? asyncLoadLayout(slotType(buffer), target) : blockCopyLayout(slotType(buffer), target);
}

bool rocktile::atomicHandsOver(Operation *op) {
  if (!isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) || op->use_empty())
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type)
    return false;
  LinearLayout layout = *tile::getLinearLayout(type);
  return layout.isAdditive() && (layout.getCopyBits(LinearLayout::Lane) || layout.getCopyBits(LinearLayout::Warp));
}

int64_t rocktile::getLdsScratchBytes(Operation *op, const Target &target) {
  // A scalar atomic runs in one thread, which hands the old value to all.
  if (isa<tile::AtomicRMWOp, tile::AtomicCASOp>(op) && !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::max<int64_t>(op->getResult(0).getType().getIntOrFloatBitWidth() / 8, 4);
  if (isa<tile::RealtimeOp>(op)) // thread 0's reading, handed to all
    return 8;
  if (atomicHandsOver(op)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return type.getNumElements() * exchangeBytes(type);
  }
  if (auto reshape = dyn_cast<tile::ReshapeOp>(op))
    return needsLdsExchange(reshape) ? reshape.getType().getNumElements() * exchangeBytes(reshape.getType()) : 0;
  if (auto copy = dyn_cast<tile::DescriptorLoadOp>(op)) // the block as the copy lands it
    return blockCopyElements(blockCopyLayout(copy.getType(), target)) * exchangeBytes(copy.getType());
  if (auto copy = dyn_cast<tile::DescriptorStoreOp>(op)) // the block, row-major, for the copy to take
    return copy.getValue().getType().getNumElements() * exchangeBytes(copy.getValue().getType());
  if (auto gather = dyn_cast<tile::GatherOp>(op))
    return gather.getSrc().getType().getNumElements() * exchangeBytes(gather.getSrc().getType());
  if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op)) {
    if (!needsLdsExchange(convert))
      return 0;
    int64_t eltBytes = exchangeBytes(convert.getType());
    ExchangePieces pieces = splitExchange(*tile::getLinearLayout(convert.getSrc().getType()),
                                          *tile::getLinearLayout(convert.getType()), eltBytes);
    return convert.getType().getNumElements() / pieces.count() * eltBytes;
  }
  auto reduce = dyn_cast<tile::ReduceOp>(op);
  if (!reduce)
    return 0;
  int64_t warps = int64_t(1) << getReducedWarpBits(reduce).size();
  if (warps == 1)
    return 0;
  int64_t bytes = 0;
  for (Value r : reduce.getResults()) {
    auto t = dyn_cast<RankedTensorType>(r.getType());
    int64_t elements = t ? t.getNumElements() : 1;
    int64_t eltBytes =
        std::max<int64_t>(tile::getElementTypeOrSelf(r.getType()).getIntOrFloatBitWidth() / 8, 1);
    // One slot per (warp along the axis, output element).
    bytes += warps * elements * ((eltBytes + 3) / 4 * 4);
  }
  return bytes;
}
