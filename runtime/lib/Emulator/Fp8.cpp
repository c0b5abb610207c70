#include "rocktile/Emulator/Fp8.h"
#include <algorithm>
#include <cmath>

using rocktile::emulator::Fp8Format;

namespace {
struct Fp8Encoding {
  int manBits, bias;
  bool hasInf;
  uint32_t maxFinite; // the largest finite code without its sign
};

Fp8Encoding encoding(int32_t format) {
  if (Fp8Format(format) == Fp8Format::E5M2)
    return {2, 15, true, 0x7B};
  return {3, 7, false, 0x7E};
}
} // namespace

extern "C" float rocktile_emu_cvt_f32_fp8(int32_t bits, int32_t format) {
  Fp8Encoding f = encoding(format);
  uint32_t code = uint32_t(bits) & 0x7F;
  float sign = bits & 0x80 ? -1.0f : 1.0f;
  if (code > f.maxFinite)
    return f.hasInf && code == f.maxFinite + 1 ? sign * INFINITY : NAN;
  int exponent = int(code >> f.manBits);
  uint32_t mantissa = code & ((1u << f.manBits) - 1);
  if (exponent == 0) // subnormal
    return sign * std::ldexp(float(mantissa), 1 - f.bias - f.manBits);
  return sign * std::ldexp(float(mantissa | (1u << f.manBits)), exponent - f.bias - f.manBits);
}

extern "C" int32_t rocktile_emu_cvt_fp8_f32(float value, int32_t format) {
  Fp8Encoding f = encoding(format);
  uint32_t sign = std::signbit(value) ? 0x80 : 0;
  const uint32_t nan = 0x7F, inf = f.maxFinite + 1;
  if (std::isnan(value))
    return int32_t(sign | nan);
  double a = std::fabs(double(value));
  if (std::isinf(a))
    return int32_t(sign | (f.hasInf ? inf : nan));
  int exponent; // a = frac * 2^exponent, frac in [0.5, 1)
  std::frexp(a, &exponent);
  // The scale of the last mantissa bit: that of the subnormals below the
  // smallest normal exponent. nearbyint rounds halves to even.
  int lsb = std::max(exponent - 1, 1 - f.bias) - f.manBits;
  auto scaled = uint32_t(std::nearbyint(std::ldexp(a, -lsb)));
  // `scaled` counts lsb steps; the code is (biased exponent, mantissa), and
  // a mantissa that rounds up to the next power of two carries into the
  // exponent by itself.
  uint32_t code = scaled + (uint32_t(lsb + f.manBits + f.bias - 1) << f.manBits);
  if (scaled == 0)
    code = 0;
  if (code > f.maxFinite)
    code = f.hasInf ? inf : nan;
  return int32_t(sign | code);
}
