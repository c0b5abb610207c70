#include "rocktile/Analysis/LdsLayout.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <tuple>

using namespace rocktile;

LdsLayout LdsLayout::rowMajor(llvm::ArrayRef<int64_t> shape) {
  LdsLayout l;
  l.shape.assign(shape.begin(), shape.end());
  for (int d = shape.size() - 1; d >= 0; --d)
    l.order.push_back(d);
  return l;
}

int64_t LdsLayout::offsetOf(llvm::ArrayRef<int64_t> coord) const {
  llvm::SmallVector<int64_t, 4> c(coord);
  if (maxPhase > 1) {
    int64_t &fast = c[order[0]];
    fast = ((fast / vec) ^ phaseOf(c[order[1]])) * vec + fast % vec;
  }
  if (rowShift)
    c[order[1]] ^= (c[order[1]] >> rowShift) & 1;
  int64_t offset = 0, stride = 1;
  for (unsigned d : order)
    offset += c[d] * stride, stride *= shape[d];
  return offset;
}

std::string LdsLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "order = [";
  llvm::interleaveComma(order, os);
  os << "], vec = " << vec << ", maxPhase = " << maxPhase << ", phaseShifts = [";
  llvm::interleaveComma(phaseShifts, os);
  os << "]";
  if (rowShift)
    os << ", rowShift = " << rowShift;
  return s;
}

LdsAccess rocktile::ldsAccess(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes) {
  unsigned fast = lds.order[0];
  auto regs = layout.getBases(LinearLayout::Register);
  int64_t limit = std::max<int64_t>(16 / eltBytes, 1);
  if (lds.maxPhase > 1)
    limit = std::min(limit, lds.vec);
  // The register bits stepping 1, 2, 4, ... along the fastest dimension, in
  // whatever order the lane holds them.
  LdsAccess access;
  for (int64_t step = 1; step < limit; step *= 2) {
    LinearLayout::Coord unit(layout.getRank(), 0);
    unit[fast] = step;
    auto it = llvm::find(regs, unit);
    if (it == regs.end())
      break;
    access.bits.push_back(it - regs.begin());
  }
  // Every other basis must keep a group's first element aligned to the width.
  auto aligned = [&](int64_t w) {
    for (auto in : {LinearLayout::Register, LinearLayout::Lane, LinearLayout::Warp})
      for (auto [bit, basis] : llvm::enumerate(layout.getBases(in))) {
        bool inVector = in == LinearLayout::Register &&
                        llvm::is_contained(llvm::ArrayRef(access.bits).take_front(llvm::Log2_64(w)), bit);
        if (!inVector && basis[fast] % w)
          return false;
      }
    return true;
  };
  while (!access.bits.empty() && !aligned(access.width()))
    access.bits.pop_back();
  return access;
}

llvm::SmallVector<int64_t> LdsAccess::registers(int64_t first) const {
  llvm::SmallVector<int64_t> regs;
  for (int64_t j = 0; j < width(); ++j) {
    int64_t reg = first;
    for (auto [i, bit] : llvm::enumerate(bits))
      if (j >> i & 1)
        reg |= int64_t(1) << bit;
    regs.push_back(reg);
  }
  return regs;
}

llvm::SmallVector<int64_t> LdsAccess::firstRegisters(const LinearLayout &layout, bool skipCopies) const {
  uint64_t skipped = skipCopies ? layout.getCopyBits(LinearLayout::Register) : 0;
  for (unsigned bit : bits)
    skipped |= uint64_t(1) << bit;
  llvm::SmallVector<int64_t> firsts;
  for (int64_t reg = 0; reg < layout.getNumRegisters(); ++reg)
    if (!(reg & skipped))
      firsts.push_back(reg);
  return firsts;
}

LdsCost rocktile::ldsCost(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, unsigned banks,
                          bool write) {
  LdsAccess access = ldsAccess(layout, lds, eltBytes);
  int64_t bytes = access.width() * eltBytes, dwordsPerLane = std::max<int64_t>(bytes / 4, 1);
  int64_t lanesPerPhase = std::max<int64_t>(banks / dwordsPerLane, 1);
  uint64_t copyLanes = write ? layout.getCopyBits(LinearLayout::Lane) : 0;
  uint64_t copyWarps = write ? layout.getCopyBits(LinearLayout::Warp) : 0;
  // Every instruction of a side has the cycles of the first: its offsets
  // are the first's XOR a constant (the map is linear), which permutes
  // dwords and banks alike. And a lane's offset is the XOR of its lane
  // bits' offsets.
  auto laneBases = layout.getBases(LinearLayout::Lane);
  llvm::SmallVector<int64_t, 8> baseOffsets;
  for (const LinearLayout::Coord &basis : laneBases)
    baseOffsets.push_back(lds.offsetOf(basis));
  llvm::SmallVector<int64_t, 64> offsets(layout.getNumLanes(), 0);
  for (int64_t lane = 1; lane < layout.getNumLanes(); ++lane)
    offsets[lane] = offsets[lane & (lane - 1)] ^ baseOffsets[llvm::countr_zero(uint64_t(lane))];
  // (phase, bank, dword) of one instruction's lanes, packed to sort fast.
  llvm::SmallVector<uint64_t, 256> touched;
  for (int64_t lane = 0; lane < layout.getNumLanes(); ++lane) {
    if (lane & copyLanes)
      continue;
    int64_t byte = offsets[lane] * eltBytes;
    for (int64_t d = byte / 4; d < (byte + bytes + 3) / 4; ++d)
      touched.push_back(uint64_t(lane / lanesPerPhase) << 56 | uint64_t(d % banks) << 40 | uint64_t(d));
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  int64_t cycles = 0;
  // Per phase: one cycle, plus one per extra dword of its busiest bank.
  for (size_t i = 0; i < touched.size();) {
    uint64_t phase = touched[i] >> 56;
    int64_t busiest = 0;
    while (i < touched.size() && touched[i] >> 56 == phase) {
      uint64_t bank = touched[i] >> 40;
      int64_t n = 0;
      for (; i < touched.size() && touched[i] >> 40 == bank; ++i)
        ++n;
      busiest = std::max(busiest, n);
    }
    cycles += busiest;
  }
  int64_t phases = touched.empty() ? 0 : int64_t(touched.back() >> 56) - int64_t(touched.front() >> 56) + 1;
  int64_t warps = layout.getNumWarps() >> llvm::popcount(copyWarps);
  LdsCost cost;
  cost.instructions = int64_t(access.firstRegisters(layout, /*skipCopies=*/write).size()) * warps;
  cost.cycles = cycles * cost.instructions;
  cost.conflictCycles = (cycles - phases) * cost.instructions;
  return cost;
}

static constexpr int64_t kIssueCycles = 4;
static constexpr int64_t kMaxLeftShift = 3;

LdsLayout rocktile::chooseLdsLayout(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes,
                                    unsigned banks) {
  LdsLayout plain = LdsLayout::rowMajor(from.getShape());
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> orders = {plain.order};
  if (plain.order.size() >= 2) {
    auto swapped = plain.order;
    std::swap(swapped[0], swapped[1]);
    orders.push_back(swapped);
  }
  LdsLayout best = plain;
  std::tuple<int64_t, int64_t, int64_t, int64_t> bestKey{INT64_MAX, 0, 0, 0};
  auto consider = [&](const LdsLayout &l) {
    LdsCost w = ldsCost(from, l, eltBytes, banks, /*write=*/true);
    if (w.cycles + kIssueCycles * w.instructions > std::get<0>(bestKey))
      return; // the write side alone costs more than the best
    LdsCost r = ldsCost(to, l, eltBytes, banks, /*write=*/false);
    // An instruction costs its issue and the VALU that packs or unpacks
    // its registers besides its bank cycles: narrow accesses lose to wide
    // ones with a few conflicts.
    int64_t instructions = w.instructions + r.instructions;
    std::tuple<int64_t, int64_t, int64_t, int64_t> key{w.cycles + r.cycles + kIssueCycles * instructions,
                                                       instructions, l.maxPhase,
                                                       int64_t(l.phaseShifts.size()) + (l.rowShift != 0)};
    if (key < bestKey)
      bestKey = key, best = l;
  };
  for (const auto &order : orders) {
    LdsLayout l = plain;
    l.order = order;
    consider(l);
    if (order.size() < 2)
      continue;
    int64_t fastSize = l.shape[order[0]], nextSize = l.shape[order[1]];
    // Swizzled groups as wide as the wider side's accesses, or narrower
    // (narrowing one side's accesses may free the other of conflicts).
    int64_t widest = std::max(ldsAccess(from, l, eltBytes).width(), ldsAccess(to, l, eltBytes).width());
    // The phase: one field of the row index, or the XOR of two.
    int64_t rowBits = llvm::Log2_64(nextSize);
    llvm::SmallVector<llvm::SmallVector<int64_t, 2>> shifts;
    // A negative shift moves low row bits up into the phase (a row step
    // that lands on the same banks, spread by a far column group).
    for (int64_t a = -kMaxLeftShift; a < rowBits; ++a) {
      shifts.push_back({a});
      for (int64_t b = a + 1; b < rowBits; ++b)
        shifts.push_back({a, b});
    }
    for (int64_t vec = 1; vec <= widest; vec *= 2)
      for (int64_t maxPhase = 2; maxPhase * vec <= fastSize; maxPhase *= 2)
        for (const auto &phaseShifts : shifts)
          for (int64_t rowShift = 0; rowShift == 0 || rowShift < rowBits; ++rowShift) {
            l.vec = vec, l.maxPhase = maxPhase, l.phaseShifts = phaseShifts, l.rowShift = rowShift;
            consider(l);
          }
  }
  return best;
}
