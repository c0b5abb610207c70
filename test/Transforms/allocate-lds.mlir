// RUN: rocktile-opt %s -split-input-file --tile-allocate-lds="target=gfx950" | FileCheck %s

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Four warps along the axis, one f32 output: 16 bytes at offset 0.
// CHECK-LABEL: func.func @across_warps
// CHECK-SAME: tile.lds_bytes = 16
// CHECK: tile.reduce({{.*}}) axis = 0 {tile.lds_offset = 0 : i64}
func.func @across_warps(%x: tensor<1024xf32, #b>) {
  %s = tile.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>

// Reducing along lanes only needs no LDS.
// CHECK-LABEL: func.func @within_warps
// CHECK-SAME: tile.lds_bytes = 0
// CHECK-NOT: tile.lds_offset
func.func @within_warps(%x: tensor<4x256xf32, #b>) {
  %s = tile.reduce(%x) axis = 1 : (tensor<4x256xf32, #b>) -> tensor<4xf32, #tile.slice<dim = 1, parent = #b>> {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#c = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A conversion that moves elements between lanes stages the whole tile;
// one that only renames registers needs nothing.
// CHECK-LABEL: func.func @conversion
// CHECK-SAME: tile.lds_bytes = 4096
// CHECK: tile.convert_layout %{{.*}} {tile.lds_offset = 0 : i64} : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked1>
// CHECK: tile.convert_layout %{{.*}} : tensor<1024xf32, #blocked> -> tensor<1024xf32, #blocked>
func.func @conversion(%x: tensor<1024xf32, #b>) {
  %y = tile.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #c>
  %z = tile.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #b>
  return
}

// -----

#d = #tile.linear<register = [[1, 0], [2, 0], [0, 32], [0, 64], [0, 128], [32, 0], [64, 0], [128, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = [[16, 0], [0, 16]]>
#s = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]>

// A conversion of more than 64 KiB goes in pieces along coordinate bits
// both layouts hold in registers (rows 128 and 64 here): a 256x256 fp32
// accumulator takes 4 pieces of 64 KiB, not 256 KiB.
// CHECK-LABEL: func.func @large_conversion
// CHECK-SAME: tile.lds_bytes = 65536
func.func @large_conversion(%x: tensor<256x256xf32, #d>) {
  %y = tile.convert_layout %x : tensor<256x256xf32, #d> -> tensor<256x256xf32, #s>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// A gather's source goes through LDS whole: 16 x 64 f32.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: tile.lds_bytes = 4096
// CHECK: tile.gather {{.*}} {axis = 1 : i32, tile.lds_offset = 0 : i64}
func.func @gather(%x: tensor<16x64xf32, #b>, %i: tensor<16x8xi32, #b>) {
  %g = tile.gather %x[%i] {axis = 1 : i32} : tensor<16x64xf32, #b>, tensor<16x8xi32, #b> -> tensor<16x8xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// The slots of pipelined copies live to the end: each buffer gets its own
// bytes from 0 (4096 + 2048), and op scratch goes after them.
// CHECK-LABEL: func.func @slots_then_scratch
// CHECK-SAME: tile.lds_bytes = 6160
// CHECK: tile.local_alloc {tile.lds_offset = 0 : i64}
// CHECK: tile.local_alloc {tile.lds_offset = 4096 : i64}
// CHECK: tile.reduce({{.*}}) axis = 0 {tile.lds_offset = 6144 : i64}
func.func @slots_then_scratch(%x: tensor<1024xf32, #b>) {
  %a = tile.local_alloc : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  %c = tile.local_alloc : memref<2x16x32xbf16, #gpu.address_space<workgroup>>
  %s = tile.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#rows = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>

// Op scratch after the slots' last use (the pipelined loop, which waits for
// all its copies) takes their bytes; before it, the bytes after them.
// CHECK-LABEL: func.func @scratch_after_the_slots
// CHECK-SAME: tile.lds_bytes = 4112
// CHECK: tile.local_alloc {tile.lds_offset = 0 : i64}
// CHECK: tile.reduce({{.*}}) axis = 0 {tile.lds_offset = 4096 : i64}
// CHECK: tile.local_load
// CHECK: tile.reduce({{.*}}) axis = 0 {tile.lds_offset = 0 : i64}
func.func @scratch_after_the_slots(%x: tensor<1024xf32, #b>, %slot: i32) {
  %a = tile.local_alloc : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  %s = tile.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tile.reduce.return %t : f32
  }
  %l = tile.local_load %a[%slot] : memref<2x32x32xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #rows>
  %u = tile.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%p: f32, %q: f32):
    %t = arith.addf %p, %q : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#flat = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#rows = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [64, 1], warpsPerCTA = [1, 4], order = [0, 1]>

// A reshape into its source's layout reshaped (each lane keeps the elements
// it holds: 4 x 256 rows of the 1024 in order) needs no LDS; into another
// layout it goes through LDS.
// CHECK-LABEL: func.func @reshape_in_place
// CHECK-SAME: tile.lds_bytes = 4096
// CHECK: tile.reshape %{{.*}} : tensor<1024xf32, #{{.*}}> -> tensor<4x256xf32, #[[ROWS:blocked[0-9]*]]>
// CHECK: tile.reshape %{{.*}} {tile.lds_offset = 0 : i64} : tensor<1024xf32, #{{.*}}> -> tensor<4x256xf32,
func.func @reshape_in_place(%x: tensor<1024xf32, #flat>) {
  %a = tile.reshape %x : tensor<1024xf32, #flat> -> tensor<4x256xf32, #rows>
  %b = tile.reshape %x : tensor<1024xf32, #flat> -> tensor<4x256xf32, #cols>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A 16-element tile on 256 threads: the owners' old values go to the
// threads that hold copies through 64 bytes of LDS, when they are used.
// CHECK-LABEL: func.func @atomic_copies
// CHECK-SAME: tile.lds_bytes = 64
// CHECK: tile.atomic_rmw <add> {{.*}} {tile.lds_offset = 0 : i64}
// CHECK: tile.atomic_rmw <add>
// CHECK-NOT: tile.lds_offset
func.func @atomic_copies(%p: tensor<16x!tile.ptr<i32>, #b>, %v: tensor<16xi32, #b>) -> tensor<16xi32, #b> {
  %old = tile.atomic_rmw <add> %p, %v : tensor<16x!tile.ptr<i32>, #b>, tensor<16xi32, #b>
  %unused = tile.atomic_rmw <add> %p, %v : tensor<16x!tile.ptr<i32>, #b>, tensor<16xi32, #b>
  return %old : tensor<16xi32, #b>
}
