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

void rocktile_emu_dpp(int64_t old, int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize,
                      int64_t ctrl, int64_t rowMask, int64_t bankMask, int64_t boundCtrl) {
  auto *prior = reinterpret_cast<const char *>(old), *in = reinterpret_cast<const char *>(src);
  auto *out = reinterpret_cast<char *>(dst);
  int64_t shift = ctrl & 15;
  for (int64_t lane = 0; lane < n; ++lane) {
    int64_t row = lane & ~int64_t(15), l = lane & 15;
    // The lane read, or -1 where it lies outside the row (row_shl, row_shr).
    int64_t from = -1;
    if (ctrl <= 0xff)
      from = (lane & ~int64_t(3)) + (ctrl >> (2 * (lane & 3)) & 3);
    else if (ctrl < 0x110)
      from = l + shift < 16 ? lane + shift : -1;
    else if (ctrl < 0x120)
      from = l - shift >= 0 ? lane - shift : -1;
    else if (ctrl < 0x130)
      from = row + ((l - shift) & 15);
    else if (ctrl == 0x140)
      from = row + 15 - l;
    else if (ctrl == 0x141)
      from = (lane & ~int64_t(7)) + 7 - (lane & 7);
    else if (ctrl < 0x160)
      from = row + shift;
    else
      from = row + (l ^ shift);
    bool writes = (rowMask >> (lane % waveSize / 16) & 1) && (bankMask >> (l / 4) & 1);
    char *to = out + lane * bytes;
    if (writes && from >= 0)
      std::memcpy(to, in + from * bytes, bytes);
    else if (writes && boundCtrl)
      std::memset(to, 0, bytes);
    else
      std::memcpy(to, prior + lane * bytes, bytes);
  }
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
