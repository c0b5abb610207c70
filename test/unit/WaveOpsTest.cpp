// Cross-lane instructions on small hand-computed waves.
#include "IsaTables.h"
#include "rocktile/Emulator/WaveOps.h"
#include <gtest/gtest.h>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

std::vector<uint32_t> lanes(int n) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 100);
  return v;
}
int64_t at(std::vector<uint32_t> &v) { return reinterpret_cast<int64_t>(v.data()); }

// The DPP control's quad_perm selects, two bits per lane of a quad.
int64_t quadPerm(int p0, int p1, int p2, int p3) { return p0 | p1 << 2 | p2 << 4 | p3 << 6; }

TEST(WaveOps, DppQuadPerm) {
  auto src = lanes(8), old = std::vector<uint32_t>(8), dst = std::vector<uint32_t>(8);
  rocktile_emu_dpp(at(old), at(src), at(dst), 8, 4, 64, quadPerm(1, 0, 3, 2), 0xf, 0xf, 1);
  EXPECT_EQ(dst, (std::vector<uint32_t>{101, 100, 103, 102, 105, 104, 107, 106}));
  rocktile_emu_dpp(at(old), at(src), at(dst), 8, 4, 64, quadPerm(3, 3, 0, 1), 0xf, 0xf, 1);
  EXPECT_EQ(dst, (std::vector<uint32_t>{103, 103, 100, 101, 107, 107, 104, 105}));
}

TEST(WaveOps, DppRowPermutations) {
  auto src = lanes(64), old = std::vector<uint32_t>(64, 7), dst = std::vector<uint32_t>(64);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x140, 0xf, 0xf, 1); // row_mirror
  EXPECT_EQ(dst[0], 115u);
  EXPECT_EQ(dst[17], 130u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x141, 0xf, 0xf, 1); // row_half_mirror
  EXPECT_EQ(dst[1], 106u);
  EXPECT_EQ(dst[12], 111u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x165, 0xf, 0xf, 1); // row_xmask:5
  EXPECT_EQ(dst[0], 105u);
  EXPECT_EQ(dst[38], 135u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x153, 0xf, 0xf, 1); // row_share:3
  EXPECT_EQ(dst[30], 119u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x122, 0xf, 0xf, 1); // row_ror:2
  EXPECT_EQ(dst[16], 130u);
  EXPECT_EQ(dst[19], 117u);
}

// Lanes that read outside their row get 0 with bound_ctrl, else keep old;
// masked rows and banks keep old.
TEST(WaveOps, DppBoundsAndMasks) {
  auto src = lanes(64), old = std::vector<uint32_t>(64, 7), dst = std::vector<uint32_t>(64);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x111, 0xf, 0xf, 1); // row_shr:1
  EXPECT_EQ(dst[16], 0u);
  EXPECT_EQ(dst[17], 116u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x102, 0xf, 0xf, 0); // row_shl:2
  EXPECT_EQ(dst[14], 7u);
  EXPECT_EQ(dst[13], 115u);
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 64, 0x160 | 1, 0xa, 0x1, 1); // rows 1, 3; bank 0
  EXPECT_EQ(dst[17], 116u);
  EXPECT_EQ(dst[21], 7u); // bank 1
  EXPECT_EQ(dst[1], 7u);  // row 0
  // wave32: rows count within each wave
  rocktile_emu_dpp(at(old), at(src), at(dst), 64, 4, 32, 0x160 | 1, 0x2, 0xf, 1);
  EXPECT_EQ(dst[48], 149u);
  EXPECT_EQ(dst[32], 7u);
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

// v_permlane32_swap: rows 2 and 3 of the first register trade places with
// rows 0 and 1 of the second; v_permlane16_swap: odd rows of the first with
// even rows of the second.
TEST(WaveOps, PermlaneSwapResults) {
  auto first = lanes(64), second = lanes(64), dst = std::vector<uint32_t>(64);
  for (auto &v : second)
    v += 1000;
  rocktile_emu_permlane_swap_result(at(first), at(second), at(dst), 64, 32, 0);
  EXPECT_EQ(dst[3], 103u);   // rows 0 and 1 of the first stay
  EXPECT_EQ(dst[35], 1103u); // row 2 came from the second's lane 3
  rocktile_emu_permlane_swap_result(at(first), at(second), at(dst), 64, 32, 1);
  EXPECT_EQ(dst[3], 135u);   // the first's lane 35
  EXPECT_EQ(dst[35], 1135u); // rows 2 and 3 of the second stay
  rocktile_emu_permlane_swap_result(at(first), at(second), at(dst), 64, 16, 0);
  EXPECT_EQ(dst[33], 133u);  // row 2 is even: the first keeps it
  EXPECT_EQ(dst[52], 1136u); // row 3 is odd: the second's lane 36
  rocktile_emu_permlane_swap_result(at(first), at(second), at(dst), 64, 16, 1);
  EXPECT_EQ(dst[2], 118u);   // row 0 of the second: the first's lane 18
  EXPECT_EQ(dst[18], 1118u);
}

TEST(WaveOps, PermlaneX16) {
  auto src = lanes(64), dst = std::vector<uint32_t>(64);
  // Each lane's own position in the other row: lane i reads lane i ^ 16.
  rocktile_emu_permlanex16(at(src), at(dst), 64, 4, 0x76543210, int32_t(0xfedcba98));
  EXPECT_EQ(dst[0], 116u);
  EXPECT_EQ(dst[31], 115u);
  EXPECT_EQ(dst[37], 153u); // the second 32 lanes exchange among themselves
  // Every lane reads lane 1 (sel0 nibbles) or lane 15 (sel1) of the other row.
  rocktile_emu_permlanex16(at(src), at(dst), 64, 4, 0x11111111, int32_t(0xffffffff));
  EXPECT_EQ(dst[2], 117u);
  EXPECT_EQ(dst[9], 131u);
  EXPECT_EQ(dst[20], 101u);
}

TEST(WaveOps, EightByteValues) {
  std::vector<uint64_t> src(64), dst(64);
  for (int i = 0; i < 64; ++i)
    src[i] = (uint64_t(i) << 32) | 0xabcd;
  auto a = [](std::vector<uint64_t> &v) { return reinterpret_cast<int64_t>(v.data()); };
  rocktile_emu_permlane_swap(a(src), a(dst), 64, 8, 64, 32);
  EXPECT_EQ(dst[1], (uint64_t(33) << 32) | 0xabcd);
  rocktile_emu_dpp(a(src), a(src), a(dst), 64, 8, 64, quadPerm(2, 3, 0, 1), 0xf, 0xf, 1);
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

namespace {
// The lane exchange of each LDS transpose read, element by element against
// test/unit/isa/lds_transpose_reads.json, over two waves. Each value names
// its origin: 16-bit values 256 * lane + element; bytes (unique within two
// adjacent groups) 128 * (group % 2) + 8 * lane in group + element.
TEST(WaveOps, LdsTransposeReadsMatchTheIsaTable) {
  llvm::json::Value doc = rocktile::test::parseJsonFile(ROCKTILE_TRANSPOSE_READS_JSON);
  int checked = 0;
  for (auto &[chip, instrs] : *doc.getAsObject()) {
    if (!instrs.getAsObject())
      continue;
    for (auto &[name, value] : *instrs.getAsObject()) {
      const llvm::json::Object &e = *value.getAsObject();
      int64_t wave = *e.getInteger("wave_size"), elements = *e.getInteger("elements");
      int64_t group = *e.getInteger("group_lanes"), bytes = *e.getInteger("element_bits") / 8, n = 2 * wave;
      EXPECT_EQ(group, wave / 4) << name.str(); // the emulator's groups: a quarter wave
      auto origin = [&](int64_t lane, int64_t element) -> uint16_t {
        return bytes == 2 ? 256 * lane + element : 128 * (lane / group % 2) + 8 * (lane % group) + element;
      };
      std::vector<uint8_t> src(n * elements * bytes), dst(src.size());
      for (int64_t lane = 0; lane < n; ++lane)
        for (int64_t i = 0; i < elements; ++i) {
          uint16_t v = origin(lane, i); // its low bytes (little-endian host)
          std::memcpy(&src[(lane * elements + i) * bytes], &v, bytes);
        }
      rocktile_emu_lds_transpose(reinterpret_cast<int64_t>(src.data()), reinterpret_cast<int64_t>(dst.data()),
                                 n, bytes, elements, wave / 4);
      const llvm::json::Array &result = *e.getArray("result");
      EXPECT_EQ(int64_t(result.size()), group * elements) << name.str();
      for (int64_t base = 0; base < n; base += group)
        for (const llvm::json::Value &row : result) {
          const llvm::json::Array &r = *row.getAsArray();
          int64_t lane = *r[0].getAsInteger(), element = *r[1].getAsInteger();
          int64_t from = *r[2].getAsInteger(), fromElement = *r[3].getAsInteger();
          uint16_t got = 0;
          std::memcpy(&got, &dst[((base + lane) * elements + element) * bytes], bytes);
          EXPECT_EQ(got, origin(base + from, fromElement))
              << chip.str() << " " << name.str() << " lane " << base + lane << " element " << element;
          ++checked;
        }
    }
  }
  // gfx950's two (8 groups of 16 lanes, 64 and 128 entries), gfx1250's two (8 groups of 8 lanes, 64 entries)
  EXPECT_EQ(checked, 8 * 64 + 8 * 128 + 2 * 8 * 64);
}
} // namespace

