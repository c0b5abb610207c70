; Reduced (llvm-reduce) from the LLVM IR rocktile builds for a kernel with tl.reshape round trips.
; 'llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx1250 -O3 llc_dag_combine_hang.ll' never returns with LLVM 22
; (also -mcpu=gfx950, gfx942, and -O0): an endless SelectionDAG::Combine loop.
; emitCode now scalarizes one-element vectors first, which avoids it:
; 'opt -passes="function(scalarizer<min-bits=64>)"' before llc.
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @r2(ptr addrspace(1) %0, i32 %1, i1 %2) {
  %4 = insertelement <1 x i32> zeroinitializer, i32 %1, i64 0
  %5 = shufflevector <1 x i32> %4, <1 x i32> zeroinitializer, <4 x i32> <i32 0, i32 poison, i32 poison, i32 poison>
  %.inner = or <4 x i32> %5, splat (i32 1)
  br i1 %2, label %.critedge, label %.critedge4

.critedge:                                        ; preds = %3
  store <4 x float> zeroinitializer, ptr addrspace(1) null, align 16
  br label %.critedge4

.critedge4:                                       ; preds = %.critedge, %3
  %narrow7 = or <1 x i32> %4, splat (i32 1)
  %6 = zext <1 x i32> %narrow7 to <1 x i64>
  %7 = shufflevector <1 x i64> %6, <1 x i64> zeroinitializer, <4 x i32> <i32 0, i32 poison, i32 poison, i32 poison>
  %8 = extractelement <4 x i64> %7, i64 0
  %9 = getelementptr float, ptr addrspace(1) %0, i64 %8
  store <4 x float> zeroinitializer, ptr addrspace(1) %9, align 16
  ret void
}
