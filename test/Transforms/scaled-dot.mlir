// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=4" | FileCheck %s --check-prefix=LAYOUTS
// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx950 num-warps=4" --tile-allocate-lds="target=gfx950" --tile-lower-to-simt="target=gfx950" | FileCheck %s --check-prefix=SIMT
// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" | FileCheck %s --check-prefix=LAYOUTS1250
// RUN: rocktile-opt %s --tile-assign-layouts="target=gfx1250 num-warps=4" --tile-allocate-lds="target=gfx1250" --tile-lower-to-simt="target=gfx1250" | FileCheck %s --check-prefix=SIMT1250

// A scaled dot (tl.dot_scaled on MX fp8) on gfx950: the f8f6f4 instruction,
// whose lanes each hold 32 consecutive k of a row of A (column of B); each
// scale goes to the lanes that hold its block (lane bits 4 and 5 are A's
// k / 32, so they are the scales' column bits; registers within a block
// hold no scale of their own), and each instruction takes one scale byte
// per lane for X and Y (Bᵀ and Aᵀ: the product is computed transposed).
// LAYOUTS: tile.convert_layout %{{.*}} -> tensor<32x4xi8, #tile.linear<register = [], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = {{\[\[}}0, 0], [16, 0]]>>
// LAYOUTS: tile.convert_layout %{{.*}} -> tensor<32x4xi8, #tile.linear<register = [], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2]], warp = {{\[\[}}16, 0], [0, 0]]>>
// LAYOUTS: tile.dot {{.*}} scales {{.*}} {instr = "mfma_f32_16x16x128_f8f6f4", transposed}
// SIMT: %[[XB:.*]] = arith.bitcast %{{.*}} : vector<1xi8> to vector<1xf8E8M0FNU>
// SIMT: %[[XS:.*]] = vector.extract %[[XB]][0]
// SIMT: %[[YB:.*]] = arith.bitcast %{{.*}} : vector<1xi8> to vector<1xf8E8M0FNU>
// SIMT: %[[YS:.*]] = vector.extract %[[YB]][0]
// SIMT: amdgpu.scaled_mfma 16x16x128 (%[[XS]][0] * %{{.*}}) * (%[[YS]][0] * %{{.*}}) + %{{.*}} : f8E8M0FNU, vector<32xf8E5M2>, f8E8M0FNU, vector<32xf8E4M3FN>, vector<4xf32>
// SIMT-NOT: amdgpu.scaled_mfma
// On gfx1250 (v_wmma_scale_f32_16x16x128_f8f6f4) lane i < 16 holds the four
// scales of row i (column i of B) of the instruction's 128 k, one per byte
// of its word: the scales' registers are the block bits, lanes 16-31 copies.
// LAYOUTS1250-LABEL: func.func @scaled_dot
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<32x4xi8, #tile.linear<register = {{\[\[}}0, 1], [0, 2]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = {{\[\[}}0, 0], [16, 0]]>>
// LAYOUTS1250: tile.dot {{.*}} scales {{.*}} {instr = "wmma_f32_16x16x128_f8", transposed}
// SIMT1250-LABEL: gpu.func @scaled_dot
// SIMT1250: %[[XS:.*]] = arith.bitcast %{{.*}} : vector<4xi8> to vector<4xf8E8M0FNU>
// SIMT1250: %[[YS:.*]] = arith.bitcast %{{.*}} : vector<4xi8> to vector<4xf8E8M0FNU>
// SIMT1250: amdgpu.scaled_wmma 16x16x128 (%[[XS]] * %{{.*}}) * (%[[YS]] * %{{.*}}) + %{{.*}} {a_first_scale_lane = 0 : i32, b_first_scale_lane = 0 : i32} : vector<4xf8E8M0FNU>, vector<64xf8E5M2>, vector<4xf8E8M0FNU>, vector<64xf8E4M3FN>, vector<8xf32>
// SIMT1250-NOT: amdgpu.scaled_wmma
func.func @scaled_dot(%pa: !tile.ptr<f8E4M3FN>, %pb: !tile.ptr<f8E5M2>, %ps: !tile.ptr<i8>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %pa : !tile.ptr<f8E4M3FN> -> tensor<32x128x!tile.ptr<f8E4M3FN>>
  %a = tile.load %ta : tensor<32x128x!tile.ptr<f8E4M3FN>> -> tensor<32x128xf8E4M3FN>
  %tb = tile.splat %pb : !tile.ptr<f8E5M2> -> tensor<128x32x!tile.ptr<f8E5M2>>
  %b = tile.load %tb : tensor<128x32x!tile.ptr<f8E5M2>> -> tensor<128x32xf8E5M2>
  %ts = tile.splat %ps : !tile.ptr<i8> -> tensor<32x4x!tile.ptr<i8>>
  %s = tile.load %ts : tensor<32x4x!tile.ptr<i8>> -> tensor<32x4xi8>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c scales %s, %s : tensor<32x128xf8E4M3FN>, tensor<128x32xf8E5M2>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

// An E2M1 B (bytes of two consecutive k): its layout is the instruction's
// with K halved (a lane's 16 registers of 2 k become 16 bytes), and each
// instruction takes the lane's 16 bytes as 32 E2M1 codes.
// LAYOUTS-LABEL: func.func @scaled_dot_fp4
// LAYOUTS: tile.convert_layout %{{.*}} -> tensor<64x32xi8, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [16, 0], [32, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// LAYOUTS: tile.dot {{.*}} {b_format = "e2m1", instr = "mfma_f32_16x16x128_f8f6f4", transposed}
// SIMT-LABEL: gpu.func @scaled_dot_fp4
// SIMT: %[[CODES:.*]] = vector.bitcast %{{.*}} : vector<16xi8> to vector<32xf4E2M1FN>
// SIMT: amdgpu.scaled_mfma 16x16x128 (%{{.*}}[0] * %[[CODES]]) * (%{{.*}}[0] * %{{.*}}) + %{{.*}} : f8E8M0FNU, vector<32xf4E2M1FN>, f8E8M0FNU, vector<32xf8E4M3FN>, vector<4xf32>
// On gfx1250 a lane holds 32 consecutive E2M1 k (16 bytes) per half-wave:
// byte bits 0-3 are registers, byte 16 (k 32) the lane bit 4, byte 32
// (k 64) a register again.
// LAYOUTS1250-LABEL: func.func @scaled_dot_fp4
// LAYOUTS1250: tile.convert_layout %{{.*}} -> tensor<64x32xi8, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [32, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [16, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// SIMT1250-LABEL: gpu.func @scaled_dot_fp4
// SIMT1250: %[[CODES:.*]] = vector.bitcast %{{.*}} : vector<32xi8> to vector<64xf4E2M1FN>
// SIMT1250: amdgpu.scaled_wmma 16x16x128 (%{{.*}} * %[[CODES]]) * (%{{.*}} * %{{.*}}) + %{{.*}} {{.*}} : vector<4xf8E8M0FNU>, vector<64xf4E2M1FN>, vector<4xf8E8M0FNU>, vector<64xf8E4M3FN>, vector<8xf32>
func.func @scaled_dot_fp4(%pa: !tile.ptr<f8E4M3FN>, %pb: !tile.ptr<i8>, %ps: !tile.ptr<i8>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %pa : !tile.ptr<f8E4M3FN> -> tensor<32x128x!tile.ptr<f8E4M3FN>>
  %a = tile.load %ta : tensor<32x128x!tile.ptr<f8E4M3FN>> -> tensor<32x128xf8E4M3FN>
  %tb = tile.splat %pb : !tile.ptr<i8> -> tensor<64x32x!tile.ptr<i8>>
  %b = tile.load %tb : tensor<64x32x!tile.ptr<i8>> -> tensor<64x32xi8>
  %ts = tile.splat %ps : !tile.ptr<i8> -> tensor<32x4x!tile.ptr<i8>>
  %s = tile.load %ts : tensor<32x4x!tile.ptr<i8>> -> tensor<32x4xi8>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c scales %s, %s {b_format = "e2m1"} : tensor<32x128xf8E4M3FN>, tensor<64x32xi8>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

