// RUN: rocktile-opt %s -split-input-file --tile-fuse-multiply-add | FileCheck %s

// Each sum of a product becomes an fma, the product's operands taken as they
// are: a * b + c, c + a * b, a * b - c (c negated), c - a * b (a negated).
// CHECK-LABEL: func.func @sums_of_products
// CHECK-SAME: (%[[A:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>, %[[C:.*]]: tensor<64xf32>)
// CHECK-NOT: arith.mulf
// CHECK: %[[S1:.*]] = math.fma %[[A]], %[[B]], %[[C]] : tensor<64xf32>
// CHECK: %[[S2:.*]] = math.fma %[[A]], %[[B]], %[[C]] : tensor<64xf32>
// CHECK: %[[NC:.*]] = arith.negf %[[C]]
// CHECK: %[[S3:.*]] = math.fma %[[A]], %[[B]], %[[NC]] : tensor<64xf32>
// CHECK: %[[NA:.*]] = arith.negf %[[A]]
// CHECK: %[[S4:.*]] = math.fma %[[NA]], %[[B]], %[[C]] : tensor<64xf32>
// CHECK-NOT: arith.addf
// CHECK-NOT: arith.subf
func.func @sums_of_products(%a: tensor<64xf32>, %b: tensor<64xf32>, %c: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %p = arith.mulf %a, %b : tensor<64xf32>
  %s1 = arith.addf %p, %c : tensor<64xf32>
  %s2 = arith.addf %c, %p : tensor<64xf32>
  %s3 = arith.subf %p, %c : tensor<64xf32>
  %s4 = arith.subf %c, %p : tensor<64xf32>
  return %s1, %s2, %s3, %s4 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Left alone: a product also used elsewhere stays beside its fma; a product
// from another block (a loop's body is another block); f16 (the emulator
// would round an f16 fma twice); and every sum of a function compiled with
// enable_fp_fusion=False (tile.fp_fusion = 0).
// CHECK-LABEL: func.func @kept
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: math.fma
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: arith.mulf {{.*}} : f16
// CHECK: arith.addf {{.*}} : f16
func.func @kept(%a: f32, %b: f32, %h: f16, %n: index) -> (f32, f32, f32, f16) {
  %p = arith.mulf %a, %b : f32
  %s = arith.addf %p, %a : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) {
    %t = arith.addf %acc, %p : f32
    scf.yield %t : f32
  }
  %hp = arith.mulf %h, %h : f16
  %hs = arith.addf %hp, %h : f16
  return %p, %s, %l, %hs : f32, f32, f32, f16
}

// CHECK-LABEL: func.func @not_fused
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @not_fused(%a: f32, %b: f32) -> f32 attributes {tile.fp_fusion = 0 : i32} {
  %p = arith.mulf %a, %b : f32
  %s = arith.addf %p, %a : f32
  return %s : f32
}
