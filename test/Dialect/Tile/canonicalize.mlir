// RUN: rocktile-opt %s -split-input-file --canonicalize | FileCheck %s

// A reshape back to the source's shape is the source: a [1, 1, 32, 64]
// descriptor block read as the 32x64 tile it was copied as.
// CHECK-LABEL: func.func @reshape_back
// CHECK-NOT: tile.reshape
// CHECK: return %arg0
func.func @reshape_back(%x: tensor<32x64xbf16>) -> tensor<32x64xbf16> {
  %r = tile.reshape %x : tensor<32x64xbf16> -> tensor<1x1x32x64xbf16>
  %s = tile.reshape %r : tensor<1x1x32x64xbf16> -> tensor<32x64xbf16>
  return %s : tensor<32x64xbf16>
}

// -----

// A reshape of a reshape is one reshape of the first source.
// CHECK-LABEL: func.func @reshape_twice
// CHECK-NEXT: %[[R:.*]] = tile.reshape %arg0 : tensor<32x64xbf16> -> tensor<2048xbf16>
// CHECK-NEXT: return %[[R]]
func.func @reshape_twice(%x: tensor<32x64xbf16>) -> tensor<2048xbf16> {
  %r = tile.reshape %x : tensor<32x64xbf16> -> tensor<1x32x64xbf16>
  %s = tile.reshape %r : tensor<1x32x64xbf16> -> tensor<2048xbf16>
  return %s : tensor<2048xbf16>
}

// -----

// acc + dot(a, b, 0) is dot(a, b, acc) (Triton's `acc += tl.dot(a, b)`), for
// floats and integers, with the add's operands either way round.
// CHECK-LABEL: func.func @fold_add_into_dot
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xbf16>, %[[B:.*]]: tensor<16x16xbf16>, %[[ACC:.*]]: tensor<16x16xf32>,
// CHECK-SAME: %[[X:.*]]: tensor<16x16xi8>, %[[Y:.*]]: tensor<16x16xi8>, %[[IACC:.*]]: tensor<16x16xi32>)
// CHECK-NOT: arith.add
// CHECK: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[ACC]]
// CHECK: %[[E:.*]] = tile.dot %[[X]], %[[Y]], %[[IACC]]
// CHECK-NOT: arith.add
// CHECK: return %[[D]], %[[E]]
func.func @fold_add_into_dot(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %acc: tensor<16x16xf32>,
                             %x: tensor<16x16xi8>, %y: tensor<16x16xi8>, %iacc: tensor<16x16xi32>)
    -> (tensor<16x16xf32>, tensor<16x16xi32>) {
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %d = tile.dot %a, %b, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  %izero = arith.constant dense<0> : tensor<16x16xi32>
  %e = tile.dot %x, %y, %izero : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xi32>
  %t = arith.addi %e, %iacc : tensor<16x16xi32>
  return %s, %t : tensor<16x16xf32>, tensor<16x16xi32>
}

// -----

// No fold: a dot with another accumulator, a dot used twice, and an add of
// another type (the product widened to i64 first).
// CHECK-LABEL: func.func @no_fold
// CHECK-COUNT-3: arith.add
func.func @no_fold(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %acc: tensor<16x16xf32>,
                   %x: tensor<16x16xi8>, %y: tensor<16x16xi8>, %wide: tensor<16x16xi64>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi64>) {
  %d = tile.dot %a, %b, %acc : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %s = arith.addf %acc, %d : tensor<16x16xf32>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<16x16xf32>
  %twice = tile.dot %a, %b, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %u = arith.addf %twice, %twice : tensor<16x16xf32>
  %izero = arith.constant dense<0> : tensor<16x16xi32>
  %e = tile.dot %x, %y, %izero : tensor<16x16xi8>, tensor<16x16xi8> -> tensor<16x16xi32>
  %w = arith.extsi %e : tensor<16x16xi32> to tensor<16x16xi64>
  %v = arith.addi %wide, %w : tensor<16x16xi64>
  return %s, %u, %v : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi64>
}

// -----

// A volatile load is never dead: a spin-wait reads memory for its effect on
// control flow, and other programs' writes are what it waits for. A plain
// load whose value is unused is erased.
// CHECK-LABEL: func.func @volatile_load_stays
// CHECK-NEXT: tile.load %arg0 {isVolatile}
// CHECK-NEXT: return
func.func @volatile_load_stays(%p: !tile.ptr<i32>) {
  %a = tile.load %p {isVolatile} : !tile.ptr<i32> -> i32
  %b = tile.load %p : !tile.ptr<i32> -> i32
  return
}
