// Semantics of the cross-lane instructions, from the ISA: each lane of a
// wave reads one other lane's 32-bit value, or (transpose reads) one value of
// another lane's vector. All lanes are active where the
// emulator calls these (cross-lane ops run at the top level of a kernel).
#include "rocktile/Emulator/WaveOps.h"
#include <cstring>

namespace {
/// dst[lane] = src[from(lane)] for every lane, for values of `bytes` bytes.
template <typename From> void gather(int64_t src, int64_t dst, int64_t n, int64_t bytes, From from) {
  auto *in = reinterpret_cast<const char *>(src);
  auto *out = reinterpret_cast<char *>(dst);
  for (int64_t lane = 0; lane < n; ++lane)
    std::memcpy(out + lane * bytes, in + from(lane) * bytes, bytes);
}
} // namespace

extern "C" {

void rocktile_emu_dpp_quad_perm(int64_t src, int64_t dst, int64_t n, int64_t bytes,
                                int64_t perm0, int64_t perm1, int64_t perm2, int64_t perm3) {
  const int64_t perm[4] = {perm0, perm1, perm2, perm3};
  gather(src, dst, n, bytes, [&](int64_t lane) { return (lane & ~int64_t(3)) + perm[lane & 3]; });
}

void rocktile_emu_ds_swizzle(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t andMask,
                             int64_t orMask, int64_t xorMask) {
  gather(src, dst, n, bytes, [&](int64_t lane) {
    return (lane & ~int64_t(31)) + (((lane & 31 & andMask) | orMask) ^ xorMask);
  });
}

void rocktile_emu_permlane_swap(int64_t src, int64_t dst, int64_t n, int64_t bytes,
                                int64_t waveSize, int64_t rowLength) {
  gather(src, dst, n, bytes, [&](int64_t lane) { return lane ^ rowLength; });
}

void rocktile_emu_permlanex16(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t sel0, int64_t sel1) {
  uint64_t select = uint64_t(uint32_t(sel0)) | uint64_t(uint32_t(sel1)) << 32;
  gather(src, dst, n, bytes, [&](int64_t lane) {
    return ((lane & ~int64_t(15)) ^ 16) + int64_t(select >> (4 * (lane & 15)) & 15);
  });
}

void rocktile_emu_permlane_swap_result(int64_t first, int64_t second, int64_t dst, int64_t n,
                                       int64_t rowLength, int64_t which) {
  auto *a = reinterpret_cast<const uint32_t *>(first), *b = reinterpret_cast<const uint32_t *>(second);
  auto *out = reinterpret_cast<uint32_t *>(dst);
  for (int64_t lane = 0; lane < n; ++lane) {
    bool high = lane & rowLength;
    if (which == 0)
      out[lane] = high ? b[lane ^ rowLength] : a[lane];
    else
      out[lane] = high ? b[lane] : a[lane ^ rowLength];
  }
}

void rocktile_emu_readfirstlane(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize) {
  gather(src, dst, n, bytes, [&](int64_t lane) { return lane - lane % waveSize; });
}

void rocktile_emu_shuffle(int64_t src, int64_t dst, int64_t valid, int64_t n, int64_t bytes,
                          int64_t waveSize, int64_t offset, int64_t width, int64_t mode) {
  auto *ok = reinterpret_cast<uint8_t *>(valid);
  gather(src, dst, n, bytes, [&](int64_t lane) {
    int64_t wave = lane - lane % waveSize, inWave = lane % waveSize;
    int64_t segment = inWave - inWave % width, inSegment = inWave % width;
    int64_t from = mode == 0 ? inSegment ^ offset
                 : mode == 1 ? offset
                 : mode == 2 ? inSegment + offset
                             : inSegment - offset;
    bool inside = from >= 0 && from < width;
    ok[lane] = inside;
    return inside ? wave + segment + from : lane;
  });
}

void rocktile_emu_lds_transpose(int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t elements,
                                int64_t groupLanes) {
  auto *in = reinterpret_cast<const char *>(src);
  auto *out = reinterpret_cast<char *>(dst);
  int64_t lanesPerRow = groupLanes / elements, vector = elements * bytes;
  for (int64_t lane = 0; lane < n; ++lane) {
    int64_t group = lane - lane % groupLanes, column = lane % groupLanes;
    for (int64_t row = 0; row < elements; ++row) {
      int64_t from = group + row * lanesPerRow + column / elements;
      std::memcpy(out + lane * vector + row * bytes, in + from * vector + column % elements * bytes, bytes);
    }
  }
}
}
