// RUN: rocktile-opt %s -split-input-file -verify-diagnostics
// Every verifier message of the tile dialect.

func.func @range_not_pow2() {
  // expected-error @+1 {{range size 48 must be a power of two}}
  %r = tile.make_range {start = 0 : i32, end = 48 : i32} : tensor<48xi32>
  return
}

// -----

func.func @range_empty() {
  // expected-error @+1 {{needs start < end, got [8, 8)}}
  %r = tile.make_range {start = 8 : i32, end = 8 : i32} : tensor<1xi32>
  return
}

// -----

func.func @range_wrong_size() {
  // expected-error @+1 {{result must be a 1-D tensor of 64 elements}}
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<32xi32>
  return
}

// -----

func.func @splat_type(%x: f32) {
  // expected-error @+1 {{result element type 'f16' differs from the scalar's type 'f32'}}
  %t = tile.splat %x : f32 -> tensor<4xf16>
  return
}

// -----

func.func @broadcast_size(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{dimension 0 of size 2 can only be broadcast from size 1 or kept, but the result has size 8}}
  %t = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<4xf32>) {
  // expected-error @+1 {{ranks differ: 1 vs 2}}
  %t = tile.broadcast %x : tensor<4xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @broadcast_elt(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{element types differ: 'f32' vs 'f16'}}
  %t = tile.broadcast %x : tensor<1x4xf32> -> tensor<4x4xf16>
  return
}

// -----

func.func @expand_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis 3 is out of range for rank 1}}
  %t = tile.expand_dims %x {axis = 3 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<4xf32>) {
  // expected-error @+1 {{result must be 'tensor<1x4xf32>' (a size-1 dimension inserted at 0)}}
  %t = tile.expand_dims %x {axis = 0 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @addptr_shape(%p: tensor<4x!tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error @+1 {{pointer and offset shapes differ}}
  %q = tile.addptr %p, %o : tensor<4x!tile.ptr<f32>>, tensor<8xi32>
  return
}

// -----

func.func @load_type(%p: tensor<4x!tile.ptr<f32>>) {
  // expected-error @+1 {{value type 'tensor<4xf16>' does not match the pointers, which need 'tensor<4xf32>'}}
  %x = tile.load %p : tensor<4x!tile.ptr<f32>> -> tensor<4xf16>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<4x!tile.ptr<f32>>, %m: tensor<8xi1>) {
  // expected-error @+1 {{mask shape does not match the pointers}}
  %x = tile.load %p, mask = %m : tensor<8xi1> : tensor<4x!tile.ptr<f32>> -> tensor<4xf32>
  return
}

// -----

func.func @store_type(%p: !tile.ptr<f32>, %v: f16) {
  // expected-error @+1 {{value type 'f16' does not match the pointers, which need 'f32'}}
  tile.store %p, %v : !tile.ptr<f32>, f16
  return
}

// -----

func.func @program_id_axis() {
  // expected-error @+1 {{attribute 'axis' failed to satisfy constraint}}
  %p = tile.program_id 3
  return
}

// -----

func.func @reduce_axis(%x: tensor<4xf32>) {
  // expected-error @+1 {{axis 1 is out of range for rank 1}}
  %s = tile.reduce(%x) axis = 1 : (tensor<4xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_result(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result 0 must be 'tensor<4xf32>' (the operand without axis 1), got 'f32'}}
  %s = tile.reduce(%x) axis = 1 : (tensor<4x8xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_args(%x: tensor<4xf32>) {
  // expected-error @+1 {{combiner must take 2 scalar arguments}}
  %s = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 {
  ^bb0(%a: f32):
    tile.reduce.return %a : f32
  }
  return
}

// -----

func.func @reduce_return(%x: tensor<4xf32>) {
  %s = tile.reduce(%x) axis = 0 : (tensor<4xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    // expected-error @+1 {{must return 1 values, got 2}}
    tile.reduce.return %a, %b : f32, f32
  }
  return
}

// -----

// expected-error @+1 {{blocked layout: sizes must be powers of two, got 3}}
func.func @bad_layout(%x: tensor<4xf32, #tile.blocked<sizePerThread = [3], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{blocked layout: order must be a permutation of 0..1}}
func.func @bad_order(%x: tensor<4x4xf32, #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], order = [0, 0]>>) {
  return
}

// -----

// expected-error @+1 {{slice layout: dim 2 is out of range for a parent of rank 1}}
func.func @bad_slice(%x: tensor<4xf32, #tile.slice<dim = 2, parent = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>>>) {
  return
}

// -----

func.func @atomic_xor_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{'xor' needs integer values, got 'f32'}}
  %o = tile.atomic_rmw <xor> %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

func.func @atomic_narrow(%p: !tile.ptr<i16>, %v: i16) {
  // expected-error @+1 {{atomics need 32- or 64-bit elements (or f16/bf16 for add), got 'i16'}}
  %o = tile.atomic_rmw <add> %p, %v : !tile.ptr<i16>, i16
  return
}

// -----

func.func @atomic_max_of_halves(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{atomics need 32- or 64-bit elements (or f16/bf16 for add), got 'f16'}}
  %o = tile.atomic_rmw <max> %p, %v : !tile.ptr<f16>, f16
  return
}

// -----

func.func @atomic_pointee(%p: !tile.ptr<i32>, %v: i64) {
  // expected-error @+1 {{value type 'i64' does not match the pointers, which need 'i32'}}
  %o = tile.atomic_rmw <add> %p, %v : !tile.ptr<i32>, i64
  return
}

// -----

func.func @cas_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{compare-and-swap needs 32- or 64-bit integers, got 'f32'}}
  %o = tile.atomic_cas %p, %v, %v : !tile.ptr<f32>, f32
  return
}

// -----

func.func @convert_shape(%x: tensor<16xf32>) {
  // expected-error @+1 {{changes only the layout: 'tensor<16xf32>' and 'tensor<32xf32>' must have the same shape and element type}}
  %y = tile.convert_layout %x : tensor<16xf32> -> tensor<32xf32>
  return
}

// -----

func.func @trans_order(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{order must be a permutation of the 2 dimensions}}
  %y = tile.trans %x {order = array<i32: 0, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @trans_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{result must be 'tensor<8x4xf32>', got 'tensor<4x8xf32>'}}
  %y = tile.trans %x {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{cannot reshape 'tensor<4x8xf32>' into 'tensor<64xf32>': element counts or types differ}}
  %y = tile.reshape %x : tensor<4x8xf32> -> tensor<64xf32>
  return
}

// -----

func.func @assume_rank(%x: tensor<4x8xi32>) {
  // expected-error @+1 {{divisibility needs one value per dimension (2), got 1}}
  %y = tile.assume %x {divisibility = array<i64: 16>} : tensor<4x8xi32>
  return
}

// -----

func.func @assume_pow2(%x: i32) {
  // expected-error @+1 {{contiguity values must be powers of two, got 3}}
  %y = tile.assume %x {contiguity = array<i64: 3>} : i32
  return
}

// -----

#b2 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// expected-error @+1 {{has rank 2 but the tensor has rank 3}}
func.func @layout_rank(%x: tensor<2x4x8xf32, #b2>) {
  return
}

// -----

#b3 = #tile.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [4, 2, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]>
// expected-error @+1 {{has rank 2 but the tensor has rank 3}}
func.func @slice_rank(%x: tensor<2x4x8xf32, #tile.slice<dim = 1, parent = #b3>>) {
  return
}

// -----

func.func @dot_rank(%a: tensor<16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{operands must be all 2-D or all 3-D (batched)}}
  %d = tile.dot %a, %b, %c : tensor<16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_shapes(%a: tensor<16x32xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{shapes do not multiply}}
  %d = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_batch(%a: tensor<2x16x32xbf16>, %b: tensor<4x32x16xbf16>, %c: tensor<2x16x16xf32>) {
  // expected-error @+1 {{shapes do not multiply}}
  %d = tile.dot %a, %b, %c : tensor<2x16x32xbf16>, tensor<4x32x16xbf16> -> tensor<2x16x16xf32>
  return
}

// -----

func.func @dot_kinds(%a: tensor<16x16xbf16>, %b: tensor<16x16xi8>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{A and B must both be floats or both integers}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x16xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_acc(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xi32>) {
  // expected-error @+1 {{the accumulator 'i32' must be a float like A and B}}
  %d = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xi32>
  return
}

// -----

func.func @dot_k_order_repeats(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{k_order must name each bit of K = 32 once, got 4}}
  %d = tile.dot %a, %b, %c {k_order = array<i64: 1, 2, 4, 4, 8>} : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_k_order_short(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{k_order must name each bit of K = 32 once}}
  %d = tile.dot %a, %b, %c {k_order = array<i64: 1, 2, 4, 8>} : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_one_scale(%a: tensor<16x128xf8E4M3FN>, %b: tensor<128x16xf8E4M3FN>, %c: tensor<16x16xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{scales come in pairs: one for A and one for B}}
  %d = "tile.dot"(%a, %b, %c, %s) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>} : (tensor<16x128xf8E4M3FN>, tensor<128x16xf8E4M3FN>, tensor<16x16xf32>, tensor<16x4xi8>) -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_of_bf16(%a: tensor<16x128xbf16>, %b: tensor<128x16xbf16>, %c: tensor<16x16xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{a scaled dot is a 2-D product of fp8 operands (f8E4M3FN, f8E5M2), of i8 bytes of E2M1 pairs (format "e2m1") or of i8 FP6 codes ("e2m3", "e3m2") into f32}}
  %d = tile.dot %a, %b, %c scales %s, %s : tensor<16x128xbf16>, tensor<128x16xbf16>, tensor<16x4xi8>, tensor<16x4xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_unknown_format(%a: tensor<16x128xi8>, %b: tensor<128x16xf8E4M3FN>, %c: tensor<16x16xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{a scaled dot is a 2-D product of fp8 operands (f8E4M3FN, f8E5M2), of i8 bytes of E2M1 pairs (format "e2m1") or of i8 FP6 codes ("e2m3", "e3m2") into f32}}
  %d = tile.dot %a, %b, %c scales %s, %s {a_format = "e3m3"} : tensor<16x128xi8>, tensor<128x16xf8E4M3FN>, tensor<16x4xi8>, tensor<16x4xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_unpacked_k(%a: tensor<16x128xi8>, %b: tensor<128x16xf8E4M3FN>, %c: tensor<16x16xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{shapes do not multiply}}
  %d = tile.dot %a, %b, %c scales %s, %s {a_format = "e2m1"} : tensor<16x128xi8>, tensor<128x16xf8E4M3FN>, tensor<16x4xi8>, tensor<16x4xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_k_order(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x16xf8E5M2>, %c: tensor<16x16xf32>, %s: tensor<16x2xi8>) {
  // expected-error @+1 {{a scaled dot keeps its k order (a scale covers consecutive k)}}
  %d = tile.dot %a, %b, %c scales %s, %s {k_order = array<i64: 2, 1, 4, 8, 16, 32>} : tensor<16x64xf8E4M3FN>, tensor<64x16xf8E5M2>, tensor<16x2xi8>, tensor<16x2xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_scale_shape(%a: tensor<16x128xf8E4M3FN>, %b: tensor<128x32xf8E4M3FN>, %c: tensor<16x32xf32>, %s: tensor<16x4xi8>) {
  // expected-error @+1 {{b_scale must be a 32x4xi8 tile (one E8M0 scale per 32 k, K = 128), got 'tensor<16x4xi8>'}}
  %d = tile.dot %a, %b, %c scales %s, %s : tensor<16x128xf8E4M3FN>, tensor<128x32xf8E4M3FN>, tensor<16x4xi8>, tensor<16x4xi8> -> tensor<16x32xf32>
  return
}

// -----

func.func @scaled_dot_e4m3_scales_of_fp8(%a: tensor<16x128xf8E4M3FN>, %b: tensor<128x16xf8E4M3FN>, %c: tensor<16x16xf32>, %s: tensor<16x8xf8E4M3FN>) {
  // expected-error @+1 {{E4M3 scales (NVFP4) scale E2M1 operands only}}
  %d = tile.dot %a, %b, %c scales %s, %s : tensor<16x128xf8E4M3FN>, tensor<128x16xf8E4M3FN>, tensor<16x8xf8E4M3FN>, tensor<16x8xf8E4M3FN> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_e4m3_scales_per_32(%a: tensor<16x64xi8>, %b: tensor<64x16xi8>, %c: tensor<16x16xf32>, %s: tensor<16x4xf8E4M3FN>) {
  // expected-error @+1 {{a_scale must be a 16x8xf8E4M3FN tile (one E4M3 scale per 16 k, K = 128), got 'tensor<16x4xf8E4M3FN>'}}
  %d = tile.dot %a, %b, %c scales %s, %s {a_format = "e2m1", b_format = "e2m1"} : tensor<16x64xi8>, tensor<64x16xi8>, tensor<16x4xf8E4M3FN>, tensor<16x4xf8E4M3FN> -> tensor<16x16xf32>
  return
}

// -----

func.func @scaled_dot_mixed_scale_types(%a: tensor<16x64xi8>, %b: tensor<64x16xi8>, %c: tensor<16x16xf32>, %s: tensor<16x8xf8E4M3FN>, %t: tensor<16x4xi8>) {
  // expected-error @+1 {{b_scale must be a 16x8xf8E4M3FN tile (one E4M3 scale per 16 k, K = 128), got 'tensor<16x4xi8>'}}
  %d = tile.dot %a, %b, %c scales %s, %t {a_format = "e2m1", b_format = "e2m1"} : tensor<16x64xi8>, tensor<64x16xi8>, tensor<16x8xf8E4M3FN>, tensor<16x4xi8> -> tensor<16x16xf32>
  return
}

// -----

func.func @dot_warps_n(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error @+1 {{warps_n must be a power of two, got 3}}
  %d = tile.dot %a, %b, %c {warps_n = 3 : i32} : tensor<16x32xbf16>, tensor<32x16xbf16> -> tensor<16x16xf32>
  return
}

// -----

// expected-error @+1 {{slice layout: the parent must be a blocked or linear layout, got}}
func.func @slice_parent(%x: tensor<16xf32, #tile.slice<dim = 0, parent = #tile.slice<dim = 0, parent = #tile.blocked<sizePerThread = [1, 1, 1], threadsPerWarp = [4, 2, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]>>>>) {
  return
}

// -----

// expected-error @+1 {{linear layout: a basis lies outside a tensor of shape [16, 16]}}
func.func @linear_outside(%x: tensor<16x16xf32, #tile.linear<register = [[16, 0]], lane = [], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{linear layout: its bases reach only 2^2 of the tensor's 2^8 elements}}
func.func @linear_short(%x: tensor<16x16xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{linear layout: its bases reach only 2^1 of the tensor's 2^2 elements}}
func.func @linear_dependent(%x: tensor<2x2xf32, #tile.linear<register = [[1, 1]], lane = [[1, 1]], warp = []>>) {
  return
}

// -----

// expected-error @+1 {{every basis must have 2 coordinates}}
func.func @linear_ragged(%x: tensor<2x2xf32, #tile.linear<register = [[1, 0]], lane = [[1]], warp = []>>) {
  return
}

// -----

func.func @gather_rank(%x: tensor<16x64xf32>, %i: tensor<16xi32>) {
  // expected-error @+1 {{index must have the rank of the source (2), got 'tensor<16xi32>'}}
  %g = tile.gather %x[%i] {axis = 1 : i32} : tensor<16x64xf32>, tensor<16xi32> -> tensor<16xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<16x64xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %g = tile.gather %x[%i] {axis = 2 : i32} : tensor<16x64xf32>, tensor<16x8xi32> -> tensor<16x8xf32>
  return
}

// -----

func.func @gather_float_index(%x: tensor<16x64xf32>, %i: tensor<16x8xf32>) {
  // expected-error @+1 {{index must hold integers, got 'tensor<16x8xf32>'}}
  %g = tile.gather %x[%i] {axis = 1 : i32} : tensor<16x64xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @gather_other_dims(%x: tensor<16x64xf32>, %i: tensor<8x8xi32>) {
  // expected-error @+1 {{index must have the source's size in every dimension but the axis (1), got 'tensor<8x8xi32>' for 'tensor<16x64xf32>'}}
  %g = tile.gather %x[%i] {axis = 1 : i32} : tensor<16x64xf32>, tensor<8x8xi32> -> tensor<8x8xf32>
  return
}

// -----

func.func @gather_result(%x: tensor<16x64xf32>, %i: tensor<16x8xi32>) {
  // expected-error @+1 {{result must be 'tensor<16x8xf32>', got 'tensor<16x8xf16>'}}
  %g = tile.gather %x[%i] {axis = 1 : i32} : tensor<16x64xf32>, tensor<16x8xi32> -> tensor<16x8xf16>
  return
}

// -----

func.func @scaled_upcast_axis(%c: tensor<16x32xi8>, %s: tensor<16x2xi8>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %u = tile.scaled_upcast %c, %s {axis = 2 : i32} : tensor<16x32xi8>, tensor<16x2xi8> -> tensor<16x64xbf16>
  return
}

// -----

func.func @scaled_upcast_result(%c: tensor<16x32xi8>, %s: tensor<16x2xi8>) {
  // expected-error @+1 {{result must hold bf16 or f16, got 'tensor<16x64xf32>'}}
  %u = tile.scaled_upcast %c, %s {axis = 1 : i32} : tensor<16x32xi8>, tensor<16x2xi8> -> tensor<16x64xf32>
  return
}

// -----

func.func @scaled_upcast_codes_type(%c: tensor<16x32xi16>, %s: tensor<16x2xi8>) {
  // expected-error @+1 {{codes and scales must be i8 tiles (E2M1 pairs, E8M0 bits), got 'tensor<16x32xi16>' and 'tensor<16x2xi8>'}}
  %u = tile.scaled_upcast %c, %s {axis = 1 : i32} : tensor<16x32xi16>, tensor<16x2xi8> -> tensor<16x64xbf16>
  return
}

// -----

func.func @scaled_upcast_codes_shape(%c: tensor<16x64xi8>, %s: tensor<16x2xi8>) {
  // expected-error @+1 {{codes must be 'tensor<16x32xi8>' (two codes per byte along axis 1), got 'tensor<16x64xi8>'}}
  %u = tile.scaled_upcast %c, %s {axis = 1 : i32} : tensor<16x64xi8>, tensor<16x2xi8> -> tensor<16x64xbf16>
  return
}

// -----

func.func @scaled_upcast_scales_shape(%c: tensor<16x32xi8>, %s: tensor<8x2xi8>) {
  // expected-error @+1 {{scales must have the result's shape but along axis 1, where each covers a block of 8 or more elements, got 'tensor<8x2xi8>' for 'tensor<16x64xf16>'}}
  %u = tile.scaled_upcast %c, %s {axis = 1 : i32} : tensor<16x32xi8>, tensor<8x2xi8> -> tensor<16x64xf16>
  return
}

// -----

func.func @scaled_upcast_small_block(%c: tensor<16x32xi8>, %s: tensor<16x16xi8>) {
  // expected-error @+1 {{scales must have the result's shape but along axis 1, where each covers a block of 8 or more elements, got 'tensor<16x16xi8>' for 'tensor<16x64xbf16>'}}
  %u = tile.scaled_upcast %c, %s {axis = 1 : i32} : tensor<16x32xi8>, tensor<16x16xi8> -> tensor<16x64xbf16>
  return
}

// -----

func.func @descriptor_load_rank(%p: !tile.ptr<f16>, %i: i32) {
  // expected-error @+1 {{needs one offset, extent and stride per dimension of the 2-D block, got 1, 2 and 2}}
  %b = tile.descriptor_load %p[%i] shape [%i, %i] strides [%i, %i] : !tile.ptr<f16> -> tensor<16x16xf16>
  return
}

// -----

func.func @descriptor_load_type(%p: !tile.ptr<f16>, %i: i32) {
  // expected-error @+1 {{loads 'f32' through a pointer to 'f16'}}
  %b = tile.descriptor_load %p[%i] shape [%i] strides [%i] : !tile.ptr<f16> -> tensor<16xf32>
  return
}

// -----

func.func @descriptor_store_rank(%p: !tile.ptr<f16>, %i: i32, %v: tensor<16x16xf16>) {
  // expected-error @+1 {{needs one offset, extent and stride per dimension of the 2-D block, got 2, 1 and 2}}
  tile.descriptor_store %p[%i, %i] shape [%i] strides [%i, %i], %v : !tile.ptr<f16>, tensor<16x16xf16>
  return
}

// -----

func.func @descriptor_store_type(%p: !tile.ptr<f16>, %i: i32, %v: tensor<16xbf16>) {
  // expected-error @+1 {{stores 'bf16' through a pointer to 'f16'}}
  tile.descriptor_store %p[%i] shape [%i] strides [%i], %v : !tile.ptr<f16>, tensor<16xbf16>
  return
}

// -----

func.func @local_alloc_space() {
  // expected-error @+1 {{allocates static workgroup memory, not 'memref<2x16x16xf16>'}}
  %buf = tile.local_alloc : memref<2x16x16xf16>
  return
}

// -----

func.func @local_alloc_arrangement_rank() {
  // expected-error @+1 {{arrangement #tile.shared<order = [0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 0> does not have the rank of a slot of 'memref<2x16x16xf16, #gpu.address_space<workgroup>>'}}
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 0>} : memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @shared_layout_order() {
  // expected-error @+1 {{shared layout: order must be a permutation of 0..1}}
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 1], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 0>} : memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @shared_layout_powers() {
  // expected-error @+1 {{shared layout: vec, perPhase and maxPhase must be powers of two, got 3}}
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 3, perPhase = 1, maxPhase = 1, rowPitch = 0>} : memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @shared_layout_padded_swizzle() {
  // expected-error @+1 {{shared layout: padded rows (rowPitch 20) are not swizzled}}
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 4, perPhase = 1, maxPhase = 4, rowPitch = 20>} : memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @local_store_slot(%v: tensor<16x32xf16>, %s: i32) {
  %buf = tile.local_alloc : memref<2x16x16xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{a slot of 'memref<2x16x16xf16, #gpu.address_space<workgroup>>' does not hold a 'tensor<16x32xf16>'}}
  tile.local_store %v, %buf[%s] : tensor<16x32xf16>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @local_store_of_an_argument(%v: tensor<16x16xf16>, %buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %s: i32) {
  // expected-error @+1 {{writes a slot of a tile.local_alloc}}
  tile.local_store %v, %buf[%s] : tensor<16x16xf16>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @local_load_slot(%buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %s: i32) {
  // expected-error @+1 {{a slot of 'memref<2x16x16xf16, #gpu.address_space<workgroup>>' does not hold a 'tensor<16x32xf16>'}}
  %b = tile.local_load %buf[%s] : memref<2x16x16xf16, #gpu.address_space<workgroup>> -> tensor<16x32xf16>
  return
}

// -----

func.func @async_copy_rank(%p: !tile.ptr<f16>, %buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %i: i32) {
  // expected-error @+1 {{needs one offset, extent and stride per dimension of the 2-D block}}
  tile.async_copy %p[%i] shape [%i] strides [%i] into %buf[%i] : !tile.ptr<f16>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_copy_type(%p: !tile.ptr<f32>, %buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %i: i32) {
  // expected-error @+1 {{a slot of 'memref<2x16x16xf16, #gpu.address_space<workgroup>>' does not hold a 'tensor<16x16xf32>'}}
  tile.async_copy %p[%i, %i] shape [%i, %i] strides [%i, %i] into %buf[%i] : !tile.ptr<f32>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @inline_asm_constraints(%a: tensor<64xf32>) {
  // expected-error @+1 {{constraints "=v" must give 1 output(s) ("=...") and then 1 input(s)}}
  %m = tile.elementwise_inline_asm "v_mov_b32 $0, $1" "=v" %a : (tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @inline_asm_no_output(%a: tensor<64xf32>) {
  // expected-error @+1 {{if an operand is non-scalar, then there must be at least one non-scalar result}}
  tile.elementwise_inline_asm "s_nop 0" "v" %a : (tensor<64xf32>) -> ()
  return
}

// -----

func.func @inline_asm_shapes(%a: tensor<64xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %m = tile.elementwise_inline_asm "v_mov_b32 $0, $1" "=v,v" %a : (tensor<64xf32>) -> tensor<32xf32>
  return
}

// -----

func.func @inline_asm_clobber_first(%a: tensor<64xf32>) {
  // expected-error @+1 {{constraints "=v,~{s0},v" must list clobbers ("~{...}") last}}
  %m = tile.elementwise_inline_asm "v_mov_b32 $0, $1" "=v,~{s0},v" %a : (tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @inline_asm_pack_constraints(%a: tensor<64xf16>) {
  // expected-error @+1 {{constraints "=v,v" must give 2 output(s) ("=...") and then 2 input(s) for pack 4}}
  %m = tile.elementwise_inline_asm "v_mov_b32 $0, $1" "=v,v" %a {pack = 4 : i32} : (tensor<64xf16>) -> tensor<64xf16>
  return
}

// -----

func.func @inline_asm_pack_power_of_two(%a: tensor<64xf32>) {
  // expected-error @+1 {{pack 3 must be a power of two}}
  %m = tile.elementwise_inline_asm "v_mov_b32 $0, $1" "=v,v,v,v,v,v" %a {pack = 3 : i32} : (tensor<64xf32>) -> tensor<64xf32>
  return
}

// -----

func.func @map_elementwise_arguments(%a: tensor<64xf32>) {
  // expected-error @+1 {{body must take 2 scalars (2 per operand), got 1}}
  %r = tile.map_elementwise(%a) pack = 2 : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%e: f32):
    tile.map_elementwise.return %e, %e : f32, f32
  }
  return
}

// -----

func.func @map_elementwise_argument_type(%a: tensor<64xf32>) {
  // expected-error @+1 {{body argument 0 must be 'f32', the element type of operand 0}}
  %r = tile.map_elementwise(%a) pack = 1 : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%e: i32):
    %f = arith.sitofp %e : i32 to f32
    tile.map_elementwise.return %f : f32
  }
  return
}

// -----

func.func @map_elementwise_results(%a: tensor<64xf32>) {
  %r = tile.map_elementwise(%a) pack = 1 : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%e: f32):
    // expected-error @+1 {{must return 1 scalars (1 per result), got 2}}
    tile.map_elementwise.return %e, %e : f32, f32
  }
  return
}

// -----

func.func @map_elementwise_result_type(%a: tensor<64xf32>) {
  %r = tile.map_elementwise(%a) pack = 1 : (tensor<64xf32>) -> tensor<64xi32> {
  ^bb0(%e: f32):
    // expected-error @+1 {{value 0 must be 'i32', the element type of result 0}}
    tile.map_elementwise.return %e : f32
  }
  return
}

// -----

func.func @map_elementwise_pointers(%p: tensor<64x!tile.ptr<f32>>) {
  // expected-error @+1 {{maps numbers, not pointers}}
  %r = tile.map_elementwise(%p) pack = 1 : (tensor<64x!tile.ptr<f32>>) -> tensor<64x!tile.ptr<f32>> {
  ^bb0(%e: !tile.ptr<f32>):
    tile.map_elementwise.return %e : !tile.ptr<f32>
  }
  return
}

// -----

func.func @map_elementwise_shapes(%a: tensor<64xf32>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %r = tile.map_elementwise(%a) pack = 1 : (tensor<64xf32>) -> tensor<32xf32> {
  ^bb0(%e: f32):
    tile.map_elementwise.return %e : f32
  }
  return
}

// -----

func.func @int_to_ptr_narrow(%a: i32) {
  // expected-error @+1 {{addresses are 64-bit integers, not 'i32'}}
  %p = tile.int_to_ptr %a : i32 -> !tile.ptr<f32>
  return
}

// -----

func.func @ptr_to_int_narrow(%p: tensor<16x!tile.ptr<f32>>) {
  // expected-error @+1 {{addresses are 64-bit integers, not 'tensor<16xi32>'}}
  %a = tile.ptr_to_int %p : tensor<16x!tile.ptr<f32>> -> tensor<16xi32>
  return
}

// -----

func.func @int_to_ptr_shape(%a: tensor<16xi64>) {
  // expected-error @+1 {{all non-scalar operands/results must have the same shape and base type}}
  %p = tile.int_to_ptr %a : tensor<16xi64> -> tensor<32x!tile.ptr<f32>>
  return
}

// -----

func.func @async_load_type(%p: tensor<16x16x!tile.ptr<f32>>, %buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %i: i32) {
  // expected-error @+1 {{a slot of 'memref<2x16x16xf16, #gpu.address_space<workgroup>>' does not hold a 'tensor<16x16xf32>'}}
  tile.async_load %p into %buf[%i] : tensor<16x16x!tile.ptr<f32>>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @async_load_mask(%p: tensor<16x16x!tile.ptr<f16>>, %m: tensor<16x8xi1>, %buf: memref<2x16x16xf16, #gpu.address_space<workgroup>>, %i: i32) {
  // expected-error @+1 {{mask shape does not match the pointers}}
  tile.async_load %p, mask = %m : tensor<16x8xi1> into %buf[%i] : tensor<16x16x!tile.ptr<f16>>, memref<2x16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @atomic_sem(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{sem must be acquire, release, acq_rel or relaxed, got 'seq_cst'}}
  %o = tile.atomic_rmw <add> %p, %v {sem = "seq_cst"} : !tile.ptr<i32>, i32
  return
}

// -----

func.func @atomic_cas_scope(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{scope must be gpu, cta or sys, got 'agent'}}
  %o = tile.atomic_cas %p, %v, %v {scope = "agent"} : !tile.ptr<i32>, i32
  return
}

// -----

func.func @negative_groups() {
  // expected-error @+1 {{'tile.wait_groups' op attribute 'outstanding' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
  tile.wait_groups {outstanding = -1 : i32}
  return
}

// -----

func.func @unaligned_sub_block(%s: i32) {
  %buf = tile.local_alloc : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.local_load' op a sub-block of 'tensor<64x32xbf16>' at offsets [0, 16]: each extent must be a power of two, each offset a multiple of it, inside the slot of 'memref<1x64x64xbf16, #gpu.address_space<workgroup>>'}}
  %x = tile.local_load %buf[%s] {offsets = array<i64: 0, 16>} : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
  return
}
