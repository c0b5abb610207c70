// The targets' matrix instructions as the compiler uses them, and the
// layouts of a tl.dot built from them. Each target lists its instructions in
// its own folder; what is generic here only reads those lists.
#ifndef ROCKTILE_TARGET_MATRIXCORE_H
#define ROCKTILE_TARGET_MATRIXCORE_H

#include "rocktile/Dialect/Tile/IR/LinearLayout.h"
#include "rocktile/Target/Target.h"
#include <optional>

namespace rocktile {

/// Element types of matrix operands; FP8 is either OCP format (E4M3, E5M2),
/// which the f8f6f4 instructions take for A and B independently.
enum class MatrixElem { BF16, F16, FP8, I8, F32, I32 };

/// One wave's share of an operand: for each register (slot) bit and lane
/// bit of the instruction's operand, the (row, column) it contributes.
struct OperandBases {
  llvm::ArrayRef<std::array<int, 2>> registers, lanes;
};

struct MatrixCoreInstr {
  llvm::StringRef name;        // e.g. "mfma_f32_16x16x32_bf16", as in shared/isa
  llvm::StringRef op;          // the amdgpu dialect op: "mfma" or "wmma"
  unsigned m, n, k;
  MatrixElem ab, acc;          // element types of A and B, and of C/D
  OperandBases a, b, d;        // A is m x k, B k x n, D m x n

  unsigned abSlots() const { return 1u << a.registers.size(); }
  unsigned dSlots() const { return 1u << d.registers.size(); }
};

/// How a dot's M x N tile is spread over a workgroup: warps along M and N
/// (warpsM * warpsN = num_warps), and the instruction repeated over
/// registers for what one layer of warps does not cover.
struct DotLayouts {
  const MatrixCoreInstr *instr;
  unsigned warpsM, warpsN, warpsBatch;
  LinearLayout a, b, d;
};

/// The instruction for A (M x K) times B (K x N) into an accumulator of type
/// `acc`: the first of the target's instructions (its list is in order of
/// preference) whose types match and whose m, n and k divide M, N and K;
/// with `nonKDim` (Triton's matrix_instr_nonkdim, 16 or 32), the first such
/// whose m is `nonKDim`, if the target has one.
const MatrixCoreInstr *chooseMatrixInstr(const Target &target, MatrixElem ab, MatrixElem acc,
                                         int64_t M, int64_t N, int64_t K, int64_t nonKDim = 0);

/// How a dot maps onto its instruction beyond the default (tile.dot's
/// `warps_n`, `transposed` and `k_order` attributes).
struct DotOptions {
  unsigned warpsN = 0;             // warps along N; 0: split by shape
  bool transposed = false;         // compute Dᵀ = Bᵀ Aᵀ: D's lanes run along M
  llvm::SmallVector<int64_t> kOrder; // bit i of the instruction's k is K index kOrder[i]; empty: itself
};

/// The K index that bit i of `k` stands for under `order`: the XOR of
/// order[i] over k's set bits (k itself for an empty order).
int64_t renameK(llvm::ArrayRef<int64_t> order, int64_t k);

/// The layouts of a dot with `instr`. Warps are split greedily: each of the
/// log2(num_warps) halvings goes to the dimension with more instruction
/// tiles left per warp (M on ties); warps beyond the tiles hold copies.
/// Instruction tiles beyond one layer of warps repeat over registers, A's
/// and B's along K first. A batched dot (`batch` > 0, 0 for a 2-D dot: tiles of shape
/// [batch, M, K] x [batch, K, N]) spreads the batch over the warps first
/// (the highest warp bits), the rest of it over the highest register bits,
/// and splits the remaining warps over each product as above. `options`
/// fix the warp split, transpose the product and rename K.
DotLayouts dotLayouts(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K,
                      unsigned numWarps, int64_t batch = 0, const DotOptions &options = {});

/// A scaled dot's operand layouts beside `dot`'s: an E2M1 operand (`packed`)
/// as bytes of two consecutive k (the instruction's layout with K halved:
/// the register that held k's lowest bit dropped), and the scales, one per
/// 32 consecutive k of a row of A (column of B), as M x K/32 and N x K/32
/// tiles held by the lanes that hold their blocks.
struct ScaledDotLayouts {
  LinearLayout a, b, aScale, bScale;
};
ScaledDotLayouts scaledDotLayouts(const DotLayouts &dot, bool packedA, bool packedB);

/// The warps along N for an M x N x K dot with `instr` on `numWarps` warps
/// that needs the fewest LDS reads of operands per warp, when a read of A
/// gives a lane `readA` elements and one of B `readB` (a transpose read
/// gives fewer than a 128-bit one): a warp's share of A is (M / warpsM) x K,
/// of B K x (N / warpsN). 0 where dotLayouts' own split is as good.
unsigned chooseWarpsN(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K, unsigned numWarps,
                      int64_t readA, int64_t readB);

/// The K order under which `a` (an M x K operand layout with K in its own
/// order) holds the elements `d` (an M x K accumulator layout) holds, up to
/// which register holds which: `d` then is an A operand as it stands. None
/// when lanes or warps hold different rows, or registers cannot be matched.
std::optional<llvm::SmallVector<int64_t>> kOrderFor(const LinearLayout &d, const LinearLayout &a);

} // namespace rocktile

#endif
