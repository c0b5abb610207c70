// The LDS arrangement chosen for a layout conversion: a bijection onto the
// tile's elements, accessed as wide as both sides allow, and free of bank
// conflicts for the dot operands of the tutorial GEMM on both targets (the
// emulator measures the same on the compiled kernel, test_emulator_lds.py).
#include "IsaTables.h"
#include "rocktile/Analysis/LdsLayout.h"
#include "rocktile/Target/MatrixCore.h"
#include "llvm/Support/raw_ostream.h"
#include <gtest/gtest.h>
#include <set>

using namespace rocktile;

namespace {

LinearLayout linear(llvm::ArrayRef<int64_t> shape, std::initializer_list<LinearLayout::Coord> regs,
                    std::initializer_list<LinearLayout::Coord> lanes,
                    std::initializer_list<LinearLayout::Coord> warps) {
  return LinearLayout(shape, {llvm::SmallVector<LinearLayout::Coord>(regs),
                              llvm::SmallVector<LinearLayout::Coord>(lanes),
                              llvm::SmallVector<LinearLayout::Coord>(warps)});
}

void expectBijective(const LdsLayout &lds) {
  std::set<int64_t> seen;
  int64_t n = lds.shape[0] * lds.shape[1];
  for (int64_t r = 0; r < lds.shape[0]; ++r)
    for (int64_t c = 0; c < lds.shape[1]; ++c) {
      int64_t o = lds.offsetOf({r, c});
      EXPECT_TRUE(o >= 0 && o < n) << lds.str();
      seen.insert(o);
    }
  EXPECT_EQ(int64_t(seen.size()), n) << lds.str();
}

TEST(LdsLayout, SwizzleIsABijectionAndLinear) {
  LdsLayout lds = LdsLayout::rowMajor({64, 128});
  lds.vec = 8, lds.maxPhase = 8, lds.phaseShifts = {1, 3}, lds.rowShift = 2;
  expectBijective(lds);
  // XOR-linear: the offset of a | b is the XOR of the offsets of disjoint a, b.
  for (int64_t r : {1, 2, 4, 8, 16, 32})
    for (int64_t c : {1, 2, 4, 8, 16, 32, 64})
      EXPECT_EQ(lds.offsetOf({r, c}), lds.offsetOf({r, 0}) ^ lds.offsetOf({0, c}));
}
} // namespace

namespace {
// Each target's transpose reads are the instructions of
// test/unit/isa/lds_transpose_reads.json (whose lane tables the emulator is
// tested against, WaveOpsTest), and the chooser's cost of them is the
// table's shape: `elements` per lane, groups of `group_lanes`.
TEST(LdsLayout, TransposeReadsAreTheIsaTables) {
  llvm::json::Value doc = rocktile::test::parseJsonFile(ROCKTILE_TRANSPOSE_READS_JSON);
  for (const Target *t : allTargets()) {
    const llvm::json::Object *instrs = doc.getAsObject()->getObject(t->chip);
    ASSERT_TRUE(instrs) << t->chip.str();
    EXPECT_EQ(instrs->size(), t->transposeReads.size()) << t->chip.str();
    for (const LdsTransposeRead &read : t->transposeReads) {
      int matches = 0;
      for (auto &[name, value] : *instrs) {
        const llvm::json::Object &e = *value.getAsObject();
        if (*e.getInteger("element_bits") != 8 * read.elementBytes)
          continue;
        ++matches;
        EXPECT_EQ(*e.getInteger("elements"), read.elements) << name.str();
        EXPECT_EQ(*e.getInteger("group_lanes"), read.lanes) << name.str();
        EXPECT_EQ(*e.getInteger("wave_size"), t->waveSize) << name.str();
      }
      EXPECT_EQ(matches, 1) << t->chip.str() << " " << read.elementBytes << "-byte";
    }
  }
}

// A transpose read hands each lane the elements of its group's lanes: when
// those lanes hold copies (a 16x16 bf16 tile spread over 2 of gfx1250's 32
// lanes, 128 registers each), the copies would take the place of distinct
// elements. Such a layout is read without transposing.
TEST(LdsLayout, NoTransposeReadIntoLanesThatHoldCopies) {
  const Target &gfx1250 = *lookupTarget("gfx1250");
  LinearLayout copies = linear({16, 16}, {{0, 2}, {0, 4}, {0, 8}, {1, 0}, {2, 0}, {4, 0}, {8, 0}},
                               {{0, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}, {});
  EXPECT_FALSE(transposeReadLayout(copies, gfx1250.transposeRead(2), 2));
  // The same tile with distinct lanes may be.
  LinearLayout distinct = linear({16, 16}, {{0, 2}, {0, 4}, {0, 8}}, {{0, 1}, {1, 0}, {2, 0}, {4, 0}, {8, 0}}, {});
  EXPECT_TRUE(transposeReadLayout(distinct, gfx1250.transposeRead(2), 2));
}

const MatrixCoreInstr &bf16Instr(const Target &t) {
  for (const MatrixCoreInstr &m : t.matrixInstrs)
    if (m.ab == MatrixElem::BF16 && m.m == 16)
      return m;
  llvm_unreachable("no bf16 instruction");
}

// The tutorial GEMM's operands (row-major A and B, bf16) staged for the
// bf16 matrix instruction: from the blocked layouts their 128-bit loads
// have (B's lanes also hold 4 consecutive rows along K, as
// tile-assign-layouts gives them) to the operand layouts, on both targets
// and the bench's tile configurations. B is N-contiguous: gfx950 reads it
// with transpose reads (gfx950 64-bit, 4 k per lane; gfx1250 128-bit, 8 k per
// lane) from rows written whole.
TEST(LdsLayout, GemmOperandsAreConflictFreeAndWide) {
  struct Config {
    int64_t m, n, k;
    unsigned warps;
  };
  for (const Target *t : allTargets())
    for (Config c : {Config{128, 128, 64, 4}, Config{256, 128, 64, 8}, Config{64, 64, 32, 4}}) {
      unsigned wave = t->waveSize, kLanes = c.k / 8;
      DotLayouts dot = dotLayouts(bf16Instr(*t), c.m, c.n, c.k, c.warps);
      LinearLayout a = LinearLayout::blocked({c.m, c.k}, {1, 8}, {wave / kLanes, kLanes}, {c.warps, 1}, {1, 0});
      LinearLayout b = LinearLayout::blocked({c.k, c.n}, {4, 8}, {wave / 16, 16}, {c.warps, 1}, {1, 0});
      for (auto [name, from, to] : {std::tuple{"A", a, dot.a}, std::tuple{"B", b, dot.b}}) {
        LdsLayout lds = chooseLdsLayout(from, to, /*eltBytes=*/2, t->ldsBanks, t->transposeRead(2));
        std::string what = t->chip.str() + " " + name + " " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                           "x" + std::to_string(c.k) + ": " + lds.str();
        bool transposed = name == std::string("B");
        EXPECT_EQ(lds.transposedRead, transposed) << what;
        LinearLayout reader = transposed ? *transposeReadLayout(to, t->transposeRead(2), 2) : to;
        int64_t readBytes = transposed ? 2 * t->transposeRead(2).elements : 16;
        LdsCost write = ldsCost(from, lds, 2, t->ldsBanks, true),
                read = ldsCost(reader, lds, 2, t->ldsBanks, false, readBytes);
        EXPECT_EQ(write.conflictCycles, 0) << what;
        EXPECT_EQ(read.conflictCycles, 0) << what;
        EXPECT_EQ(ldsAccess(reader, lds, 2, readBytes).width(), readBytes / 2) << what; // the widest reads
        EXPECT_GE(ldsAccess(from, lds, 2).width(), name == std::string("A") || transposed ? 8 : 4) << what;
        expectBijective(lds);
      }
    }
}

// The accumulator on its way to the store layout (fp32, 4 per lane along a
// row): its lanes write rows 0 and 4 of one 32-column strip, which sit on the
// same banks; a phase taken from a low row bit moved up (a negative shift)
// spreads them. Found as 1 extra cycle per write in the fp8 GEMM's epilogue.
TEST(LdsLayout, AccumulatorToStoreLayoutIsConflictFree) {
  const Target &gfx950 = *lookupTarget("gfx950");
  for (const MatrixCoreInstr &m : gfx950.matrixInstrs) {
    DotLayouts dot = dotLayouts(m, 128, 128, 2 * m.k, 4);
    LinearLayout store = LinearLayout::blocked({128, 128}, {1, 4}, {2, 32}, {4, 1}, {1, 0});
    LdsLayout lds = chooseLdsLayout(dot.d, store, 4, gfx950.ldsBanks);
    EXPECT_EQ(ldsCost(dot.d, lds, 4, gfx950.ldsBanks, true).conflictCycles, 0) << m.name.str() << " " << lds.str();
    EXPECT_EQ(ldsCost(store, lds, 4, gfx950.ldsBanks, false).conflictCycles, 0) << m.name.str() << " " << lds.str();
    EXPECT_EQ(ldsAccess(store, lds, 4).width(), 4) << m.name.str();
  }
}

// The cost model itself: the columns of a row-major 64x64 f32 tile read by
// lanes that each hold a row hit the same banks from every lane; an XOR
// swizzle spreads them, and the chooser finds one.
TEST(LdsLayout, CostCountsConflictsOfAColumnRead) {
  LinearLayout rows = LinearLayout::blocked({64, 64}, {1, 4}, {4, 16}, {1, 1}, {1, 0});
  // Lane l holds row l; its registers walk the columns.
  LinearLayout cols = linear({64, 64}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}},
                             {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {32, 0}}, {});
  LdsLayout plain = LdsLayout::rowMajor({64, 64});
  LdsCost column = ldsCost(cols, plain, 4, 64, false);
  // 16 reads of 128 bits; each is served in 4 phases of 16 lanes, whose 16
  // rows all fall on the same 4 banks: 15 extra cycles per phase.
  EXPECT_EQ(ldsAccess(cols, plain, 4).width(), 4);
  EXPECT_EQ(column.instructions, 16);
  EXPECT_EQ(column.conflictCycles, 16 * 4 * 15);
  LdsLayout chosen = chooseLdsLayout(rows, cols, 4, 64);
  EXPECT_EQ(ldsCost(cols, chosen, 4, 64, false).conflictCycles, 0) << chosen.str();
  EXPECT_EQ(ldsCost(rows, chosen, 4, 64, true).conflictCycles, 0) << chosen.str();
}
} // namespace
