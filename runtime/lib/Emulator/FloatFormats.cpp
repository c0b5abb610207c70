#include "rocktile/Emulator/FloatFormats.h"
#include <algorithm>
#include <cmath>
#include "llvm/ADT/bit.h"

namespace rocktile::emulator {

const NarrowFloat NarrowFloat::F16{16, 10, 15, true, 0x7BFF};
const NarrowFloat NarrowFloat::BF16{16, 7, 127, true, 0x7F7F};
const NarrowFloat NarrowFloat::E4M3FN{8, 3, 7, false, 0x7E};
const NarrowFloat NarrowFloat::E5M2{8, 2, 15, true, 0x7B};
const NarrowFloat NarrowFloat::E2M1{4, 1, 1, false, 0x7}; // every code finite
const NarrowFloat NarrowFloat::E2M3{6, 3, 1, false, 0x1F}, NarrowFloat::E3M2{6, 2, 3, false, 0x1F};

static constexpr uint64_t kDoubleQuiet = uint64_t(1) << 51;

double widen(uint32_t code, const NarrowFloat &f) {
  uint32_t sign = code >> (f.bits - 1) & 1, magnitude = code & ((1u << (f.bits - 1)) - 1);
  uint32_t mantissa = magnitude & ((1u << f.manBits) - 1);
  int exponent = int(magnitude >> f.manBits);
  double s = sign ? -1.0 : 1.0;
  if (magnitude > f.maxFinite) {
    if (f.hasInf && magnitude == f.maxFinite + 1)
      return s * INFINITY;
    uint64_t payload = f.hasInf ? uint64_t(mantissa) << (52 - f.manBits) : 0;
    return llvm::bit_cast<double>(uint64_t(sign) << 63 | uint64_t(0x7FF) << 52 | kDoubleQuiet | payload);
  }
  if (exponent == 0) // subnormal
    return s * std::ldexp(double(mantissa), 1 - f.bias - f.manBits);
  return s * std::ldexp(double(mantissa | (1u << f.manBits)), exponent - f.bias - f.manBits);
}

uint32_t narrow(double value, const NarrowFloat &f) {
  uint32_t sign = std::signbit(value) ? 1u << (f.bits - 1) : 0;
  uint32_t allOnes = (1u << (f.bits - 1)) - 1;
  if (std::isnan(value)) {
    if (!f.hasInf)
      return sign | allOnes;
    uint32_t quiet = 1u << (f.manBits - 1);
    uint32_t payload = uint32_t(llvm::bit_cast<uint64_t>(value) >> (52 - f.manBits)) & (quiet - 1);
    return sign | (f.maxFinite + 1) | quiet | payload;
  }
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | (f.hasInf ? f.maxFinite + 1 : allOnes);
  int exponent; // a = frac * 2^exponent, frac in [0.5, 1)
  std::frexp(a, &exponent);
  // The weight of the last mantissa bit: that of the subnormals below the
  // smallest normal exponent. Scaling by a power of two is exact, and
  // nearbyint rounds halves to even.
  int lsb = std::max(exponent - 1, 1 - f.bias) - f.manBits;
  auto scaled = uint64_t(std::nearbyint(std::ldexp(a, -lsb)));
  // `scaled` counts lsb steps; the code is (biased exponent, mantissa), and
  // a mantissa that rounds up to the next power of two carries into the
  // exponent by itself.
  uint64_t code = scaled == 0 ? 0 : scaled + (uint64_t(lsb + f.manBits + f.bias - 1) << f.manBits);
  if (code > f.maxFinite)
    code = f.hasInf ? f.maxFinite + 1 : allOnes;
  return sign | uint32_t(code);
}

} // namespace rocktile::emulator
