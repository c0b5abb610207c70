// RUN: rocktile-opt %s -split-input-file --tile-lower-to-simt="target=gfx1250" | FileCheck %s
// What lowers differently on gfx1250 (wave32, WMMA); the rest is checked for
// gfx950 in lower-to-simt.mlir.

// A row-major B operand (N-contiguous) written to LDS as whole rows and read
// back with ds_load_tr16_b128: MLIR 22's amdgpu.transpose_load takes only
// gfx950's forms, so the read is rocdl's, on an LDS pointer formed from the
// view (the chain the emulator reads back as a view and an index).
// CHECK-LABEL: gpu.func @transposed_operand
// CHECK: gpu.barrier
// CHECK-COUNT-8: vector.store {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = memref.extract_aligned_pointer_as_index %[[VIEW:.*]] : memref<8192xbf16, #gpu.address_space<workgroup>> -> index
// CHECK: %[[ADDRESS:.*]] = arith.index_cast %[[FIRST]] : index to i64
// CHECK: %[[BASE:.*]] = llvm.inttoptr %[[ADDRESS]] : i64 to !llvm.ptr<3>
// CHECK: %[[PTR:.*]] = llvm.getelementptr inbounds|nuw %[[BASE]][%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i16
// CHECK: rocdl.ds.load.tr16.b128 %[[PTR]] : !llvm.ptr<3> -> vector<8xbf16>
// CHECK-COUNT-7: rocdl.ds.load.tr16.b128
// CHECK-NOT: vector.load
// CHECK-NOT: amdgpu.transpose_load
// CHECK: gpu.return
#rowsB = #tile.blocked<sizePerThread = [8, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#opB = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [0, 32], [0, 64]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]], warp = [[0, 0], [0, 16]]>
func.func @transposed_operand(%v: bf16, %out: !tile.ptr<bf16>) attributes {tile.lds_bytes = 16384 : i64, tile.num_warps = 4 : i32} {
  %a = tile.splat %v : bf16 -> tensor<64x128xbf16, #rowsB>
  %b = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<64x128xbf16, #rowsB> -> tensor<64x128xbf16, #opB>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<64x128x!tile.ptr<bf16>, #opB>
  tile.store %p, %b : tensor<64x128x!tile.ptr<bf16>, #opB>, tensor<64x128xbf16, #opB>
  return
}

// -----

// A block copied by the Tensor Data Mover: each of the 2 warps copies its 16
// rows with one tensor_load_to_lds of descriptor bits built field by field
// (not amdgpu.make_dma_descriptor, whose MLIR 22 lowering sets G1's
// early-timeout bit 21 whenever a workgroup mask is given and misplaces
// tile_dim3 at rank 4 and up): G1 word 0 is the element size alone (bf16:
// 1 << 16), word 4 the tile's rows, word 5 the row stride; G0 word 3 carries
// type 2 in bits 31:30. A block that crosses the tensor's edge is zeroed first
// (a copy drops what is outside; the crossing expected false, so that the
// zeroing lies off a loop's straight line); a negative offset copies row by row (a copy
// starts at its first element), waiting for each; the copy is waited for with
// a count of 0 and the lanes read it after a barrier.
// CHECK-LABEL: gpu.func @copied_block
// CHECK-NOT: amdgpu.make_dma_descriptor
// CHECK-DAG: %[[SIZE:.*]] = arith.constant 65536 : i32
// CHECK-DAG: %[[TYPE:.*]] = arith.constant -2147483648 : i32
// CHECK: gpu.barrier
// CHECK: %[[EDGE:.*]] = llvm.intr.expect %{{.*}}, %false : i1
// CHECK: scf.if %[[EDGE]]
// CHECK-COUNT-2: vector.store %{{.*}} : memref<1024xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %c0_i32 to %c16_i32 step %c1_i32
// CHECK: %[[ROW3:.*]] = arith.ori %{{.*}}, %[[TYPE]] : i32
// CHECK: %[[ROW1:.*]] = vector.from_elements %[[SIZE]], %{{.*}}, %{{.*}}, %{{.*}}, %c1_i32, %arg6, %c0_i32, %c0_i32 : vector<8xi32>
// CHECK: %[[ROW0:.*]] = vector.from_elements %c1_i32, %{{.*}}, %{{.*}}, %[[ROW3]] : vector<4xi32>
// CHECK: rocdl.tensor.load.to.lds.d2 %[[ROW0]], %[[ROW1]] cachepolicy 0 : vector<4xi32>, vector<8xi32>
// CHECK-NEXT: rocdl.s.wait.tensorcnt 0
// CHECK: } else {
// CHECK: %[[WORD3:.*]] = arith.ori %{{.*}}, %[[TYPE]] : i32
// CHECK: %[[G1:.*]] = vector.from_elements %[[SIZE]], %{{.*}}, %{{.*}}, %{{.*}}, %c16_i32, %arg6, %c0_i32, %c0_i32 : vector<8xi32>
// CHECK: %[[G0:.*]] = vector.from_elements %c1_i32, %{{.*}}, %{{.*}}, %[[WORD3]] : vector<4xi32>
// CHECK: rocdl.tensor.load.to.lds.d2 %[[G0]], %[[G1]] cachepolicy 0 : vector<4xi32>, vector<8xi32>
// CHECK: }
// CHECK-NEXT: rocdl.s.wait.tensorcnt 0
// CHECK-NEXT: gpu.barrier
// CHECK: vector.load %{{.*}} : memref<1024xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NOT: rocdl.tensor.load.to.lds
// CHECK: gpu.return
#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
func.func @copied_block(%base: !tile.ptr<bf16>, %out: !tile.ptr<bf16>, %row: i32, %col: i32, %m: i32, %k: i32,
                        %stride: i32) attributes {tile.lds_bytes = 2048 : i64, tile.num_warps = 2 : i32} {
  %c1 = arith.constant 1 : i32
  %b = tile.descriptor_load %base[%row, %col] shape [%m, %k] strides [%stride, %c1] {tile.lds_offset = 0 : i64}
      : !tile.ptr<bf16> -> tensor<32x32xbf16, #rows>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>, #rows>
  tile.store %p, %b : tensor<32x32x!tile.ptr<bf16>, #rows>, tensor<32x32xbf16, #rows>
  return
}

// -----

// The pipelined form: a copy into slot %slot of a 2-slot buffer starts at
// element %slot * 1024 of the buffer's view (2048 bytes per slot) and is not
// waited for there (but row by row, for a negative offset); the wait is tile.async_wait's: the wave's LDS reads,
// its copies but the count, and a bare barrier; the read of a slot adds its first element to the lane's
// offset once, and each read its constant to that.
// The slot index passes through readfirstlane, which LLVM's loop strength
// reduction cannot see through (see slotOf).
// CHECK-LABEL: gpu.func @pipelined_block
// CHECK: %[[VIEW:.*]] = memref.view %{{.*}}[%c0][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<2048xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[SLOT:.*]] = rocdl.readfirstlane %arg5 : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[SLOT]], %c1024_i32 : i32
// CHECK: rocdl.tensor.load.to.lds.d2
// CHECK: } else {
// CHECK: rocdl.tensor.load.to.lds.d2
// CHECK-NEXT: }
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK-NEXT: rocdl.s.wait.tensorcnt 2
// CHECK-NEXT: gpu.barrier {rocktile.barrier_after_waits}
// CHECK: %[[READ_SLOT:.*]] = rocdl.readfirstlane %arg5 : i32
// CHECK: %[[READ_FIRST:.*]] = arith.muli %[[READ_SLOT]], %c1024_i32 : i32
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[READ_FIRST]] : i32
// CHECK: arith.addi %[[AT]], %c512_i32 : i32
// CHECK: vector.load %[[VIEW]]
// CHECK: gpu.return
#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
func.func @pipelined_block(%base: !tile.ptr<bf16>, %out: !tile.ptr<bf16>, %row: i32, %m: i32, %stride: i32,
                           %slot: i32) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 2 : i32} {
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  tile.async_copy %base[%row, %row] shape [%m, %m] strides [%stride, %c1] into %buf[%slot]
      : !tile.ptr<bf16>, memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  tile.async_wait {outstanding = 2 : i32}
  %b = tile.local_load %buf[%slot] : memref<2x32x32xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #rows>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>, #rows>
  tile.store %p, %b : tensor<32x32x!tile.ptr<bf16>, #rows>, tensor<32x32xbf16, #rows>
  return
}

// -----

// A block read in WMMA's A layout (lanes down the rows, 16 bytes each): rows
// of 64 bytes would put lanes 4 rows apart in the same banks, so the copy
// pads each row (every 16 dwords) by 4 dwords: 32 x 40 elements in LDS, and
// G1 word 0 = 1 << 16 (bf16) | 1 << 20 (pad) | (log2(16) - 1) << 22 |
// (4 - 1) << 25 = 114360320.
// CHECK-LABEL: gpu.func @padded_block
// CHECK: memref.view %{{.*}} to memref<1280xbf16, #gpu.address_space<workgroup>>
// CHECK: vector.from_elements %c114360320_i32, %{{.*}}, %{{.*}}, %{{.*}}, %c16_i32, %arg4, %c0_i32, %c0_i32 : vector<8xi32>
// CHECK: vector.load %{{.*}} : memref<1280xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 16]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[16, 0]]>
func.func @padded_block(%base: !tile.ptr<bf16>, %out: !tile.ptr<bf16>, %row: i32, %m: i32, %stride: i32)
    attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 2 : i32} {
  %c1 = arith.constant 1 : i32
  %b = tile.descriptor_load %base[%row, %row] shape [%m, %m] strides [%stride, %c1] {tile.lds_offset = 0 : i64}
      : !tile.ptr<bf16> -> tensor<32x32xbf16, #opA>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>, #opA>
  tile.store %p, %b : tensor<32x32x!tile.ptr<bf16>, #opA>, tensor<32x32xbf16, #opA>
  return
}

// -----

// A block stored by the Tensor Data Mover: the lanes write it to LDS
// row-major and unpadded (the copy pads rows only when it loads), between
// barriers; each of the 2 warps copies its 16 rows out with one
// tensor_store_from_lds (offsets provably >= 0: no row-by-row path, and
// nothing is zeroed), of the same descriptor bits as a load's; the copies
// are waited for, and a barrier keeps any wave from reusing the LDS before
// all have.
// CHECK-LABEL: gpu.func @stored_block
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}} : memref<1024xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: gpu.barrier
// CHECK-NOT: scf.if
// CHECK: %[[G1:.*]] = vector.from_elements %c65536_i32, %{{.*}}, %{{.*}}, %{{.*}}, %c16_i32, %arg4, %c0_i32, %c0_i32 : vector<8xi32>
// CHECK: %[[G0:.*]] = vector.from_elements %c1_i32, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: rocdl.tensor.store.from.lds.d2 %[[G0]], %[[G1]] cachepolicy 0 : vector<4xi32>, vector<8xi32>
// CHECK-NEXT: rocdl.s.wait.tensorcnt 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: rocdl.tensor
// CHECK: gpu.return
#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], order = [1, 0]>
func.func @stored_block(%base: !tile.ptr<bf16>, %v: bf16, %m: i32, %k: i32, %stride: i32)
    attributes {tile.lds_bytes = 2048 : i64, tile.num_warps = 2 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %b = tile.splat %v : bf16 -> tensor<32x32xbf16, #rows>
  tile.descriptor_store %base[%c0, %c0] shape [%m, %k] strides [%stride, %c1], %b {tile.lds_offset = 0 : i64}
      : !tile.ptr<bf16>, tensor<32x32xbf16, #rows>
  return
}

// -----

// Async loads on gfx1250: global_load_async_to_lds_b128 per run, from the
// argument's address plus a 32-bit byte offset (':range32'), to an LDS
// address per lane (the wave's run plus 8 elements per lane); the wait is
// s_wait_asynccnt (2 runs per lane on wave32) after the LDS accesses'.
// CHECK-LABEL: gpu.func @async_load
// CHECK: %[[VIEW:.*]] = memref.view
// CHECK: arith.muli %{{.*}}, %c8_i32
// CHECK: %[[BYTES:.*]] = arith.extui %{{.*}} : i32 to i64
// CHECK: %[[GLOBAL:.*]] = llvm.getelementptr %{{.*}}[%[[BYTES]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK: %[[LDS:.*]] = llvm.getelementptr inbounds|nuw %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i16
// CHECK: rocdl.global.load.async.to.lds.b128 %[[GLOBAL]], %[[LDS]], 0, 0 : !llvm.ptr<1>, !llvm.ptr<3>
// CHECK: rocdl.global.load.async.to.lds.b128
// CHECK-NOT: rocdl.global.load.async.to.lds.b128
// CHECK: amdgpu.memory_counter_wait ds(0)
// CHECK-NEXT: rocdl.s.wait.asynccnt 2
// CHECK-NEXT: gpu.barrier {rocktile.barrier_after_waits}
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 16]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8]], warp = [[16, 0], [32, 0]]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 16], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[0, 0], [16, 0]]>
func.func @async_load(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %slot: i32, %o: i32) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  %splat = tile.splat %o : i32 -> tensor<64x32xi32, #copier>
  %offsets = tile.assume %splat {contiguity = array<i64: 1, 32>, divisibility = array<i64: 32, 32>} : tensor<64x32xi32, #copier>
  %p = tile.addptr %base, %offsets : tensor<64x32x!tile.ptr<bf16>, #copier>, tensor<64x32xi32, #copier>
  tile.async_load %p into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_wait {outstanding = 1 : i32}
  %x = tile.local_load %buf[%slot] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>

// Within a row of 16 lanes, DPP row_xmask:1, 2, 4, 8 (0x161...0x168); rows
// of 16 exchange through one permlanex16 whose selects name each lane's own
// position, not through a swap that would need a copy.
// CHECK-LABEL: gpu.func @sum
// CHECK: %[[SEL0:.*]] = arith.constant 1985229328 : i32
// CHECK: %[[SEL1:.*]] = arith.constant -19088744 : i32
// CHECK: rocdl.update.dpp %[[D1:.*]], %[[D1]] with 353, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[D2:.*]], %[[D2]] with 354, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[D4:.*]], %[[D4]] with 356, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[D8:.*]], %[[D8]] with 360, 15, 15, true : f32
// CHECK-NOT: swizzle
// CHECK: rocdl.permlanex16 %[[V:.*]], %[[V]], %[[SEL0]], %[[SEL1]], true, false : f32, i32
// CHECK-NOT: permlane16.swap
// CHECK: gpu.barrier
func.func @sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 16 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<512x!tile.ptr<f32>, #b>, tensor<512xi32, #b>
  %v = tile.load %xp : tensor<512x!tile.ptr<f32>, #b> -> tensor<512xf32, #b>
  %s = tile.reduce(%v) axis = 0 {tile.lds_offset = 0 : i64} : (tensor<512xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

// The explicit level's wait for this warp's copies: the counter alone, no
// barrier (the author places one).
// CHECK-LABEL: gpu.func @wait_tensor_copies
// CHECK: rocdl.s.wait.tensorcnt 2
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @wait_tensor_copies() attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  tile.wait_tensor_copies {outstanding = 2 : i32}
  return
}

// -----

// Commit groups on gfx1250: the wait counts async loads on asynccnt (the
// newest group: one load of 2 runs per lane on wave32), with no barrier.
// CHECK-LABEL: gpu.func @commit_groups
// CHECK-COUNT-4: rocdl.global.load.async.to.lds.b128
// CHECK-NEXT: rocdl.s.wait.asynccnt 2
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [8, 16]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8]], warp = [[16, 0], [32, 0]]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 16], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8]], warp = [[0, 0], [16, 0]]>
func.func @commit_groups(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %o: i32) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  %p = tile.assume %base {contiguity = array<i64: 1, 32>, divisibility = array<i64: 64, 64>} : tensor<64x32x!tile.ptr<bf16>, #copier>
  tile.async_load %p into %buf[%c0] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.commit_group
  tile.async_load %p into %buf[%c1] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.commit_group
  tile.wait_groups {outstanding = 1 : i32}
  %x = tile.local_load %buf[%c0] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  return
}
