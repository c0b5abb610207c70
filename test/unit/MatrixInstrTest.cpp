// The emulator's matrix instruction semantics against the ISA lane tables
// (IsaTables.h: the team's shared/isa and rocktile's own) and
// against a plain matrix product.
#include "IsaTables.h"
#include "rocktile/Emulator/MatrixInstr.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <gtest/gtest.h>
#include <cmath>
#include <random>

using namespace rocktile::emulator;

namespace {

TEST(MatrixInstr, VendoredTablesMatchShared) {
  auto shared = llvm::MemoryBuffer::getFile(ROCKTILE_SHARED_ISA_JSON);
  if (!shared)
    GTEST_SKIP() << "no shared/isa beside this checkout";
  auto vendored = llvm::MemoryBuffer::getFile(ROCKTILE_ISA_JSON);
  ASSERT_TRUE(bool(vendored));
  EXPECT_EQ((*shared)->getBuffer(), (*vendored)->getBuffer())
      << "test/unit/isa/matrix_layouts.json is out of date with shared/isa";
}

TEST(MatrixInstr, PlacementsMatchIsaTables) {
  rocktile::test::IsaTables tables;
  unsigned checked = 0;
  for (const MatrixInstr &m : allMatrixInstrs()) {
    const llvm::json::Object *entry = tables.entry(m.target, m.name);
    ASSERT_NE(entry, nullptr) << m.name.str() << " is not in the ISA tables";
    EXPECT_EQ(*entry->getInteger("wave_size"), m.waveSize);
    EXPECT_EQ(*entry->getInteger("a_slots"), m.aSlots);
    EXPECT_EQ(entry->getInteger("b_slots").value_or(m.aSlots), m.bSlots);
    for (auto [operand, place] : {std::pair{"A", m.a}, {"B", m.b}, {"D", m.d}}) {
      const llvm::json::Array *rows = entry->getArray(operand);
      ASSERT_NE(rows, nullptr);
      for (const llvm::json::Value &row : *rows) {
        const llvm::json::Array &e = *row.getAsArray();
        auto [lane, slot] = place(*e[0].getAsInteger(), *e[1].getAsInteger());
        ASSERT_EQ(lane, *e[2].getAsInteger()) << m.name.str() << " " << operand << "[" << *e[0].getAsInteger()
                                              << "][" << *e[1].getAsInteger() << "] lane";
        ASSERT_EQ(slot, *e[3].getAsInteger()) << m.name.str() << " " << operand << " slot";
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 10000u);
}

/// Each [row, col, lane, slot] entry of `table` against `place`.
unsigned expectTable(const llvm::json::Object &entry, const char *table,
                     llvm::function_ref<std::pair<unsigned, unsigned>(unsigned, unsigned)> place) {
  const llvm::json::Array *rows = entry.getArray(table);
  EXPECT_NE(rows, nullptr) << table;
  unsigned checked = 0;
  for (const llvm::json::Value &row : rows ? *rows : llvm::json::Array()) {
    const llvm::json::Array &e = *row.getAsArray();
    auto [lane, slot] = place(*e[0].getAsInteger(), *e[1].getAsInteger());
    EXPECT_EQ(lane, *e[2].getAsInteger()) << table << "[" << *e[0].getAsInteger() << "][" << *e[1].getAsInteger()
                                          << "] lane";
    EXPECT_EQ(slot, *e[3].getAsInteger()) << table << "[" << *e[0].getAsInteger() << "][" << *e[1].getAsInteger()
                                          << "] slot";
    ++checked;
  }
  return checked;
}

TEST(MatrixInstr, ScaledWmmaMatchesIsaTables) {
  // gfx1250's v_wmma_scale_f32_16x16x128_f8f6f4: E2M1 operands, and the
  // scales per 32 (4 bytes a lane) and per 16 k (8) of row or column i.
  rocktile::test::IsaTables tables;
  const llvm::json::Object *entry = tables.entry("gfx1250", "wmma_scale_f32_16x16x128_f8f6f4");
  ASSERT_NE(entry, nullptr);
  const MatrixInstr *m = lookupMatrixInstr("gfx1250", "wmma_f32_16x16x128_f8");
  ASSERT_TRUE(m && m->aE2M1 && m->bE2M1);
  // An instruction's scale placements against the entry's four scale tables.
  auto scales = [&](const llvm::json::Object &table, const MatrixInstr &instr) {
    unsigned n = 0;
    for (auto [name, ofA, bytes] : {std::tuple{"A_scale", true, 4u}, {"B_scale", false, 4u},
                                    {"A_scale16", true, 8u}, {"B_scale16", false, 8u}})
      n += expectTable(table, name, [&, ofA = ofA, bytes = bytes](unsigned row, unsigned block) {
        return instr.scalePlacement(ofA, row, block * (instr.K / bytes), bytes, 0);
      });
    return n;
  };
  unsigned checked = expectTable(*entry, "A_e2m1", m->aE2M1) + expectTable(*entry, "B_e2m1", m->bE2M1);
  EXPECT_EQ(checked + scales(*entry, *m), 2 * 2048u + 2 * 64 + 2 * 128);
  // The 32x16x128 f4 instruction's scales: lane i holds row i's for all 32
  // rows of A.
  entry = tables.entry("gfx1250", "wmma_f32_32x16x128_f4");
  ASSERT_NE(entry, nullptr);
  m = lookupMatrixInstr("gfx1250", "wmma_f32_32x16x128_f4");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(scales(*entry, *m), 128u + 64 + 256 + 128);
}

TEST(MatrixInstr, ComputesProductPlusAccumulator) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  for (const MatrixInstr &m : allMatrixInstrs()) {
    std::vector<float> A(m.M * m.K), B(m.K * m.N), C(m.M * m.N);
    for (float &v : A) v = small(rng);
    for (float &v : B) v = small(rng);
    for (float &v : C) v = small(rng);
    std::vector<float> a(m.waveSize * m.aSlots), b(m.waveSize * m.bSlots), c(m.waveSize * m.dSlots),
        d(m.waveSize * m.dSlots, -1);
    for (unsigned i = 0; i < m.M; ++i)
      for (unsigned k = 0; k < m.K; ++k) {
        auto [l, s] = m.a(i, k);
        a[l * m.aSlots + s] = A[i * m.K + k];
      }
    for (unsigned k = 0; k < m.K; ++k)
      for (unsigned j = 0; j < m.N; ++j) {
        auto [l, s] = m.b(k, j);
        b[l * m.bSlots + s] = B[k * m.N + j];
      }
    for (unsigned i = 0; i < m.M; ++i)
      for (unsigned j = 0; j < m.N; ++j) {
        auto [l, s] = m.d(i, j);
        c[l * m.dSlots + s] = C[i * m.N + j];
      }
    m.apply(a.data(), b.data(), c.data(), d.data());
    for (unsigned i = 0; i < m.M; ++i)
      for (unsigned j = 0; j < m.N; ++j) {
        float expected = C[i * m.N + j];
        for (unsigned k = 0; k < m.K; ++k)
          expected += A[i * m.K + k] * B[k * m.N + j];
        auto [l, s] = m.d(i, j);
        ASSERT_EQ(d[l * m.dSlots + s], expected) << m.name.str() << " D[" << i << "][" << j << "]";
      }
  }
}

TEST(MatrixInstr, HandComputedMfma16x16x32) {
  // A = all ones, B[k][j] = k: every D[i][j] = sum(k) = 496, plus C = 1.
  const MatrixInstr *m = lookupMatrixInstr("gfx950", "mfma_f32_16x16x32_bf16");
  ASSERT_NE(m, nullptr);
  std::vector<float> a(64 * 8, 1), b(64 * 8), c(64 * 4, 1), d(64 * 4);
  for (unsigned lane = 0; lane < 64; ++lane)
    for (unsigned e = 0; e < 8; ++e)
      b[lane * 8 + e] = 8 * (lane / 16) + e; // B[k][j] held at lane j + 16*(k/8), slot k%8
  m->apply(a.data(), b.data(), c.data(), d.data());
  for (float v : d)
    EXPECT_EQ(v, 497);
  // Lane 17 holds D[4..7][1]: rows 4*(17/16).. in registers 0..3.
  EXPECT_EQ(m->d(5, 1), std::make_pair(17u, 1u));
}

} // namespace

namespace {
// int8 operands through the emulator's entry point: exact int32 products
// and sums, wrapping like the hardware's 32-bit accumulator.
TEST(MatrixInstr, Int8AccumulatesInWrappingInt32) {
  for (const char *target : {"gfx950", "gfx1250"}) {
    const MatrixInstr *m = lookupMatrixInstr(target, target == std::string("gfx950") ? "mfma_i32_16x16x64_i8"
                                                                                   : "wmma_i32_16x16x64_iu8");
    ASSERT_NE(m, nullptr);
    std::vector<int8_t> a(m->waveSize * m->aSlots, -128), b(m->waveSize * m->bSlots, -128);
    std::vector<int32_t> c(m->waveSize * m->dSlots, INT32_MAX), d(c.size());
    int64_t index = m - allMatrixInstrs().data();
    rocktile_emu_matrix(index, int64_t(a.data()), int64_t(b.data()), int64_t(c.data()), int64_t(d.data()),
                        m->waveSize, int64_t(MatrixFormat::I8), int64_t(MatrixFormat::I8));
    int32_t expected = int32_t(uint32_t(INT32_MAX) + uint32_t(16384 * m->K));
    for (int32_t v : d)
      ASSERT_EQ(v, expected) << target;
  }
}

TEST(MatrixInstr, ScaledExtMatrixReadsScalesFromRowLanes) {
  // One wave32: lane L's eight codes are all 1.0 (E2M1 code 2); lane L's
  // scale word holds bytes 100 + 4L + b, so the scale a lane applies names
  // the lane and byte it was read from.
  const int64_t n = 32;
  std::vector<uint32_t> codes(n, 0x22222222);
  std::vector<uint8_t> scales(n * 4);
  for (int64_t l = 0; l < n; ++l)
    for (int64_t byte = 0; byte < 4; ++byte)
      scales[l * 4 + byte] = uint8_t(100 + 4 * l + byte);
  struct Case {
    int64_t blockSize, firstLane, firstByte;
  };
  for (Case c : {Case{32, 0, 0}, Case{32, 16, 2}, Case{16, 0, 1}, Case{16, 16, 0}}) {
    std::vector<float> out(n * 8); // eight f32 per lane
    rocktile_emu_scaled_ext_matrix(int64_t(codes.data()), int64_t(scales.data()), int64_t(out.data()), n, 32,
                                   int64_t(MatrixFormat::F32), c.blockSize, c.firstLane, c.firstByte);
    const float *values = out.data();
    for (int64_t l = 0; l < n; ++l) {
      // Lanes 16-31 take the next byte (blocks of 32) or the one two on.
      int64_t byte = c.firstByte + (l >= 16 ? (c.blockSize == 32 ? 1 : 2) : 0);
      float want = std::ldexp(1.0f, 100 + 4 * int(c.firstLane + l % 16) + int(byte) - 127);
      for (int64_t i = 0; i < 8; ++i)
        ASSERT_EQ(values[l * 8 + i], want) << "lane " << l << " block " << c.blockSize;
    }
  }
}
} // namespace
