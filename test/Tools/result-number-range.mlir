// A forward reference to a huge result number is refused before parsing
// (the MLIR parser would try to allocate every result up to it).
// RUN: not rocktile-opt %s 2>&1 | FileCheck %s
// RUN: not rocktile-opt < %s 2>&1 | FileCheck %s

// CHECK: :[[@LINE+2]]:19: error: result number 2147483648 is out of range (at most 65535)
func.func @huge() {
  "tile.print"(%x#2147483648) {prefix = ""} : (tensor<4xi32>) -> ()
  %x = tile.make_range {start = 0 : i32, end = 4 : i32} : tensor<4xi32>
  return
}
