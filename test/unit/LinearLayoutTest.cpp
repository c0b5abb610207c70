// Linear layouts against hand-computed element ownership.
#include "rocktile/Dialect/Tile/IR/LinearLayout.h"
#include <gtest/gtest.h>
#include <set>

using rocktile::LinearLayout;
using Coord = LinearLayout::Coord;

namespace {

LinearLayout blocked1d(int64_t size) {
  return LinearLayout::blocked({size}, {4}, {64}, {4}, {0});
}

TEST(LinearLayout, Blocked1DOwnership) {
  LinearLayout l = blocked1d(1024);
  EXPECT_EQ(l.getNumRegisters(), 4);
  EXPECT_EQ(l.getNumLanes(), 64);
  EXPECT_EQ(l.getNumWarps(), 4);
  // Lane 1 of warp 1 holds elements 256 + 4 .. 256 + 7.
  for (int64_t r = 0; r < 4; ++r)
    EXPECT_EQ(l.apply(r, 1, 1), Coord({260 + r}));
  EXPECT_EQ(l.getContiguousRegisters(0), 4);
  EXPECT_TRUE(l.isAdditive());
}

TEST(LinearLayout, LargerTensorRepeatsOverRegisters) {
  LinearLayout l = blocked1d(2048);
  EXPECT_EQ(l.getNumRegisters(), 8);
  // Register 4 starts the second 1024-element tile.
  EXPECT_EQ(l.apply(4, 0, 0), Coord({1024}));
  EXPECT_EQ(l.apply(5, 3, 2), Coord({1024 + 512 + 12 + 1}));
  EXPECT_EQ(l.getContiguousRegisters(0), 4);
}

TEST(LinearLayout, SmallerTensorIsBroadcast) {
  LinearLayout l = blocked1d(64);
  EXPECT_EQ(l.getNumRegisters(), 4);
  // Lanes 16.. and every warp wrap around onto the same 64 elements.
  EXPECT_EQ(l.apply(0, 16, 0), Coord({0}));
  EXPECT_EQ(l.apply(2, 17, 3), Coord({6}));
}

TEST(LinearLayout, Blocked2DRowMajor) {
  // 8 elements per lane along columns, 8x8 lanes, 4 warps down the rows.
  LinearLayout l = LinearLayout::blocked({32, 64}, {1, 8}, {8, 8}, {4, 1}, {1, 0});
  EXPECT_EQ(l.getNumRegisters(), 8);
  EXPECT_EQ(l.apply(0, 1, 0), Coord({0, 8}));
  EXPECT_EQ(l.apply(3, 9, 0), Coord({1, 11}));
  EXPECT_EQ(l.apply(0, 0, 2), Coord({16, 0}));
  EXPECT_EQ(l.getContiguousRegisters(1), 8);
  EXPECT_EQ(l.getContiguousRegisters(0), 1);
}

TEST(LinearLayout, DropDimMergesRegisters) {
  LinearLayout l = LinearLayout::blocked({4, 256}, {2, 4}, {1, 64}, {4, 1}, {1, 0});
  LinearLayout rows = l.dropDim(1); // a reduction along the columns
  EXPECT_EQ(rows.getShape(), llvm::ArrayRef<int64_t>({4}));
  EXPECT_EQ(rows.getNumRegisters(), 2);
  // Every lane of a warp holds the same rows after the reduction.
  for (int64_t lane : {0, 5, 63})
    EXPECT_EQ(rows.apply(1, lane, 1), Coord({3}));
}

TEST(LinearLayout, DivideDimHoldsEachElementsBlock) {
  // 8 consecutive columns per lane, 8 lanes along the columns, 4 along rows.
  LinearLayout l = LinearLayout::blocked({8, 64}, {1, 8}, {4, 8}, {2, 1}, {1, 0});
  LinearLayout pairs = l.divideDim(1, 2), blocks = l.divideDim(1, 32);
  EXPECT_EQ(pairs.getShape(), llvm::ArrayRef<int64_t>({8, 32}));
  EXPECT_EQ(pairs.getNumRegisters(), 4); // a lane's 8 elements are 4 pairs
  EXPECT_EQ(blocks.getShape(), llvm::ArrayRef<int64_t>({8, 2}));
  EXPECT_EQ(blocks.getNumRegisters(), 1); // all in one block of 32
  for (uint64_t reg = 0; reg < 8; ++reg)
    for (uint64_t lane : {0, 3, 4, 13, 31})
      for (uint64_t warp : {0, 1}) {
        Coord c = l.apply(reg, lane, warp);
        EXPECT_EQ(pairs.apply(reg / 2, lane, warp), Coord({c[0], c[1] / 2}));
        EXPECT_EQ(blocks.apply(0, lane, warp), Coord({c[0], c[1] / 32}));
      }
}

TEST(LinearLayout, ReshapeKeepsEveryElementWhereItIs) {
  // Every (register, lane, warp) holds, as a 1x128x2x1 tile, the element
  // whose row-major index it held in the 8x32 tile: computed here by
  // flattening and unflattening each coordinate, not by bases.
  std::vector<int64_t> from = {8, 32}, to = {1, 128, 2, 1};
  for (const LinearLayout &l : {LinearLayout::blocked(from, {1, 4}, {8, 8}, {1, 4}, {1, 0}),
                                LinearLayout::blocked(from, {2, 1}, {4, 16}, {2, 2}, {0, 1}),
                                LinearLayout::blocked(from, {1, 1}, {1, 64}, {1, 4}, {1, 0})}) {
    LinearLayout r = l.reshape(to);
    EXPECT_EQ(r.getShape(), llvm::ArrayRef<int64_t>(to));
    for (int64_t w = 0; w < l.getNumWarps(); ++w)
      for (int64_t ln = 0; ln < l.getNumLanes(); ++ln)
        for (int64_t reg = 0; reg < l.getNumRegisters(); ++reg) {
          Coord c = l.apply(reg, ln, w);
          int64_t index = c[0] * from[1] + c[1];
          Coord expected = {0, index / 2, index % 2, 0};
          ASSERT_EQ(r.apply(reg, ln, w), expected) << "register " << reg << ", lane " << ln << ", warp " << w;
        }
  }
}

/// Every layout covers each element of its tensor, and with no broadcast
/// each element exactly once.
class Coverage : public ::testing::TestWithParam<std::vector<int64_t>> {};

TEST_P(Coverage, EveryElementOwned) {
  std::vector<int64_t> shape = GetParam();
  // Elements one layout tile spans per dimension: sizePerThread x lanes x warps.
  std::vector<int64_t> tile = shape.size() == 1 ? std::vector<int64_t>{4 * 64 * 4}
                                                : std::vector<int64_t>{1 * 16 * 2, 4 * 4 * 2};
  LinearLayout l = shape.size() == 1
                       ? blocked1d(shape[0])
                       : LinearLayout::blocked(shape, {1, 4}, {16, 4}, {2, 2}, {1, 0});
  std::multiset<std::vector<int64_t>> owned;
  for (int64_t w = 0; w < l.getNumWarps(); ++w)
    for (int64_t ln = 0; ln < l.getNumLanes(); ++ln)
      for (int64_t r = 0; r < l.getNumRegisters(); ++r) {
        Coord c = l.apply(r, ln, w);
        for (size_t d = 0; d < shape.size(); ++d)
          ASSERT_LT(c[d], shape[d]);
        owned.insert(std::vector<int64_t>(c.begin(), c.end()));
      }
  int64_t elements = 1;
  for (int64_t s : shape)
    elements *= s;
  std::set<std::vector<int64_t>> distinct(owned.begin(), owned.end());
  EXPECT_EQ(int64_t(distinct.size()), elements);
  bool broadcast = false;
  for (size_t d = 0; d < shape.size(); ++d)
    broadcast |= tile[d] > shape[d];
  if (broadcast)
    EXPECT_GT(int64_t(owned.size()), elements);
  else
    EXPECT_EQ(int64_t(owned.size()), elements);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Coverage,
                         ::testing::Values(std::vector<int64_t>{1024}, std::vector<int64_t>{4096},
                                           std::vector<int64_t>{16}, std::vector<int64_t>{32, 32},
                                           std::vector<int64_t>{8, 128}, std::vector<int64_t>{128, 16}));

} // namespace
