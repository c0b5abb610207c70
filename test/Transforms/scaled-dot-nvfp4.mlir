// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" | FileCheck %s --check-prefix=LAYOUTS1250
// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" --tile-allocate-lds="target=gfx1250" --tile-lower-to-simt="target=gfx1250" | FileCheck %s --check-prefix=SIMT1250
// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=4" 2>&1 | FileCheck %s --check-prefix=GFX950

// NVFP4 (E4M3 scales per 16 k of E2M1 operands) on gfx1250's scale16 form:
// each lane gives the instruction the 8 scales of its row's 128 k.
// gfx950 has no scaled instruction that takes E4M3 scales (tl.dot_scaled
// decodes NVFP4 to bf16 there instead).
// GFX950: error: no scaled matrix instruction of gfx950 computes a 32x128 by 128x32 product with E4M3 scales per 16 k
// LAYOUTS1250-LABEL: func.func @nvfp4_dot
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<32x8xf8E4M3FN, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]
// SIMT1250-LABEL: gpu.func @nvfp4_dot
// SIMT1250: amdgpu.scaled_wmma 16x16x128 (%{{.*}} * %{{.*}}) * (%{{.*}} * %{{.*}}) + %{{.*}} {{.*}} : vector<8xf8E4M3FN>, vector<64xf4E2M1FN>, vector<8xf8E4M3FN>, vector<64xf4E2M1FN>, vector<8xf32>
func.func @nvfp4_dot(%pa: !tile.ptr<i8>, %ps: !tile.ptr<f8E4M3FN>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %pa : !tile.ptr<i8> -> tensor<32x64x!tile.ptr<i8>>
  %a = tile.load %ta : tensor<32x64x!tile.ptr<i8>> -> tensor<32x64xi8>
  %tb = tile.splat %pa : !tile.ptr<i8> -> tensor<64x32x!tile.ptr<i8>>
  %b = tile.load %tb : tensor<64x32x!tile.ptr<i8>> -> tensor<64x32xi8>
  %ts = tile.splat %ps : !tile.ptr<f8E4M3FN> -> tensor<32x8x!tile.ptr<f8E4M3FN>>
  %s = tile.load %ts : tensor<32x8x!tile.ptr<f8E4M3FN>> -> tensor<32x8xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c scales %s, %s {a_format = "e2m1", b_format = "e2m1"} : tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x8xf8E4M3FN>, tensor<32x8xf8E4M3FN> -> tensor<32x32xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
