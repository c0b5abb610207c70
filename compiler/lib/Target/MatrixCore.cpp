#include "rocktile/Target/MatrixCore.h"
#include "llvm/Support/MathExtras.h"

namespace rocktile {

MatrixCoreInstr MatrixCoreInstr::withE2M1(bool onA, bool onB) const {
  MatrixCoreInstr instr = *this;
  if (onA && scaled && !scaled->aE2M1.registers.empty())
    instr.a = scaled->aE2M1;
  if (onB && scaled && !scaled->bE2M1.registers.empty())
    instr.b = scaled->bE2M1;
  return instr;
}

MatrixCoreInstr MatrixCoreInstr::ofScales(int64_t block) const {
  MatrixCoreInstr instr = *this;
  instr.k = k / block;
  instr.a = block == 16 ? scaled->aScale16 : scaled->aScale;
  instr.b = block == 16 ? scaled->bScale16 : scaled->bScale;
  return instr;
}

const MatrixCoreInstr *chooseMatrixInstr(const Target &target, MatrixElem ab, MatrixElem acc,
                                         int64_t M, int64_t N, int64_t K, int64_t nonKDim,
                                         int64_t scaleBlock) {
  auto takesScales = [&](const MatrixCoreInstr &instr) {
    return !scaleBlock || (instr.scaled && !instr.ofScales(scaleBlock).a.lanes.empty());
  };
  const MatrixCoreInstr *first = nullptr;
  for (const MatrixCoreInstr &instr : target.matrixInstrs)
    if (instr.ab == ab && instr.acc == acc && M % instr.m == 0 && N % instr.n == 0 &&
        K % instr.k == 0 && takesScales(instr)) {
      if (!nonKDim || instr.m == nonKDim)
        return &instr;
      first = first ? first : &instr;
    }
  return first;
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

/// A layout of `shape` whose bases are `layout`'s mapped by `f`.
LinearLayout mapBases(const LinearLayout &layout, llvm::ArrayRef<int64_t> shape,
                      llvm::function_ref<Coord(Coord)> f) {
  std::array<llvm::SmallVector<Coord>, 3> bases;
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (const Coord &c : layout.getBases(in))
      bases[in].push_back(f(c));
  return LinearLayout(shape, std::move(bases));
}

LinearLayout transpose(const LinearLayout &layout) {
  llvm::ArrayRef<int64_t> shape = layout.getShape();
  return mapBases(layout, {shape[1], shape[0]}, [](Coord c) {
    std::swap(c[0], c[1]);
    return c;
  });
}

/// `layout` with its dimension `dim` (K) renamed by `order`.
LinearLayout withKOrder(const LinearLayout &layout, unsigned dim, llvm::ArrayRef<int64_t> order) {
  return mapBases(layout, layout.getShape(), [&](Coord c) {
    c[dim] = renameK(order, c[dim]);
    return c;
  });
}
} // namespace

int64_t renameK(llvm::ArrayRef<int64_t> order, int64_t k) {
  if (order.empty())
    return k;
  int64_t renamed = 0;
  for (auto [bit, to] : llvm::enumerate(order))
    if (k >> bit & 1)
      renamed |= to;
  return renamed;
}

unsigned chooseWarpsN(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K, unsigned numWarps,
                      int64_t readA, int64_t readB, bool transposed) {
  // Reads per warp, times readA * readB / K (the same for every split).
  auto reads = [&](unsigned warpsN) { return M / (numWarps / warpsN) * readB + N / warpsN * readA; };
  DotOptions options;
  options.transposed = transposed;
  unsigned chosen = dotLayouts(instr, M, N, K, numWarps, 0, options).warpsN, best = chosen;
  unsigned alongM = transposed ? instr.n : instr.m, alongN = transposed ? instr.m : instr.n;
  for (unsigned warpsN = 1; warpsN <= numWarps; warpsN *= 2)
    if (alongM * (numWarps / warpsN) <= M && alongN * warpsN <= N && reads(warpsN) < reads(best))
      best = warpsN;
  return best == chosen ? 0 : best;
}

DotLayouts dotLayouts(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K,
                      unsigned numWarps, int64_t batch, const DotOptions &options) {
  if (batch > 0) {
    unsigned warpsBatch = std::min<int64_t>(numWarps, batch);
    DotLayouts l = dotLayouts(instr, M, N, K, numWarps / warpsBatch, 0, options);
    return {&instr, l.warpsM, l.warpsN, warpsBatch, withBatch(l.a, batch, warpsBatch),
            withBatch(l.b, batch, warpsBatch), withBatch(l.d, batch, warpsBatch)};
  }
  if (!options.kOrder.empty()) {
    DotOptions inOrder = options;
    inOrder.kOrder.clear();
    DotLayouts l = dotLayouts(instr, M, N, K, numWarps, 0, inOrder);
    l.a = withKOrder(l.a, 1, options.kOrder);
    l.b = withKOrder(l.b, 0, options.kOrder);
    return l;
  }
  if (options.transposed) {
    // The instruction multiplies Bᵀ (N x K) by Aᵀ (K x M) into Dᵀ.
    DotOptions swapped;
    swapped.warpsN = options.warpsN ? numWarps / options.warpsN : 0;
    DotLayouts l = dotLayouts(instr, N, M, K, numWarps, 0, swapped);
    return {&instr, l.warpsN, l.warpsM, 1, transpose(l.b), transpose(l.a), transpose(l.d)};
  }
  unsigned warpsM = 1, warpsN = 1;
  if (options.warpsN)
    warpsN = options.warpsN, warpsM = numWarps / warpsN;
  for (unsigned w = warpsM * warpsN; w < numWarps; w *= 2) {
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

std::optional<llvm::SmallVector<int64_t>> kOrderFor(const LinearLayout &d, const LinearLayout &a) {
  if (d.getShape() != a.getShape() || d.getRank() != 2)
    return std::nullopt;
  int64_t K = a.getShape()[1];
  llvm::SmallVector<int64_t> order(llvm::Log2_64(K), 0);
  auto isK = [](const Coord &c) { return c[0] == 0 && c[1] > 0 && llvm::isPowerOf2_64(c[1]); };
  // Lanes and warps: the same input bit holds the same row, or a K bit.
  auto pair = [&](const Coord &dc, const Coord &ac) {
    if (!isK(ac))
      return dc == ac;
    if (!isK(dc))
      return false;
    order[llvm::Log2_64(ac[1])] = dc[1];
    return true;
  };
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp}) {
    if (d.getBases(in).size() != a.getBases(in).size())
      return std::nullopt;
    for (auto [dc, ac] : llvm::zip(d.getBases(in), a.getBases(in)))
      if (!pair(dc, ac))
        return std::nullopt;
  }
  // Registers: which register holds what is free, so rows match as sets and
  // K bits pair up in increasing order.
  llvm::SmallVector<Coord> dRows, aRows, dK, aK;
  for (auto [layout, rows, ks] : {std::tuple{&d, &dRows, &dK}, std::tuple{&a, &aRows, &aK}})
    for (const Coord &c : layout->getBases(LinearLayout::Register))
      (isK(c) ? ks : rows)->push_back(c);
  llvm::sort(dRows), llvm::sort(aRows), llvm::sort(dK), llvm::sort(aK);
  if (dRows != aRows || dK.size() != aK.size())
    return std::nullopt;
  for (auto [dc, ac] : llvm::zip(dK, aK))
    pair(dc, ac);
  int64_t seen = 0;
  for (int64_t to : order)
    seen |= to;
  if (seen != K - 1 || llvm::any_of(aRows, [](const Coord &c) { return c[1] != 0; }))
    return std::nullopt;
  return order;
}

namespace {
/// `operand` (K along `kDim`) with K counted in blocks of `block`: lanes and
/// warps hold the blocks whose elements they held; registers that held
/// elements within a block are dropped.
LinearLayout divideK(const LinearLayout &operand, unsigned kDim, int64_t block) {
  std::array<llvm::SmallVector<LinearLayout::Coord>, 3> bases;
  for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
    for (LinearLayout::Coord basis : operand.getBases(in)) {
      if (basis[kDim] % block == 0)
        basis[kDim] /= block;
      else if (in == LinearLayout::Register)
        continue;
      else
        basis.assign(basis.size(), 0);
      bases[in].push_back(basis);
    }
  llvm::SmallVector<int64_t> shape(operand.getShape());
  shape[kDim] /= block;
  return LinearLayout(shape, bases);
}

} // namespace

ScaledDotLayouts scaledDotLayouts(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K,
                                  unsigned numWarps, const DotOptions &options, bool packedA, bool packedB,
                                  int64_t block) {
  bool t = options.transposed;
  MatrixCoreInstr valueInstr = instr.withE2M1(t ? packedB : packedA, t ? packedA : packedB),
                  scaleInstr = instr.ofScales(block);
  DotLayouts values = dotLayouts(valueInstr, M, N, K, numWarps, 0, options);
  DotLayouts scales = dotLayouts(scaleInstr, M, N, K / block, numWarps, 0, options);
  return {packedA ? divideK(values.a, 1, 2) : values.a,
          packedB ? divideK(values.b, 0, 2) : values.b,
          values.d,
          scales.a,
          transpose(scales.b),
          valueInstr,
          scaleInstr};
}

std::optional<LinearLayout> explicitDotLayout(const MatrixCoreInstr &instr, MatrixOperand operand,
                                              llvm::ArrayRef<int64_t> shape, unsigned numWarps,
                                              llvm::ArrayRef<std::array<int64_t, 2>> warpTiles, bool transposed,
                                              std::string &why) {
  if (shape.size() != 2) {
    why = "the tile must be 2-D";
    return std::nullopt;
  }
  // Per dimension, the warps' steps must be 1, 2, 4, ... tiles.
  unsigned warps[2] = {1, 1};
  uint64_t steps[2] = {0, 0};
  for (const std::array<int64_t, 2> &w : warpTiles) {
    unsigned d = w[0] ? 0 : 1;
    if ((w[0] != 0) == (w[1] != 0) || w[d] < 0 || !llvm::isPowerOf2_64(w[d]) || (steps[d] & uint64_t(w[d]))) {
      why = "each warp basis must step a power of two of instruction tiles along one dimension, each step once";
      return std::nullopt;
    }
    steps[d] |= uint64_t(w[d]), warps[d] *= 2;
  }
  if (warps[0] * warps[1] != numWarps || steps[0] != warps[0] - 1 || steps[1] != warps[1] - 1) {
    why = "the warp bases must give " + std::to_string(numWarps) + " warps, per dimension steps of 1, 2, 4, ... "
          "instruction tiles";
    return std::nullopt;
  }
  unsigned warpsM = warps[0], warpsN = warps[1];
  // The tile of the dot this operand belongs to: its own dimensions from
  // `shape` (one instruction tile per warp where it is 1), the other one
  // instruction tile per warp. Computed transposed, m runs along N.
  int64_t instrM = transposed ? instr.n : instr.m, instrN = transposed ? instr.m : instr.n;
  int64_t tileM = instrM * warpsM, tileN = instrN * warpsN;
  // Per dimension, the size a dimension of 1 stands for (one instruction
  // tile per warp) and the least other size (one instruction tile).
  int64_t whole[3][2] = {{tileM, instr.k}, {instr.k, tileN}, {tileM, tileN}};
  int64_t least[3][2] = {{instrM, instr.k}, {instr.k, instrN}, {instrM, instrN}};
  unsigned which = unsigned(operand);
  int64_t dims[2];
  for (unsigned d = 0; d < 2; ++d) {
    if (shape[d] != 1 && (!llvm::isPowerOf2_64(shape[d]) || shape[d] < least[which][d])) {
      why = "dimension " + std::to_string(d) + " (" + std::to_string(shape[d]) + ") is shorter than " +
            instr.name.str() + "'s " + std::to_string(least[which][d]);
      return std::nullopt;
    }
    dims[d] = shape[d] == 1 ? whole[which][d] : shape[d];
  }
  int64_t M = operand == MatrixOperand::B ? tileM : dims[0], N = operand == MatrixOperand::A ? tileN : dims[1],
          K = operand == MatrixOperand::A ? dims[1] : operand == MatrixOperand::B ? dims[0] : instr.k;
  DotOptions options;
  options.warpsN = warpsN;
  options.transposed = transposed;
  DotLayouts l = dotLayouts(instr, M, N, K, numWarps, 0, options);
  LinearLayout layout = operand == MatrixOperand::A ? l.a : operand == MatrixOperand::B ? l.b : l.d;
  // The warps in the author's order: D's steps, without N for A (whose
  // warps along N hold copies) and without M for B; none past the tile.
  std::array<llvm::SmallVector<Coord>, 3> bases;
  for (unsigned in : {LinearLayout::Register, LinearLayout::Lane})
    bases[in].assign(layout.getBases(LinearLayout::InDim(in)).begin(), layout.getBases(LinearLayout::InDim(in)).end());
  for (const std::array<int64_t, 2> &w : warpTiles) {
    int64_t m = w[0] * instrM, n = w[1] * instrN;
    m = m < M && operand != MatrixOperand::B ? m : 0;
    n = n < N && operand != MatrixOperand::A ? n : 0;
    bases[LinearLayout::Warp].push_back(operand == MatrixOperand::A   ? Coord{m, 0}
                                        : operand == MatrixOperand::B ? Coord{0, n}
                                                                      : Coord{m, n});
  }
  layout = LinearLayout(layout.getShape(), std::move(bases));
  for (unsigned d = 0; d < 2; ++d)
    if (shape[d] == 1 && dims[d] != 1)
      layout = layout.collapseDim(d);
  return layout;
}

std::optional<LinearLayout> explicitScaledDotLayout(const MatrixCoreInstr &instr, ScaledOperand operand,
                                                    llvm::ArrayRef<int64_t> shape, unsigned numWarps,
                                                    llvm::ArrayRef<std::array<int64_t, 2>> warpTiles,
                                                    bool transposed, bool packedA, bool packedB, int64_t block,
                                                    std::string &why) {
  if (!instr.scaled || shape.size() != 2) {
    why = instr.scaled ? "the tile must be 2-D" : instr.name.str() + " has no block-scaled form";
    return std::nullopt;
  }
  // As scaledDotLayouts: computed transposed, the instruction's A is B.
  MatrixCoreInstr values = instr.withE2M1(transposed ? packedB : packedA, transposed ? packedA : packedB);
  auto layout = [&](const MatrixCoreInstr &on, MatrixOperand which, llvm::ArrayRef<int64_t> s) {
    return explicitDotLayout(on, which, s, numWarps, warpTiles, transposed, why);
  };
  switch (operand) {
  case ScaledOperand::A:
  case ScaledOperand::B: {
    // (A dimension of 1, a slice's parent, stays one: collapsed, not packed.)
    unsigned kDim = operand == ScaledOperand::A ? 1 : 0;
    bool packed = (operand == ScaledOperand::A ? packedA : packedB) && shape[kDim] != 1;
    llvm::SmallVector<int64_t> elements(shape);
    elements[kDim] *= packed ? 2 : 1;
    std::optional<LinearLayout> l =
        layout(values, operand == ScaledOperand::A ? MatrixOperand::A : MatrixOperand::B, elements);
    return l && packed ? std::optional(divideK(*l, kDim, 2)) : l;
  }
  case ScaledOperand::D:
    return layout(values, MatrixOperand::D, shape);
  case ScaledOperand::AScale:
    return layout(instr.ofScales(block), MatrixOperand::A, shape);
  case ScaledOperand::BScale: {
    std::optional<LinearLayout> l = layout(instr.ofScales(block), MatrixOperand::B, {shape[1], shape[0]});
    return l ? std::optional(transpose(*l)) : l;
  }
  }
  return std::nullopt;
}

int64_t operandKWidth(const MatrixCoreInstr &instr) {
  int64_t width = 1;
  for (const std::array<int, 2> &base : instr.a.registers) {
    if (base[0] != 0 || base[1] != width)
      break;
    width *= 2;
  }
  return width;
}

} // namespace rocktile
