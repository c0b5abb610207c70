// Malformed input gets a diagnostic and a non-zero exit, never a crash.
// RUN: not rocktile-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: not rocktile-opt %s -split-input-file --rocktile-tile-pipeline --rocktile-simt-pipeline 2>&1 | FileCheck %s

// CHECK: error: custom op 'tile.not_an_op' is unknown
func.func @unknown() {
  %x = tile.not_an_op
  return
}

// -----

// CHECK: error: expected ':'
func.func @syntax(%p: !tile.ptr<f32>) {
  %x = tile.load %p !tile.ptr<f32>
  return
}

// -----

// CHECK: error: use of undeclared SSA value name
func.func @undefined() {
  %t = tile.splat %nowhere : f32 -> tensor<4xf32>
  return
}

// -----

// CHECK: error: 'tile.load' op operand #0 must be Pointer into global memory or ranked tensor of Pointer into global memory values, but got 'f32'
func.func @not_a_pointer(%p: f32) {
  %x = tile.load %p : f32 -> f32
  return
}
