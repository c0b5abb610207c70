// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=4" | FileCheck %s --check-prefix=GFX950
// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx1250 num-warps=4" | FileCheck %s --check-prefix=GFX1250

// 16-byte aligned f32 accesses: 4 elements per lane, a wave of lanes, then warps.
// GFX950: #[[B:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX1250: #[[B:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @aligned
// GFX950-SAME: tile.num_warps = 4
// GFX950: tile.make_range {{.*}} : tensor<1024xi32, #[[B]]>
// GFX950: tile.load {{.*}} -> tensor<1024xf32, #[[B]]>
func.func @aligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %ns = tile.splat %n : i32 -> tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %q, mask = %m : tensor<1024xi1> : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %q, %v, mask = %m : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>, tensor<1024xi1>
  return
}

// -----

// The tutorial GEMM's offsets stay 4-wide: `(base + arange) % M` for M % 16
// == 0 is contiguous, `offs * 1` (a unit stride) is `offs`, and the mask
// `offs < K - k` with K % 16 == 0 is constant over each run of 16.
// GFX950: #[[B:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @wrapped_offsets
// GFX950: tile.load {{.*}} -> tensor<256xf32, #[[B]]>
func.func @wrapped_offsets(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %m: i32 {tile.divisibility = 16 : i32},
                           %k: i32 {tile.divisibility = 16 : i32}, %base: i32 {tile.divisibility = 16 : i32}) {
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %b = tile.splat %base : i32 -> tensor<256xi32>
  %o = arith.addi %b, %r : tensor<256xi32>
  %ms = tile.splat %m : i32 -> tensor<256xi32>
  %w = arith.remsi %o, %ms : tensor<256xi32>
  %ones = tile.splat %c1 : i32 -> tensor<256xi32>
  %s = arith.muli %w, %ones : tensor<256xi32>
  %left = arith.subi %k, %c64 : i32
  %ls = tile.splat %left : i32 -> tensor<256xi32>
  %mask = arith.cmpi slt, %r, %ls : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %p, %s : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %q, mask = %mask : tensor<256xi1> : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  tile.store %q, %v : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// Without M % 16 == 0 the wrapped offsets may jump inside a run: one
// element per lane.
// GFX950: #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @wrapped_unaligned
func.func @wrapped_unaligned(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %m: i32) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %ms = tile.splat %m : i32 -> tensor<256xi32>
  %w = arith.remsi %r, %ms : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %p, %w : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %q : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  tile.store %q, %v : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// Unknown alignment: one element per lane.
// GFX950: #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @unaligned
func.func @unaligned(%x: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %p, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %q : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  tile.store %q, %v : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  return
}

// -----

// 2-D: lanes fill the fast dimension first; the row reduction gets the slice
// layout, and the row offsets built from a range are recomputed in it.
// GFX950: #[[B2:.*]] = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
// GFX950: #[[S:.*]] = #tile.slice<dim = 1, parent = #[[B2]]>
// GFX950-LABEL: func.func @rows
// GFX950-NOT: tensor<32xi32, #blocked>
// GFX950: tile.make_range {{.*}} : tensor<32xi32, #[[S]]>
// GFX950: tile.reduce({{.*}}) axis = 1 : (tensor<32x64xf16, #[[B2]]>) -> tensor<32xf16, #[[S]]>
// GFX950: tile.store {{.*}} : tensor<32x!tile.ptr<f16>, #[[S]]>, tensor<32xf16, #[[S]]>
func.func @rows(%x: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f16>) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %c64 = arith.constant dense<64> : tensor<32x1xi32>
  %ro = arith.muli %re, %c64 : tensor<32x1xi32>
  %rb = tile.broadcast %ro : tensor<32x1xi32> -> tensor<32x64xi32>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<32x64xi32>
  %o = arith.addi %rb, %cb : tensor<32x64xi32>
  %p = tile.splat %x : !tile.ptr<f16> -> tensor<32x64x!tile.ptr<f16>>
  %q = tile.addptr %p, %o : tensor<32x64x!tile.ptr<f16>>, tensor<32x64xi32>
  %v = tile.load %q : tensor<32x64x!tile.ptr<f16>> -> tensor<32x64xf16>
  %s = tile.reduce(%v) axis = 1 : (tensor<32x64xf16>) -> tensor<32xf16> {
  ^bb0(%a: f16, %b: f16):
    %t = arith.addf %a, %b : f16
    tile.reduce.return %t : f16
  }
  %po = tile.splat %out : !tile.ptr<f16> -> tensor<32x!tile.ptr<f16>>
  %qo = tile.addptr %po, %r : tensor<32x!tile.ptr<f16>>, tensor<32xi32>
  tile.store %qo, %s : tensor<32x!tile.ptr<f16>>, tensor<32xf16>
  return
}

// -----

// Values carried through a loop keep one layout: init, iteration argument,
// yielded value and result.
// GFX950: #[[L:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @loop
// GFX950: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1024xf32, #[[L]]>, tensor<1024x!tile.ptr<f32>, #[[L]]>)
// GFX950: scf.yield %{{.*}}, %{{.*}} : tensor<1024xf32, #[[L]]>, tensor<1024x!tile.ptr<f32>, #[[L]]>
// GFX950: scf.if %{{.*}} -> (tensor<1024xf32, #[[L]]>)
func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32, %c: i1) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %p0 = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %zero = arith.constant dense<0.0> : tensor<1024xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<1024xf32>, tensor<1024x!tile.ptr<f32>>) : i32 {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
    %a = arith.addf %acc, %v : tensor<1024xf32>
    %step = arith.constant dense<1024> : tensor<1024xi32>
    %q = tile.addptr %p, %step : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
    scf.yield %a, %q : tensor<1024xf32>, tensor<1024x!tile.ptr<f32>>
  }
  %sel = scf.if %c -> (tensor<1024xf32>) {
    scf.yield %res#0 : tensor<1024xf32>
  } else {
    scf.yield %zero : tensor<1024xf32>
  }
  tile.store %p0, %sel : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// Where a user needs another layout than a value has and the value cannot
// be recomputed, a conversion is inserted: a row sum (slice) plus a loaded
// vector (blocked), and a reduction of a reduction.
// GFX950-LABEL: func.func @conversions
// GFX950: %[[S:.*]] = tile.reduce
// GFX950: %[[V:.*]] = tile.load
// GFX950: %[[VC:.*]] = tile.convert_layout %[[V]] : tensor<16xf32, #[[B1:.*]]> -> tensor<16xf32, #slice>
// GFX950: arith.addf %[[S]], %[[VC]] : tensor<16xf32, #slice>
// GFX950: %[[SC:.*]] = tile.convert_layout %[[S]] : tensor<16xf32, #slice> -> tensor<16xf32, #[[B1]]>
// GFX950: tile.reduce(%[[SC]]) axis = 0
func.func @conversions(%p: !tile.ptr<f32>, %f: f32) {
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
  %w = arith.addf %s, %v : tensor<16xf32>
  %t = tile.reduce(%s) axis = 0 : (tensor<16xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    %u = arith.addf %a, %b : f32
    tile.reduce.return %u : f32
  }
  tile.store %q, %w : tensor<16x!tile.ptr<f32>>, tensor<16xf32>
  tile.store %p, %t : !tile.ptr<f32>, f32
  return
}

// -----

// tl.multiple_of / tl.max_contiguous: an offset of unknown alignment that
// the kernel promises is contiguous and 16-aligned gets 4-wide accesses.
// GFX950: #[[B:.*]] = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// GFX950-LABEL: func.func @hinted
// GFX950: tile.assume {{.*}} : tensor<1024xi32, #[[B]]>
func.func @hinted(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %off: i32) {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32>
  %s = tile.splat %off : i32 -> tensor<1024xi32>
  %o = arith.addi %s, %r : tensor<1024xi32>
  %h = tile.assume %o {divisibility = array<i64: 16>, contiguity = array<i64: 1024>} : tensor<1024xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %q = tile.addptr %p, %h : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %q : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  tile.store %q, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// A reshape's result gets a layout of its own rank, whatever layout the
// users of a later reshape back prefer (they once leaked through: a 3-D
// tile with a 2-D layout).
// GFX950-LABEL: func.func @reshape_round_trip
// GFX950: tile.reshape {{.*}} -> tensor<2x4x8xf32, #[[R3:blocked[0-9]*]]>
// GFX950: tile.reshape {{.*}} : tensor<2x4x8xf32, #[[R3]]> -> tensor<8x8xf32,
// GFX1250-LABEL: func.func @reshape_round_trip
// GFX1250: tile.reshape {{.*}} -> tensor<2x4x8xf32, #blocked
func.func @reshape_round_trip(%p: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %q : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
  %x = tile.reshape %v : tensor<64xf32> -> tensor<8x8xf32>
  %a = tile.reshape %x : tensor<8x8xf32> -> tensor<2x4x8xf32>
  %b = tile.reshape %a : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %e = tile.expand_dims %b {axis = 1 : i32} : tensor<8x8xf32> -> tensor<8x1x8xf32>
  %w = tile.broadcast %e : tensor<8x1x8xf32> -> tensor<8x2x8xf32>
  %s = tile.reduce(%w) axis = 1 : (tensor<8x2x8xf32>) -> tensor<8x8xf32> {
  ^bb0(%l: f32, %m: f32):
    %t = arith.addf %l, %m : f32
    tile.reduce.return %t : f32
  }
  %flat = tile.reshape %s : tensor<8x8xf32> -> tensor<64xf32>
  tile.store %q, %flat : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// tile.dot: the instruction is chosen (16x16x32 on both targets) and the
// 32x32 tile split 2x2 over 4 warps; A and B are converted from their loads'
// blocked layout to the instruction's A and B layouts (warps along N hold
// copies of A, along M of B), and the product is computed transposed
// (Dᵀ = Bᵀ Aᵀ), so that each lane holds runs of D along N: the zero
// accumulator is built in that D layout, and the store takes the result as
// it is (its pointers recomputed in the D layout), with no conversion.
// GFX950-LABEL: func.func @dot
// GFX950: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #tile.linear<register = {{\[\[}}0, 1], [0, 2]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]], warp = {{\[\[}}0, 16], [16, 0]]>>
// GFX950: %[[A:.*]] = tile.convert_layout %{{.*}} -> tensor<32x32xbf16, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = {{\[\[}}0, 0], [16, 0]]>>
// GFX950: %[[B:.*]] = tile.convert_layout %{{.*}} -> tensor<32x32xbf16, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [4, 0]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = {{\[\[}}0, 16], [0, 0]]>>
// GFX950: %[[D:.*]] = tile.dot %[[A]], %[[B]], %[[Z]] {instr = "mfma_f32_16x16x32_bf16", transposed}
// GFX950-NOT: tile.convert_layout
// GFX950: tile.store %{{.*}}, %[[D]] : tensor<32x32x!tile.ptr<f32>, #tile.linear<register = {{\[\[}}0, 1], [0, 2]], {{.*}}>>, tensor<32x32xf32, #tile.linear<
// GFX1250-LABEL: func.func @dot
// GFX1250: arith.constant dense<0.000000e+00> : tensor<32x32xf32, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = {{\[\[}}0, 16], [16, 0]]>>
// GFX1250: tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed}
// GFX1250-NOT: tile.convert_layout
// GFX1250: tile.store
func.func @dot(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %pc: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ce = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %re, %c32 : tensor<32x1xi32>
  %rb = tile.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tile.broadcast %ce : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rb, %cb : tensor<32x32xi32>
  %sa = tile.splat %pa : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %pA = tile.addptr %sa, %off : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %a = tile.load %pA : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
  %sb = tile.splat %pb : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %pB = tile.addptr %sb, %off : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %b = tile.load %pB : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %d = tile.dot %a, %b, %z : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  %sc = tile.splat %pc : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %pC = tile.addptr %sc, %off : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %pC, %d : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}

// -----

// The kernel's tile.matrix_instr_nonkdim = 32 (Triton's option): gfx950 takes
// its 32x32x16 MFMA; gfx1250 has no 32x32 WMMA and keeps 16x16x32.
// GFX950-LABEL: func.func @dot_nonkdim_32
// GFX950: tile.dot {{.*}} {instr = "mfma_f32_32x32x16_bf16", transposed}
// GFX1250-LABEL: func.func @dot_nonkdim_32
// GFX1250: tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed}
func.func @dot_nonkdim_32(%a: bf16, %b: bf16, %pc: !tile.ptr<f32>) attributes {tile.matrix_instr_nonkdim = 32 : i32} {
  %ta = tile.splat %a : bf16 -> tensor<64x32xbf16>
  %tb = tile.splat %b : bf16 -> tensor<32x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %ta, %tb, %z : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
  %sc = tile.splat %pc : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %sc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// K below every instruction's k (16 for WMMA 16x16x32; on gfx950 the 32x32x16
// MFMA has k = 16 but 32 does not divide M = N = 16): A and B are padded with
// zeros along K (element k goes to 2k, zeros between) before the dot.
// GFX950-LABEL: func.func @short_k
// GFX950: tile.reshape {{.*}} -> tensor<16x32xbf16
// GFX950: tile.reshape {{.*}} -> tensor<32x16xbf16
// GFX950: tile.dot {{.*}} {instr = "mfma_f32_16x16x32_bf16", transposed} : tensor<16x32xbf16, {{.*}}>, tensor<32x16xbf16, {{.*}}>
// GFX1250-LABEL: func.func @short_k
// GFX1250: tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed} : tensor<16x32xbf16, {{.*}}>, tensor<32x16xbf16, {{.*}}>
func.func @short_k(%a: bf16, %b: bf16, %pc: !tile.ptr<f32>) {
  %ta = tile.splat %a : bf16 -> tensor<16x16xbf16>
  %tb = tile.splat %b : bf16 -> tensor<16x16xbf16>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %d = tile.dot %ta, %tb, %z : tensor<16x16xbf16>, tensor<16x16xbf16> -> tensor<16x16xf32>
  %sc = tile.splat %pc : !tile.ptr<f32> -> tensor<16x16x!tile.ptr<f32>>
  tile.store %sc, %d : tensor<16x16x!tile.ptr<f32>>, tensor<16x16xf32>
  return
}

// -----

// Chained dots (attention's P·V): the first dot's result, cast to bf16, is
// the second's A in the registers that hold it, with no conversion. Both are
// computed transposed (Dᵀ = Bᵀ Aᵀ puts D's lanes along M, as A's are) with
// all warps along M. On gfx950 the accumulator's N bits sit where the
// 16x16x32 MFMA reads K bits 4, 8 and 16 in another order, so the second dot
// renames K (B is read in the same order); on gfx1250 they line up as they are.
// Each warp has 16 rows, too few for gfx950's 32x32 MFMA.
// GFX950-LABEL: func.func @chained_dots
// GFX950: %[[S:.*]] = tile.dot {{.*}} {instr = "mfma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32}
// GFX950: %[[P:.*]] = arith.truncf %[[S]] : tensor<64x32xf32, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 16]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]], warp = {{\[\[}}16, 0], [32, 0]]>>
// GFX950-NEXT: tile.dot %[[P]], {{.*}} {instr = "mfma_f32_16x16x32_bf16", k_order = array<i64: 1, 2, 16, 4, 8>, transposed, warps_n = 1 : i32}
// GFX950-SAME: tensor<32x32xbf16, #tile.linear<register = {{\[\[}}1, 0], [2, 0], [16, 0], [0, 16]], lane = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]
// GFX1250-LABEL: func.func @chained_dots
// GFX1250: %[[S:.*]] = tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32}
// GFX1250: %[[P:.*]] = arith.truncf %[[S]]
// GFX1250-NEXT: tile.dot %[[P]], {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32}
func.func @chained_dots(%q: bf16, %k: bf16, %v: bf16, %po: !tile.ptr<f32>) {
  %tq = tile.splat %q : bf16 -> tensor<64x32xbf16>
  %tk = tile.splat %k : bf16 -> tensor<32x32xbf16>
  %tv = tile.splat %v : bf16 -> tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %s = tile.dot %tq, %tk, %z : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
  %p = arith.truncf %s : tensor<64x32xf32> to tensor<64x32xbf16>
  %o = tile.dot %p, %tv, %z : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
  %so = tile.splat %po : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  tile.store %so, %o : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>
  return
}

// -----

// Chained dots of 16 rows (decoding attention) on 4 warps: one instruction's
// rows each would leave the warps computing the same rows, so the warps
// split N, each dot as any other (before: every warp did all the work, and
// lean attention 16x64x128's K loop took 220 non-matrix instructions per
// 16384 MACs on gfx950 where Triton 3.9 takes 129; now 95).
// GFX950-LABEL: func.func @chained_dots_of_16_rows
// GFX950: tile.dot {{.*}} {instr = "mfma_f32_16x16x32_bf16", transposed} {{.*}} -> tensor<16x64xf32, #tile.linear<{{.*}}warp = {{\[\[}}0, 16], [0, 32]]>>
// GFX950-NOT: warps_n = 1
// GFX950: tile.dot {{.*}} -> tensor<16x128xf32, #tile.linear<{{.*}}warp = {{\[\[}}0, 16], [0, 32]]>>
// GFX1250-LABEL: func.func @chained_dots_of_16_rows
// GFX1250-NOT: warps_n = 1
// GFX1250: tile.dot {{.*}} -> tensor<16x128xf32, #tile.linear<{{.*}}warp = {{\[\[}}0, 16], [0, 32]]>>
func.func @chained_dots_of_16_rows(%q: bf16, %k: bf16, %v: bf16, %po: !tile.ptr<f32>) {
  %tq = tile.splat %q : bf16 -> tensor<16x128xbf16>
  %tk = tile.splat %k : bf16 -> tensor<128x64xbf16>
  %tv = tile.splat %v : bf16 -> tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<16x64xf32>
  %zo = arith.constant dense<0.0> : tensor<16x128xf32>
  %s = tile.dot %tq, %tk, %z : tensor<16x128xbf16>, tensor<128x64xbf16> -> tensor<16x64xf32>
  %p = arith.truncf %s : tensor<16x64xf32> to tensor<16x64xbf16>
  %o = tile.dot %p, %tv, %zo : tensor<16x64xbf16>, tensor<64x128xbf16> -> tensor<16x128xf32>
  %so = tile.splat %po : !tile.ptr<f32> -> tensor<16x128x!tile.ptr<f32>>
  tile.store %so, %o : tensor<16x128x!tile.ptr<f32>>, tensor<16x128xf32>
  return
}

// -----

// With 32 rows per warp, chained dots take gfx950's 32x32 MFMA (gfx1250's
// WMMA are all 16x16), both of them, the first's result still the second's A
// in its registers.
// GFX950-LABEL: func.func @chained_dots_of_32_rows_per_warp
// GFX950: %[[S:.*]] = tile.dot {{.*}} {instr = "mfma_f32_32x32x16_bf16", transposed, warps_n = 1 : i32}
// GFX950: %[[P:.*]] = arith.truncf %[[S]]
// GFX950-NOT: tile.convert_layout
// GFX950: tile.dot %[[P]], {{.*}} {instr = "mfma_f32_32x32x16_bf16", {{.*}}transposed, warps_n = 1 : i32}
// GFX1250-LABEL: func.func @chained_dots_of_32_rows_per_warp
// GFX1250: tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32}
// GFX1250: tile.dot {{.*}} {instr = "wmma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32}
func.func @chained_dots_of_32_rows_per_warp(%q: bf16, %k: bf16, %v: bf16, %po: !tile.ptr<f32>) {
  %tq = tile.splat %q : bf16 -> tensor<128x32xbf16>
  %tk = tile.splat %k : bf16 -> tensor<32x64xbf16>
  %tv = tile.splat %v : bf16 -> tensor<64x32xbf16>
  %z = arith.constant dense<0.0> : tensor<128x64xf32>
  %zo = arith.constant dense<0.0> : tensor<128x32xf32>
  %s = tile.dot %tq, %tk, %z : tensor<128x32xbf16>, tensor<32x64xbf16> -> tensor<128x64xf32>
  %p = arith.truncf %s : tensor<128x64xf32> to tensor<128x64xbf16>
  %o = tile.dot %p, %tv, %zo : tensor<128x64xbf16>, tensor<64x32xbf16> -> tensor<128x32xf32>
  %so = tile.splat %po : !tile.ptr<f32> -> tensor<128x32x!tile.ptr<f32>>
  tile.store %so, %o : tensor<128x32x!tile.ptr<f32>>, tensor<128x32xf32>
  return
}

// -----

// A row maximum of a dot's result stays in the D layout: the reduction's
// result is a slice of D collapsed along N, and broadcasting it back for the
// subtraction only renames registers; the store takes the difference as it
// is (D's lanes hold runs along N).
// GFX950: #slice = #tile.slice<dim = 1, parent = #tile.linear<register = {{\[\[}}32, 0]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]], warp = {{\[\[}}0, 0], [16, 0]]>>
// GFX950-LABEL: func.func @row_max_of_dot
// GFX950-NOT: tile.convert_layout
// GFX950: tile.reduce({{.*}}) axis = 1 : (tensor<64x32xf32, #tile.linear<{{.*}}>>) -> tensor<64xf32, #slice>
// GFX950: tile.broadcast {{.*}} : tensor<64x1xf32, #tile.linear<register = {{\[\[}}32, 0]], lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]], warp = {{\[\[}}0, 0], [16, 0]]>> -> tensor<64x32xf32, #tile.linear<{{.*}}>>
// GFX950: arith.subf
// GFX950-NOT: tile.convert_layout
// GFX950: tile.store
func.func @row_max_of_dot(%q: bf16, %k: bf16, %po: !tile.ptr<f32>) {
  %tq = tile.splat %q : bf16 -> tensor<64x32xbf16>
  %tk = tile.splat %k : bf16 -> tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<64x32xf32>
  %s = tile.dot %tq, %tk, %z : tensor<64x32xbf16>, tensor<32x32xbf16> -> tensor<64x32xf32>
  %m = tile.reduce(%s) axis = 1 : (tensor<64x32xf32>) -> tensor<64xf32> {
  ^bb0(%l: f32, %r: f32):
    %t = arith.maxnumf %l, %r : f32
    tile.reduce.return %t : f32
  }
  %me = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %me : tensor<64x1xf32> -> tensor<64x32xf32>
  %d = arith.subf %s, %mb : tensor<64x32xf32>
  %so = tile.splat %po : !tile.ptr<f32> -> tensor<64x32x!tile.ptr<f32>>
  tile.store %so, %d : tensor<64x32x!tile.ptr<f32>>, tensor<64x32xf32>
  return
}

// -----

// A reshape's result takes its source's layout reshaped, so that every lane
// keeps the elements it holds (tl.sort and the scans reshape into many such
// shapes), not the rank's default, which, shaped for the 64x64 tile, would
// put 4 warps along a dimension of 2 and hold every element twice.
// GFX950: #[[OWN:blocked[0-9]*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [2, 2], order = [1, 0]>
// GFX950-LABEL: func.func @reshape_own_shape
// GFX950: tile.reshape {{.*}} -> tensor<2x128xf32, #[[OWN]]>
func.func @reshape_own_shape(%p: !tile.ptr<f32>, %f: f32) {
  %big = tile.splat %f : f32 -> tensor<64x64xf32>
  %r = tile.make_range {start = 0 : i32, end = 256 : i32} : tensor<256xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %q = tile.addptr %ps, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %q : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %x = tile.reshape %v : tensor<256xf32> -> tensor<2x128xf32>
  %y = arith.addf %x, %x : tensor<2x128xf32>
  %flat = tile.reshape %y : tensor<2x128xf32> -> tensor<256xf32>
  tile.store %q, %flat : tensor<256x!tile.ptr<f32>>, tensor<256xf32>
  %b = tile.reduce(%big) axis = 0 : (tensor<64x64xf32>) -> tensor<64xf32> {
  ^bb0(%l: f32, %m: f32):
    %t = arith.addf %l, %m : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

// Values in blocks times their block's scale (as tl.dot_scaled computes them):
// the reshape is free and the 64x2 scales, not their 64x2x32 broadcast, are
// converted to the layout the product needs.
// GFX950-LABEL: func.func @convert_before_broadcast
// GFX950: tile.reshape {{.*}} : tensor<64x64xf32, #{{.*}}> -> tensor<64x2x32xf32, #[[BLOCKS:.*]]>
// GFX950-NOT: tile.convert_layout {{.*}} tensor<64x2x32xf32
// GFX950: tile.convert_layout {{.*}} : tensor<64x2xf32, {{.*}}> -> tensor<64x2xf32,
// GFX950-NOT: tile.convert_layout {{.*}} tensor<64x2x32xf32
// GFX950: arith.mulf {{.*}} : tensor<64x2x32xf32, #[[BLOCKS]]>
func.func @convert_before_broadcast(%p: !tile.ptr<f32>, %s: !tile.ptr<f32>) {
  %r = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %c = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %rm = arith.muli %re, %c64 : tensor<64x1xi32>
  %ce = tile.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rb = tile.broadcast %rm : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %q = tile.addptr %ps, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %q : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %blocks = tile.reshape %v : tensor<64x64xf32> -> tensor<64x2x32xf32>
  %r2 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32>
  %ss = tile.splat %s : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %sq = tile.addptr %ss, %r2 : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %sv = tile.load %sq : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %scale = tile.reshape %sv : tensor<128xf32> -> tensor<64x2xf32>
  %se = tile.expand_dims %scale {axis = 2 : i32} : tensor<64x2xf32> -> tensor<64x2x1xf32>
  %sb = tile.broadcast %se : tensor<64x2x1xf32> -> tensor<64x2x32xf32>
  %m = arith.mulf %blocks, %sb : tensor<64x2x32xf32>
  %flat = tile.reshape %m : tensor<64x2x32xf32> -> tensor<64x64xf32>
  tile.store %q, %flat : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A tile loaded before two loops that each multiply by it (the pipeliner's
// main loop and its tail, attention's Q): its conversion to the dot operand
// layout moves out of the loops, and the second loop takes the first's, so
// that only the converted tile stays live across the first loop.
// GFX950-LABEL: func.func @operand_of_two_loops
// GFX950: %[[A:.*]] = tile.convert_layout
// GFX950-NEXT: scf.for
// GFX950: tile.dot %[[A]],
// GFX950-NOT: tile.convert_layout %[[A]]
// GFX950: scf.for
// GFX950: tile.dot %[[A]],
// GFX1250-LABEL: func.func @operand_of_two_loops
// GFX1250: %[[A:.*]] = tile.convert_layout
// GFX1250-NEXT: scf.for
// GFX1250: tile.dot %[[A]],
// GFX1250: scf.for
// GFX1250: tile.dot %[[A]],
func.func @operand_of_two_loops(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %pc: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %re = tile.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %ce = tile.expand_dims %r {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<32x1xi32>
  %rows = arith.muli %re, %c32 : tensor<32x1xi32>
  %rb = tile.broadcast %rows : tensor<32x1xi32> -> tensor<32x32xi32>
  %cb = tile.broadcast %ce : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = arith.addi %rb, %cb : tensor<32x32xi32>
  %sa = tile.splat %pa : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %pA = tile.addptr %sa, %off : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %a = tile.load %pA : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
  %sb = tile.splat %pb : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>>
  %pB = tile.addptr %sb, %off : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %first = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<32x32xf32>) : i32 {
    %b = tile.load %pB : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
    %d = tile.dot %a, %b, %acc : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  %second = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %first) -> (tensor<32x32xf32>) : i32 {
    %b = tile.load %pB : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
    %d = tile.dot %a, %b, %acc : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
    scf.yield %d : tensor<32x32xf32>
  }
  %sc = tile.splat %pc : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>>
  %pC = tile.addptr %sc, %off : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xi32>
  tile.store %pC, %second : tensor<32x32x!tile.ptr<f32>>, tensor<32x32xf32>
  return
}
