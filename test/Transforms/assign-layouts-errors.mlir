// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" -verify-diagnostics

// expected-error @+1 {{kernels with unstructured control flow (cf branches) are not supported; use scf ops}}
func.func @branches(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  return
^b:
  return
}

// -----

// expected-error @+1 {{kernel arguments must be scalars or pointers, got 'tensor<4xf32>'}}
func.func @tensor_arg(%x: tensor<4xf32>) {
  return
}

// -----

// No matrix instruction multiplies int16 tiles.
func.func @dot_types(%x: i16) {
  %a = tile.splat %x : i16 -> tensor<16x16xi16>
  %c = arith.constant dense<0> : tensor<16x16xi32>
  // expected-error @+1 {{no matrix instruction of gfx950 computes a 16x16 'i16' by 16x16 'i16' product into 'i32'}}
  %d = tile.dot %a, %a, %c : tensor<16x16xi16>, tensor<16x16xi16> -> tensor<16x16xi32>
  return
}
