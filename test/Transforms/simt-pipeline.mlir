// RUN: rocktile-opt %s --pass-pipeline="builtin.module(rocktile-simt-pipeline{target=gfx950})" | FileCheck %s

// The SIMT pipeline's canonicalizer leaves loop-carried values that are
// always equal (%a and %b) to LLVM, which merges equal phis: MLIR's pattern
// that merges them costs time growing with the values a loop carries, and
// lowered loops carry one per register of each tile (Pipeline.cpp). Were it
// on, the loop would carry one value.
// CHECK-LABEL: gpu.func @equal_values
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[C0:.*]], %{{.*}} = %[[C0]]) -> (i32, i32)
// CHECK: scf.yield %[[X:.*]], %[[X]] : i32, i32
func.func @equal_values(%out: !tile.ptr<i32>, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %c0) -> (i32, i32) : i32 {
    %x = arith.addi %a, %c1 : i32
    scf.yield %x, %x : i32, i32
  }
  %s = arith.addi %r#0, %r#1 : i32
  tile.store %out, %s : !tile.ptr<i32>, i32
  return
}
