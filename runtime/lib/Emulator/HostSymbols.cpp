// Every symbol the emulator's host program may call: rocktile's runtime
// (wave and matrix instructions, fp8 conversions, faults), the conversion builtins that
// LLVM's host backend emits for fp16 and bf16 where the CPU has no
// instruction for them, and the few C library functions it deliberately
// calls (printf for device_print; malloc and free for the arrays that carry
// values between a workgroup's segments, and calloc, which LLVM makes of an
// array filled with zeros; memcpy and memset, which LLVM emits for copies;
// libm for math the host has no instruction for, and compiler-rt's powi).
#include "rocktile/Emulator/Emulator.h"
#include "rocktile/Emulator/FloatFormats.h"
#include "rocktile/Emulator/Fp8.h"
#include "rocktile/Emulator/HostJit.h"
#include "rocktile/Emulator/MatrixInstr.h"
#include "rocktile/Emulator/WaveOps.h"
#include "llvm/ADT/bit.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace rocktile::emulator;

namespace {

// The builtins pass 16-bit floats in SSE registers, as _Float16; bf16 values
// travel in the same registers, so they are carried as _Float16 bit patterns.
_Float16 carry(uint32_t code) { return llvm::bit_cast<_Float16>(uint16_t(code)); }
uint32_t uncarry(_Float16 h) { return llvm::bit_cast<uint16_t>(h); }

_Float16 truncsfhf2(float x) { return carry(narrow(x, NarrowFloat::F16)); }
_Float16 truncdfhf2(double x) { return carry(narrow(x, NarrowFloat::F16)); }
_Float16 truncsfbf2(float x) { return carry(narrow(x, NarrowFloat::BF16)); }
_Float16 truncdfbf2(double x) { return carry(narrow(x, NarrowFloat::BF16)); }
float extendhfsf2(_Float16 h) { return float(widen(uncarry(h), NarrowFloat::F16)); }
double extendhfdf2(_Float16 h) { return widen(uncarry(h), NarrowFloat::F16); }
float extendbfsf2(_Float16 h) { return float(widen(uncarry(h), NarrowFloat::BF16)); }

// compiler-rt's llvm.powi (x to an integer power), which LLVM may form from
// pow(x, n); the C library has no such function.
template <typename T> T powi(T x, int n) {
  T result = 1;
  for (unsigned m = n < 0 ? 0u - unsigned(n) : unsigned(n); m; m >>= 1, x *= x)
    if (m & 1)
      result *= x;
  return n < 0 ? 1 / result : result;
}
float powisf2(float x, int n) { return powi(x, n); }
double powidf2(double x, int n) { return powi(x, n); }
template <typename T> void *address(T *fn) { return reinterpret_cast<void *>(fn); }
using F1 = float (*)(float);
using D1 = double (*)(double);
using F2 = float (*)(float, float);
using D2 = double (*)(double, double);
using F3 = float (*)(float, float, float);
using D3 = double (*)(double, double, double);

} // namespace

namespace rocktile::emulator {

llvm::ArrayRef<HostSymbol> hostSymbols() {
  static const HostSymbol symbols[] = {
      {"rocktile_emu_dpp", address(&rocktile_emu_dpp)},
      {"rocktile_emu_ds_swizzle", address(&rocktile_emu_ds_swizzle)},
      {"rocktile_emu_permlane_swap", address(&rocktile_emu_permlane_swap)},
      {"rocktile_emu_permlanex16", address(&rocktile_emu_permlanex16)},
      {"rocktile_emu_permlane_swap_result", address(&rocktile_emu_permlane_swap_result)},
      {"rocktile_emu_readfirstlane", address(&rocktile_emu_readfirstlane)},
      {"rocktile_emu_shuffle", address(&rocktile_emu_shuffle)},
      {"rocktile_emu_lds_transpose", address(&rocktile_emu_lds_transpose)},
      {"rocktile_emu_fault", address(&rocktile_emu_fault)},
      {"rocktile_emu_addressed_access", address(&rocktile_emu_addressed_access)},
      {"rocktile_emu_lds_barrier", address(&rocktile_emu_lds_barrier)},
      {"rocktile_emu_realtime", address(&rocktile_emu_realtime)},
      {"rocktile_emu_spin", address(&rocktile_emu_spin)},
      {"rocktile_emu_global_access", address(&rocktile_emu_global_access)},
      {"rocktile_emu_release", address(&rocktile_emu_release)},
      {"rocktile_emu_acquire", address(&rocktile_emu_acquire)},
      {"rocktile_emu_tensor_load", address(&rocktile_emu_tensor_load)},
      {"rocktile_emu_tensor_store", address(&rocktile_emu_tensor_store)},
      {"rocktile_emu_wait_tensorcnt", address(&rocktile_emu_wait_tensorcnt)},
      {"rocktile_emu_async_load", address(&rocktile_emu_async_load)},
      {"rocktile_emu_wait_async_loads", address(&rocktile_emu_wait_async_loads)},
      {"rocktile_emu_lds_access", address(&rocktile_emu_lds_access)},
      {"rocktile_emu_lds_access_all", address(&rocktile_emu_lds_access_all)},
      {"rocktile_emu_shared_value", address(&rocktile_emu_shared_value)},
      {"rocktile_emu_cvt_f32_fp8", address(&rocktile_emu_cvt_f32_fp8)},
      {"rocktile_emu_cvt_fp8_f32", address(&rocktile_emu_cvt_fp8_f32)},
      {"rocktile_emu_matrix", address(&rocktile_emu_matrix)},
      {"rocktile_emu_scaled_matrix", address(&rocktile_emu_scaled_matrix)},
      {"rocktile_emu_scaled_ext", address(&rocktile_emu_scaled_ext)},
      {"rocktile_emu_scaled_ext_matrix", address(&rocktile_emu_scaled_ext_matrix)},
      {"__truncsfhf2", address(&truncsfhf2)},
      {"__truncdfhf2", address(&truncdfhf2)},
      {"__truncsfbf2", address(&truncsfbf2)},
      {"__truncdfbf2", address(&truncdfbf2)},
      {"__extendhfsf2", address(&extendhfsf2)},
      {"__extendhfdf2", address(&extendhfdf2)},
      {"__extendbfsf2", address(&extendbfsf2)},
      {"printf", address(&printf)},
      {"malloc", address(&malloc)},
      {"calloc", address(&calloc)},
      {"aligned_alloc", address(&aligned_alloc)},
      {"free", address(&free)},
      {"memcpy", address(&memcpy)},
      {"memset", address(&memset)},
      {"memmove", address(&memmove)},
      // libm: what the x86-64 backend calls for llvm.exp/log/log10/sin/cos/
      // exp2/log2, llvm.round, frem, minnum/maxnum of promoted halves, and, on
      // CPUs without SSE4.1 or FMA, floor/ceil/trunc/rint/roundeven/fma.
      {"expf", address(F1(::expf))},   {"exp", address(D1(::exp))},
      {"exp2f", address(F1(::exp2f))}, {"exp2", address(D1(::exp2))},
      {"logf", address(F1(::logf))},   {"log", address(D1(::log))},
      {"log2f", address(F1(::log2f))}, {"log2", address(D1(::log2))},
      {"log10f", address(F1(::log10f))}, {"log10", address(D1(::log10))},
      {"truncf", address(F1(::truncf))}, {"trunc", address(D1(::trunc))},
      {"roundf", address(F1(::roundf))}, {"round", address(D1(::round))},
      {"rintf", address(F1(::rintf))}, {"rint", address(D1(::rint))},
      {"nearbyintf", address(F1(::nearbyintf))}, {"nearbyint", address(D1(::nearbyint))},
      {"roundevenf", address(F1(::roundevenf))}, {"roundeven", address(D1(::roundeven))},
      {"sinf", address(F1(::sinf))},   {"sin", address(D1(::sin))},
      {"cosf", address(F1(::cosf))},   {"cos", address(D1(::cos))},
      {"sincosf", address(&::sincosf)}, {"sincos", address(&::sincos)},
      {"floorf", address(F1(::floorf))}, {"floor", address(D1(::floor))},
      {"ceilf", address(F1(::ceilf))}, {"ceil", address(D1(::ceil))},
      {"fmodf", address(F2(::fmodf))}, {"fmod", address(D2(::fmod))},
      {"fmaf", address(F3(::fmaf))},   {"fma", address(D3(::fma))},
      {"fminf", address(F2(::fminf))}, {"fmin", address(D2(::fmin))},
      {"fmaxf", address(F2(::fmaxf))}, {"fmax", address(D2(::fmax))},
      // What LLVM's simplifications may form from those: ldexp from
      // exp2(int to float), frexp, exp10 from pow(10, x), powi from pow(x, n).
      {"ldexpf", address(static_cast<float (*)(float, int)>(::ldexpf))},
      {"ldexp", address(static_cast<double (*)(double, int)>(::ldexp))},
      {"frexpf", address(static_cast<float (*)(float, int *)>(::frexpf))},
      {"frexp", address(static_cast<double (*)(double, int *)>(::frexp))},
      {"exp10f", address(F1(::exp10f))}, {"exp10", address(D1(::exp10))},
      {"__powisf2", address(&powisf2)}, {"__powidf2", address(&powidf2)},
  };
  return symbols;
}

} // namespace rocktile::emulator
