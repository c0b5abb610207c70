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
