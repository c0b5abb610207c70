# RUN: %python %s gfx950 | FileCheck %s --check-prefix=GFX950
# RUN: %python %s gfx1250 | FileCheck %s --check-prefix=GFX1250
# vector_add with 16-byte aligned pointers and n divisible by 16 moves 128
# bits per lane per access on both targets, and uses no LDS or scratch. Its
# masked accesses (x + block_start + arange) go through buffer resources
# based at x + block_start, where masked-off lanes read zeros and write
# nothing: no branches.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from vector_add import compile_add  # noqa: E402

kernel = compile_add(sys.argv[1])
print(kernel.asm["amdgcn"])
print(kernel.metadata)

# GFX950-LABEL: add_kernel:
# GFX950-NOT: s_cbranch
# GFX950-COUNT-2: buffer_load_dwordx4
# GFX950: buffer_store_dwordx4
# GFX950-NOT: {{global|buffer}}_load_dword {{v[0-9]+}},
# GFX950-NOT: s_cbranch
# GFX950: .amdhsa_group_segment_fixed_size 0
# GFX950: .amdhsa_private_segment_fixed_size 0
# GFX950: 'wave_size': 64

# GFX1250-LABEL: add_kernel:
# GFX1250-NOT: s_cbranch
# GFX1250-COUNT-4: buffer_load_b128
# GFX1250-COUNT-2: buffer_store_b128
# GFX1250-NOT: {{global|buffer}}_load_b32
# GFX1250-NOT: s_cbranch
# GFX1250: .amdhsa_group_segment_fixed_size 0
# GFX1250: .amdhsa_private_segment_fixed_size 0
# GFX1250: 'wave_size': 32
