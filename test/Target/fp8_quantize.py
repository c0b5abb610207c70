# RUN: %python %s gfx950 | FileCheck %s --check-prefix=GFX950
# RUN: %python %s gfx1250 | FileCheck %s --check-prefix=GFX1250
# fp8 quantization converts with the hardware's packed fp32 -> fp8
# instruction and stores 16 fp8 values per lane in one 128-bit store, after
# 128-bit fp32 loads; nothing spills.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from fp8_quantize import compile_quantize  # noqa: E402

kernel = compile_quantize(sys.argv[1])
print(kernel.asm["amdgcn"])
print(kernel.metadata)

# GFX950-LABEL: quantize_rows:
# GFX950: buffer_load_dwordx4
# GFX950: v_cvt_pk_fp8_f32
# GFX950: buffer_store_dwordx4
# GFX950: .amdhsa_private_segment_fixed_size 0
# GFX950: 'vgpr_spill_count': 0

# GFX1250-LABEL: quantize_rows:
# GFX1250: buffer_load_b128
# GFX1250: v_cvt_pk_fp8_f32
# GFX1250: buffer_store_b128
# GFX1250: .amdhsa_private_segment_fixed_size 0
# GFX1250: 'vgpr_spill_count': 0
