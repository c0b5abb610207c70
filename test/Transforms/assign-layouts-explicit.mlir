// RUN: rocktile-opt %s -split-input-file --tile-assign-layouts="target=gfx950 num-warps=2" | FileCheck %s

// A kernel whose tiles all carry layouts (the explicit level, rocktile.gluon)
// keeps them as written: two elements per lane, where layout assignment
// would give four (16-byte accesses), and a row layout its author chose.

#b1 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>
#b2 = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-DAG: #[[B1:.*]] = #tile.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]>
// CHECK-DAG: #[[B2:.*]] = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [2, 1], order = [1, 0]>
// CHECK-DAG: #[[S:.*]] = #tile.slice<dim = 1, parent = #[[B2]]>
// CHECK-LABEL: func.func @kept
// CHECK-SAME: tile.num_warps = 2
// CHECK: tile.make_range {{.*}} : tensor<256xi32, #[[B1]]>
// CHECK: tile.load {{.*}} -> tensor<256xf32, #[[B1]]>
// CHECK: tile.convert_layout {{.*}} -> tensor<256xf32, #tile.linear<register = {{\[\[}}128]], lane = {{\[\[}}1], [2], [4], [8], [16], [32]], warp = {{\[\[}}64]]>>
// CHECK: tile.convert_layout {{.*}} -> tensor<256xf32, #[[B1]]>
// CHECK: tile.load {{.*}} -> tensor<4x64xf32, #[[B2]]>
// CHECK: tile.reduce{{.*}} -> tensor<4xf32, #[[S]]>
func.func @kept(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b1>
  %q = tile.addptr %p, %r : tensor<256x!tile.ptr<f32>, #b1>, tensor<256xi32, #b1>
  %v = tile.load %q : tensor<256x!tile.ptr<f32>, #b1> -> tensor<256xf32, #b1>
  %back = tile.convert_layout %v : tensor<256xf32, #b1> -> tensor<256xf32, #tile.linear<register = [[128]], lane = [[1], [2], [4], [8], [16], [32]], warp = [[64]]>>
  %v2 = tile.convert_layout %back : tensor<256xf32, #tile.linear<register = [[128]], lane = [[1], [2], [4], [8], [16], [32]], warp = [[64]]>> -> tensor<256xf32, #b1>
  %f = tile.splat %x : !tile.ptr<f32> -> tensor<4x64x!tile.ptr<f32>, #b2>
  %w = tile.load %f : tensor<4x64x!tile.ptr<f32>, #b2> -> tensor<4x64xf32, #b2>
  %s = tile.reduce(%w) axis = 1 : (tensor<4x64xf32, #b2>) -> tensor<4xf32, #tile.slice<dim = 1, parent = #b2>> {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tile.reduce.return %c : f32
  }
  %py = tile.splat %y : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b1>
  %qy = tile.addptr %py, %r : tensor<256x!tile.ptr<f32>, #b1>, tensor<256xi32, #b1>
  tile.store %qy, %v2 : tensor<256x!tile.ptr<f32>, #b1>, tensor<256xf32, #b1>
  return
}

// -----

// An async load into a swizzled block (Gluon's buffer_load_to_shared): the
// copy writes each wave's lanes' 16-byte runs in order, so the pointers
// the author laid out by rows are rebuilt in the layout that lands each
// run where the swizzle puts it. Splats and elementwise ops are rebuilt;
// what they start from is converted where it is defined (the offsets, at
// the function's start, not in the loop), and the row layout's copies,
// unused, are gone.

#blk = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [2, 1], order = [1, 0]>

// CHECK-LABEL: func.func @async_load_pointers
// CHECK: tile.convert_layout %arg1 : tensor<64x64xi32, #blocked> -> tensor<64x64xi32, #tile.linear<register = {{\[\[}}0, 1], [0, 2], [0, 4], [8, 0], [16, 0]], lane = {{\[\[}}0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32]], warp = {{\[\[}}32, 0]]>>
// CHECK-NOT: #blocked>
// CHECK: scf.for
// CHECK-NOT: #blocked>
// CHECK: tile.async_load
// CHECK-NOT: #blocked>
// CHECK: return
func.func @async_load_pointers(%a: !tile.ptr<bf16>, %offs: tensor<64x64xi32, #blk>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 1, maxPhase = 8, rowPitch = 0>} : memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  %base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x64x!tile.ptr<bf16>, #blk>
  scf.for %i = %c0 to %n step %c1 : i32 {
    %s = tile.splat %i : i32 -> tensor<64x64xi32, #blk>
    %o = arith.addi %offs, %s : tensor<64x64xi32, #blk>
    %p = tile.addptr %base, %o : tensor<64x64x!tile.ptr<bf16>, #blk>, tensor<64x64xi32, #blk>
    tile.async_load %p into %buf[%i] : tensor<64x64x!tile.ptr<bf16>, #blk>, memref<2x64x64xbf16, #gpu.address_space<workgroup>>
  }
  return
}
