// RUN: rocktile-opt %s -split-input-file --tile-insert-barriers | FileCheck %s

// A block written and read back: one barrier between the store and the
// read of the slot another warp wrote.

#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#cols = #tile.blocked<sizePerThread = [8, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func @store_then_load
// CHECK: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @store_then_load(%t: tensor<64x32xbf16, #rows>) -> tensor<64x32xbf16, #cols> {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  tile.local_store %t, %buf[%c0] : tensor<64x32xbf16, #rows>, memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  %r = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #cols>
  return %r : tensor<64x32xbf16, #cols>
}

// -----

// Reads of one buffer and writes of constant slots of a ring that no
// access has touched since: no barrier.

#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @apart
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @apart(%t: tensor<64x32xbf16, #rows>) -> tensor<64x32xbf16, #rows> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %ring = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  tile.local_store %t, %ring[%c0] : tensor<64x32xbf16, #rows>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  tile.local_store %t, %ring[%c1] : tensor<64x32xbf16, #rows>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  %one = tile.local_alloc : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  %a = tile.local_load %one[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
  %b = tile.local_load %one[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
  %s = arith.addf %a, %b : tensor<64x32xbf16, #rows>
  return %s : tensor<64x32xbf16, #rows>
}

// -----

// A loop that stores and reads a block every iteration: a barrier before
// the read (the store's rows are other warps'), and one before the store
// (the previous iteration's reads, over the back edge). A barrier the
// author placed counts: the second loop gets only the one it lacks.

#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK: scf.for
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK-NOT: tile.barrier
// CHECK: return
func.func @loop(%t: tensor<64x32xbf16, #rows>, %n: i32) -> tensor<64x32xbf16, #rows> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<64x32xbf16, #rows>) : i32 {
    tile.local_store %acc, %buf[%c0] : tensor<64x32xbf16, #rows>, memref<1x64x32xbf16, #gpu.address_space<workgroup>>
    %x = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
    scf.yield %x : tensor<64x32xbf16, #rows>
  }
  %r2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %r) -> (tensor<64x32xbf16, #rows>) : i32 {
    tile.barrier
    tile.local_store %acc, %buf[%c0] : tensor<64x32xbf16, #rows>, memref<1x64x32xbf16, #gpu.address_space<workgroup>>
    %x = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
    scf.yield %x : tensor<64x32xbf16, #rows>
  }
  return %r2 : tensor<64x32xbf16, #rows>
}

// -----

// A ring of copies: a copy into a slot the loop computes may overwrite the
// block the previous iteration read, and a read follows copies other warps
// made of the slot it reads. A branch that stores on one side only: the
// read after it needs the barrier.

#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>

// CHECK-LABEL: func.func @ring
// CHECK: tile.async_copy
// CHECK-NOT: tile.barrier
// CHECK: tile.async_copy
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: arith.remui
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.async_copy
// CHECK-NEXT: tile.wait_tensor_copies
// CHECK-NEXT: arith.remui
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
// CHECK: scf.if
// CHECK-NEXT: tile.local_store
// CHECK: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.local_load
func.func @ring(%p: !tile.ptr<bf16>, %n: i32, %c: i1, %t: tensor<64x32xbf16, #rows>) -> tensor<64x32xbf16, #rows> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c32 = arith.constant 32 : i32
  %c64 = arith.constant 64 : i32
  %ring = tile.local_alloc : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_copy %p[%c0, %c0] shape [%c64, %n] strides [%n, %c1] into %ring[%c0] : !tile.ptr<bf16>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_copy %p[%c0, %c32] shape [%c64, %n] strides [%n, %c1] into %ring[%c1] : !tile.ptr<bf16>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<64x32xbf16, #rows>) : i32 {
    %ahead = arith.addi %i, %c2 : i32
    %s = arith.remui %ahead, %c3 : i32
    tile.async_copy %p[%c0, %ahead] shape [%c64, %n] strides [%n, %c1] into %ring[%s] : !tile.ptr<bf16>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
    tile.wait_tensor_copies {outstanding = 2 : i32}
    %now = arith.remui %i, %c3 : i32
    %x = tile.local_load %ring[%now] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
    %y = arith.addf %acc, %x : tensor<64x32xbf16, #rows>
    scf.yield %y : tensor<64x32xbf16, #rows>
  }
  %buf = tile.local_alloc : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  scf.if %c {
    tile.local_store %r, %buf[%c0] : tensor<64x32xbf16, #rows>, memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  }
  %z = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
  return %z : tensor<64x32xbf16, #rows>
}

// -----

// A kernel of the tile language (tiles without layouts) is left alone:
// its copies' waits (tile.async_wait) are the compiler's own.

// CHECK-LABEL: func.func @tile_language
// CHECK-NOT: tile.barrier
func.func @tile_language(%t: tensor<64x32xbf16>) -> tensor<64x32xbf16> {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  tile.local_store %t, %buf[%c0] : tensor<64x32xbf16>, memref<1x64x32xbf16, #gpu.address_space<workgroup>>
  %r = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
  return %r : tensor<64x32xbf16>
}
