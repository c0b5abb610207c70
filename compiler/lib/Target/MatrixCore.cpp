#include "rocktile/Target/MatrixCore.h"
#include "llvm/Support/MathExtras.h"

namespace rocktile {

const MatrixCoreInstr *chooseMatrixInstr(const Target &target, MatrixElem ab, MatrixElem acc,
                                         int64_t M, int64_t N, int64_t K) {
  for (const MatrixCoreInstr &instr : target.matrixInstrs)
    if (instr.ab == ab && instr.acc == acc && M % instr.m == 0 && N % instr.n == 0 &&
        K % instr.k == 0)
      return &instr;
  return nullptr;
}

namespace {
using Coord = LinearLayout::Coord;

void append(llvm::SmallVector<Coord> &out, llvm::ArrayRef<std::array<int, 2>> bases) {
  for (auto [r, c] : bases)
    out.push_back({r, c});
}

/// The log2(count) bases along `dim` (0: rows, 1: columns) that place
/// `count` pieces `step` apart; pieces beyond `size` (and all of them, for
/// step 0) are copies of the first.
void repeat(llvm::SmallVector<Coord> &out, unsigned dim, int64_t step, int64_t count,
            int64_t size) {
  for (int64_t t = 1; t < count; t *= 2) {
    Coord base{0, 0};
    base[dim] = step * t < size ? step * t : 0;
    out.push_back(base);
  }
}
} // namespace

namespace {
/// `layout` with a leading batch dimension of `batch`: `warps` warp bits
/// (the highest) step along it, registers (the highest) take the rest.
LinearLayout withBatch(const LinearLayout &layout, int64_t batch, unsigned warps) {
  std::array<llvm::SmallVector<Coord>, 3> bases;
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (const Coord &c : layout.getBases(in))
      bases[in].push_back({0, c[0], c[1]});
  for (int64_t t = 1; t < warps; t *= 2)
    bases[LinearLayout::Warp].push_back({t, 0, 0});
  for (int64_t t = warps; t < batch; t *= 2)
    bases[LinearLayout::Register].push_back({t, 0, 0});
  return LinearLayout({batch, layout.getShape()[0], layout.getShape()[1]}, std::move(bases));
}
} // namespace

DotLayouts dotLayouts(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K,
                      unsigned numWarps, int64_t batch) {
  if (batch > 0) {
    unsigned warpsBatch = std::min<int64_t>(numWarps, batch);
    DotLayouts l = dotLayouts(instr, M, N, K, numWarps / warpsBatch);
    return {&instr, l.warpsM, l.warpsN, warpsBatch, withBatch(l.a, batch, warpsBatch),
            withBatch(l.b, batch, warpsBatch), withBatch(l.d, batch, warpsBatch)};
  }
  unsigned warpsM = 1, warpsN = 1;
  for (unsigned w = 1; w < numWarps; w *= 2) {
    int64_t leftM = M / (instr.m * warpsM), leftN = N / (instr.n * warpsN);
    if (leftM >= leftN)
      warpsM *= 2;
    else
      warpsN *= 2;
  }
  // Register bases beyond the instruction's: further tiles along each dim.
  auto tiles = [](int64_t covered, int64_t size) { return std::max<int64_t>(size / covered, 1); };
  std::array<llvm::SmallVector<Coord>, 3> a, b, d;
  append(a[LinearLayout::Register], instr.a.registers);
  append(a[LinearLayout::Lane], instr.a.lanes);
  repeat(a[LinearLayout::Warp], 0, instr.m, warpsM, M);
  repeat(a[LinearLayout::Warp], 0, 0, warpsN, M); // copies for each warp along N
  repeat(a[LinearLayout::Register], 1, instr.k, tiles(instr.k, K), K);
  repeat(a[LinearLayout::Register], 0, instr.m * warpsM, tiles(instr.m * warpsM, M), M);

  append(b[LinearLayout::Register], instr.b.registers);
  append(b[LinearLayout::Lane], instr.b.lanes);
  repeat(b[LinearLayout::Warp], 1, 0, warpsM, N);
  repeat(b[LinearLayout::Warp], 1, instr.n, warpsN, N);
  repeat(b[LinearLayout::Register], 0, instr.k, tiles(instr.k, K), K);
  repeat(b[LinearLayout::Register], 1, instr.n * warpsN, tiles(instr.n * warpsN, N), N);

  append(d[LinearLayout::Register], instr.d.registers);
  append(d[LinearLayout::Lane], instr.d.lanes);
  repeat(d[LinearLayout::Warp], 0, instr.m, warpsM, M);
  repeat(d[LinearLayout::Warp], 1, instr.n, warpsN, N);
  repeat(d[LinearLayout::Register], 1, instr.n * warpsN, tiles(instr.n * warpsN, N), N);
  repeat(d[LinearLayout::Register], 0, instr.m * warpsM, tiles(instr.m * warpsM, M), M);

  return {&instr, warpsM, warpsN, 1, LinearLayout({M, K}, std::move(a)),
          LinearLayout({K, N}, std::move(b)), LinearLayout({M, N}, std::move(d))};
}

} // namespace rocktile
