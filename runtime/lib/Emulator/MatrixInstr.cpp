#include "rocktile/Emulator/MatrixInstr.h"
#include "rocktile/Emulator/FloatFormats.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace rocktile::emulator;

namespace {
using Place = std::pair<unsigned, unsigned>;

// gfx950 MFMA, 16x16 outputs: k in groups of `kw` per lane, 16 rows apart.
template <unsigned kw> Place mfma16A(unsigned i, unsigned k) { return {i + 16 * (k / kw), k % kw}; }
template <unsigned kw> Place mfma16B(unsigned k, unsigned j) { return {j + 16 * (k / kw), k % kw}; }
Place mfma16D(unsigned i, unsigned j) { return {j + 16 * (i / 4), i % 4}; }

// gfx950 MFMA, 32x32 outputs.
template <unsigned kw> Place mfma32A(unsigned i, unsigned k) { return {i + 32 * (k / kw), k % kw}; }
template <unsigned kw> Place mfma32B(unsigned k, unsigned j) { return {j + 32 * (k / kw), k % kw}; }
Place mfma32D(unsigned i, unsigned j) { return {j + 32 * ((i / 4) % 2), 4 * (i / 8) + i % 4}; }

// gfx1250 WMMA 16x16x32 (16-bit types): 8 consecutive k per half-wave,
// alternating halves every 8 k.
Place wmmaA(unsigned i, unsigned k) { return {i + 16 * ((k / 8) % 2), 8 * (k / 16) + k % 8}; }
Place wmmaB(unsigned k, unsigned j) { return {j + 16 * ((k / 8) % 2), 8 * (k / 16) + k % 8}; }
Place wmmaD(unsigned i, unsigned j) { return {j + 16 * (i / 8), i % 8}; }

// gfx1250's scaled WMMA 16x16x128 on E2M1: 32 consecutive k per half-wave,
// alternating halves every 32 k (an inference from Triton's layouts).
Place wmmaE2M1A(unsigned i, unsigned k) { return {i + 16 * ((k / 32) % 2), 32 * (k / 64) + k % 32}; }
Place wmmaE2M1B(unsigned k, unsigned j) { return {j + 16 * ((k / 32) % 2), 32 * (k / 64) + k % 32}; }

// gfx1250's scaled WMMA 32x16x128 f4: A's rows 0-15 and 16-31 each as the
// E2M1 operand above, in slots 0-63 and 64-127; B as above; D two 16x16
// accumulators, rows 16-31 in registers 8-15 (inferences from FlyDSL's
// gfx1250 MXFP4 GEMM).
Place wmmaF4A(unsigned i, unsigned k) {
  auto [lane, slot] = wmmaE2M1A(i % 16, k);
  return {lane, slot + 64 * (i / 16)};
}
Place wmmaF4D(unsigned i, unsigned j) {
  auto [lane, reg] = wmmaD(i % 16, j);
  return {lane, reg + 8 * (i / 16)};
}

// gfx1250 WMMA 16x16x4 f32: 2 consecutive k per lane, half-waves 2 k apart.
Place wmmaF32A(unsigned i, unsigned k) { return {i + 16 * (k / 2), k % 2}; }
Place wmmaF32B(unsigned k, unsigned j) { return {j + 16 * (k / 2), k % 2}; }

const MatrixInstr instrs[] = {
    {"gfx950", "mfma_f32_16x16x32_bf16", 64, 16, 16, 32, 8, 8, 4, mfma16A<8>, mfma16B<8>, mfma16D},
    {"gfx950", "mfma_f32_32x32x16_bf16", 64, 32, 32, 16, 8, 8, 16, mfma32A<8>, mfma32B<8>, mfma32D},
    {"gfx950", "mfma_f32_16x16x128_f8f6f4", 64, 16, 16, 128, 32, 32, 4, mfma16A<32>, mfma16B<32>,
     mfma16D},
    {"gfx950", "mfma_f32_32x32x64_f8f6f4", 64, 32, 32, 64, 32, 32, 16, mfma32A<32>, mfma32B<32>,
     mfma32D},
    {"gfx950", "mfma_i32_16x16x64_i8", 64, 16, 16, 64, 16, 16, 4, mfma16A<16>, mfma16B<16>, mfma16D, true},
    {"gfx950", "mfma_i32_32x32x32_i8", 64, 32, 32, 32, 16, 16, 16, mfma32A<16>, mfma32B<16>, mfma32D, true},
    {"gfx950", "mfma_f32_16x16x4_f32", 64, 16, 16, 4, 1, 1, 4, mfma16A<1>, mfma16B<1>, mfma16D},
    {"gfx950", "mfma_f32_32x32x2_f32", 64, 32, 32, 2, 1, 1, 16, mfma32A<1>, mfma32B<1>, mfma32D},
    {"gfx1250", "wmma_f32_16x16x32_bf16", 32, 16, 16, 32, 16, 16, 8, wmmaA, wmmaB, wmmaD},
    // The 16-bit packing over 64 and 128 k.
    {"gfx1250", "wmma_i32_16x16x64_iu8", 32, 16, 16, 64, 32, 32, 8, wmmaA, wmmaB, wmmaD, true},
    {"gfx1250", "wmma_f32_16x16x64_f8", 32, 16, 16, 64, 32, 32, 8, wmmaA, wmmaB, wmmaD},
    {"gfx1250", "wmma_f32_16x16x128_f8", 32, 16, 16, 128, 64, 64, 8, wmmaA, wmmaB, wmmaD, false, wmmaE2M1A,
     wmmaE2M1B, MatrixInstr::ScaleLanes::Row},
    {"gfx1250", "wmma_f32_32x16x128_f4", 32, 32, 16, 128, 128, 64, 16, wmmaF4A, wmmaE2M1B, wmmaF4D, false, nullptr,
     nullptr, MatrixInstr::ScaleLanes::Row},
    {"gfx1250", "wmma_f32_16x16x4_f32", 32, 16, 16, 4, 2, 2, 8, wmmaF32A, wmmaF32B, wmmaD},
};
} // namespace

template <typename T> void MatrixInstr::apply(const T *av, const T *bv, const T *cv, T *dv) const {
  // Reads every operand before writing D, so D may alias C. int32 sums wrap
  // (computed unsigned: signed overflow would be undefined here).
  using Acc = std::conditional_t<std::is_integral_v<T>, uint32_t, T>;
  std::vector<T> out(waveSize * dSlots);
  for (unsigned i = 0; i < M; ++i)
    for (unsigned j = 0; j < N; ++j) {
      auto [dl, ds] = d(i, j);
      Acc acc = Acc(cv[dl * dSlots + ds]);
      for (unsigned k = 0; k < K; ++k) {
        auto [al, as] = a(i, k);
        auto [bl, bs] = b(k, j);
        acc += Acc(av[al * aSlots + as] * bv[bl * bSlots + bs]);
      }
      out[dl * dSlots + ds] = T(acc);
    }
  llvm::copy(out, dv);
}
template void MatrixInstr::apply(const float *, const float *, const float *, float *) const;
template void MatrixInstr::apply(const int32_t *, const int32_t *, const int32_t *, int32_t *) const;

std::pair<unsigned, unsigned> MatrixInstr::scalePlacement(bool ofA, unsigned row, unsigned k, unsigned bytes,
                                                          unsigned select) const {
  if (scaleLanes == ScaleLanes::Row)
    return {select + row, k / (K / bytes)};
  unsigned first = k - k % 32; // the block's first element
  return {(ofA ? a(row, first) : b(first, row)).first, select};
}

llvm::ArrayRef<MatrixInstr> rocktile::emulator::allMatrixInstrs() { return instrs; }

const MatrixInstr *rocktile::emulator::lookupMatrixInstr(llvm::StringRef target,
                                                         llvm::StringRef name) {
  for (const MatrixInstr &m : instrs)
    if (m.target == target && m.name == name)
      return &m;
  return nullptr;
}

namespace {
/// The narrow float format of `format` (one of the float formats below fp32).
const NarrowFloat &narrowFloat(MatrixFormat format) {
  switch (format) {
  case MatrixFormat::BF16:
    return NarrowFloat::BF16;
  case MatrixFormat::F16:
    return NarrowFloat::F16;
  case MatrixFormat::E5M2:
    return NarrowFloat::E5M2;
  case MatrixFormat::E2M1:
    return NarrowFloat::E2M1;
  case MatrixFormat::E2M3:
    return NarrowFloat::E2M3;
  case MatrixFormat::E3M2:
    return NarrowFloat::E3M2;
  default:
    return NarrowFloat::E4M3FN;
  }
}

/// Slot `slot` of lane `lane`'s operand of `slots` elements of `format`, in
/// an operand array, as a float.
float operandElement(int64_t array, int64_t lane, int64_t slot, int64_t slots, MatrixFormat format) {
  int64_t i = lane * slots + slot;
  switch (format) {
  case MatrixFormat::BF16:
  case MatrixFormat::F16:
    return float(widen(reinterpret_cast<const uint16_t *>(array)[i], narrowFloat(format)));
  case MatrixFormat::E4M3:
  case MatrixFormat::E5M2:
    return float(widen(reinterpret_cast<const uint8_t *>(array)[i], narrowFloat(format)));
  case MatrixFormat::E2M1:
  case MatrixFormat::E2M3:
  case MatrixFormat::E3M2: {
    const NarrowFloat &f = narrowFloat(format);
    auto *lanes = reinterpret_cast<const uint8_t *>(array) + lane * llvm::PowerOf2Ceil(slots * f.bits / 8);
    int64_t bit = slot * f.bits;
    uint32_t word = lanes[bit / 8] | (bit % 8 + f.bits > 8 ? lanes[bit / 8 + 1] << 8 : 0);
    return float(widen((word >> bit % 8) & ((1u << f.bits) - 1), f));
  }
  case MatrixFormat::F32:
    return reinterpret_cast<const float *>(array)[i];
  case MatrixFormat::I8:
    break;
  }
  return 0;
}

/// Wave `wave`'s float A and B operands, widened from their formats.
void widenOperands(const MatrixInstr &m, int64_t a, int64_t b, int64_t wave, int64_t formatA, int64_t formatB,
                   std::vector<float> &av, std::vector<float> &bv) {
  av.resize(m.waveSize * m.aSlots), bv.resize(m.waveSize * m.bSlots);
  for (unsigned lane = 0; lane < m.waveSize; ++lane) {
    int64_t thread = wave * m.waveSize + lane;
    for (unsigned slot = 0; slot < m.aSlots; ++slot)
      av[lane * m.aSlots + slot] = operandElement(a, thread, slot, m.aSlots, MatrixFormat(formatA));
    for (unsigned slot = 0; slot < m.bSlots; ++slot)
      bv[lane * m.bSlots + slot] = operandElement(b, thread, slot, m.bSlots, MatrixFormat(formatB));
  }
}

/// An E8M0 scale: 2^(s - 127), and 0xFF is NaN.
float e8m0(uint8_t s) { return s == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, int(s) - 127); }

/// `m` with the E2M1 placements of its scaled form for operands of E2M1.
MatrixInstr withFormats(const MatrixInstr &m, int64_t formatA, int64_t formatB) {
  MatrixInstr placed = m;
  if (MatrixFormat(formatA) == MatrixFormat::E2M1 && m.aE2M1)
    placed.a = m.aE2M1;
  if (MatrixFormat(formatB) == MatrixFormat::E2M1 && m.bE2M1)
    placed.b = m.bE2M1;
  return placed;
}
} // namespace

extern "C" void rocktile_emu_matrix(int64_t instr, int64_t a, int64_t b, int64_t c, int64_t d,
                                    int64_t n, int64_t formatA, int64_t formatB) {
  const MatrixInstr m = withFormats(allMatrixInstrs()[instr], formatA, formatB);
  if (m.integer) {
    auto *ci = reinterpret_cast<const int32_t *>(c);
    auto *di = reinterpret_cast<int32_t *>(d);
    auto *ai8 = reinterpret_cast<const int8_t *>(a), *bi8 = reinterpret_cast<const int8_t *>(b);
    unsigned aBytes = m.waveSize * m.aSlots, bBytes = m.waveSize * m.bSlots, acc = m.waveSize * m.dSlots;
    std::vector<int32_t> av(aBytes), bv(bBytes);
    for (int64_t wave = 0; wave < n / m.waveSize; ++wave) {
      for (unsigned i = 0; i < aBytes; ++i)
        av[i] = ai8[wave * aBytes + i];
      for (unsigned i = 0; i < bBytes; ++i)
        bv[i] = bi8[wave * bBytes + i];
      m.apply(av.data(), bv.data(), ci + wave * acc, di + wave * acc);
    }
    return;
  }
  auto *cf = reinterpret_cast<const float *>(c);
  auto *df = reinterpret_cast<float *>(d);
  unsigned acc = m.waveSize * m.dSlots;
  std::vector<float> av, bv;
  for (int64_t wave = 0; wave < n / m.waveSize; ++wave) {
    widenOperands(m, a, b, wave, formatA, formatB, av, bv);
    m.apply(av.data(), bv.data(), cf + wave * acc, df + wave * acc);
  }
}

extern "C" int32_t rocktile_emu_scaled_ext(int32_t code, int32_t format, float scale, int32_t out) {
  double value = widen(uint32_t(code), narrowFloat(MatrixFormat(format))) * double(scale);
  if (MatrixFormat(out) == MatrixFormat::F32) {
    float f = float(value);
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  return int32_t(narrow(value, narrowFloat(MatrixFormat(out))));
}

extern "C" void rocktile_emu_scaled_ext_matrix(int64_t src, int64_t scale, int64_t dst, int64_t n, int64_t waveSize,
                                               int64_t out, int64_t blockSize, int64_t firstLane, int64_t firstByte) {
  auto *codes = reinterpret_cast<const uint32_t *>(src);
  auto *scales = reinterpret_cast<const uint8_t *>(scale);
  int64_t outBytes = MatrixFormat(out) == MatrixFormat::F32 ? 4 : 2;
  for (int64_t t = 0; t < n; ++t) {
    int64_t lane = t % waveSize, upper = lane >= 16;
    int64_t byte = firstByte + (blockSize == 32 ? upper : 2 * upper);
    float s = e8m0(scales[(t - lane + firstLane + lane % 16) * 4 + byte]);
    for (int64_t i = 0; i < 8; ++i) {
      int32_t bits = rocktile_emu_scaled_ext(int32_t(codes[t] >> (4 * i) & 0xF), int32_t(MatrixFormat::E2M1), s,
                                             int32_t(out));
      std::memcpy(reinterpret_cast<uint8_t *>(dst) + (t * 8 + i) * outBytes, &bits, outBytes);
    }
  }
}

extern "C" void rocktile_emu_scaled_matrix(int64_t instr, int64_t a, int64_t b, int64_t c, int64_t scaleA,
                                           int64_t scaleB, int64_t d, int64_t n, int64_t formatA,
                                           int64_t formatB, int64_t scaleFormat, int64_t scaleBytesA,
                                           int64_t selectA, int64_t scaleBytesB, int64_t selectB) {
  const MatrixInstr m = withFormats(allMatrixInstrs()[instr], formatA, formatB);
  auto *cf = reinterpret_cast<const float *>(c);
  auto *df = reinterpret_cast<float *>(d);
  auto decode = [&](uint8_t code) {
    return ScaleFormat(scaleFormat) == ScaleFormat::E4M3 ? float(widen(code, NarrowFloat::E4M3FN)) : e8m0(code);
  };
  // Thread `first` + lane's scale byte (zero beyond the bytes it holds).
  auto scaleOf = [&](int64_t array, int64_t bytes, int64_t first, std::pair<unsigned, unsigned> at) {
    auto [lane, byte] = at;
    return decode(byte < bytes ? reinterpret_cast<const uint8_t *>(array)[(first + lane) * bytes + byte] : 0);
  };
  unsigned acc = m.waveSize * m.dSlots;
  std::vector<float> av, bv;
  for (int64_t wave = 0; wave < n / m.waveSize; ++wave) {
    widenOperands(m, a, b, wave, formatA, formatB, av, bv);
    int64_t first = wave * m.waveSize;
    // Products of a format's values and the scales are exact in float, as
    // long as they stay in its range.
    for (unsigned i = 0; i < m.M; ++i)
      for (unsigned k = 0; k < m.K; ++k) {
        auto [lane, slot] = m.a(i, k);
        av[lane * m.aSlots + slot] *=
            scaleOf(scaleA, scaleBytesA, first, m.scalePlacement(true, i, k, scaleBytesA, selectA));
      }
    for (unsigned k = 0; k < m.K; ++k)
      for (unsigned j = 0; j < m.N; ++j) {
        auto [lane, slot] = m.b(k, j);
        bv[lane * m.bSlots + slot] *=
            scaleOf(scaleB, scaleBytesB, first, m.scalePlacement(false, j, k, scaleBytesB, selectB));
      }
    m.apply(av.data(), bv.data(), cf + wave * acc, df + wave * acc);
  }
}
