// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" | FileCheck %s --check-prefix=LAYOUTS1250
// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" --tile-allocate-lds="target=gfx1250" --tile-lower-to-simt="target=gfx1250" | FileCheck %s --check-prefix=SIMT1250
// RUN: not rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=4" 2>&1 | FileCheck %s --check-prefix=GFX950

// NVFP4 (E4M3 scales per 16 k of E2M1 operands) on gfx1250's scale16 forms:
// each lane gives the instruction the 8 scales of its row's 128 k. E2M1 on
// both sides takes v_wmma_scale16_f32_32x16x128_f4 where the product's N (the
// instruction's 32 rows: the dot is computed transposed) allows, whose lane i
// holds the scales of row i of all 32 (the B scales' lane bit 4 is column
// 16, not a copy), and the 16x16x128 f8f6f4 form otherwise.
// gfx950 has no scaled instruction that takes E4M3 scales (tl.dot_scaled
// decodes NVFP4 to bf16 there instead).
// GFX950: error: no scaled matrix instruction of gfx950 computes a 32x128 by 128x32 product with E4M3 scales per 16 k
// LAYOUTS1250-LABEL: func.func @nvfp4_dot
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<64x32xi8, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [32, 0], [0, 16]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [16, 0]]
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<32x8xf8E4M3FN, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<32x8xf8E4M3FN, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]
// LAYOUTS1250: tile.dot {{.*}} instr = "wmma_f32_32x16x128_f4", transposed} {{.*}} -> tensor<32x32xf32, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 16]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 8]]
// LAYOUTS1250-LABEL: func.func @nvfp4_dot_16_wide
// LAYOUTS1250: tile.dot {{.*}} instr = "wmma_f32_16x16x128_f8", transposed}
// SIMT1250-LABEL: gpu.func @nvfp4_dot
// SIMT1250: amdgpu.scaled_wmma 32x16x128 (%{{.*}} * %{{.*}}) * (%{{.*}} * %{{.*}}) + %{{.*}} {{.*}} : vector<8xf8E4M3FN>, vector<128xf4E2M1FN>, vector<8xf8E4M3FN>, vector<64xf4E2M1FN>, vector<16xf32>
// SIMT1250-NOT: amdgpu.scaled_wmma
// SIMT1250-LABEL: gpu.func @nvfp4_dot_16_wide
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

func.func @nvfp4_dot_16_wide(%pa: !tile.ptr<i8>, %ps: !tile.ptr<f8E4M3FN>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %pa : !tile.ptr<i8> -> tensor<32x64x!tile.ptr<i8>>
  %a = tile.load %ta : tensor<32x64x!tile.ptr<i8>> -> tensor<32x64xi8>
  %tb = tile.splat %pa : !tile.ptr<i8> -> tensor<64x16x!tile.ptr<i8>>
  %b = tile.load %tb : tensor<64x16x!tile.ptr<i8>> -> tensor<64x16xi8>
  %ts = tile.splat %ps : !tile.ptr<f8E4M3FN> -> tensor<32x8x!tile.ptr<f8E4M3FN>>
  %s = tile.load %ts : tensor<32x8x!tile.ptr<f8E4M3FN>> -> tensor<32x8xf8E4M3FN>
  %tt = tile.splat %ps : !tile.ptr<f8E4M3FN> -> tensor<16x8x!tile.ptr<f8E4M3FN>>
  %t = tile.load %tt : tensor<16x8x!tile.ptr<f8E4M3FN>> -> tensor<16x8xf8E4M3FN>
  %c = arith.constant dense<0.0> : tensor<32x16xf32>
  %d = tile.dot %a, %b, %c scales %s, %t {a_format = "e2m1", b_format = "e2m1"} : tensor<32x64xi8>, tensor<64x16xi8>, tensor<32x8xf8E4M3FN>, tensor<16x8xf8E4M3FN> -> tensor<32x16xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x16x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x16x!tile.ptr<f32>>, tensor<32x16xf32>
  return
}
