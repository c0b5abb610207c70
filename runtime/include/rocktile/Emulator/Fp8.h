// The fp8 conversion instructions (v_cvt_f32_fp8/bf8, v_cvt_pk_fp8/bf8_f32),
// called from emulated kernels. Formats are OCP's: E4M3FN (no infinities,
// S.1111.111 is NaN) and E5M2 (IEEE-like). fp32 -> fp8 rounds to nearest
// even; a finite value beyond the largest one becomes NaN (E4M3FN) or
// infinity (E5M2), as IEEE rounding gives. The compiler clamps values to
// the fp8 range before converting, so kernels see saturation.
#ifndef ROCKTILE_EMULATOR_FP8_H
#define ROCKTILE_EMULATOR_FP8_H

#include <cstdint>

namespace rocktile::emulator {
enum class Fp8Format : int32_t { E4M3FN = 0, E5M2 = 1 };
} // namespace rocktile::emulator

extern "C" {
/// The fp8 value in the low byte of `bits`, as an fp32.
float rocktile_emu_cvt_f32_fp8(int32_t bits, int32_t format);
/// `value` rounded to fp8, in the low byte.
int32_t rocktile_emu_cvt_fp8_f32(float value, int32_t format);
}

#endif
