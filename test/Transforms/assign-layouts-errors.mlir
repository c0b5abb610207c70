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

// Tiles made by upstream ops only (no tile op loaded the tile dialect, whose
// layouts the pass makes: it crashed before it declared that dialect).
// expected-error @+1 {{kernel arguments must be scalars or pointers, got 'tensor<64xf32>'}}
func.func @upstream_ops_only(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> {
  %p = arith.mulf %a, %b : tensor<64xf32>
  return %p : tensor<64xf32>
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

// -----

// Past registers and scratch (gfx950: 512 + 32764 per lane), tiles cannot
// spill: an error where the most is live, naming both figures.
func.func @beyond_scratch(%x: !tile.ptr<i64>, %y: !tile.ptr<i64>) {
  %r = tile.make_range {end = 4194304 : i32, start = 0 : i32} : tensor<4194304xi32>
  %p = tile.splat %x : !tile.ptr<i64> -> tensor<4194304x!tile.ptr<i64>>
  %px = tile.addptr %p, %r : tensor<4194304x!tile.ptr<i64>>, tensor<4194304xi32>
  %q = tile.splat %y : !tile.ptr<i64> -> tensor<4194304x!tile.ptr<i64>>
  %py = tile.addptr %q, %r : tensor<4194304x!tile.ptr<i64>>, tensor<4194304xi32>
  %v = tile.load %px : tensor<4194304x!tile.ptr<i64>> -> tensor<4194304xi64>
  // expected-error @+1 {{the tiles live here need 49152 registers in each lane of 4 warps; gfx950 holds 512 in registers and 32764 more in scratch: use smaller blocks or more warps}}
  %w = arith.muli %v, %v : tensor<4194304xi64>
  tile.store %py, %w : tensor<4194304x!tile.ptr<i64>>, tensor<4194304xi64>
  return
}

// -----

// Past twice the register file, tiles spill heavily: a warning (the kernel
// still compiles).
func.func @spills_heavily(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.make_range {end = 262144 : i32, start = 0 : i32} : tensor<262144xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<262144x!tile.ptr<f32>>
  %px = tile.addptr %p, %r : tensor<262144x!tile.ptr<f32>>, tensor<262144xi32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<262144x!tile.ptr<f32>>
  %py = tile.addptr %q, %r : tensor<262144x!tile.ptr<f32>>, tensor<262144xi32>
  %v = tile.load %px : tensor<262144x!tile.ptr<f32>> -> tensor<262144xf32>
  // expected-warning @+1 {{the tiles live here need 2048 registers in each lane of 4 warps; gfx950 holds 512 in registers: LLVM spills the rest to scratch, which makes the kernel slow and its compile take minutes; use smaller blocks or more warps}}
  %w = arith.mulf %v, %v : tensor<262144xf32>
  tile.store %py, %w : tensor<262144x!tile.ptr<f32>>, tensor<262144xf32>
  return
}
