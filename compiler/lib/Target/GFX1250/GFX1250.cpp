// gfx1250: AMD Instinct MI455X (CDNA5 / GFX12.5). Wave32, WMMA, no AGPRs,
// 320 KiB LDS in 64 KiB partitions, Tensor Data Mover.
#include "rocktile/Target/MatrixCore.h"

namespace rocktile {
namespace {
// WMMA 16x16x32 bf16/f16 (shared/isa/README.md, [L22][TLL][CALC]; the A/B
// k order is an inference): A[i][k] lane = i + 16*((k/8)%2),
// slot = 8*(k/16) + k%8; B likewise with j; D[i][j] lane = j + 16*(i/8),
// reg = i%8.
constexpr std::array<int, 2> aRegs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 16}};
constexpr std::array<int, 2> aLanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}};
constexpr std::array<int, 2> bRegs[] = {{1, 0}, {2, 0}, {4, 0}, {16, 0}};
constexpr std::array<int, 2> bLanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}};
constexpr std::array<int, 2> dRegs[] = {{1, 0}, {2, 0}, {4, 0}};
constexpr std::array<int, 2> dLanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}};
// 8-bit operands (iu8 and fp8 16x16x64: 32 per lane; fp8 16x16x128: 64):
// the 16-bit packing extended to 64 or 128 k, slot = 8*(k/16) + k%8; f32 16x16x4: A[i][k] lane = i + 16*(k/2), slot =
// k%2. Both inferences (test/unit/isa); D as above.
constexpr std::array<int, 2> aI8Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}};
constexpr std::array<int, 2> bI8Regs[] = {{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}};
constexpr std::array<int, 2> a128Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 16}, {0, 32}, {0, 64}};
constexpr std::array<int, 2> b128Regs[] = {{1, 0}, {2, 0}, {4, 0}, {16, 0}, {32, 0}, {64, 0}};
constexpr std::array<int, 2> aF32Regs[] = {{0, 1}};
constexpr std::array<int, 2> aF32Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 2}};
constexpr std::array<int, 2> bF32Regs[] = {{1, 0}};
constexpr std::array<int, 2> bF32Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {2, 0}};
// v_wmma_scale_f32_16x16x128_f8f6f4 (inferences from Triton's gfx1250 scaled
// WMMA layouts, test/unit/isa): fp8 elements as above; E2M1 elements 32
// consecutive k per half-wave, A[i][k] lane = i + 16*((k/32)%2),
// slot = 32*(k/64) + k%32. Lane i < 16 holds the scales of row i (column
// i of B), byte b of its word that of the b-th block of the instruction's
// k (4 bytes of E8M0 per 32, or 8 of E4M3 per 16); lanes 16-31 copy them.
// FP6 operands are left out: no source gives their layout.
constexpr std::array<int, 2> aE2M1Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 64}};
constexpr std::array<int, 2> aE2M1Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 32}};
constexpr std::array<int, 2> bE2M1Regs[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {64, 0}};
constexpr std::array<int, 2> bE2M1Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {32, 0}};
constexpr std::array<int, 2> aScaleRegs[] = {{0, 1}, {0, 2}}, aScale16Regs[] = {{0, 1}, {0, 2}, {0, 4}};
constexpr std::array<int, 2> aScaleLanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}};
constexpr std::array<int, 2> bScaleRegs[] = {{1, 0}, {2, 0}}, bScale16Regs[] = {{1, 0}, {2, 0}, {4, 0}};
constexpr std::array<int, 2> bScaleLanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}};
constexpr ScaledForm scaled{{aE2M1Regs, aE2M1Lanes},
                            {bE2M1Regs, bE2M1Lanes},
                            {aScaleRegs, aScaleLanes},
                            {bScaleRegs, bScaleLanes},
                            {aScale16Regs, aScaleLanes},
                            {bScale16Regs, bScaleLanes}};
// v_wmma_scale_f32_32x16x128_f4 (E2M1 on both sides; inferences from
// FlyDSL's gfx1250 MXFP4 GEMM, test/unit/isa): A's rows 0-15 and 16-31 each
// as the 16x16x128 E2M1 operand, in registers 0-7 and 8-15; B as that
// operand; D two 16x16 accumulators, rows 16-31 in registers 8-15. Lane i
// holds row i's scales (all 32 lanes), B's as above.
constexpr std::array<int, 2> aF4Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 64}, {16, 0}};
constexpr std::array<int, 2> dF4Regs[] = {{1, 0}, {2, 0}, {4, 0}, {16, 0}};
constexpr std::array<int, 2> aF4ScaleLanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}};
constexpr ScaledForm scaledF4{{},
                              {},
                              {aScaleRegs, aF4ScaleLanes},
                              {bScaleRegs, bScaleLanes},
                              {aScale16Regs, aF4ScaleLanes},
                              {bScale16Regs, bScaleLanes}};
constexpr OperandBases a{aRegs, aLanes}, b{bRegs, bLanes}, d{dRegs, dLanes};
constexpr OperandBases aI8{aI8Regs, aLanes}, bI8{bI8Regs, bLanes};
constexpr OperandBases a128{a128Regs, aLanes}, b128{b128Regs, bLanes};
constexpr OperandBases aF32{aF32Regs, aF32Lanes}, bF32{bF32Regs, bF32Lanes};
constexpr OperandBases aF4{aF4Regs, aE2M1Lanes}, bF4{bE2M1Regs, bE2M1Lanes}, dF4{dF4Regs, dLanes};

const MatrixCoreInstr matrixInstrs[] = {
    {"wmma_f32_16x16x32_bf16", "wmma", 16, 16, 32, MatrixElem::BF16, MatrixElem::F32, a, b, d},
    {"wmma_f32_16x16x32_f16", "wmma", 16, 16, 32, MatrixElem::F16, MatrixElem::F32, a, b, d},
    {"wmma_f32_32x16x128_f4", "wmma", 32, 16, 128, MatrixElem::FP4, MatrixElem::F32, aF4, bF4, dF4,
     &scaledF4},
    {"wmma_f32_16x16x128_f8", "wmma", 16, 16, 128, MatrixElem::FP8, MatrixElem::F32, a128, b128, d,
     &scaled},
    {"wmma_f32_16x16x64_f8", "wmma", 16, 16, 64, MatrixElem::FP8, MatrixElem::F32, aI8, bI8, d},
    {"wmma_i32_16x16x64_iu8", "wmma", 16, 16, 64, MatrixElem::I8, MatrixElem::I32, aI8, bI8, d},
    {"wmma_f32_16x16x4_f32", "wmma", 16, 16, 4, MatrixElem::F32, MatrixElem::F32, aF32, bF32, d},
};

// ds_load_tr16_b128 (8 lanes of 8 bf16/f16) and ds_load_tr8_b64 (8 lanes of
// 8 bytes): each group an 8x8 transpose, as Triton's AMD backend and LLVM's
// gfx1250 intrinsics have them (the lane order is inferred, see the table).
const LdsTransposeRead transposeReads[] = {{2, 8, 8, /*rocdl=*/true}, {1, 8, 8, /*rocdl=*/true}};
} // namespace

extern const Target gfx1250Target = {
    /*chip=*/"gfx1250", /*product=*/"MI455X", /*waveSize=*/32,
    /*ldsBytes=*/320 * 1024, /*maxWorkgroupSize=*/1024,
    /*hasPermlane16Swap=*/true,
    /*hasPermlane32Swap=*/false,
    /*hasPermlaneX16=*/true,
    // GFX12's DPP16 (RDNA4 ISA, "DPP16"; LLVM's DppCtrl::ROW_XMASK0 for GFX10+)
    /*hasDppRowXmask=*/true,
    // 64 banks: an inference (RDNA2 and later GFX10+/GFX12 LDS have 64 banks,
    // ROCm's HIP hardware documentation; gfx1250 is not documented there)
    /*ldsBanks=*/64, /*hasTensorDataMover=*/true, /*asyncLoads=*/AsyncLoads::AsyncToLds,
    /*scaledUpcast=*/ScaledUpcast::PerDwordFromRowLanes,
    // 1024 VGPRs, no AGPRs (shared/isa/README.md)
    /*vgprsPerSimd=*/1024, /*maxWaveVgprs=*/1024,
    // A wave's scratch: a 18-bit COMPUTE_TMPRING_SIZE.WAVESIZE in units of
    // 64 dwords (LLVM's GCNSubtarget::getMaxWaveScratchSize), over 32 lanes
    /*scratchBytesPerLane=*/2097144,
    // Inferred from gfx950: no public table gives MI455X's CUs or its CU's
    // SIMDs, wave slots and register granule yet
    /*computeUnits=*/256, /*simdsPerCu=*/4, /*wavesPerSimd=*/8, /*vgprGranule=*/8,
    matrixInstrs, transposeReads};
} // namespace rocktile
