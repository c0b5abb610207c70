// Floating-point formats narrower than fp32 (fp16, bf16, fp8, fp6, fp4), converted to
// and from wider floats with round-to-nearest-even. The fp8 conversion
// instructions use them, and so do the conversion builtins that LLVM's host
// backend calls for fp16 and bf16 on CPUs without those instructions
// (__truncsfbf2, __extendhfsf2, ...): the emulator provides them itself
// instead of trusting whatever library the process happens to have loaded.
#ifndef ROCKTILE_EMULATOR_FLOATFORMATS_H
#define ROCKTILE_EMULATOR_FLOATFORMATS_H

#include <cstdint>

namespace rocktile::emulator {

struct NarrowFloat {
  int bits, manBits, bias;
  bool hasInf;        // IEEE-like: the all-ones exponent holds infinities and NaNs
  uint32_t maxFinite; // the largest finite code, without its sign

  static const NarrowFloat F16, BF16, E4M3FN, E5M2, E2M1, E2M3, E3M2;
};

/// The value of `code` (exact in a double). NaNs keep their sign and, in
/// IEEE-like formats, their payload.
double widen(uint32_t code, const NarrowFloat &f);

/// `value` rounded to nearest even. A finite value beyond the largest one
/// becomes infinity (NaN where the format has no infinity); NaNs stay quiet
/// NaNs with their sign and the payload's high bits.
uint32_t narrow(double value, const NarrowFloat &f);

} // namespace rocktile::emulator

#endif
