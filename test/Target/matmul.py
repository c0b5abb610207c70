# RUN: %python %s gfx950 bf16 | FileCheck %s --check-prefix=GFX950
# RUN: %python %s gfx950 fp16 | FileCheck %s --check-prefix=GFX950-F16
# RUN: %python %s gfx950 fp8e4nv | FileCheck %s --check-prefix=GFX950-FP8
# RUN: %python %s gfx950 i8 | FileCheck %s --check-prefix=GFX950-I8
# RUN: %python %s gfx950 fp32 | FileCheck %s --check-prefix=GFX950-F32
# RUN: %python %s gfx1250 bf16 | FileCheck %s --check-prefix=GFX1250
# RUN: %python %s gfx1250 fp16 | FileCheck %s --check-prefix=GFX1250-F16
# RUN: %python %s gfx1250 fp8e4nv | FileCheck %s --check-prefix=GFX1250-FP8
# RUN: %python %s gfx1250 i8 | FileCheck %s --check-prefix=GFX1250-I8
# RUN: %python %s gfx1250 fp32 | FileCheck %s --check-prefix=GFX1250-F32
# GEMMs at 128x128x64 with 4 warps (the tutorial kernel; examples/int8_matmul.py
# for int8), specialized as a launch on matrices under 2 GiB would be. Each
# warp's 64x64 share of the tile is 4x4 16x16 instruction tiles, two steps of
# k = 32 along K for 16-bit inputs, one of k = 64 for fp8 on gfx1250 and int8;
# gfx950's fp8 uses 32x32x64 (2x2 tiles, K = 64 is below 16x16x128's k), fp32
# 16 steps of 16x16x4 (256 instructions). The
# masked loads are buffer loads: no branch in the K loop, no spills. At the
# default 2 stages gfx950 copies the next tiles straight into LDS (no LDS
# writes in the loop); gfx1250 carries them in registers.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import rocktile  # noqa: E402
from int8_matmul import int8_matmul_kernel  # noqa: E402
from matmul import matmul_kernel  # noqa: E402

target, dtype = sys.argv[1], sys.argv[2]
ab = f"*{dtype}:16:range32"
if dtype == "i8":
    fn, out = int8_matmul_kernel, "*i32:16:range32"
    constexprs = dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, DEQUANTIZE=False)
    signature = {"a_scale_ptr": "*fp32:16:range32", "b_scale_ptr": "*fp32:16:range32"}
else:
    fn, out = matmul_kernel, "*fp32:16:range32"
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, HAS_BIAS=False,
                      ACTIVATION="")
    signature = {"bias_ptr": "*fp32:16:range32"}
signature.update({"a_ptr": ab, "b_ptr": ab, "c_ptr": out, "M": "i32:16", "N": "i32:16", "K": "i32:16",
                  "stride_am": "i32:16", "stride_bk": "i32:16", "stride_cm": "i32:16"})
constexprs.update(stride_ak=1, stride_bn=1, stride_cn=1)
kernel = rocktile.compile(fn, signature=signature, target=target, num_warps=4, constexprs=constexprs)
asm = kernel.asm["amdgcn"]
# The K loop: from the label its back edge jumps to, up to that branch.
loop = next(body for label, body in re.findall(r"^(\.LBB\d+_\d+):(.*?)s_cbranch_\w+ \1\b", asm, re.S | re.M)
            if "v_mfma" in body or "v_wmma" in body)
print("\n".join(sorted(set(re.findall(r"v_(?:mfma|wmma)\w+", loop)))))
print(f"in the K loop: {len(re.findall(r'v_(?:mfma|wmma)', loop))} matrix instructions, "
      f"{len(re.findall(r'buffer_load', loop))} buffer loads ({len(re.findall(r'buffer_load.* lds$', loop, re.M))} "
      f"into LDS), {len(re.findall(r's_cbranch_execz', loop))} branches")
# Each load's offset is selected (2^31 bytes where masked off) from byte
# offsets the loop carries: nothing scales it in the loop.
print(f"offsets: {len(re.findall(r'v_cndmask', loop))} selects, {len(re.findall(r'v_lshl', loop))} shifts")
# Row-major B is N-contiguous: its 16- and 8-bit operands come from LDS
# through transpose reads (gfx950's ds_read_b64_tr_*, gfx1250's
# ds_load_tr16_b128 and ds_load_tr8_b64), written there as whole 128-bit rows.
reads = re.findall(r"\b(ds_(?:read|load)\w*)", loop)
print(f"LDS: {sum('_tr' in r for r in reads)} transpose reads, {sum('_tr' not in r for r in reads)} other reads, "
      f"{len(re.findall(r'ds_(?:write|store)', loop))} writes")
md = kernel.metadata
print(f"vgpr_spills={md['vgpr_spill_count']} sgpr_spills={md['sgpr_spill_count']} scratch={md['scratch_bytes']}")

# GFX950: v_mfma_f32_16x16x32_bf16
# GFX950-NEXT: in the K loop: 32 matrix instructions, 8 buffer loads (8 into LDS), 0 branches
# GFX950-NEXT: offsets: 8 selects, 0 shifts
# GFX950-NEXT: LDS: 16 transpose reads, 8 other reads, 0 writes
# GFX950-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX950-F16: v_mfma_f32_16x16x32_f16
# GFX950-F16-NEXT: in the K loop: 32 matrix instructions, 8 buffer loads (8 into LDS), 0 branches
# GFX950-F16-NEXT: offsets: 8 selects, 0 shifts
# GFX950-F16-NEXT: LDS: 16 transpose reads, 8 other reads, 0 writes
# GFX950-F16-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX950-FP8: v_mfma_f32_32x32x64_f8f6f4
# GFX950-FP8-NEXT: in the K loop: 4 matrix instructions, 4 buffer loads (4 into LDS), 0 branches
# GFX950-FP8-NEXT: offsets: 4 selects, 0 shifts
# GFX950-FP8-NEXT: LDS: 8 transpose reads, 4 other reads, 0 writes
# GFX950-FP8-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX950-I8: v_mfma_i32_16x16x64_i8
# GFX950-I8-NEXT: in the K loop: 16 matrix instructions, 4 buffer loads (4 into LDS), 0 branches
# GFX950-I8-NEXT: offsets: 4 selects, 0 shifts
# GFX950-I8-NEXT: LDS: 8 transpose reads, 4 other reads, 0 writes
# GFX950-I8-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX950-F32: v_mfma_f32_16x16x4_f32
# GFX950-F32-NEXT: in the K loop: 256 matrix instructions, 16 buffer loads (0 into LDS), 0 branches
# GFX950-F32-NEXT: offsets: 16 selects, 0 shifts
# GFX950-F32-NEXT: LDS: 0 transpose reads, 110 other reads, 16 writes
# GFX950-F32-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX1250: v_wmma_f32_16x16x32_bf16
# GFX1250-NEXT: in the K loop: 32 matrix instructions, 16 buffer loads (0 into LDS), 0 branches
# GFX1250-NEXT: offsets: 16 selects, 0 shifts
# GFX1250-NEXT: LDS: 16 transpose reads, 16 other reads, 16 writes
# GFX1250-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX1250-F16: v_wmma_f32_16x16x32_f16
# GFX1250-F16-NEXT: in the K loop: 32 matrix instructions, 16 buffer loads (0 into LDS), 0 branches
# GFX1250-F16-NEXT: offsets: 16 selects, 0 shifts
# GFX1250-F16-NEXT: LDS: 16 transpose reads, 16 other reads, 16 writes
# GFX1250-F16-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX1250-FP8: v_wmma_f32_16x16x64_fp8_fp8
# GFX1250-FP8-NEXT: in the K loop: 16 matrix instructions, 8 buffer loads (0 into LDS), 0 branches
# GFX1250-FP8-NEXT: offsets: 8 selects, 0 shifts
# GFX1250-FP8-NEXT: LDS: 16 transpose reads, 14 other reads, 8 writes
# GFX1250-FP8-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX1250-I8: v_wmma_i32_16x16x64_iu8
# GFX1250-I8-NEXT: in the K loop: 16 matrix instructions, 8 buffer loads (0 into LDS), 0 branches
# GFX1250-I8-NEXT: offsets: 8 selects, 0 shifts
# GFX1250-I8-NEXT: LDS: 16 transpose reads, 14 other reads, 8 writes
# GFX1250-I8-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
# GFX1250-F32: v_wmma_f32_16x16x4_f32
# GFX1250-F32-NEXT: in the K loop: 256 matrix instructions, 32 buffer loads (0 into LDS), 0 branches
# GFX1250-F32-NEXT: offsets: 32 selects, 0 shifts
# GFX1250-F32-NEXT: LDS: 0 transpose reads, 124 other reads, 32 writes
# GFX1250-F32-NEXT: vgpr_spills=0 sgpr_spills=0 scratch=0
