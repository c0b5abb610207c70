#include "rocktile/Analysis/LdsLayout.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <set>
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
    offset += c[d] * stride, stride *= d == order[0] && rowPitch ? rowPitch : shape[d];
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
  if (transposedRead)
    os << ", transposed reads";
  if (rowPitch)
    os << ", rowPitch = " << rowPitch;
  return s;
}

LdsAccess rocktile::ldsAccess(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes,
                              int64_t maxBytes) {
  unsigned fast = lds.order[0];
  auto regs = layout.getBases(LinearLayout::Register);
  int64_t limit = std::max<int64_t>(maxBytes / eltBytes, 1);
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

std::optional<LinearLayout> rocktile::transposeReadLayout(const LinearLayout &to, const LdsTransposeRead &read,
                                                          int64_t eltBytes) {
  if (!read.lanes || eltBytes != read.elementBytes)
    return std::nullopt;
  unsigned e = llvm::Log2_32(read.elements), g = llvm::Log2_32(read.lanes);
  auto regs = to.getBases(LinearLayout::Register), lanes = to.getBases(LinearLayout::Lane);
  if (regs.size() < e || lanes.size() < g)
    return std::nullopt;
  // The elements a lane receives must be distinct ones (no copies), and so
  // must the elements of the lanes that read them together: a lane whose
  // elements copy another's would take the copy's place in the transpose.
  uint64_t copies = to.getCopyBits(LinearLayout::Register);
  if (copies & ((uint64_t(1) << e) - 1) || to.getCopyBits(LinearLayout::Lane) & ((uint64_t(1) << g) - 1))
    return std::nullopt;
  std::array<llvm::SmallVector<LinearLayout::Coord>, 3> bases;
  bases[LinearLayout::Register].append(lanes.begin(), lanes.begin() + e);
  bases[LinearLayout::Register].append(regs.begin() + e, regs.end());
  bases[LinearLayout::Lane].append(lanes.begin() + e, lanes.begin() + g);
  bases[LinearLayout::Lane].append(regs.begin(), regs.begin() + e);
  bases[LinearLayout::Lane].append(lanes.begin() + g, lanes.end());
  auto warps = to.getBases(LinearLayout::Warp);
  bases[LinearLayout::Warp].assign(warps.begin(), warps.end());
  return LinearLayout(to.getShape(), bases);
}

LdsCost rocktile::ldsCost(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, unsigned banks,
                          bool write, int64_t maxBytes) {
  LdsAccess access = ldsAccess(layout, lds, eltBytes, maxBytes);
  int64_t bytes = access.width() * eltBytes, dwordsPerLane = std::max<int64_t>(bytes / 4, 1);
  int64_t lanesPerPhase = std::max<int64_t>(banks / dwordsPerLane, 1);
  uint64_t copyLanes = write ? layout.getCopyBits(LinearLayout::Lane) : 0;
  uint64_t copyWarps = write ? layout.getCopyBits(LinearLayout::Warp) : 0;
  // Every instruction of a side has the cycles of the first: its offsets
  // are the first's XOR a constant (the map is linear), which permutes
  // dwords and banks alike. And a lane's offset is the XOR of its lane
  // bits' offsets (their sum, in padded rows, where a constant shifts all).
  auto laneBases = layout.getBases(LinearLayout::Lane);
  llvm::SmallVector<int64_t, 8> baseOffsets;
  for (const LinearLayout::Coord &basis : laneBases)
    baseOffsets.push_back(lds.offsetOf(basis));
  llvm::SmallVector<int64_t, 64> offsets(layout.getNumLanes(), 0);
  for (int64_t lane = 1; lane < layout.getNumLanes(); ++lane)
    offsets[lane] = lds.rowPitch ? offsets[lane & (lane - 1)] + baseOffsets[llvm::countr_zero(uint64_t(lane))]
                                 : offsets[lane & (lane - 1)] ^ baseOffsets[llvm::countr_zero(uint64_t(lane))];
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

/// The VALU instructions that pack a lane's registers into the vectors of
/// `instructions` accesses, or unpack them: one per dword when an access's
/// registers do not already sit in the lane as whole dwords (v_perm_b32 for
/// 16- and 8-bit elements).
static int64_t packingOps(const LdsAccess &access, int64_t eltBytes, int64_t instructions) {
  int64_t perDword = 4 / eltBytes, dwords = access.width() * eltBytes / 4;
  if (perDword <= 1 || dwords == 0)
    return 0;
  for (int64_t i = 0; (int64_t(1) << i) < perDword; ++i)
    if (i >= int64_t(access.bits.size()) || access.bits[i] != unsigned(i))
      return dwords * instructions;
  return 0;
}

/// The cycles (bank service, issue, packing) of `layout`'s accesses to `l`,
/// counting its instructions into `instructions`.
static int64_t sideCycles(const LinearLayout &layout, const LdsLayout &l, int64_t eltBytes, unsigned banks,
                          bool write, int64_t maxBytes, int64_t &instructions) {
  LdsCost c = ldsCost(layout, l, eltBytes, banks, write, maxBytes);
  instructions += c.instructions;
  int64_t packing = packingOps(ldsAccess(layout, l, eltBytes, maxBytes), eltBytes, c.instructions);
  return c.cycles + kIssueCycles * (c.instructions + packing);
}

/// The read side of `l` in layout `to`: plain reads, or the target's
/// transpose reads where they are cheaper (recorded in `l`). Returns its
/// cycles and counts its instructions.
static int64_t chooseRead(const LinearLayout &to, LdsLayout &l, int64_t eltBytes, unsigned banks,
                          const LdsTransposeRead &transposeRead, const std::optional<LinearLayout> &transposed,
                          int64_t &instructions) {
  int64_t readInstructions = 0, read = sideCycles(to, l, eltBytes, banks, /*write=*/false, 16, readInstructions);
  int64_t transposedBytes = transposeRead.elements * eltBytes;
  if (transposed && ldsAccess(*transposed, l, eltBytes, transposedBytes).width() == transposeRead.elements) {
    int64_t trInstructions = 0,
            tr = sideCycles(*transposed, l, eltBytes, banks, /*write=*/false, transposedBytes, trInstructions);
    if (tr < read)
      read = tr, readInstructions = trInstructions, l.transposedRead = true;
  }
  instructions += readInstructions;
  return read;
}

LdsLayout rocktile::chooseLdsRead(LdsLayout lds, const LinearLayout &to, int64_t eltBytes, unsigned banks,
                                  const LdsTransposeRead &transposeRead, int64_t *cycles) {
  int64_t instructions = 0;
  int64_t read = chooseRead(to, lds, eltBytes, banks, transposeRead, transposeReadLayout(to, transposeRead, eltBytes),
                            instructions);
  if (cycles)
    *cycles = read;
  return lds;
}

/// Calls `consider` with each arrangement of `shape` in the given orders:
/// unswizzled, then swizzled in groups of `minVec` to `widest(order)`
/// elements by every phase of one or two row-index fields, with and without
/// swapped neighbouring rows.
static void forEachArrangement(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<llvm::SmallVector<unsigned, 4>> orders,
                               int64_t minVec, llvm::function_ref<int64_t(const LdsLayout &)> widest,
                               llvm::function_ref<void(const LdsLayout &)> consider) {
  for (const auto &order : orders) {
    LdsLayout l = LdsLayout::rowMajor(shape);
    l.order = order;
    consider(l);
    if (order.size() < 2)
      continue;
    int64_t fastSize = l.shape[order[0]], nextSize = l.shape[order[1]];
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
    int64_t widestVec = std::max(widest(l), minVec);
    for (int64_t vec = minVec; vec <= widestVec; vec *= 2)
      for (int64_t maxPhase = 2; maxPhase * vec <= fastSize; maxPhase *= 2)
        for (const auto &phaseShifts : shifts)
          for (int64_t rowShift = 0; rowShift == 0 || rowShift < rowBits; ++rowShift) {
            l.vec = vec, l.maxPhase = maxPhase, l.phaseShifts = phaseShifts, l.rowShift = rowShift;
            consider(l);
          }
  }
}

LdsLayout rocktile::chooseLdsLayout(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes,
                                    unsigned banks, const LdsTransposeRead &transposeRead) {
  std::optional<LinearLayout> transposed = transposeReadLayout(to, transposeRead, eltBytes);
  LdsLayout plain = LdsLayout::rowMajor(from.getShape());
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> orders = {plain.order};
  if (plain.order.size() >= 2) {
    auto swapped = plain.order;
    std::swap(swapped[0], swapped[1]);
    orders.push_back(swapped);
  }
  LdsLayout best = plain;
  std::tuple<int64_t, int64_t, int64_t, int64_t> bestKey{INT64_MAX, 0, 0, 0};
  // An instruction costs its issue and the VALU that packs or unpacks its
  // registers besides its bank cycles: narrow accesses lose to wide ones
  // with a few conflicts.
  auto consider = [&](LdsLayout l) {
    int64_t instructions = 0;
    int64_t write = sideCycles(from, l, eltBytes, banks, /*write=*/true, 16, instructions);
    if (write > std::get<0>(bestKey))
      return; // the write side alone costs more than the best
    int64_t read = chooseRead(to, l, eltBytes, banks, transposeRead, transposed, instructions);
    std::tuple<int64_t, int64_t, int64_t, int64_t> key{write + read, instructions, l.maxPhase,
                                                       int64_t(l.phaseShifts.size()) + (l.rowShift != 0)};
    if (key < bestKey)
      bestKey = key, best = l;
  };
  // Swizzled groups as wide as the wider side's accesses, or narrower
  // (narrowing one side's accesses may free the other of conflicts).
  auto widest = [&](const LdsLayout &l) {
    return std::max(ldsAccess(from, l, eltBytes).width(), ldsAccess(to, l, eltBytes).width());
  };
  forEachArrangement(plain.shape, orders, 1, widest, consider);
  return best;
}

/// The VGPRs that hold the addresses of `layout`'s accesses to `l`: an
/// access's offset is the thread part XOR its first register's constant,
/// which is an add (folded into the instruction's offset, one address for
/// all such accesses) only where the constant shares no bit with the thread
/// part. In a pipelined loop each of them takes a VALU per iteration to add
/// the slot's base.
static int64_t addressRegisters(const LinearLayout &layout, const LdsLayout &l, int64_t eltBytes,
                                int64_t maxBytes) {
  int64_t thread = 0;
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    for (const LinearLayout::Coord &basis : layout.getBases(in))
      thread |= l.offsetOf(basis);
  llvm::SmallVector<int64_t> parts;
  for (int64_t r : ldsAccess(layout, l, eltBytes, maxBytes).firstRegisters(layout, /*skipCopies=*/false))
    parts.push_back(l.offsetOf(layout.apply(LinearLayout::Register, r)) & thread);
  llvm::sort(parts);
  return std::unique(parts.begin(), parts.end()) - parts.begin();
}

LdsLayout rocktile::chooseCopiedLdsLayout(const LinearLayout &to, unsigned dim, int64_t eltBytes, unsigned banks,
                                          const LdsTransposeRead &transposeRead) {
  std::optional<LinearLayout> transposed = transposeReadLayout(to, transposeRead, eltBytes);
  LdsLayout plain = LdsLayout::rowMajor(to.getShape());
  llvm::SmallVector<unsigned, 4> order = {dim};
  for (unsigned d : plain.order)
    if (d != dim)
      order.push_back(d);
  int64_t run = std::max<int64_t>(kCopyRunBytes / eltBytes, 1);
  LdsLayout best = plain;
  std::tuple<int64_t, int64_t, int64_t, int64_t> bestKey{INT64_MAX, 0, 0, 0};
  auto consider = [&](LdsLayout l) {
    int64_t instructions = 0;
    int64_t read = chooseRead(to, l, eltBytes, banks, transposeRead, transposed, instructions);
    read += kIssueCycles * (l.transposedRead ? addressRegisters(*transposed, l, eltBytes,
                                                                transposeRead.elements * eltBytes)
                                             : addressRegisters(to, l, eltBytes, 16));
    std::tuple<int64_t, int64_t, int64_t, int64_t> key{read, instructions, l.maxPhase,
                                                       int64_t(l.phaseShifts.size()) + (l.rowShift != 0)};
    if (key < bestKey)
      bestKey = key, best = l;
  };
  forEachArrangement(plain.shape, {order}, run,
                     [&](const LdsLayout &l) { return ldsAccess(to, l, eltBytes).width(); }, consider);
  return best;
}

std::optional<LinearLayout> rocktile::copyWriterLayout(const LdsLayout &lds, int64_t eltBytes, unsigned waveSize,
                                                       unsigned numWarps) {
  int64_t elements = 1;
  for (int64_t n : lds.shape)
    elements *= n;
  int64_t run = std::max<int64_t>(kCopyRunBytes / eltBytes, 1);
  if (lds.rowPitch || !llvm::isPowerOf2_64(elements) || elements < run * waveSize * numWarps ||
      llvm::any_of(lds.shape, [](int64_t n) { return !llvm::isPowerOf2_64(n); }))
    return std::nullopt;
  // The coordinate at each power-of-two offset: the arrangement is linear
  // over GF(2) for power-of-two shapes, so these are its inverse's bases.
  llvm::SmallVector<LinearLayout::Coord> atBit(llvm::Log2_64(elements));
  LinearLayout::Coord coord(lds.shape.size(), 0);
  for (int64_t i = 0; i < elements; ++i) {
    int64_t rest = i;
    for (int d = lds.shape.size() - 1; d >= 0; --d)
      coord[d] = rest % lds.shape[d], rest /= lds.shape[d];
    int64_t offset = lds.offsetOf(coord);
    if (offset >= elements)
      return std::nullopt; // not a permutation of the block
    if (llvm::isPowerOf2_64(offset))
      atBit[llvm::Log2_64(offset)] = coord;
  }
  // Offsets bit by bit: a run in registers, then the wave's lanes, then
  // more registers, and the warps over the highest bits.
  unsigned runBits = llvm::Log2_64(run), laneBits = llvm::Log2_64(waveSize), warpBits = llvm::Log2_64(numWarps);
  std::array<llvm::SmallVector<LinearLayout::Coord>, 3> bases;
  for (unsigned bit = 0; bit < atBit.size(); ++bit) {
    bool lane = bit >= runBits && bit < runBits + laneBits, warp = bit >= atBit.size() - warpBits;
    bases[lane ? LinearLayout::Lane : warp ? LinearLayout::Warp : LinearLayout::Register].push_back(atBit[bit]);
  }
  return LinearLayout(lds.shape, bases);
}

bool rocktile::copiesRunsInLaneOrder(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes) {
  int64_t run = std::max<int64_t>(kCopyRunBytes / eltBytes, 1);
  if (lds.rowPitch || layout.getNumRegisters() < run ||
      llvm::any_of(lds.shape, [](int64_t n) { return !llvm::isPowerOf2_64(n); }))
    return false;
  // Each basis must be one bit of the slot's offset (the arrangement is
  // linear over GF(2) then): the run's registers the lowest bits, the
  // lanes the next ones, every other basis a distinct higher bit.
  unsigned runBits = llvm::Log2_64(run), laneBits = layout.getBases(LinearLayout::Lane).size();
  uint64_t used = 0;
  auto takes = [&](const LinearLayout::Coord &basis, std::optional<unsigned> bit) {
    int64_t offset = lds.offsetOf(basis);
    if (offset <= 0 || !llvm::isPowerOf2_64(offset) || (used & offset))
      return false;
    unsigned at = llvm::Log2_64(offset);
    used |= offset;
    return bit ? at == *bit : at >= runBits + laneBits;
  };
  for (auto [i, basis] : llvm::enumerate(layout.getBases(LinearLayout::Register)))
    if (!takes(basis, i < runBits ? std::optional<unsigned>(i) : std::nullopt))
      return false;
  for (auto [i, basis] : llvm::enumerate(layout.getBases(LinearLayout::Lane)))
    if (!takes(basis, runBits + i))
      return false;
  return llvm::all_of(layout.getBases(LinearLayout::Warp),
                      [&](const LinearLayout::Coord &basis) { return takes(basis, std::nullopt); });
}

LdsBankMap rocktile::ldsBankMap(const LinearLayout &layout, const LdsLayout &lds, int64_t eltBytes, unsigned banks,
                      bool write, int64_t maxBytes) {
  LdsBankMap map;
  map.cost = ldsCost(layout, lds, eltBytes, banks, write, maxBytes);
  map.accessBytes = ldsAccess(layout, lds, eltBytes, maxBytes).width() * eltBytes;
  map.lanesPerPhase = std::max<int64_t>(banks / std::max<int64_t>(map.accessBytes / 4, 1), 1);
  int64_t lanes = layout.getNumLanes();
  map.lanes.assign((lanes + map.lanesPerPhase - 1) / map.lanesPerPhase,
                   std::vector<std::vector<int64_t>>(banks));
  // Lanes asking a bank for the same dword share one access (a broadcast).
  std::set<std::tuple<int64_t, int64_t>> served; // (phase, dword)
  for (int64_t lane = 0; lane < lanes; ++lane) {
    int64_t phase = lane / map.lanesPerPhase, byte = lds.offsetOf(layout.apply(0, lane, 0)) * eltBytes;
    for (int64_t d = byte / 4; d < (byte + map.accessBytes + 3) / 4; ++d)
      if (served.insert({phase, d}).second)
        map.lanes[phase][d % banks].push_back(lane);
  }
  return map;
}

LdsExchangeMap rocktile::ldsExchangeMap(const LinearLayout &from, const LinearLayout &to, int64_t eltBytes,
                              const Target &target, bool rowMajor) {
  LdsTransposeRead transposeRead = target.transposeRead(eltBytes);
  LdsLayout lds = rowMajor ? LdsLayout::rowMajor(from.getShape())
                           : chooseLdsLayout(from, to, eltBytes, target.ldsBanks, transposeRead);
  LdsExchangeMap map{lds, ldsBankMap(from, lds, eltBytes, target.ldsBanks, /*write=*/true), {}};
  if (lds.transposedRead) // the lanes' own addresses, before the exchange
    map.read = ldsBankMap(*transposeReadLayout(to, transposeRead, eltBytes), lds, eltBytes, target.ldsBanks,
                          /*write=*/false, transposeRead.elements * eltBytes);
  else
    map.read = ldsBankMap(to, lds, eltBytes, target.ldsBanks, /*write=*/false);
  return map;
}

