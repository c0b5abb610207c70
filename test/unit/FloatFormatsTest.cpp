// The emulator's fp16/bf16 conversions (the host builtins LLVM calls on CPUs
// without them) against LLVM's APFloat: every 16-bit code widened, and
// fp32/fp64 values at, around and exactly between every pair of neighbouring
// 16-bit values narrowed, including fp64 values that a detour through fp32
// would round twice.
#include "rocktile/Emulator/FloatFormats.h"
#include "llvm/ADT/APFloat.h"
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace rocktile::emulator;

namespace {

struct Format {
  const char *name;
  const NarrowFloat &narrow;
  const llvm::fltSemantics &(*semantics)();
};
const Format kFormats[] = {{"f16", NarrowFloat::F16, llvm::APFloat::IEEEhalf},
                           {"bf16", NarrowFloat::BF16, llvm::APFloat::BFloat}};

double referenceWiden(uint32_t code, const Format &f) {
  llvm::APFloat v(f.semantics(), llvm::APInt(16, code));
  bool lost;
  v.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}

uint32_t referenceNarrow(double x, const Format &f) {
  llvm::APFloat v(x);
  bool lost;
  v.convert(f.semantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint32_t(v.bitcastToAPInt().getZExtValue());
}

void expectNarrow(double x, const Format &f) {
  uint32_t want = referenceNarrow(x, f), got = narrow(x, f.narrow);
  if (std::isnan(x))
    EXPECT_EQ(got & 0x7FFF, want & 0x7FFF) << f.name << " NaN payload";
  else
    EXPECT_EQ(got, want) << f.name << " of " << x;
}

class FloatFormats : public testing::TestWithParam<Format> {};

TEST_P(FloatFormats, WidensEveryCode) {
  const Format &f = GetParam();
  for (uint32_t code = 0; code < 0x10000; ++code) {
    double got = widen(code, f.narrow), want = referenceWiden(code, f);
    uint64_t g, w;
    std::memcpy(&g, &got, 8);
    std::memcpy(&w, &want, 8);
    EXPECT_EQ(g, w) << f.name << " code " << code;
  }
}

TEST_P(FloatFormats, NarrowsAroundEveryValue) {
  const Format &f = GetParam();
  for (uint32_t code = 0; code < 0x7FFF; ++code) {
    double lo = widen(code, f.narrow), hi = widen(code + 1, f.narrow);
    if (!std::isfinite(lo))
      continue;
    // the largest finite value's successor is infinity: its "midpoint" is
    // where rounding overflows
    double mid = std::isfinite(hi) ? (lo + hi) / 2 : lo + (lo - widen(code - 1, f.narrow)) / 2;
    for (double sign : {1.0, -1.0})
      for (double x : {lo, mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY),
                       double(std::nextafter(float(mid), 0.0f)),
                       double(std::nextafter(float(mid), INFINITY))}) {
        expectNarrow(sign * x, f);
        expectNarrow(double(float(sign * x)), f);
      }
  }
  for (double x : {0.0, -0.0, double(INFINITY), -double(INFINITY), 1e300, -1e300, 1e-300, 5e-324, double(NAN),
                   -double(NAN)})
    expectNarrow(x, f);
}

INSTANTIATE_TEST_SUITE_P(Emulator, FloatFormats, testing::ValuesIn(kFormats),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
