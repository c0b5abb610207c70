// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" | FileCheck %s --check-prefix=LAYOUTS
// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" --tile-allocate-lds="target=gfx950" --tile-lower-to-simt="target=gfx950" | FileCheck %s --check-prefix=SIMT
// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx1250 num-warps=4" --tile-allocate-lds="target=gfx1250" --tile-lower-to-simt="target=gfx1250" | FileCheck %s --check-prefix=SIMT1250


// bf16 x MXFP4 (tl.dot_scaled): B's E2M1 codes are converted with their
// scales in B's dot operand layout. The codes take it halved along K (two
// per byte), the scales divided by their block of 32 (lanes 16 and 32,
// which differ in k 8 and 16 only, hold copies), and the 16-bit values
// need no conversion before the matrix instructions.
// LAYOUTS-LABEL: func.func @dot_operand
// LAYOUTS: tile.convert_layout %{{.*}} -> tensor<32x32xi8, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [16, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// LAYOUTS: tile.convert_layout %{{.*}} -> tensor<2x32xi8, #tile.linear<register = {{\[\[}}1, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [0, 0], [0, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// LAYOUTS: %[[B:.*]] = tile.scaled_upcast {{.*}} -> tensor<64x32xbf16, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0], [32, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// LAYOUTS-NOT: tile.convert_layout %[[B]]
// LAYOUTS: tile.dot %{{.*}}, %[[B]], %{{.*}} {instr = "mfma_f32_16x16x32_bf16", transposed}
// gfx950: one conversion per byte of a lane's four (its index), each with
// its scale as fp32.
// SIMT-LABEL: gpu.func @dot_operand
// SIMT: %[[CODES:.*]] = vector.bitcast %{{.*}} : vector<4xi8> to vector<8xf4E2M1FN>
// SIMT: amdgpu.scaled_ext_packed %[[CODES]][0], %{{.*}} : vector<8xf4E2M1FN> to vector<2xbf16>
// SIMT: amdgpu.scaled_ext_packed %[[CODES]][1], %{{.*}} : vector<8xf4E2M1FN> to vector<2xbf16>
// SIMT: amdgpu.scaled_ext_packed %[[CODES]][2], %{{.*}} : vector<8xf4E2M1FN> to vector<2xbf16>
// SIMT: amdgpu.scaled_ext_packed %[[CODES]][3], %{{.*}} : vector<8xf4E2M1FN> to vector<2xbf16>
// SIMT: amdgpu.mfma 16x16x32
// gfx1250: one conversion per four bytes, the scale byte in all four bytes
// of the scale word; lanes 16 apart share their scales, so every lane reads
// them from the first 16.
// SIMT1250-LABEL: gpu.func @dot_operand
// SIMT1250: arith.constant 16843009 : i32
// SIMT1250: amdgpu.scaled_ext_packed_matrix %{{.*}} scale(%{{.*}}) blockSize(32) firstScaleLane(0) firstScaleByte(0) : vector<8xf4E2M1FN>, vector<4xf8E8M0FNU> -> vector<8xbf16>
// SIMT1250-NOT: firstScaleLane(16)
// SIMT1250: amdgpu.wmma 16x16x32
func.func @dot_operand(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<i8>, %ps: !tile.ptr<i8>, %out: !tile.ptr<f32>) {
  %ta = tile.splat %pa : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %a = tile.load %ta : tensor<32x64x!tile.ptr<bf16>> -> tensor<32x64xbf16>
  %tb = tile.splat %pb : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %codes = tile.load %tb : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %ts = tile.splat %ps : !tile.ptr<i8> -> tensor<2x32x!tile.ptr<i8>>
  %s = tile.load %ts : tensor<2x32x!tile.ptr<i8>> -> tensor<2x32xi8>
  %b = tile.scaled_upcast %codes, %s {axis = 0 : i32} : tensor<32x32xi8>, tensor<2x32xi8> -> tensor<64x32xbf16>
  %c = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %c : tensor<32x64xbf16>, tensor<64x32xbf16> -> tensor<32x32xf32>
  %to = tile.splat %out : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  tile.store %to, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

// -----

// Stored, not multiplied, it takes a blocked layout with runs along the
// axis of what one conversion makes (2 on gfx950, 8 on gfx1250). On
// gfx1250 lanes 16 apart then hold other rows' scales, so each half of the
// wave takes the conversion that reads its own lanes' (first scale lane 0
// or 16).
// LAYOUTS: #[[RUNS:.*]] = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]>
// LAYOUTS-LABEL: func.func @stored
// LAYOUTS: tile.scaled_upcast {{.*}} -> tensor<32x64xbf16, #[[RUNS]]>
// SIMT1250-LABEL: gpu.func @stored
// SIMT1250: %[[HALF:.*]] = arith.cmpi ult, %{{.*}}, %c16_i32
// SIMT1250: %[[LOW:.*]] = amdgpu.scaled_ext_packed_matrix {{.*}} firstScaleLane(0)
// SIMT1250: %[[HIGH:.*]] = amdgpu.scaled_ext_packed_matrix {{.*}} firstScaleLane(16)
// SIMT1250: arith.select %[[HALF]], %[[LOW]], %[[HIGH]] : vector<8xbf16>
func.func @stored(%pb: !tile.ptr<i8>, %ps: !tile.ptr<i8>, %out: !tile.ptr<bf16>) {
  %tb = tile.splat %pb : !tile.ptr<i8> -> tensor<32x32x!tile.ptr<i8>>
  %codes = tile.load %tb : tensor<32x32x!tile.ptr<i8>> -> tensor<32x32xi8>
  %ts = tile.splat %ps : !tile.ptr<i8> -> tensor<32x2x!tile.ptr<i8>>
  %s = tile.load %ts : tensor<32x2x!tile.ptr<i8>> -> tensor<32x2xi8>
  %v = tile.scaled_upcast %codes, %s {axis = 1 : i32} : tensor<32x32xi8>, tensor<32x2xi8> -> tensor<32x64xbf16>
  %to = tile.splat %out : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  tile.store %to, %v : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xbf16>
  return
}
