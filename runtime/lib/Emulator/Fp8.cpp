#include "rocktile/Emulator/Fp8.h"
#include "rocktile/Emulator/FloatFormats.h"

using namespace rocktile::emulator;

static const NarrowFloat &format(int32_t f) {
  return Fp8Format(f) == Fp8Format::E5M2 ? NarrowFloat::E5M2 : NarrowFloat::E4M3FN;
}

extern "C" float rocktile_emu_cvt_f32_fp8(int32_t bits, int32_t f) {
  return float(widen(uint32_t(bits) & 0xFF, format(f)));
}

extern "C" int32_t rocktile_emu_cvt_fp8_f32(float value, int32_t f) {
  return int32_t(narrow(value, format(f)));
}
