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

// -----

// A 512x512 fp32 accumulator over 4 warps of 64 lanes: 1024 registers a
// lane, where gfx950 gives 512.
func.func @accumulator_too_large(%a: tensor<512x32xf16>, %b: tensor<32x512xf16>, %c: tensor<512x512xf32>) {
  // expected-error @+1 {{this dot's accumulator (262144 elements) needs 1024 registers in each of the 256 lanes of 4 warps; gfx950 gives each lane 512: use smaller blocks or more warps}}
  %d = tile.dot %a, %b, %c : tensor<512x32xf16>, tensor<32x512xf16> -> tensor<512x512xf32>
  return
}
