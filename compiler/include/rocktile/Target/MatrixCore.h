// The targets' matrix instructions as the compiler uses them, and the
// layouts of a tl.dot built from them. Each target lists its instructions in
// its own folder; what is generic here only reads those lists.
#ifndef ROCKTILE_TARGET_MATRIXCORE_H
#define ROCKTILE_TARGET_MATRIXCORE_H

#include "rocktile/Dialect/Tile/IR/LinearLayout.h"
#include "rocktile/Target/Target.h"
#include <optional>
#include <string>

namespace rocktile {

/// Element types of matrix operands; FP8 is either OCP format (E4M3, E5M2),
/// which the f8f6f4 instructions take for A and B independently; FP4 is
/// E2M1 on both sides (gfx1250's 32x16x128 f4 instruction).
enum class MatrixElem { BF16, F16, FP8, FP4, I8, F32, I32 };

/// One wave's share of an operand: for each register (slot) bit and lane
/// bit of the instruction's operand, the (row, column) it contributes.
struct OperandBases {
  llvm::ArrayRef<std::array<int, 2>> registers, lanes;
};

/// The block-scaled form of an f8f6f4 instruction (tl.dot_scaled): where
/// its E2M1 operands' elements go, and which lane and register hold each
/// scale of its A (an m x k/block tile, bases (row, block)) and B (a
/// k/block x n tile, bases (block, column)) for scales per 32 and per 16 k.
struct ScaledForm {
  OperandBases aE2M1, bE2M1;       // no registers: as the instruction's own operands
  OperandBases aScale, bScale;     // E8M0 per 32
  OperandBases aScale16, bScale16; // E4M3 per 16 (NVFP4); no lanes: none
  bool fp6 = false;                // takes FP6 operands (as fp8's)
};

struct MatrixCoreInstr {
  llvm::StringRef name;        // e.g. "mfma_f32_16x16x32_bf16", as in shared/isa
  llvm::StringRef op;          // the amdgpu dialect op: "mfma" or "wmma"
  unsigned m, n, k;
  MatrixElem ab, acc;          // element types of A and B, and of C/D
  OperandBases a, b, d;        // A is m x k, B k x n, D m x n
  const ScaledForm *scaled = nullptr; // the scaled form, if it has one

  unsigned aSlots() const { return 1u << a.registers.size(); }
  unsigned bSlots() const { return 1u << b.registers.size(); }
  unsigned dSlots() const { return 1u << d.registers.size(); }
  /// This instruction with E2M1 operands as its A, its B or both.
  MatrixCoreInstr withE2M1(bool a, bool b) const;
  /// The instruction that multiplies the scale tiles instead, per `block`
  /// k: its k is k / block and its A and B bases the scales'.
  MatrixCoreInstr ofScales(int64_t block) const;
};

/// A matrix instruction's operand: A (m x k), B (k x n) or D (m x n).
enum class MatrixOperand { A = 0, B = 1, D = 2 };

/// The layout of `operand` of a 2-D dot with `instr` for a tile of `shape`
/// (A: M x K, B: K x N, D: M x N) with its warps where `warpTiles` puts
/// them (warp bit i: a step of that many instruction tiles along M and
/// along N, one of them 0; per dimension the steps 1, 2, 4, ... in any
/// order), computed `transposed` or not: the layout an author names at the
/// explicit level (Gluon's AMDMFMALayout and AMDWMMALayout for D, its
/// DotOperandLayout for A and B). It is dotLayouts' up to which warp is
/// which. A dimension of size 1 where the instruction's tile is longer (a
/// row of D, as a reduction leaves it) gets the layout collapsed along it.
/// None, with `why`, for a shape shorter than the instruction's tile or
/// warps that are not such steps.
std::optional<LinearLayout> explicitDotLayout(const MatrixCoreInstr &instr, MatrixOperand operand,
                                              llvm::ArrayRef<int64_t> shape, unsigned numWarps,
                                              llvm::ArrayRef<std::array<int64_t, 2>> warpTiles, bool transposed,
                                              std::string &why);

/// The operands of a block-scaled product: A, B and D as the instruction's,
/// and the scales of A (M x K/block) and of B (N x K/block).
enum class ScaledOperand { A = 0, B = 1, D = 2, AScale = 3, BScale = 4 };

/// explicitDotLayout for a block-scaled product on `instr` (an f8f6f4
/// instruction with a scaled form): A and B on the instruction with E2M1
/// operands where `packedA` / `packedB` (`shape` then counts bytes of two
/// codes along K), the scales on its scale instruction for blocks of
/// `block` k (`shape` M x K/block for A's, N x K/block for B's).
std::optional<LinearLayout> explicitScaledDotLayout(const MatrixCoreInstr &instr, ScaledOperand operand,
                                                    llvm::ArrayRef<int64_t> shape, unsigned numWarps,
                                                    llvm::ArrayRef<std::array<int64_t, 2>> warpTiles,
                                                    bool transposed, bool packedA, bool packedB, int64_t block,
                                                    std::string &why);

/// The number of consecutive k a lane holds in `instr`'s A operand (Gluon's
/// k_width of its dot operands).
int64_t operandKWidth(const MatrixCoreInstr &instr);

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
/// whose m is `nonKDim`, if the target has one. `scaleBlock` (32 or 16)
/// asks for an instruction whose scaled form takes scales per that many k.
const MatrixCoreInstr *chooseMatrixInstr(const Target &target, MatrixElem ab, MatrixElem acc,
                                         int64_t M, int64_t N, int64_t K, int64_t nonKDim = 0,
                                         int64_t scaleBlock = 0);

/// How a dot maps onto its instruction beyond the default (tile.dot's
/// `warps_n`, `transposed` and `k_order` attributes).
struct DotOptions {
  unsigned warpsN = 0;             // warps along N; 0: split by shape
  bool transposed = false;         // compute Dᵀ = Bᵀ Aᵀ: D's lanes run along M
  llvm::SmallVector<int64_t> kOrder; // bit i of the instruction's k is K index kOrder[i]; empty: itself
  int64_t nonKDim = 0;             // the instruction's m and n if it has them; 0: the target's first
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

/// A scaled dot's layouts (`dotLayouts` for the instruction's scaled form):
/// an E2M1 operand (`packedA`, `packedB`) as bytes of two consecutive k
/// (its elements' layout with K halved: the register that held k's lowest
/// bit dropped), and the scales, one per `block` consecutive k of a row of
/// A (column of B), as M x K/block and N x K/block tiles spread as the
/// instruction reads them. `values` and `scales` are the instructions whose
/// layouts these are: the one with E2M1 operands where the dot has them
/// (the instruction's A is the dot's B when it is computed transposed), and
/// the one that multiplies the scales.
struct ScaledDotLayouts {
  LinearLayout a, b, d, aScale, bScale;
  MatrixCoreInstr values, scales;
};
ScaledDotLayouts scaledDotLayouts(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K,
                                  unsigned numWarps, const DotOptions &options, bool packedA, bool packedB,
                                  int64_t block);

/// The warps along N for an M x N x K dot with `instr` on `numWarps` warps
/// that needs the fewest LDS reads of operands per warp, when a read of A
/// gives a lane `readA` elements and one of B `readB` (a transpose read
/// gives fewer than a 128-bit one): a warp's share of A is (M / warpsM) x K,
/// of B K x (N / warpsN), the product computed `transposed` or not. 0 where
/// dotLayouts' own split is as good.
unsigned chooseWarpsN(const MatrixCoreInstr &instr, int64_t M, int64_t N, int64_t K, unsigned numWarps,
                      int64_t readA, int64_t readB, bool transposed);

/// The K order under which `a` (an M x K operand layout with K in its own
/// order) holds the elements `d` (an M x K accumulator layout) holds, up to
/// which register holds which: `d` then is an A operand as it stands. None
/// when lanes or warps hold different rows, or registers cannot be matched.
std::optional<llvm::SmallVector<int64_t>> kOrderFor(const LinearLayout &d, const LinearLayout &a);

} // namespace rocktile

#endif
