// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=4" --tile-allocate-lds="target=gfx950" --tile-lower-to-simt="target=gfx950" | FileCheck %s
// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" 2>&1 | FileCheck %s --check-prefix=GFX1250

// FP6 operands (one code per byte, in its low 6 bits) on gfx950's scaled
// MFMA: each lane's 32 bytes become 32 codes (trunci to i6, bitcast), which
// sit as fp8's do; the instruction's format codes come from the types.
// CHECK-LABEL: gpu.func @fp6_dot
// (The product is computed transposed: X is Bᵀ, Y is Aᵀ.)
// CHECK: %[[B6:.*]] = arith.trunci %{{.*}} : vector<32xi8> to vector<32xi6>
// CHECK: %[[B:.*]] = arith.bitcast %[[B6]] : vector<32xi6> to vector<32xf6E3M2FN>
// CHECK: %[[A6:.*]] = arith.trunci %{{.*}} : vector<32xi8> to vector<32xi6>
// CHECK: %[[A:.*]] = arith.bitcast %[[A6]] : vector<32xi6> to vector<32xf6E2M3FN>
// CHECK: amdgpu.scaled_mfma 16x16x128 ({{.*}} * %[[B]]) * ({{.*}} * %[[A]]) + %{{.*}} : f8E8M0FNU, vector<32xf6E3M2FN>, f8E8M0FNU, vector<32xf6E2M3FN>, vector<4xf32>
// gfx1250's scaled WMMA is not given FP6 operands: no source gives their layout.
// GFX1250: error: wmma_f32_16x16x128_f8 on gfx1250 takes no FP6 operands in rocktile
func.func @fp6_dot(%p: !tile.ptr<i8>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %p : !tile.ptr<i8> -> tensor<32x128x!tile.ptr<i8>>
  %a = tile.load %ta : tensor<32x128x!tile.ptr<i8>> -> tensor<32x128xi8>
  %tb = tile.splat %p : !tile.ptr<i8> -> tensor<128x32x!tile.ptr<i8>>
  %b = tile.load %tb : tensor<128x32x!tile.ptr<i8>> -> tensor<128x32xi8>
  %ts = tile.splat %p : !tile.ptr<i8> -> tensor<32x4x!tile.ptr<i8>>
  %s = tile.load %ts : tensor<32x4x!tile.ptr<i8>> -> tensor<32x4xi8>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c scales %s, %s {a_format = "e2m3", b_format = "e3m2"} : tensor<32x128xi8>, tensor<128x32xi8>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
