# RUN: %python %s gfx950 | FileCheck %s --check-prefix=GFX950
# RUN: %python %s gfx1250 | FileCheck %s --check-prefix=GFX1250
# A split-K epilogue's fp32 atomic add of a 64x64 tile, with Triton's
# defaults (acq_rel, gpu): the chips' native float atomic add for each
# element, ordered once for the whole tile by one release before them and
# one acquire after, at the device scope (gfx950: buffer_wbl2 sc1 /
# buffer_inv sc1; gfx1250: global_wb / global_inv scope:SCOPE_DEV). Then
# the same at sem="relaxed": no fence at all.
import sys

import rocktile
import rocktile.language as tl


@rocktile.jit
def add_partials(c_ptr, acc_ptr, stride, SEM: tl.constexpr):
    rows, cols = tl.arange(0, 64), tl.arange(0, 64)
    offs = rows[:, None] * stride + cols[None, :]
    tl.atomic_add(c_ptr + offs, tl.load(acc_ptr + offs), sem=SEM)


for sem in ("acq_rel", "relaxed"):
    kernel = rocktile.compile(add_partials, {"c_ptr": "*fp32:16", "acc_ptr": "*fp32:16", "stride": "i32:16"},
                              {"SEM": sem}, target=sys.argv[1])
    print(f"sem={sem}")
    print(kernel.asm["amdgcn"][:kernel.asm["amdgcn"].find(".Lfunc_end")])

# GFX950-LABEL: sem=acq_rel
# GFX950: buffer_wbl2 sc1
# GFX950-NOT: buffer_wbl2
# GFX950-NOT: buffer_inv
# GFX950-NOT: global_atomic_cmpswap
# GFX950-COUNT-16: global_atomic_add_f32
# GFX950-NOT: buffer_wbl2
# GFX950: buffer_inv sc1
# GFX950-NOT: buffer_wbl2
# GFX950-NOT: buffer_inv
# GFX950-LABEL: sem=relaxed
# GFX950-NOT: buffer_wbl2
# GFX950-NOT: buffer_inv
# GFX950: global_atomic_add_f32
# GFX950-NOT: buffer_wbl2
# GFX950-NOT: buffer_inv

# GFX1250-LABEL: sem=acq_rel
# GFX1250: global_wb scope:SCOPE_DEV
# GFX1250-NOT: global_wb
# GFX1250-NOT: global_inv
# GFX1250-NOT: SCOPE_SYS
# GFX1250-COUNT-32: global_atomic_add_f32
# GFX1250-NOT: global_wb
# GFX1250: global_inv scope:SCOPE_DEV
# GFX1250-NOT: global_wb
# GFX1250-NOT: global_inv
# GFX1250-LABEL: sem=relaxed
# GFX1250-NOT: global_wb
# GFX1250-NOT: global_inv
# GFX1250: global_atomic_add_f32
# GFX1250-NOT: global_wb
# GFX1250-NOT: global_inv
