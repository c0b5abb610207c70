// tile.dot: the product as the target's matrix instructions (amdgpu.mfma on
// gfx950, amdgpu.wmma on gfx1250), one per instruction tile of this warp's
// share of D and per step along K. Layout assignment (or the author, at the
// explicit level) gave A, B and D the instruction's layouts, in any order of
// registers and warps, so each instruction's operands are registers the lane
// already holds: which ones is read off the layouts by coordinate.
#include "KernelLowering.h"
#include "rocktile/Target/MatrixCore.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include <map>

using namespace mlir;
using namespace rocktile;
using namespace rocktile::simt;

namespace {
/// The register of `layout` that holds `coord` in lane 0 of warp 0.
class RegisterIndex {
public:
  explicit RegisterIndex(const LinearLayout &layout) {
    for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
      index[layout.apply(LinearLayout::Register, r)] = r;
  }
  int64_t at(const LinearLayout::Coord &coord) const { return index.at(coord); }

private:
  std::map<LinearLayout::Coord, int64_t> index;
};

LinearLayout::Coord coordOf(llvm::ArrayRef<std::array<int, 2>> slotBases, unsigned slot,
                            int64_t row, int64_t col) {
  for (auto [bit, base] : llvm::enumerate(slotBases))
    if (slot >> bit & 1)
      row += base[0], col += base[1];
  return {row, col};
}

/// Whether `layout` is `want` up to which register holds which and which
/// warp is which: the instructions read registers by coordinate, and every
/// warp runs the same code on its own part, so neither order matters.
bool sameUpToOrder(const LinearLayout &layout, const LinearLayout &want) {
  auto sorted = [](llvm::ArrayRef<LinearLayout::Coord> bases) {
    SmallVector<LinearLayout::Coord> s(bases);
    llvm::sort(s);
    return s;
  };
  return layout.getShape() == want.getShape() &&
         layout.getBases(LinearLayout::Lane) == want.getBases(LinearLayout::Lane) &&
         sorted(layout.getBases(LinearLayout::Register)) == sorted(want.getBases(LinearLayout::Register)) &&
         sorted(layout.getBases(LinearLayout::Warp)) == sorted(want.getBases(LinearLayout::Warp));
}

/// Whether each warp holds the rows of A and the columns of B of its part
/// of D: warp bit i of A (B) is D's without its column (row).
bool warpsAgree(const LinearLayout &a, const LinearLayout &b, const LinearLayout &d) {
  unsigned rank = d.getRank();
  for (auto [i, dw] : llvm::enumerate(d.getBases(LinearLayout::Warp))) {
    LinearLayout::Coord aw = dw, bw = dw;
    aw[rank - 1] = 0, bw[rank - 2] = 0;
    if (a.getBases(LinearLayout::Warp)[i] != aw || b.getBases(LinearLayout::Warp)[i] != bw)
      return false;
  }
  return true;
}

/// tile.dot's mapping attributes as dotLayouts takes them.
DotOptions dotOptions(tile::DotOp op) {
  DotOptions options;
  options.warpsN = op.getWarpsN().value_or(0);
  options.transposed = op.getTransposed();
  if (auto order = op.getKOrder())
    options.kOrder.assign(order->begin(), order->end());
  return options;
}
} // namespace

LogicalResult KernelLowering::lowerDot(tile::DotOp op) {
  auto instrName = op.getInstr();
  const MatrixCoreInstr *instr = nullptr;
  for (const MatrixCoreInstr &m : target.matrixInstrs)
    if (instrName && m.name == *instrName)
      instr = &m;
  if (!instr)
    return op.emitError() << "tile.dot has no matrix instruction of " << target.chip
                          << ": run tile-assign-layouts first";
  int64_t rank = op.getType().getRank(), batch = rank == 3 ? op.getType().getDimSize(0) : 0;
  int64_t M = op.getType().getDimSize(rank - 2), N = op.getType().getDimSize(rank - 1),
          K = op.getReductionSize();
  unsigned numWarps = layoutOf(op).getNumWarps();
  DotOptions options = dotOptions(op);
  DotLayouts want = dotLayouts(*instr, M, N, K, numWarps, batch, options);
  // E2M1 operands come as bytes of two consecutive k.
  bool packedA = op.getAFormat() == "e2m1", packedB = op.getBFormat() == "e2m1";
  bool scaled = bool(op.getAScale());
  int64_t block = op.getScaleBlock();
  ScaledDotLayouts scaledWant =
      scaled ? scaledDotLayouts(*instr, M, N, K, numWarps, options, packedA, packedB, block)
             : ScaledDotLayouts{want.a, want.b, want.d, want.a, want.b, *instr, *instr};
  LinearLayout aLayout = layoutOf(op.getA()), bLayout = layoutOf(op.getB()), dLayout = layoutOf(op);
  if (!sameUpToOrder(aLayout, scaledWant.a) || !sameUpToOrder(bLayout, scaledWant.b) ||
      !sameUpToOrder(dLayout, want.d) || layoutOf(op.getAcc()) != dLayout || !warpsAgree(aLayout, bLayout, dLayout))
    return op.emitError() << "tile.dot operands must have the layouts of " << instr->name;
  // The instruction's operand bases (E2M1 ones where they differ), and for
  // a scaled dot those of its scales: each lane gives the instruction the
  // scales of the blocks of k the instruction reads there.
  const MatrixCoreInstr &operands = scaledWant.values, &scales = scaledWant.scales;
  std::optional<RegisterIndex> aScaleRegs, bScaleRegs;
  Value aScale, bScale;
  if (scaled) {
    if (layoutOf(op.getAScale()) != scaledWant.aScale || layoutOf(op.getBScale()) != scaledWant.bScale)
      return op.emitError() << "tile.dot scales must have the layouts of " << instr->name << "'s operands";
    aScaleRegs.emplace(scaledWant.aScale), bScaleRegs.emplace(scaledWant.bScale);
    aScale = lookup(op.getAScale()), bScale = lookup(op.getBScale());
  }

  // Operands read from pipelined LDS slots: their reads, issued together
  // ahead of the matrix instructions, complete in order, so one wait for
  // all of them (and a fence keeping the backend's scheduler from moving
  // the instructions back among the reads) replaces a wait before each
  // matrix instruction that first uses a later read. Other waves of the
  // SIMD hide the reads' latency. Operands of LDS exchanges keep the
  // backend's interleaving: read whole, ahead of the instructions, their
  // tiles would stay live together (measured: spills at 256x256 bf16 on
  // gfx950; gfx1250's 128x64x64 attention 15% more instructions).
  if (llvm::any_of(ValueRange{op.getA(), op.getB()}, [](Value v) { return v.getDefiningOp<tile::LocalLoadOp>(); })) {
    amdgpu::MemoryCounterWaitOp::create(b, loc(), nullptr, nullptr, /*ds=*/b.getI32IntegerAttr(0), nullptr, nullptr);
    ROCDL::SchedBarrier::create(b, loc(), 0);
  }
  RegisterIndex aRegs(aLayout), bRegs(bLayout), dRegs(dLayout);
  Value a = lookup(op.getA()), bv = lookup(op.getB()), acc = lookup(op.getAcc());
  // The instruction multiplies X (m x k slots) by Y (k x n) into Z: A by B
  // into D, or Bᵀ by Aᵀ into Dᵀ. Its tiles step over Z's rows and columns.
  bool t = options.transposed;
  int64_t zRows = t ? N : M, zCols = t ? M : N;
  int64_t stepRows = instr->m * (t ? want.warpsN : want.warpsM),
          stepCols = instr->n * (t ? want.warpsM : want.warpsN);
  Type accType = op.getType().getElementType();
  auto dVector = VectorType::get({int64_t(instr->dSlots())}, accType);
  int64_t tilesRows = std::max<int64_t>(zRows / stepRows, 1), tilesCols = std::max<int64_t>(zCols / stepCols, 1);
  int64_t tilesBatch = std::max<int64_t>(batch / want.warpsBatch, 1);
  SmallVector<Value> result(dLayout.getNumRegisters());
  auto gather = [&](Value from, ArrayRef<int64_t> regs) {
    return vector::ShuffleOp::create(b, loc(), from, from, regs).getResult();
  };
  for (int64_t bt = 0; bt < tilesBatch; ++bt)
  for (int64_t rt = 0; rt < tilesRows; ++rt)
    for (int64_t ct = 0; ct < tilesCols; ++ct) {
      // The coordinate in D (or A, B) of Z's (X's, Y's) (row, col), with
      // the batch index in front for a 3-D dot.
      auto at = [&](LinearLayout::Coord c, bool swap) {
        if (swap)
          std::swap(c[0], c[1]);
        if (rank == 3)
          c.insert(c.begin(), bt * want.warpsBatch);
        return c;
      };
      SmallVector<int64_t> dIdx;
      for (unsigned s = 0; s < instr->dSlots(); ++s)
        dIdx.push_back(dRegs.at(at(coordOf(instr->d.registers, s, rt * stepRows, ct * stepCols), t)));
      Value d = gather(acc, dIdx);
      for (int64_t k0 = 0; k0 < K; k0 += instr->k) {
        SmallVector<int64_t> xIdx, yIdx;
        // The register holding an element (in its operand's coordinates,
        // K along `kDim`): of E2M1 bytes, the even k's byte holds both.
        auto add = [](SmallVectorImpl<int64_t> &idx, const RegisterIndex &regs, LinearLayout::Coord c,
                      bool packed, unsigned kDim) {
          if (!packed)
            idx.push_back(regs.at(c));
          else if (c[kDim] % 2 == 0)
            c[kDim] /= 2, idx.push_back(regs.at(c));
        };
        // X's (row, k) is A's (row, k), or B's (k, row) when transposed.
        for (unsigned s = 0; s < operands.aSlots(); ++s) {
          LinearLayout::Coord x = coordOf(operands.a.registers, s, rt * stepRows, k0);
          x[1] = renameK(options.kOrder, x[1]);
          add(xIdx, t ? bRegs : aRegs, at(x, t), t ? packedB : packedA, t ? 0 : 1);
        }
        for (unsigned s = 0; s < operands.bSlots(); ++s) {
          LinearLayout::Coord y = coordOf(operands.b.registers, s, k0, ct * stepCols);
          y[0] = renameK(options.kOrder, y[0]);
          add(yIdx, t ? aRegs : bRegs, at(y, t), t ? packedA : packedB, t ? 1 : 0);
        }
        Value xv = gather(t ? bv : a, xIdx), yv = gather(t ? a : bv, yIdx);
        // E2M1 bytes as codes; FP6 codes in the low 6 bits of each byte.
        auto unpack = [&](Value bytes, std::optional<StringRef> format) -> Value {
          int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
          if (format == "e2m1")
            return vector::BitCastOp::create(b, loc(), VectorType::get({2 * n}, b.getType<Float4E2M1FNType>()),
                                             bytes);
          if (format != "e2m3" && format != "e3m2")
            return bytes;
          Value bits = arith::TruncIOp::create(b, loc(), VectorType::get({n}, b.getIntegerType(6)), bytes);
          Type fp6 = format == "e2m3" ? Type(b.getType<Float6E2M3FNType>()) : b.getType<Float6E3M2FNType>();
          return arith::BitcastOp::create(b, loc(), VectorType::get({n}, fp6), bits);
        };
        xv = unpack(xv, t ? op.getBFormat() : op.getAFormat()), yv = unpack(yv, t ? op.getAFormat() : op.getBFormat());
        if (instr->aSlots() == 1) // the f32 MFMAs take scalars
          xv = vector::ExtractOp::create(b, loc(), xv, int64_t(0)),
          yv = vector::ExtractOp::create(b, loc(), yv, int64_t(0));
        if (scaled) {
          // X's and Y's scales: the scale tile's registers (row or column,
          // block) of each of the instruction's scale slots.
          Type scaleElt = block == 32 ? Type(b.getType<Float8E8M0FNUType>()) : b.getType<Float8E4M3FNType>();
          auto scalesOf = [&](bool ofA, OperandBases bases, int64_t row, bool ofY) -> Value {
            SmallVector<int64_t> regs;
            for (unsigned s = 0; s < (1u << bases.registers.size()); ++s) {
              // Y's bases are (block, column); both scale tiles are (row or column, block).
              LinearLayout::Coord c = ofY ? coordOf(bases.registers, s, k0 / block, row)
                                          : coordOf(bases.registers, s, row, k0 / block);
              if (ofY)
                std::swap(c[0], c[1]);
              regs.push_back((ofA ? *aScaleRegs : *bScaleRegs).at(c));
            }
            Value bytes = gather(ofA ? aScale : bScale, regs);
            auto type = VectorType::get({int64_t(regs.size())}, scaleElt);
            Value typed = arith::BitcastOp::create(b, loc(), type, bytes);
            if (instr->op == "wmma")
              return typed;
            return vector::ExtractOp::create(b, loc(), typed, int64_t(0));
          };
          Value xs = scalesOf(!t, scales.a, rt * stepRows, false), ys = scalesOf(t, scales.b, ct * stepCols, true);
          if (instr->op == "wmma")
            d = amdgpu::ScaledWMMAOp::create(b, loc(), dVector, b.getI32IntegerAttr(instr->m),
                                             b.getI32IntegerAttr(instr->n), b.getI32IntegerAttr(instr->k), xv, yv, d,
                                             xs, b.getI32IntegerAttr(0), ys, b.getI32IntegerAttr(0));
          else
            d = amdgpu::ScaledMFMAOp::create(b, loc(), dVector, b.getI32IntegerAttr(instr->m),
                                             b.getI32IntegerAttr(instr->n), b.getI32IntegerAttr(instr->k), xv, yv,
                                             d, xs, ys, b.getI32IntegerAttr(0), b.getI32IntegerAttr(0));
        } else if (instr->op == "mfma")
          d = amdgpu::MFMAOp::create(b, loc(), dVector, instr->m, instr->n, instr->k, /*blocks=*/1, xv,
                                     yv, d);
        else
          d = amdgpu::WMMAOp::create(b, loc(), dVector, instr->m, instr->n, instr->k, xv, yv, d);
      }
      for (auto [s, r] : llvm::enumerate(dIdx))
        result[r] = vector::ExtractOp::create(b, loc(), d, int64_t(s));
    }
  auto type = laneVectorType(op.getType(), dLayout);
  values[op] = {Value(), vector::FromElementsOp::create(b, loc(), type, result)};
  return success();
}

// tile.scaled_upcast: each run of a lane's registers that one scaled
// conversion makes (2 or 8 consecutive elements along the axis, which layout
// assignment placed in consecutive registers) from its codes' bytes and its
// block's scale.
LogicalResult KernelLowering::lowerScaledUpcast(tile::ScaledUpcastOp op) {
  unsigned axis = op.getAxis();
  int64_t run = target.scaledUpcastElements();
  LinearLayout out = layoutOf(op), codes = layoutOf(op.getCodes()), scales = layoutOf(op.getScales());
  if (!out.isAdditive() || out.getContiguousRegisters(axis) < run || codes != out.divideDim(axis, 2) ||
      scales != out.divideDim(axis, op.getScaleBlock()))
    return op.emitError("tile.scaled_upcast needs runs of ")
           << run << " elements along its axis in registers, and its operands' layouts divided from its own";
  Type elt = op.getType().getElementType(), fp4 = b.getType<Float4E2M1FNType>();
  bool perByte = target.scaledUpcast == ScaledUpcast::PerByte;
  // The scale of out register `r` as its conversion takes it, made once per
  // register of the scales: on gfx950 fp32, 2^(s-127), 2^-127 for 0 (a
  // subnormal), NaN for 0xFF; on gfx1250 the E8M0 byte in all four bytes of
  // the lane's scale word, so that any byte the instruction selects is it.
  RegisterIndex scaleIndex(scales);
  DenseMap<int64_t, Value> scaleValues;
  auto scaleOf = [&](int64_t r) {
    LinearLayout::Coord c = out.apply(LinearLayout::Register, r);
    c[axis] /= op.getScaleBlock();
    Value &value = scaleValues[scaleIndex.at(c)];
    if (value)
      return value;
    Value s = arith::ExtUIOp::create(
        b, loc(), b.getI32Type(), vector::ExtractOp::create(b, loc(), lookup(op.getScales()), scaleIndex.at(c)));
    if (perByte) {
      Value isZero = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq, s, i32(0));
      Value isNan = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::eq, s, i32(0xFF));
      Value bits = arith::SelectOp::create(b, loc(), isZero, i32(0x00400000),
                                           arith::ShLIOp::create(b, loc(), s, i32(23)));
      bits = arith::SelectOp::create(b, loc(), isNan, i32(0x7FC00000), bits);
      return value = arith::BitcastOp::create(b, loc(), b.getF32Type(), bits);
    }
    Value word = arith::MulIOp::create(b, loc(), s, i32(0x01010101));
    return value = vector::BitCastOp::create(
               b, loc(), VectorType::get({4}, b.getType<Float8E8M0FNUType>()),
               vector::BroadcastOp::create(b, loc(), VectorType::get({1}, b.getI32Type()), word));
  };
  // A chunk: the lane's codes of up to four bytes, as E2M1 elements.
  int64_t chunk = std::min<int64_t>(8, out.getNumRegisters());
  auto codesOf = [&](int64_t r) {
    Value bytes = slice(lookup(op.getCodes()), r / 2, chunk / 2);
    if (chunk == 2)
      bytes = vector::BroadcastOp::create(b, loc(), VectorType::get({1}, b.getI8Type()), bytes);
    return vector::BitCastOp::create(b, loc(), VectorType::get({chunk}, fp4), bytes).getResult();
  };
  // gfx1250's conversion reads the scale word of lane L % 16 of the first
  // 16 lanes, or of the second with first scale lane 16: where lanes 16
  // apart may hold different scales, each half takes the conversion that
  // reads its own.
  const int64_t halfLane = 16;
  bool halvesShare = scales.getNumLanes() <= halfLane || (scales.getCopyBits(LinearLayout::Lane) & halfLane);
  SmallVector<Value> parts;
  for (int64_t r = 0; r < out.getNumRegisters(); r += chunk) {
    Value source = codesOf(r);
    if (perByte) {
      for (int64_t pair = 0; pair < chunk / 2; ++pair)
        parts.push_back(amdgpu::ScaledExtPackedOp::create(b, loc(), VectorType::get({2}, elt), source,
                                                          scaleOf(r + 2 * pair), uint32_t(pair)));
      continue;
    }
    auto convert = [&](uint32_t firstLane) {
      return amdgpu::ScaledExtPackedMatrixOp::create(b, loc(), VectorType::get({8}, elt), source, scaleOf(r),
                                                     /*blockSize=*/32, firstLane, /*firstScaleByte=*/0)
          .getResult();
    };
    if (halvesShare) {
      parts.push_back(convert(0));
      continue;
    }
    Value lower = arith::CmpIOp::create(b, loc(), arith::CmpIPredicate::ult, laneId, i32(halfLane));
    Value fromLower = convert(0), fromUpper = convert(halfLane);
    parts.push_back(arith::SelectOp::create(b, loc(), lower, fromLower, fromUpper));
  }
  // Concatenated, the parts hold the registers in order.
  values[op] = {Value(), concatParts(parts)};
  return success();
}
