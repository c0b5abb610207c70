# RUN: %python %s gfx950 bf16 | FileCheck %s --check-prefix=GFX950
# RUN: %python %s gfx950 fp16 | FileCheck %s --check-prefix=GFX950-F16
# RUN: %python %s gfx1250 bf16 | FileCheck %s --check-prefix=GFX1250
# RUN: %python %s gfx1250 fp16 | FileCheck %s --check-prefix=GFX1250-F16
# The tutorial GEMM at 128x128x64 with 4 warps: each warp's 64x64 share of
# the tile is 4x4 instruction tiles, two steps along K each, so the K loop
# holds 32 matrix instructions (16x16x32), and no VGPR spills or scratch.
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import rocktile  # noqa: E402
from matmul import matmul_kernel  # noqa: E402

target, dtype = sys.argv[1], sys.argv[2]
signature = {"a_ptr": f"*{dtype}:16", "b_ptr": f"*{dtype}:16", "c_ptr": "*fp32:16", "bias_ptr": "*fp32:16",
             "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32:16", "stride_ak": "i32",
             "stride_bk": "i32:16", "stride_bn": "i32", "stride_cm": "i32:16", "stride_cn": "i32"}
kernel = rocktile.compile(matmul_kernel, signature=signature, target=target, num_warps=4,
                          constexprs=dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8,
                                          HAS_BIAS=False, ACTIVATION=""))
asm = kernel.asm["amdgcn"]
# The K loop: from the label its back edge jumps to, up to that branch.
loop = next(body for label, body in re.findall(r"^(\.LBB\d+_\d+):(.*?)s_cbranch_\w+ \1\b", asm, re.S | re.M)
            if "v_mfma" in body or "v_wmma" in body)
print("\n".join(sorted(set(re.findall(r"v_(?:mfma|wmma)\w+", loop)))))
print(f"in the K loop: {len(re.findall(r'v_(?:mfma|wmma)', loop))} matrix instructions")
md = kernel.metadata
# (SGPR spills, into VGPR lanes, are not yet 0: the masked loads branch per chunk.)
print(f"vgpr_spills={md['vgpr_spill_count']} scratch={md['scratch_bytes']}")

# GFX950: v_mfma_f32_16x16x32_bf16
# GFX950-NEXT: in the K loop: 32 matrix instructions
# GFX950-NEXT: vgpr_spills=0 scratch=0
# GFX950-F16: v_mfma_f32_16x16x32_f16
# GFX950-F16-NEXT: in the K loop: 32 matrix instructions
# GFX950-F16-NEXT: vgpr_spills=0 scratch=0
# GFX1250: v_wmma_f32_16x16x32_bf16
# GFX1250-NEXT: in the K loop: 32 matrix instructions
# GFX1250-NEXT: vgpr_spills=0 scratch=0
# GFX1250-F16: v_wmma_f32_16x16x32_f16
# GFX1250-F16-NEXT: in the K loop: 32 matrix instructions
# GFX1250-F16-NEXT: vgpr_spills=0 scratch=0
