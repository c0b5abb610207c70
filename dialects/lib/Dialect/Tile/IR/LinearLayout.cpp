#include "rocktile/Dialect/Tile/IR/LinearLayout.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace rocktile;

static bool isZero(const LinearLayout::Coord &c) {
  return llvm::all_of(c, [](int64_t v) { return v == 0; });
}

LinearLayout::LinearLayout(llvm::ArrayRef<int64_t> shape,
                           std::array<llvm::SmallVector<Coord>, 3> bases)
    : shape(shape), bases(std::move(bases)) {
  // A zero register basis only duplicates registers: drop it, so that every
  // register of a lane holds a distinct element.
  llvm::erase_if(this->bases[Register], isZero);
}

LinearLayout LinearLayout::blocked(llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<unsigned> sizePerThread,
                                   llvm::ArrayRef<unsigned> threadsPerWarp,
                                   llvm::ArrayRef<unsigned> warpsPerCTA,
                                   llvm::ArrayRef<unsigned> order) {
  unsigned rank = shape.size();
  std::array<llvm::SmallVector<Coord>, 3> bases;
  llvm::SmallVector<int64_t, 4> covered(rank, 1);
  auto addBases = [&](InDim in, llvm::ArrayRef<unsigned> perDim) {
    for (unsigned d : order) {
      for (unsigned bit = 0; (1u << bit) < perDim[d]; ++bit) {
        Coord c(rank, 0);
        int64_t v = covered[d] << bit;
        // Beyond the tensor, the layout wraps onto element 0: broadcast.
        c[d] = v < shape[d] ? v : 0;
        bases[in].push_back(c);
      }
      covered[d] *= perDim[d];
    }
  };
  addBases(Register, sizePerThread);
  addBases(Lane, threadsPerWarp);
  addBases(Warp, warpsPerCTA);
  // A tensor larger than one layout tile repeats it over more registers.
  for (unsigned d : order)
    for (; covered[d] < shape[d]; covered[d] *= 2) {
      Coord c(rank, 0);
      c[d] = covered[d];
      bases[Register].push_back(c);
    }
  return LinearLayout(shape, std::move(bases));
}

LinearLayout LinearLayout::collapseDim(unsigned dim) const {
  // Every coordinate along `dim` is below its size: shifted out entirely.
  return divideDim(dim, llvm::PowerOf2Ceil(shape[dim]));
}

LinearLayout LinearLayout::dropDim(unsigned dim) const {
  LinearLayout collapsed = collapseDim(dim);
  collapsed.shape.erase(collapsed.shape.begin() + dim);
  for (auto &perIn : collapsed.bases)
    for (Coord &c : perIn)
      c.erase(c.begin() + dim);
  return collapsed;
}

LinearLayout LinearLayout::divideDim(unsigned dim, int64_t factor) const {
  unsigned shift = llvm::Log2_64(factor);
  llvm::SmallVector<int64_t, 4> newShape(shape);
  newShape[dim] = std::max<int64_t>(shape[dim] >> shift, 1);
  std::array<llvm::SmallVector<Coord>, 3> newBases = bases;
  for (auto &perIn : newBases)
    for (Coord &c : perIn)
      c[dim] >>= shift;
  llvm::SmallVector<Coord> unique;
  for (Coord &c : newBases[Register])
    if (!isZero(c) && !llvm::is_contained(unique, c))
      unique.push_back(c);
  newBases[Register] = unique;
  return LinearLayout(newShape, std::move(newBases));
}

LinearLayout LinearLayout::reshape(llvm::ArrayRef<int64_t> newShape) const {
  // With power-of-two sizes, the row-major index of a coordinate is its
  // dimensions' bits side by side: linear over GF(2), so each basis maps on
  // its own.
  std::array<llvm::SmallVector<Coord>, 3> newBases;
  for (auto [perIn, newPerIn] : llvm::zip(bases, newBases))
    for (const Coord &c : perIn) {
      int64_t index = 0;
      for (auto [x, size] : llvm::zip(c, shape))
        index = index * size + x;
      Coord out(newShape.size(), 0);
      for (int d = int(newShape.size()) - 1; d >= 0; --d) {
        out[d] = index % newShape[d];
        index /= newShape[d];
      }
      newPerIn.push_back(out);
    }
  return LinearLayout(newShape, std::move(newBases));
}

LinearLayout::Coord LinearLayout::apply(InDim in, uint64_t index) const {
  Coord c(shape.size(), 0);
  for (auto [bit, basis] : llvm::enumerate(bases[in]))
    if (index >> bit & 1)
      for (unsigned d = 0; d < c.size(); ++d)
        c[d] ^= basis[d];
  return c;
}

LinearLayout::Coord LinearLayout::apply(uint64_t reg, uint64_t lane,
                                        uint64_t warp) const {
  Coord c = apply(Register, reg), l = apply(Lane, lane), w = apply(Warp, warp);
  for (unsigned d = 0; d < c.size(); ++d)
    c[d] ^= l[d] ^ w[d];
  return c;
}

uint64_t LinearLayout::getCopyBits(InDim in) const {
  uint64_t bits = 0;
  for (auto [bit, basis] : llvm::enumerate(bases[in]))
    if (llvm::all_of(basis, [](int64_t v) { return v == 0; }))
      bits |= uint64_t(1) << bit;
  return bits;
}

int64_t LinearLayout::getContiguousRegisters(unsigned dim) const {
  int64_t n = 1;
  for (const Coord &c : bases[Register]) {
    Coord expected(shape.size(), 0);
    expected[dim] = n;
    if (c != expected)
      break;
    n *= 2;
  }
  return n;
}

bool LinearLayout::isAdditive() const {
  for (unsigned d = 0; d < shape.size(); ++d) {
    int64_t seen = 0;
    for (const auto &perIn : bases)
      for (const Coord &c : perIn) {
        unsigned nonZero = llvm::count_if(c, [](int64_t v) { return v != 0; });
        if (nonZero > 1 || (c[d] & seen))
          return false;
        seen |= c[d];
      }
  }
  return true;
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  static const char *names[] = {"register", "lane", "warp"};
  os << "shape [";
  llvm::interleaveComma(shape, os);
  os << "]";
  for (unsigned in = 0; in < 3; ++in) {
    os << " " << names[in] << " [";
    llvm::interleaveComma(bases[in], os, [&](const Coord &c) {
      os << "[";
      llvm::interleaveComma(c, os);
      os << "]";
    });
    os << "]";
  }
  return s;
}
