// Cross-lane instructions on small hand-computed waves.
#include "rocktile/Emulator/WaveOps.h"
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

namespace {

std::vector<uint32_t> lanes(int n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 100);
  return v;
}
int64_t at(std::vector<uint32_t> &v) { return reinterpret_cast<int64_t>(v.data()); }

TEST(WaveOps, DppQuadPerm) {
  auto src = lanes(8), dst = std::vector<uint32_t>(8);
  rocktile_emu_dpp_quad_perm(at(src), at(dst), 8, 4, 1, 0, 3, 2);
  EXPECT_EQ(dst, (std::vector<uint32_t>{101, 100, 103, 102, 105, 104, 107, 106}));
  rocktile_emu_dpp_quad_perm(at(src), at(dst), 8, 4, 3, 3, 0, 1);
  EXPECT_EQ(dst, (std::vector<uint32_t>{103, 103, 100, 101, 107, 107, 104, 105}));
}

TEST(WaveOps, SwizzleStaysWithin32Lanes) {
  auto src = lanes(64), dst = std::vector<uint32_t>(64);
  rocktile_emu_ds_swizzle(at(src), at(dst), 64, 4, 31, 0, 16);
  EXPECT_EQ(dst[0], 116u);
  EXPECT_EQ(dst[20], 104u);
  EXPECT_EQ(dst[32], 148u); // the second group of 32 swizzles among itself
  rocktile_emu_ds_swizzle(at(src), at(dst), 64, 4, 0, 3, 0); // broadcast lane 3 of each group
  EXPECT_EQ(dst[31], 103u);
  EXPECT_EQ(dst[40], 135u);
}

TEST(WaveOps, PermlaneSwap) {
  auto src = lanes(128), dst = std::vector<uint32_t>(128);
  rocktile_emu_permlane_swap(at(src), at(dst), 128, 4, 64, 32);
  EXPECT_EQ(dst[0], 132u);
  EXPECT_EQ(dst[33], 101u);
  EXPECT_EQ(dst[64], 196u); // second wave
  rocktile_emu_permlane_swap(at(src), at(dst), 128, 4, 64, 16);
  EXPECT_EQ(dst[5], 121u);
  EXPECT_EQ(dst[50], 134u);
}

TEST(WaveOps, EightByteValues) {
  std::vector<uint64_t> src(64), dst(64);
  for (int i = 0; i < 64; ++i)
    src[i] = (uint64_t(i) << 32) | 0xabcd;
  auto a = [](std::vector<uint64_t> &v) { return reinterpret_cast<int64_t>(v.data()); };
  rocktile_emu_permlane_swap(a(src), a(dst), 64, 8, 64, 32);
  EXPECT_EQ(dst[1], (uint64_t(33) << 32) | 0xabcd);
  rocktile_emu_dpp_quad_perm(a(src), a(dst), 64, 8, 2, 3, 0, 1);
  EXPECT_EQ(dst[5], (uint64_t(7) << 32) | 0xabcd);
}

TEST(WaveOps, ShuffleModes) {
  auto src = lanes(64), dst = std::vector<uint32_t>(64);
  std::vector<uint8_t> valid(64);
  auto v = reinterpret_cast<int64_t>(valid.data());
  rocktile_emu_shuffle(at(src), at(dst), v, 64, 4, 32, 1, 32, /*xor=*/0);
  EXPECT_EQ(dst[4], 105u);
  EXPECT_EQ(dst[33], 132u);
  rocktile_emu_shuffle(at(src), at(dst), v, 64, 4, 32, 2, 16, /*down=*/2);
  EXPECT_EQ(dst[3], 105u);
  EXPECT_EQ(valid[13], 1);
  EXPECT_EQ(valid[14], 0); // 14 + 2 leaves the 16-lane segment
  EXPECT_EQ(dst[14], 114u);
  rocktile_emu_shuffle(at(src), at(dst), v, 64, 4, 32, 7, 32, /*idx=*/1);
  EXPECT_EQ(dst[40], 139u);
}

} // namespace
