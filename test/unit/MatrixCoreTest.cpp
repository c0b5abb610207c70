// The compiler's matrix-instruction layouts (each target's table) against
// the ISA lane tables (IsaTables.h), element by
// element; and the dot layouts built from them: every element of A, B and D
// has an owner, and the warps split the tile as documented.
#include "IsaTables.h"
#include "rocktile/Target/MatrixCore.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <gtest/gtest.h>
#include <set>

using namespace rocktile;

namespace {

LinearLayout instrLayout(const OperandBases &bases, int64_t rows, int64_t cols) {
  std::array<llvm::SmallVector<LinearLayout::Coord>, 3> b;
  for (auto [r, c] : bases.registers)
    b[LinearLayout::Register].push_back({r, c});
  for (auto [r, c] : bases.lanes)
    b[LinearLayout::Lane].push_back({r, c});
  return LinearLayout({rows, cols}, std::move(b));
}

TEST(MatrixCore, InstructionLayoutsMatchIsaTables) {
  test::IsaTables tables;
  unsigned checked = 0;
  for (const Target *t : allTargets())
    for (const MatrixCoreInstr &m : t->matrixInstrs) {
      // The f16 instructions share their bf16 twins' layouts (the tables' note).
      std::string name = m.name.str();
      if (llvm::StringRef(name).ends_with("_f16"))
        name = name.substr(0, name.size() - 3) + "bf16";
      const llvm::json::Object *entry = tables.entry(t->chip, name);
      ASSERT_NE(entry, nullptr) << name << " is not in the ISA tables";
      EXPECT_EQ(*entry->getInteger("wave_size"), t->waveSize);
      EXPECT_EQ(*entry->getInteger("a_slots"), m.aSlots());
      EXPECT_EQ(entry->getInteger("b_slots").value_or(m.aSlots()), m.bSlots());
      struct Operand {
        const char *key;
        LinearLayout layout;
      } operands[] = {{"A", instrLayout(m.a, m.m, m.k)},
                      {"B", instrLayout(m.b, m.k, m.n)},
                      {"D", instrLayout(m.d, m.m, m.n)}};
      for (const Operand &op : operands) {
        ASSERT_EQ(op.layout.getNumLanes(), t->waveSize) << m.name.str() << " " << op.key;
        const llvm::json::Array *rows = entry->getArray(op.key);
        ASSERT_NE(rows, nullptr);
        ASSERT_EQ(rows->size(), size_t(op.layout.getNumRegisters() * op.layout.getNumLanes()));
        for (const llvm::json::Value &row : *rows) {
          const llvm::json::Array &e = *row.getAsArray();
          LinearLayout::Coord got = op.layout.apply(*e[3].getAsInteger(), *e[2].getAsInteger(), 0);
          LinearLayout::Coord want{*e[0].getAsInteger(), *e[1].getAsInteger()};
          ASSERT_EQ(got, want) << m.name.str() << " " << op.key << " lane " << *e[2].getAsInteger()
                               << " slot " << *e[3].getAsInteger();
          ++checked;
        }
      }
    }
  // gfx950: 2 x (16x16x32: 512 + 512 + 256) + 2 x (32x32x16: 512 + 512 + 1024)
  //   + 16x16x128 (2048 + 2048 + 256) + 32x32x64 (2048 + 2048 + 1024)
  //   + i8 16x16x64 (1024 + 1024 + 256) + i8 32x32x32 (1024 + 1024 + 1024)
  //   + f32 16x16x4 (64 + 64 + 256) + f32 32x32x2 (64 + 64 + 1024);
  // gfx1250: 2 x (16x16x32: 512 + 512 + 256) + iu8 16x16x64 (1024 + 1024 + 256)
  //   + f32 16x16x4 (64 + 64 + 256) + fp8 16x16x64 (1024 + 1024 + 256) + fp8 16x16x128 (2048 + 2048 + 256)
  //   + f4 32x16x128 (4096 + 2048 + 512)
  EXPECT_EQ(checked, 18688u + 2304 + 3072 + 384 + 1152 + 2304 + 384 + 2304 + 4352 + 6656);
}

TEST(MatrixCore, ScaledFormsMatchIsaTables) {
  // gfx1250's scaled WMMA: the E2M1 operands' bases and the scales' (rows
  // or columns by blocks) against rocktile's table, inferences marked there.
  test::IsaTables tables;
  const llvm::json::Object *entry = tables.entry("gfx1250", "wmma_scale_f32_16x16x128_f8f6f4");
  ASSERT_NE(entry, nullptr);
  const MatrixCoreInstr *instr = chooseMatrixInstr(*lookupTarget("gfx1250"), MatrixElem::FP8, MatrixElem::F32,
                                                   16, 16, 128, 0, 32);
  ASSERT_TRUE(instr && instr->scaled);
  MatrixCoreInstr e2m1 = instr->withE2M1(true, true);
  unsigned checked = 0;
  // B's scale bases are (block, column), its table (column, block).
  auto expect = [&](const char *table, const LinearLayout &layout, bool swap = false) {
    const llvm::json::Array *rows = entry->getArray(table);
    ASSERT_NE(rows, nullptr) << table;
    for (const llvm::json::Value &row : *rows) {
      const llvm::json::Array &e = *row.getAsArray();
      LinearLayout::Coord got = layout.apply(*e[3].getAsInteger(), *e[2].getAsInteger(), 0);
      if (swap)
        std::swap(got[0], got[1]);
      EXPECT_EQ(got, (LinearLayout::Coord{*e[0].getAsInteger(), *e[1].getAsInteger()}))
          << table << " lane " << *e[2].getAsInteger() << " slot " << *e[3].getAsInteger();
      ++checked;
    }
  };
  // An instruction's scales per 32 and per 16 k: A's of its m rows, B's of
  // its 16 columns.
  auto expectScales = [&](const MatrixCoreInstr &m) {
    MatrixCoreInstr per32 = m.ofScales(32), per16 = m.ofScales(16);
    expect("A_scale", instrLayout(per32.a, m.m, 4));
    expect("A_scale16", instrLayout(per16.a, m.m, 8));
    expect("B_scale", instrLayout(per32.b, 4, 16), true);
    expect("B_scale16", instrLayout(per16.b, 8, 16), true);
  };
  expect("A_e2m1", instrLayout(e2m1.a, 16, 128));
  expect("B_e2m1", instrLayout(e2m1.b, 128, 16));
  expectScales(*instr);
  EXPECT_EQ(checked, 2 * 2048u + 2 * 64 + 2 * 128);
  // The 32x16x128 f4 instruction's scales (its operands are in the table
  // every instruction is checked against), chosen for E2M1 on both sides.
  entry = tables.entry("gfx1250", "wmma_f32_32x16x128_f4");
  ASSERT_NE(entry, nullptr);
  const MatrixCoreInstr *f4 = chooseMatrixInstr(*lookupTarget("gfx1250"), MatrixElem::FP4, MatrixElem::F32,
                                                32, 16, 128, 0, 32);
  ASSERT_TRUE(f4 && f4->scaled);
  EXPECT_EQ(f4->name, "wmma_f32_32x16x128_f4");
  checked = 0;
  expectScales(*f4);
  EXPECT_EQ(checked, 2 * 64u + 2 * 128 + 64 + 128);
  // gfx950 takes no E4M3 scales per 16.
  EXPECT_EQ(chooseMatrixInstr(*lookupTarget("gfx950"), MatrixElem::FP8, MatrixElem::F32, 32, 32, 128, 0, 16),
            nullptr);
}

/// Every element of `layout`'s tensor is held by some (register, lane, warp).
void expectCovers(const LinearLayout &layout) {
  std::set<LinearLayout::Coord> seen;
  for (int64_t w = 0; w < layout.getNumWarps(); ++w)
    for (int64_t l = 0; l < layout.getNumLanes(); ++l)
      for (int64_t r = 0; r < layout.getNumRegisters(); ++r)
        seen.insert(layout.apply(r, l, w));
  int64_t elements = 1;
  for (int64_t size : layout.getShape())
    elements *= size;
  EXPECT_EQ(int64_t(seen.size()), elements) << layout.str();
}

TEST(MatrixCore, ChoosesByTypeAndShape) {
  const Target &gfx950 = *lookupTarget("gfx950"), &gfx1250 = *lookupTarget("gfx1250");
  EXPECT_EQ(chooseMatrixInstr(gfx950, MatrixElem::BF16, MatrixElem::F32, 64, 64, 64)->name,
            "mfma_f32_16x16x32_bf16");
  EXPECT_EQ(chooseMatrixInstr(gfx950, MatrixElem::F16, MatrixElem::F32, 32, 32, 16)->name,
            "mfma_f32_32x32x16_f16");
  EXPECT_EQ(chooseMatrixInstr(gfx1250, MatrixElem::BF16, MatrixElem::F32, 16, 16, 32)->name,
            "wmma_f32_16x16x32_bf16");
  EXPECT_EQ(chooseMatrixInstr(gfx1250, MatrixElem::BF16, MatrixElem::F32, 16, 16, 16), nullptr);
  EXPECT_EQ(chooseMatrixInstr(gfx950, MatrixElem::BF16, MatrixElem::F32, 8, 16, 32), nullptr);
}

TEST(MatrixCore, DotLayoutsSplitWarpsAndCoverTheTile) {
  struct Case {
    int64_t M, N, K;
    unsigned warps, warpsM, warpsN;
  } cases[] = {{128, 128, 64, 4, 2, 2}, {256, 128, 64, 8, 4, 2}, {16, 64, 32, 4, 1, 4},
               {64, 16, 32, 2, 2, 1},   {16, 16, 32, 4, 2, 2},   {32, 256, 128, 8, 1, 8}};
  for (const Target *t : allTargets())
    for (const Case &c : cases) {
      const MatrixCoreInstr *instr =
          chooseMatrixInstr(*t, MatrixElem::BF16, MatrixElem::F32, c.M, c.N, c.K);
      ASSERT_NE(instr, nullptr);
      DotLayouts l = dotLayouts(*instr, c.M, c.N, c.K, c.warps);
      EXPECT_EQ(l.warpsM, c.warpsM) << c.M << "x" << c.N << " " << c.warps;
      EXPECT_EQ(l.warpsN, c.warpsN) << c.M << "x" << c.N << " " << c.warps;
      for (const LinearLayout *layout : {&l.a, &l.b, &l.d}) {
        EXPECT_EQ(layout->getNumLanes(), t->waveSize);
        EXPECT_EQ(layout->getNumWarps(), c.warps);
        expectCovers(*layout);
      }
      // A warp's rows of A are its rows of D, its columns of B its columns of D.
      for (int64_t w = 0; w < c.warps; ++w)
        for (int64_t lane = 0; lane < t->waveSize; ++lane) {
          EXPECT_EQ(l.a.apply(0, lane, w)[0] / instr->m, l.d.apply(0, 0, w)[0] / instr->m);
          EXPECT_EQ(l.b.apply(0, lane, w)[1] / instr->n, l.d.apply(0, 0, w)[1] / instr->n);
        }
    }
}

// The explicit level's layouts of a block-scaled product (Gluon's
// mfma_scaled and wmma_scaled operands and scales) are scaledDotLayouts'
// when the author's warps step as dotLayouts' do: A, B (fp8, or bytes of
// E2M1 pairs), D and both operands' scales, on every scaled instruction.
TEST(MatrixCore, ExplicitScaledLayoutsAreScaledDotLayouts) {
  unsigned checked = 0;
  for (const Target *t : allTargets())
    for (const MatrixCoreInstr &instr : t->matrixInstrs) {
      if (!instr.scaled)
        continue;
      for (bool packed : {false, true}) {
        int64_t M = 4 * instr.m, N = 4 * instr.n, K = 2 * instr.k;
        DotOptions options;
        options.warpsN = 2;
        options.transposed = true;
        ScaledDotLayouts want = scaledDotLayouts(instr, M, N, K, 4, options, packed, packed, 32);
        std::array<int64_t, 2> steps[] = {{0, 1}, {1, 0}}; // dotLayouts' order, computed transposed
        int64_t bytes = packed ? K / 2 : K;
        struct {
          ScaledOperand operand;
          llvm::SmallVector<int64_t> shape;
          const LinearLayout &layout;
        } operands[] = {{ScaledOperand::A, {M, bytes}, want.a},       {ScaledOperand::B, {bytes, N}, want.b},
                        {ScaledOperand::D, {M, N}, want.d},           {ScaledOperand::AScale, {M, K / 32}, want.aScale},
                        {ScaledOperand::BScale, {N, K / 32}, want.bScale}};
        for (const auto &o : operands) {
          std::string why;
          std::optional<LinearLayout> got =
              explicitScaledDotLayout(instr, o.operand, o.shape, 4, steps, true, packed, packed, 32, why);
          ASSERT_TRUE(got.has_value()) << instr.name.str() << ": " << why;
          EXPECT_EQ(got->str(), o.layout.str()) << instr.name.str() << " operand " << int(o.operand) << " packed " << packed;
          ++checked;
        }
      }
    }
  EXPECT_GE(checked, 3u * 2 * 5); // two on gfx950, at least one on gfx1250
}

// The warp split by LDS reads: with B read 4 elements at a time (gfx950's
// transpose read of bf16) and A 8, a 256x256 tile on 8 warps gives B the
// smaller share (2 x 4 warps: 16 + 16 reads per warp and k-step of 64,
// where dotLayouts' 4 x 2 makes 8 + 32); at 128x128 and 256x128 both splits
// cost the same and dotLayouts' stays; equal reads change nothing.
TEST(MatrixCore, WarpSplitByOperandReads) {
  const MatrixCoreInstr &bf16 = *chooseMatrixInstr(*lookupTarget("gfx950"), MatrixElem::BF16, MatrixElem::F32,
                                                   256, 256, 64);
  EXPECT_EQ(chooseWarpsN(bf16, 256, 256, 64, 8, /*readA=*/8, /*readB=*/4, false), 4u);
  EXPECT_EQ(chooseWarpsN(bf16, 256, 256, 64, 8, /*readA=*/4, /*readB=*/8, false), 0u); // 4 x 2 is dotLayouts'
  EXPECT_EQ(chooseWarpsN(bf16, 256, 256, 64, 8, 8, 8, false), 0u);
  EXPECT_EQ(chooseWarpsN(bf16, 128, 128, 64, 4, 8, 4, false), 0u);
  EXPECT_EQ(chooseWarpsN(bf16, 256, 128, 64, 8, 8, 4, false), 0u);
  // Never more warps along a dimension than its instruction tiles.
  EXPECT_EQ(chooseWarpsN(bf16, 256, 16, 64, 8, 8, 1, false), 0u);
}

// A batched dot: the batch over the warps first, then registers; each
// product is laid out as a 2-D dot with the warps left, and every element
// of every product has a lane.
TEST(MatrixCore, BatchedLayouts) {
  struct Case {
    int64_t batch, M, N, K;
    unsigned warps, warpsBatch;
  } cases[] = {{2, 16, 16, 32, 1, 1}, {4, 32, 32, 64, 4, 4}, {8, 16, 32, 32, 2, 2}, {2, 64, 64, 32, 8, 2},
               {1, 32, 32, 32, 4, 1}};
  for (const Target *t : allTargets())
    for (const Case &c : cases) {
      const MatrixCoreInstr *instr = chooseMatrixInstr(*t, MatrixElem::BF16, MatrixElem::F32, c.M, c.N, c.K);
      ASSERT_NE(instr, nullptr);
      DotLayouts l = dotLayouts(*instr, c.M, c.N, c.K, c.warps, c.batch);
      DotLayouts flat = dotLayouts(*instr, c.M, c.N, c.K, c.warps / c.warpsBatch);
      EXPECT_EQ(l.warpsBatch, c.warpsBatch);
      for (auto [layout, product] : {std::pair{&l.a, &flat.a}, {&l.b, &flat.b}, {&l.d, &flat.d}}) {
        ASSERT_EQ(layout->getRank(), 3u);
        EXPECT_EQ(layout->getShape()[0], c.batch);
        EXPECT_EQ(layout->getNumWarps(), c.warps);
        expectCovers(*layout);
        // Batch index 0 of the first warps is the 2-D dot's layout.
        for (int64_t w = 0; w < product->getNumWarps(); ++w)
          for (int64_t lane = 0; lane < t->waveSize; ++lane)
            for (int64_t r = 0; r < product->getNumRegisters(); ++r) {
              LinearLayout::Coord c3 = layout->apply(r, lane, w), c2 = product->apply(r, lane, w);
              ASSERT_EQ(c3, (LinearLayout::Coord{0, c2[0], c2[1]}));
            }
      }
    }
}

} // namespace
