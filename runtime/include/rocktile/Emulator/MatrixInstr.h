// Semantics of the matrix instructions (MFMA on gfx950, WMMA on gfx1250):
// which lane and operand slot holds each element of A (MxK), B (KxN) and
// C/D (MxN), and D = A x B + C over a wave's operands. Written from the ISA
// facts (shared/isa/README.md), independently of the compiler's layouts, so
// that the emulator can catch a wrong layout in the compiler.
#ifndef ROCKTILE_EMULATOR_MATRIXINSTR_H
#define ROCKTILE_EMULATOR_MATRIXINSTR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <utility>

namespace mlir {
class Type;
}

namespace rocktile::emulator {

struct MatrixInstr {
  /// (lane, slot) of one element of an operand.
  using Placement = std::pair<unsigned, unsigned> (*)(unsigned row, unsigned col);
  llvm::StringRef target, name;
  unsigned waveSize, M, N, K;
  unsigned aSlots, bSlots; // elements of A and of B per lane
  unsigned dSlots;  // accumulator registers per lane
  Placement a, b, d;
  bool integer = false; // int8 operands, int32 accumulator
  /// The scaled form's E2M1 operands, where they sit otherwise than a, b.
  Placement aE2M1 = nullptr, bE2M1 = nullptr;
  /// Which lane holds the scale of a block of k of a row of A (column of
  /// B), and which byte of its scale word: gfx950's MFMA, the lane that
  /// holds the block's first element, the byte opsel names; gfx1250's
  /// WMMA, lane (first scale lane + row), the block's index in the
  /// instruction's k.
  enum class ScaleLanes { BlockHolder, Row } scaleLanes = ScaleLanes::BlockHolder;

  /// D = A x B + C for one wave. `a` and `b` hold waveSize x aSlots and
  /// waveSize x bSlots values (lane-major), `c` and `d` waveSize x dSlots; narrow formats are given
  /// already widened (to float, or to int32 for int8), and products
  /// accumulate in float (in int32, wrapping, for int8).
  template <typename T> void apply(const T *a, const T *b, const T *c, T *d) const;
  /// (lane, byte) of the scale of k `k` of row `row` of A (`ofA`) or
  /// column `row` of B, for scale words of `bytes` bytes (a block of
  /// 32 k, or K / bytes on gfx1250) and the instruction's selector `select`.
  std::pair<unsigned, unsigned> scalePlacement(bool ofA, unsigned row, unsigned k, unsigned bytes,
                                               unsigned select) const;
};

/// E2M1 and FP6 (E2M3, E3M2) codes are packed as LLVM packs vectors of
/// them: element i at bit 4i (6i) of the lane's operand, each lane's operand
/// in its own power-of-two bytes.
enum class MatrixFormat : int64_t { BF16 = 0, F16 = 1, E4M3 = 2, E5M2 = 3, F32 = 4, I8 = 5, E2M1 = 6, E2M3 = 7, E3M2 = 8 };
/// Scale formats of the scaled instructions.
enum class ScaleFormat : int64_t { E8M0 = 0, E4M3 = 1 };

/// The matrix format of an MLIR value's element type, if it has one
/// (LowerSimtToHost.cpp).
std::optional<MatrixFormat> matrixFormat(mlir::Type type);

/// Every matrix instruction the emulator knows.
llvm::ArrayRef<MatrixInstr> allMatrixInstrs();
const MatrixInstr *lookupMatrixInstr(llvm::StringRef target, llvm::StringRef name);

} // namespace rocktile::emulator

extern "C" {
/// Instruction `instr` (an index into allMatrixInstrs()) for every wave of a
/// workgroup of `n` threads: `a`, `b` hold each thread's A/B operand vector
/// (elements of `formatA` / `formatB`), `c` and `d` its accumulator vector
/// (fp32, or int32 for int8 operands).
void rocktile_emu_matrix(int64_t instr, int64_t a, int64_t b, int64_t c, int64_t d, int64_t n,
                         int64_t formatA, int64_t formatB);
/// The scaled form of `instr` (v_mfma_scale_*, v_wmma_scale*): as
/// rocktile_emu_matrix, and `scaleA` / `scaleB` hold each thread's
/// `scaleBytes*` scale bytes (`scaleFormat`), the low bytes of its scale word
/// (the rest zero). `select*` is the instruction's scale selector: on
/// gfx950 the byte (opsel) that scales the block of 32 consecutive k of a
/// row of A (column of B) the lane holds; on gfx1250 the first lane of the
/// 16 whose words hold the rows' scales, one byte per block of
/// K / scaleBytes k.
/// gfx950's scaled conversion of one element (v_cvt_scalef32_pk_*): `code`
/// of `format` (E2M1, E4M3, E5M2) times `scale`, rounded to nearest even in
/// `out` (F32, F16, BF16); the result's bits.
int32_t rocktile_emu_scaled_ext(int32_t code, int32_t format, float scale, int32_t out);
/// gfx1250's scaled conversion of a wave's matrix of E2M1 codes
/// (v_cvt_scale_pk8_{f32,f16,bf16}_fp4: amdgpu.scaled_ext_packed_matrix):
/// each thread's eight codes (`src`, 4 bytes, code i at bits 4i) times the
/// E8M0 scale byte it reads in the 4-byte word of lane `firstLane` + L % 16
/// of its wave (`scale`): byte `firstByte`, plus 1 (blocks of 32) or 2
/// (blocks of 16) in lanes 16-31; eight `out` values into `dst`.
void rocktile_emu_scaled_ext_matrix(int64_t src, int64_t scale, int64_t dst, int64_t n, int64_t waveSize,
                                    int64_t out, int64_t blockSize, int64_t firstLane, int64_t firstByte);
void rocktile_emu_scaled_matrix(int64_t instr, int64_t a, int64_t b, int64_t c, int64_t scaleA, int64_t scaleB,
                                int64_t d, int64_t n, int64_t formatA, int64_t formatB, int64_t scaleFormat,
                                int64_t scaleBytesA, int64_t selectA, int64_t scaleBytesB, int64_t selectB);
}

#endif
