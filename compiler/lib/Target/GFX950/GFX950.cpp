// gfx950: AMD Instinct MI355X (CDNA4). Wave64, MFMA with AGPRs, 160 KiB LDS.
#include "rocktile/Target/MatrixCore.h"

namespace rocktile {
namespace {
// MFMA operand layouts (shared/isa/README.md, [L22][TLL][CALC]), as bases
// (row, col) of each slot bit and lane bit. A is M x K, B K x N, D M x N.
// 16x16x32 bf16/f16: A[i][k] lane = i + 16*(k/8), slot = k%8;
// B[k][j] lane = j + 16*(k/8), slot = k%8; D[i][j] lane = j + 16*(i/4), reg = i%4.
constexpr std::array<int, 2> a16Regs[] = {{0, 1}, {0, 2}, {0, 4}};
constexpr std::array<int, 2> a16Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}, {0, 16}};
constexpr std::array<int, 2> b16Regs[] = {{1, 0}, {2, 0}, {4, 0}};
constexpr std::array<int, 2> b16Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}, {16, 0}};
constexpr std::array<int, 2> d16Regs[] = {{1, 0}, {2, 0}};
constexpr std::array<int, 2> d16Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}};
// 32x32x16 bf16/f16: A[i][k] lane = i + 32*(k/8), slot = k%8; B likewise with
// j; D[i][j] lane = j + 32*((i/4)%2), reg = 4*(i/8) + i%4.
constexpr std::array<int, 2> a32Regs[] = {{0, 1}, {0, 2}, {0, 4}};
constexpr std::array<int, 2> a32Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 8}};
constexpr std::array<int, 2> b32Regs[] = {{1, 0}, {2, 0}, {4, 0}};
constexpr std::array<int, 2> b32Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {8, 0}};
constexpr std::array<int, 2> d32Regs[] = {{1, 0}, {2, 0}, {8, 0}, {16, 0}};
constexpr std::array<int, 2> d32Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}};

// f8f6f4 (fp8 operands; the k order inside a lane is an inference, as in
// shared/isa): 16x16x128: A[i][k] lane = i + 16*(k/32), slot = k%32; B likewise
// with j; D as 16x16x32. 32x32x64: A[i][k] lane = i + 32*(k/32), slot = k%32;
// D as 32x32x16.
constexpr std::array<int, 2> a16f8Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}};
constexpr std::array<int, 2> a16f8Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 32}, {0, 64}};
constexpr std::array<int, 2> b16f8Regs[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}};
constexpr std::array<int, 2> b16f8Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {32, 0}, {64, 0}};
constexpr std::array<int, 2> a32f8Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 32}};
constexpr std::array<int, 2> b32f8Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {32, 0}};
// Their scaled forms (v_mfma_scale_*): E2M1 and FP6 elements sit as fp8's do; a lane
// holds one E8M0 scale, of the block of 32 k it holds (opsel picks the
// byte): 16x16x128 lane = i + 16 * block, 32x32x64 lane = i + 32 * block.
constexpr std::array<int, 2> a16ScaleLanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 1}, {0, 2}};
constexpr std::array<int, 2> b16ScaleLanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}, {2, 0}};
constexpr std::array<int, 2> a32ScaleLanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 1}};
constexpr std::array<int, 2> b32ScaleLanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {1, 0}};
constexpr ScaledForm scaled16{{}, {}, {{}, a16ScaleLanes}, {{}, b16ScaleLanes}, {}, {}, /*fp6=*/true};
constexpr ScaledForm scaled32{{}, {}, {{}, a32ScaleLanes}, {{}, b32ScaleLanes}, {}, {}, /*fp6=*/true};

// int8 (16 x i8 per lane; kWidth 16 an inference, test/unit/isa):
// 16x16x64: A[i][k] lane = i + 16*(k/16), slot = k%16; 32x32x32: lane =
// i + 32*(k/16); B likewise with j; D as the bf16 forms.
constexpr std::array<int, 2> a16i8Regs[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}};
constexpr std::array<int, 2> a16i8Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 16}, {0, 32}};
constexpr std::array<int, 2> b16i8Regs[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}};
constexpr std::array<int, 2> b16i8Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {16, 0}, {32, 0}};
constexpr std::array<int, 2> a32i8Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 16}};
constexpr std::array<int, 2> b32i8Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {16, 0}};
// f32 (one element per lane): 16x16x4: A[i][k] lane = i + 16*k; 32x32x2:
// lane = i + 32*k; B likewise with j.
constexpr std::array<int, 2> a16f32Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 1}, {0, 2}};
constexpr std::array<int, 2> b16f32Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}, {2, 0}};
constexpr std::array<int, 2> a32f32Lanes[] = {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 1}};
constexpr std::array<int, 2> b32f32Lanes[] = {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {1, 0}};

constexpr OperandBases a16{a16Regs, a16Lanes}, b16{b16Regs, b16Lanes}, d16{d16Regs, d16Lanes};
constexpr OperandBases a16i8{a16i8Regs, a16i8Lanes}, b16i8{b16i8Regs, b16i8Lanes};
constexpr OperandBases a32i8{a16i8Regs, a32i8Lanes}, b32i8{b16i8Regs, b32i8Lanes};
constexpr OperandBases a16f32{{}, a16f32Lanes}, b16f32{{}, b16f32Lanes};
constexpr OperandBases a32f32{{}, a32f32Lanes}, b32f32{{}, b32f32Lanes};
constexpr OperandBases a32{a32Regs, a32Lanes}, b32{b32Regs, b32Lanes}, d32{d32Regs, d32Lanes};
constexpr OperandBases a16f8{a16f8Regs, a16f8Lanes}, b16f8{b16f8Regs, b16f8Lanes};
constexpr OperandBases a32f8{a16f8Regs, a32f8Lanes}, b32f8{b16f8Regs, b32f8Lanes};

const MatrixCoreInstr matrixInstrs[] = {
    {"mfma_f32_16x16x32_bf16", "mfma", 16, 16, 32, MatrixElem::BF16, MatrixElem::F32, a16, b16, d16},
    {"mfma_f32_16x16x32_f16", "mfma", 16, 16, 32, MatrixElem::F16, MatrixElem::F32, a16, b16, d16},
    {"mfma_f32_32x32x16_bf16", "mfma", 32, 32, 16, MatrixElem::BF16, MatrixElem::F32, a32, b32, d32},
    {"mfma_f32_32x32x16_f16", "mfma", 32, 32, 16, MatrixElem::F16, MatrixElem::F32, a32, b32, d32},
    {"mfma_f32_16x16x128_f8f6f4", "mfma", 16, 16, 128, MatrixElem::FP8, MatrixElem::F32, a16f8, b16f8, d16,
     &scaled16},
    {"mfma_f32_32x32x64_f8f6f4", "mfma", 32, 32, 64, MatrixElem::FP8, MatrixElem::F32, a32f8, b32f8, d32,
     &scaled32},
    {"mfma_i32_16x16x64_i8", "mfma", 16, 16, 64, MatrixElem::I8, MatrixElem::I32, a16i8, b16i8, d16},
    {"mfma_i32_32x32x32_i8", "mfma", 32, 32, 32, MatrixElem::I8, MatrixElem::I32, a32i8, b32i8, d32},
    {"mfma_f32_16x16x4_f32", "mfma", 16, 16, 4, MatrixElem::F32, MatrixElem::F32, a16f32, b16f32, d16},
    {"mfma_f32_32x32x2_f32", "mfma", 32, 32, 2, MatrixElem::F32, MatrixElem::F32, a32f32, b32f32, d32},
};

// ds_read_b64_tr_b16 (16 lanes of 4 bf16/f16) and ds_read_b64_tr_b8 (16 lanes
// of 8 bytes): CDNA4 ISA 11.4, MLIR's amdgpu.transpose_load.
const LdsTransposeRead transposeReads[] = {{2, 4, 16}, {1, 8, 16}};
} // namespace

extern const Target gfx950Target = {
    /*chip=*/"gfx950", /*product=*/"MI355X", /*waveSize=*/64,
    /*ldsBytes=*/160 * 1024, /*maxWorkgroupSize=*/1024,
    /*hasPermlane16Swap=*/true,
    /*hasPermlane32Swap=*/true,
    /*hasPermlaneX16=*/false,
    /*hasDppRowXmask=*/false,
    // 64 banks, twice CDNA3's [LLVM's AMDGPU.td, "gfx950 doubled the bank count
    // to 64" (llvm-project #220632); ROCm's HIP hardware documentation]
    /*ldsBanks=*/64, /*hasTensorDataMover=*/false, /*asyncLoads=*/AsyncLoads::DirectToLds,
    /*scaledUpcast=*/ScaledUpcast::PerByte,
    // 512 per SIMD and lane, of which a wave addresses 256 as VGPRs and the
    // rest as AGPRs (shared/isa/README.md)
    /*vgprsPerSimd=*/512, /*maxWaveVgprs=*/256,
    // A wave's scratch: a 13-bit COMPUTE_TMPRING_SIZE.WAVESIZE in units of
    // 256 dwords (LLVM's GCNSubtarget::getMaxWaveScratchSize), over 64 lanes
    /*scratchBytesPerLane=*/131056,
    // ROCm's GPU hardware specifications table (256 CUs); CDNA's CU of 4
    // SIMDs, each with 8 wave slots, registers allocated in granules of 8
    /*computeUnits=*/256, /*simdsPerCu=*/4, /*wavesPerSimd=*/8, /*vgprGranule=*/8,
    matrixInstrs, transposeReads};
} // namespace rocktile
