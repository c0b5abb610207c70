// The emulator's decoding of Tensor Data Mover descriptors, one test per
// field: each sets the field's bits as ../shared/isa/README.md places them
// (and every other bit, so that a field read from the wrong bits shows) and
// checks the decoded value.
#include "rocktile/Emulator/TensorDataMover.h"
#include <gtest/gtest.h>

using rocktile::emulator::decodeTensorDescriptor;
using rocktile::emulator::TensorDescriptor;

namespace {

using G0 = std::array<uint32_t, 4>;
using G1 = std::array<uint32_t, 8>;

/// Groups with `word`'s bits [lo, lo + width) set to `value` and, when
/// `others`, every other bit of both groups set.
std::pair<G0, G1> with(bool group1, unsigned word, unsigned lo, unsigned width, uint32_t value, bool others) {
  G0 g0;
  G1 g1;
  g0.fill(others ? ~0u : 0);
  g1.fill(others ? ~0u : 0);
  uint32_t mask = (width == 32 ? ~0u : ((1u << width) - 1)) << lo;
  uint32_t &w = group1 ? g1[word] : g0[word];
  w = (w & ~mask) | (value << lo & mask);
  return {g0, g1};
}

TensorDescriptor decode(bool group1, unsigned word, unsigned lo, unsigned width, uint32_t value,
                        bool others = false) {
  auto [g0, g1] = with(group1, word, lo, width, value, others);
  return decodeTensorDescriptor(g0, g1);
}

TEST(TensorDataMover, Group0) {
  EXPECT_EQ(decode(false, 0, 0, 2, 1).valid, 1u);
  EXPECT_EQ(decode(false, 0, 0, 2, 0, true).valid, 0u);
  EXPECT_EQ(decode(false, 1, 0, 32, 0x1234).ldsAddress, 0x1234u);
  EXPECT_EQ(decode(false, 2, 0, 32, 0xdeadbeef).globalAddress, 0xdeadbeefull);
  // Address bits 56:32 are word 3's bits 24:0; bits 29:25 belong to nothing.
  EXPECT_EQ(decode(false, 3, 0, 25, 0x1abcdef).globalAddress, 0x1abcdefull << 32);
  EXPECT_EQ(decode(false, 3, 0, 30, 0, true).globalAddress, 0xffffffffull);
  EXPECT_EQ(decode(false, 3, 30, 2, 2).type, 2u);
  EXPECT_EQ(decode(false, 3, 30, 2, 1, true).type, 1u);
}

TEST(TensorDataMover, Group1Word0) {
  EXPECT_EQ(decode(true, 0, 0, 16, 0xa5a5).workgroupMask, 0xa5a5u);
  for (unsigned log2 = 0; log2 < 4; ++log2)
    EXPECT_EQ(decode(true, 0, 16, 2, log2, true).elementBytes, 1u << log2);
  EXPECT_TRUE(decode(true, 0, 18, 1, 1).atomicBarrier);
  EXPECT_FALSE(decode(true, 0, 18, 1, 0, true).atomicBarrier);
  EXPECT_TRUE(decode(true, 0, 19, 1, 1).iterate);
  EXPECT_FALSE(decode(true, 0, 19, 1, 0, true).iterate);
  EXPECT_TRUE(decode(true, 0, 20, 1, 1).padEnable);
  EXPECT_FALSE(decode(true, 0, 20, 1, 0, true).padEnable);
  EXPECT_TRUE(decode(true, 0, 21, 1, 1).earlyTimeout);
  EXPECT_FALSE(decode(true, 0, 21, 1, 0, true).earlyTimeout);
  // Pad interval: log2(dwords) - 1 in bits 24:22, so 2 to 256 dwords.
  EXPECT_EQ(decode(true, 0, 22, 3, 0, true).padIntervalDwords, 2u);
  EXPECT_EQ(decode(true, 0, 22, 3, 7).padIntervalDwords, 256u);
  // Pad amount: dwords - 1 in bits 31:25, so 1 to 128 dwords.
  EXPECT_EQ(decode(true, 0, 25, 7, 0, true).padAmountDwords, 1u);
  EXPECT_EQ(decode(true, 0, 25, 7, 127).padAmountDwords, 128u);
}

TEST(TensorDataMover, Group1Extents) {
  EXPECT_EQ(decode(true, 1, 0, 16, 0x1234, false).barrierAddress, 0x1234u << 3);
  // tensor_dim0: word 1 bits 31:16 (low half), word 2 bits 15:0 (high half).
  EXPECT_EQ(decode(true, 1, 16, 16, 0xbeef).tensorDim[0], 0xbeefu);
  EXPECT_EQ(decode(true, 2, 0, 16, 0x1234).tensorDim[0], 0x12340000u);
  EXPECT_EQ(decode(true, 2, 16, 16, 0xcafe).tensorDim[1], 0xcafeu);
  EXPECT_EQ(decode(true, 3, 0, 16, 0x0042).tensorDim[1], 0x00420000u);
  EXPECT_EQ(decode(true, 3, 16, 16, 64).tileDim[0], 64u);
  EXPECT_EQ(decode(true, 4, 0, 16, 32).tileDim[1], 32u);
  EXPECT_EQ(decode(true, 4, 16, 16, 7).tileDim[2], 7u);
  EXPECT_EQ(decode(true, 4, 16, 16, 0, true).tileDim[1], 0xffffu);
}

TEST(TensorDataMover, Group1Strides) {
  // dim0_stride (between rows): word 5, then word 6 bits 15:0 above it.
  EXPECT_EQ(decode(true, 5, 0, 32, 4096).stride[0], 4096u);
  EXPECT_EQ(decode(true, 6, 0, 16, 0x00ab).stride[0], 0xabull << 32);
  // dim1_stride: word 6 bits 31:16, then word 7 above them.
  EXPECT_EQ(decode(true, 6, 16, 16, 0x1234).stride[1], 0x1234u);
  EXPECT_EQ(decode(true, 7, 0, 32, 0x5678).stride[1], 0x5678ull << 16);
}

TEST(TensorDataMover, PaddingPlacesElementsInLds) {
  TensorDescriptor d;
  d.elementBytes = 2, d.tileDim = {64, 4, 0};
  EXPECT_EQ(d.ldsOffset(65), 130u);
  EXPECT_EQ(d.ldsBytes(), 512u);
  // 4 dwords of padding after every 32 dwords (one 64-element bf16 row).
  d.padEnable = true, d.padIntervalDwords = 32, d.padAmountDwords = 4;
  EXPECT_EQ(d.ldsOffset(63), 126u);
  EXPECT_EQ(d.ldsOffset(64), 128u + 16u);
  EXPECT_EQ(d.ldsOffset(130), 260u + 32u);
  EXPECT_EQ(d.ldsBytes(), 512u + 3 * 16u);
}

} // namespace
