// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" -verify-diagnostics

func.func @reduce_twice(%f: f32) {
  %x = tile.splat %f : f32 -> tensor<16x16xf32>
  %s = tile.reduce(%x) axis = 1 : (tensor<16x16xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }
  // expected-error @+1 {{reducing a tile that is itself a reduction result is not supported yet}}
  %t = tile.reduce(%s) axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %u = arith.addf %a, %b : f32
    tile.reduce.return %u : f32
  }
  return
}

// -----

func.func @conflict(%p: !tile.ptr<f32>, %f: f32) {
  %x = tile.splat %f : f32 -> tensor<16x16xf32>
  %s = tile.reduce(%x) axis = 1 : (tensor<16x16xf32>) -> tensor<16xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }
  %r = tile.make_range {start = 0 : i32, end = 16 : i32} : tensor<16xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %v = tile.load %q : tensor<16x!tile.ptr<f32>> -> tensor<16xf32>
  // expected-error @+1 {{operands have different layouts}}
  %w = arith.addf %s, %v : tensor<16xf32>
  return
}

// -----

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
