; Reduced (llvm-reduce) from the LLVM IR rocktile built for fuzz kernel seed 5322
; before emitCode scalarized one-element vectors.
; 'llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx950 -O3 llc_dag_combine_hang_gfx950.ll' never
; returns with LLVM 22: an endless SelectionDAG::Combine loop on <1 x i16> / <1 x i8> values.
; 'opt -passes="function(scalarizer<min-bits=64>)"' first makes it compile.

define amdgpu_kernel void @fuzz_5322(i32 %0) #0 {
  %2 = load i16, ptr addrspace(1) null, align 2
  %3 = insertelement <1 x i16> zeroinitializer, i16 %2, i32 0
  %4 = trunc i16 %2 to i8
  %5 = insertelement <1 x i8> zeroinitializer, i8 %4, i32 0
  %6 = xor <1 x i8> %5, zeroinitializer
  %7 = sext <1 x i8> %6 to <1 x i16>
  %8 = mul <1 x i16> %3, %7
  %9 = icmp sge i32 %0, 0
  br i1 %9, label %10, label %16

10:                                               ; preds = %1
  %11 = and <1 x i8> %5, splat (i8 7)
  %12 = add <1 x i8> %11, zeroinitializer
  %13 = sext <1 x i8> %12 to <1 x i16>
  %14 = srem <1 x i16> %8, %13
  %15 = xor <1 x i16> %14, splat (i16 -1)
  br label %22

16:                                               ; preds = %1
  %17 = and <1 x i16> %8, splat (i16 7)
  %18 = insertelement <1 x i32> zeroinitializer, i32 %0, i32 0
  %19 = sext <1 x i16> %17 to <1 x i32>
  %20 = ashr <1 x i32> %18, %19
  %21 = trunc <1 x i32> %20 to <1 x i16>
  br label %22

22:                                               ; preds = %16, %10
  %23 = phi <1 x i16> [ %21, %16 ], [ zeroinitializer, %10 ]
  %24 = extractelement <1 x i16> %23, i64 0
  %25 = zext i16 %24 to i32
  %26 = call i32 @llvm.amdgcn.update.dpp.i32(i32 %25, i32 0, i32 0, i32 0, i32 0, i1 false)
  %27 = call i16 @llvm.smin.i16(i16 %24, i16 0)
  %28 = zext i16 %27 to i32
  ret void
}

declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg)
declare i16 @llvm.smin.i16(i16, i16)

attributes #0 = { "amdgpu-flat-work-group-size"="1,256" "uniform-work-group-size"="true" }
