// tile.dot: the product as the target's matrix instructions (amdgpu.mfma on
// gfx950, amdgpu.wmma on gfx1250), one per instruction tile of this warp's
// share of D and per step along K. Layout assignment gave A, B and D the
// instruction's layouts, so each instruction's operands are registers the
// lane already holds: which ones is read off the layouts by coordinate.
#include "KernelLowering.h"
#include "rocktile/Target/MatrixCore.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
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
          K = op.getA().getType().getDimSize(rank - 1);
  unsigned numWarps = layoutOf(op).getNumWarps();
  DotLayouts want = dotLayouts(*instr, M, N, K, numWarps, batch);
  if (layoutOf(op.getA()) != want.a || layoutOf(op.getB()) != want.b ||
      layoutOf(op.getAcc()) != want.d || layoutOf(op) != want.d)
    return op.emitError() << "tile.dot operands must have the layouts of " << instr->name;

  RegisterIndex aRegs(want.a), bRegs(want.b), dRegs(want.d);
  Value a = lookup(op.getA()), bv = lookup(op.getB()), acc = lookup(op.getAcc());
  Type accType = op.getType().getElementType();
  auto dVector = VectorType::get({int64_t(instr->dSlots())}, accType);
  // Instruction tiles of this warp: its first tile is at row 0 / column 0 of
  // the register part of the layouts; further ones follow each warp layer.
  int64_t stepM = instr->m * want.warpsM, stepN = instr->n * want.warpsN;
  int64_t tilesM = std::max<int64_t>(M / stepM, 1), tilesN = std::max<int64_t>(N / stepN, 1);
  int64_t tilesBatch = std::max<int64_t>(batch / want.warpsBatch, 1);
  SmallVector<Value> result(want.d.getNumRegisters());
  auto gather = [&](Value from, ArrayRef<int64_t> regs) {
    return vector::ShuffleOp::create(b, loc(), from, from, regs).getResult();
  };
  for (int64_t bt = 0; bt < tilesBatch; ++bt)
  for (int64_t mt = 0; mt < tilesM; ++mt)
    for (int64_t nt = 0; nt < tilesN; ++nt) {
      // The coordinate of a slot, with the batch index in front for a 3-D dot.
      auto at = [&](LinearLayout::Coord c) {
        if (rank == 3)
          c.insert(c.begin(), bt * want.warpsBatch);
        return c;
      };
      SmallVector<int64_t> dIdx;
      for (unsigned s = 0; s < instr->dSlots(); ++s)
        dIdx.push_back(dRegs.at(at(coordOf(instr->d.registers, s, mt * stepM, nt * stepN))));
      Value d = gather(acc, dIdx);
      for (int64_t k0 = 0; k0 < K; k0 += instr->k) {
        SmallVector<int64_t> aIdx, bIdx;
        for (unsigned s = 0; s < instr->abSlots(); ++s) {
          aIdx.push_back(aRegs.at(at(coordOf(instr->a.registers, s, mt * stepM, k0))));
          bIdx.push_back(bRegs.at(at(coordOf(instr->b.registers, s, k0, nt * stepN))));
        }
        Value av = gather(a, aIdx), bvec = gather(bv, bIdx);
        if (instr->abSlots() == 1) // the f32 MFMAs take scalars
          av = vector::ExtractOp::create(b, loc(), av, int64_t(0)),
          bvec = vector::ExtractOp::create(b, loc(), bvec, int64_t(0));
        if (instr->op == "mfma")
          d = amdgpu::MFMAOp::create(b, loc(), dVector, instr->m, instr->n, instr->k, /*blocks=*/1, av,
                                     bvec, d);
        else
          d = amdgpu::WMMAOp::create(b, loc(), dVector, instr->m, instr->n, instr->k, av, bvec, d);
      }
      for (auto [s, r] : llvm::enumerate(dIdx))
        result[r] = vector::ExtractOp::create(b, loc(), d, int64_t(s));
    }
  auto type = laneVectorType(op.getType(), want.d);
  values[op] = {Value(), vector::FromElementsOp::create(b, loc(), type, result)};
  return success();
}
