// Semantics of the cross-lane instructions, from the ISA: each lane of a
// wave reads one other lane's 32-bit value, or (transpose reads) one value of
// another lane's vector. All lanes are active where the
// emulator calls these (cross-lane ops run at the top level of a kernel).
#include "rocktile/Emulator/WaveOps.h"
#include <cstring>

namespace {
/// dst[lane] = src[from(lane)] for every lane, for values of type T.
template <typename T, typename From> void gatherAs(int64_t src, int64_t dst, int64_t n, From from) {
  auto *in = reinterpret_cast<const T *>(src);
  auto *out = reinterpret_cast<T *>(dst);
  for (int64_t lane = 0; lane < n; ++lane)
    out[lane] = in[from(lane)];
}

/// The same for 32- or 64-bit values (`bytes`), the only ones lanes
/// exchange: typed copies, since these run once per lane of every wave.
template <typename From> void gather(int64_t src, int64_t dst, int64_t n, int64_t bytes, From from) {
  if (bytes == 4)
    gatherAs<uint32_t>(src, dst, n, from);
  else
    gatherAs<uint64_t>(src, dst, n, from);
}

/// DPP with control `ctrl` for lanes of type T. A lane's source depends only
/// on its place in the wave, so it is decoded once per wave position.
template <typename T>
void dppAs(int64_t old, int64_t src, int64_t dst, int64_t n, int64_t waveSize, int64_t ctrl, int64_t rowMask,
           int64_t bankMask, bool boundCtrl) {
  // Per lane of a wave: the lane it reads (relative to the wave), -1 where
  // that lies outside the row (row_shl, row_shr), -2 where it keeps its old
  // value (masked off by row_mask or bank_mask).
  int16_t from[64];
  int64_t shift = ctrl & 15;
  for (int64_t lane = 0; lane < waveSize; ++lane) {
    int64_t row = lane & ~int64_t(15), l = lane & 15;
    int64_t f;
    if (ctrl <= 0xff)
      f = (lane & ~int64_t(3)) + (ctrl >> (2 * (lane & 3)) & 3);
    else if (ctrl < 0x110)
      f = l + shift < 16 ? lane + shift : -1;
    else if (ctrl < 0x120)
      f = l - shift >= 0 ? lane - shift : -1;
    else if (ctrl < 0x130)
      f = row + ((l - shift) & 15);
    else if (ctrl == 0x140)
      f = row + 15 - l;
    else if (ctrl == 0x141)
      f = (lane & ~int64_t(7)) + 7 - (lane & 7);
    else if (ctrl < 0x160)
      f = row + shift;
    else
      f = row + (l ^ shift);
    bool writes = (rowMask >> (lane / 16) & 1) && (bankMask >> (l / 4) & 1);
    from[lane] = int16_t(!writes || (f < 0 && !boundCtrl) ? -2 : f);
  }
  auto *prior = reinterpret_cast<const T *>(old), *in = reinterpret_cast<const T *>(src);
  auto *out = reinterpret_cast<T *>(dst);
  for (int64_t t = 0; t < n; ++t) {
    int64_t lane = t & (waveSize - 1), f = from[lane];
    out[t] = f >= 0 ? in[t - lane + f] : f == -1 ? T(0) : prior[t];
  }
}
} // namespace

extern "C" {

void rocktile_emu_dpp(int64_t old, int64_t src, int64_t dst, int64_t n, int64_t bytes, int64_t waveSize,
                      int64_t ctrl, int64_t rowMask, int64_t bankMask, int64_t boundCtrl) {
  if (bytes == 4)
    dppAs<uint32_t>(old, src, dst, n, waveSize, ctrl, rowMask, bankMask, boundCtrl);
  else
    dppAs<uint64_t>(old, src, dst, n, waveSize, ctrl, rowMask, bankMask, boundCtrl);
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
