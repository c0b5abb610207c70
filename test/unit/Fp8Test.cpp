// The emulator's fp8 conversions against LLVM's APFloat, which implements
// the OCP formats independently: every fp8 code, and fp32 values around
// every fp8 value (exact, halfway, just off halfway) plus the extremes.
#include "rocktile/Emulator/Fp8.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using rocktile::emulator::Fp8Format;

namespace {

const llvm::fltSemantics &semantics(Fp8Format f) {
  return f == Fp8Format::E5M2 ? llvm::APFloat::Float8E5M2() : llvm::APFloat::Float8E4M3FN();
}

float referenceExtend(uint8_t code, Fp8Format f) {
  llvm::APFloat v(semantics(f), llvm::APInt(8, code));
  bool lost;
  v.convert(llvm::APFloat::IEEEsingle(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v.convertToFloat();
}

llvm::APFloat referenceTruncate(float x, Fp8Format f) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(semantics(f), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v;
}

void expectSameFloat(float got, float want, const char *what, int detail) {
  if (std::isnan(want))
    EXPECT_TRUE(std::isnan(got)) << what << " " << detail;
  else
    EXPECT_EQ(std::memcmp(&got, &want, 4), 0) << what << " " << detail << ": " << got << " vs " << want;
}

class Fp8 : public testing::TestWithParam<Fp8Format> {};

TEST_P(Fp8, ExtendsEveryCode) {
  for (int code = 0; code < 256; ++code)
    expectSameFloat(rocktile_emu_cvt_f32_fp8(code, int32_t(GetParam())),
                    referenceExtend(uint8_t(code), GetParam()), "code", code);
}

TEST_P(Fp8, TruncatesAroundEveryValue) {
  Fp8Format f = GetParam();
  std::vector<float> inputs{0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-30f, 3e38f,
                            std::ldexp(1.0f, -140)};
  for (int code = 0; code < 256; ++code) {
    float v = referenceExtend(uint8_t(code), f);
    float next = referenceExtend(uint8_t(code + 1), f);
    if (!std::isfinite(v))
      continue;
    inputs.push_back(v);
    inputs.push_back(std::nextafter(v, INFINITY));
    inputs.push_back(std::nextafter(v, -INFINITY));
    if (std::isfinite(next) && (code & 0x7F) != 0x7F) {
      float half = (v + next) / 2; // exact in fp32: fp8 has few mantissa bits
      inputs.insert(inputs.end(), {half, std::nextafter(half, INFINITY), std::nextafter(half, -INFINITY)});
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    float x = inputs[i];
    llvm::APFloat want = referenceTruncate(x, f);
    int32_t got = rocktile_emu_cvt_fp8_f32(x, int32_t(f));
    if (want.isNaN())
      EXPECT_TRUE(std::isnan(rocktile_emu_cvt_f32_fp8(got, int32_t(f)))) << x;
    else
      EXPECT_EQ(got, int32_t(want.bitcastToAPInt().getZExtValue())) << "input " << x;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Fp8, testing::Values(Fp8Format::E4M3FN, Fp8Format::E5M2));

} // namespace
