// RUN: rocktile-opt %s -split-input-file --tile-lower-to-simt="target=gfx950" | FileCheck %s
// What lowers differently on gfx1250 (wave32) is in lower-to-simt-gfx1250.mlir.

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A lane's 4 consecutive, 16-byte aligned elements move as one vector, under
// the mask of the first (the mask is constant over runs of 16). The pointers
// are a shared base plus offsets in [0, 1024): the accesses go through a
// buffer resource that starts at that base (here element %off of x), where
// a masked-off chunk reads zeros or writes nothing at 2^31 bytes, with no
// branch.
// CHECK-LABEL: gpu.func @copy
// CHECK-SAME: %[[X:.*]]: memref<?xf32, #gpu.address_space<global>>, %[[Y:.*]]: memref<?xf32, #gpu.address_space<global>>, %{{.*}}: i32, %[[OFF:.*]]: i32)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK-DAG: %[[MASKED:.*]] = arith.constant 536870912 : index
// CHECK-DAG: %[[VALID:.*]] = arith.constant 2147483647 : i64
// CHECK: gpu.thread_id x
// CHECK: %[[XA:.*]] = memref.assume_alignment %[[X]], 16
// CHECK: %[[SHARED:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[XA]] to offset: [%[[SHARED]]]
// CHECK: %[[BUF:.*]] = amdgpu.fat_raw_buffer_cast %[[VIEW]] validBytes(%[[VALID]]) resetOffset
// CHECK: %[[INDEX:.*]] = arith.select %{{.*}}, %{{.*}}, %[[MASKED]] : index
// CHECK-NEXT: vector.load %[[BUF]][%[[INDEX]]] {alignment = 16 : i64} : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<4xf32>
// CHECK: amdgpu.fat_raw_buffer_cast
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: gpu.return
func.func @copy(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}, %off: i32 {tile.divisibility = 16 : i32}) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
  %offs = tile.splat %off : i32 -> tensor<1024xi32, #b>
  %o = arith.addi %offs, %r : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %o : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %xp, mask = %m : tensor<1024xi1, #b> : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  tile.store %yp, %v, mask = %m : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>, tensor<1024xi1, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Offsets scaled by a runtime stride have no known bound, so that a buffer
// resource could not reach them all: a masked access branches around the
// load or store.
// CHECK-LABEL: gpu.func @copy_strided
// CHECK-NOT: fat_raw_buffer_cast
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load
// CHECK: scf.if %{{[0-9]+}} {
// CHECK-NEXT: memref.store
// CHECK: gpu.return
func.func @copy_strided(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32, %stride: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
  %ss = tile.splat %stride : i32 -> tensor<1024xi32, #b>
  %o = arith.muli %r, %ss : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %o : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %xp, mask = %m : tensor<1024xi1, #b> : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %yp = tile.addptr %ys, %o : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  tile.store %yp, %v, mask = %m : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>, tensor<1024xi1, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A pointer made from an address indexes memory from address 0 (the
// flat-memory marker, created once per element type at the entry), at the
// address over the element size; the emulator alone checks that the address
// is a multiple of it. A pointer's address is its base's plus its index's
// bytes.
// CHECK-LABEL: gpu.func @pointer_casts
// CHECK: %[[FLAT:.*]] = builtin.unrealized_conversion_cast to memref<?xf16, #gpu.address_space<global>> {rocktile.flat_memory}
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index
// CHECK: %[[ADDR:.*]] = arith.index_cast %{{.*}} : vector<4xindex> to vector<4xi64>
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[ADDR]] : vector<4xi64> to vector<4xindex>
// CHECK-COUNT-4: cf.assert %{{.*}}, "int64 -> pointer cast of an address that is not a multiple of 2 bytes (the element size)" {rocktile.emulator_check}
// CHECK: %[[ELEMENTS:.*]] = arith.shrui %[[INDEX]], %{{.*}} : vector<4xindex>
// CHECK: vector.extract %[[ELEMENTS]][0]
// CHECK: memref.load %[[FLAT]]
func.func @pointer_casts(%x: !tile.ptr<f32>, %y: !tile.ptr<f16>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %a = tile.ptr_to_int %xp : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xi64, #b>
  %hp = tile.int_to_ptr %a : tensor<1024xi64, #b> -> tensor<1024x!tile.ptr<f16>, #b>
  %v = tile.load %hp : tensor<1024x!tile.ptr<f16>, #b> -> tensor<1024xf16, #b>
  %ys = tile.splat %y : !tile.ptr<f16> -> tensor<1024x!tile.ptr<f16>, #b>
  %yp = tile.addptr %ys, %r : tensor<1024x!tile.ptr<f16>, #b>, tensor<1024xi32, #b>
  tile.store %yp, %v : tensor<1024x!tile.ptr<f16>, #b>, tensor<1024xf16, #b>
  return
}

// -----

// A pointer chosen at run time between two arguments (Triton's `p = c if
// choose else out`) cannot keep either argument as its base: both sides
// become addresses in the flat memory, then the select picks one. Between
// pointers into one argument the select stays on the offsets.
// CHECK-LABEL: gpu.func @choose_pointer
// CHECK: %[[FLAT:.*]] = builtin.unrealized_conversion_cast to memref<?xf32, #gpu.address_space<global>> {rocktile.flat_memory}
// CHECK-COUNT-2: memref.extract_aligned_pointer_as_index
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NOT: extract_aligned_pointer_as_index
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK: memref.store %{{.*}}, %[[FLAT]][%[[SEL]]]
func.func @choose_pointer(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %c: i1) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %p = arith.select %c, %x, %y : !tile.ptr<f32>
  %one = arith.constant 1 : i32
  %x1 = tile.addptr %x, %one : !tile.ptr<f32>, i32
  %q = arith.select %c, %x, %x1 : !tile.ptr<f32>
  %v = tile.load %q : !tile.ptr<f32> -> f32
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A sum over the whole tile: 4 registers in a lane (a running pair absorbs
// the next two as one packed add, then the pair's halves), then a butterfly
// over the lane bits with the cheapest exchange for each distance (DPP
// quad_perm [1,0,3,2] and [2,3,0,1]; then, the lower lanes agreeing, DPP
// row_half_mirror (0x141) and row_mirror (0x140); permlane swaps), then the
// partials of the 4 warps through LDS.
// CHECK-LABEL: gpu.func @sum
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<16xi8, #gpu.address_space<workgroup>>)
// CHECK: %[[ACC:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[NEXT:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[PAIR:.*]] = arith.addf %[[ACC]], %[[NEXT]] : vector<2xf32>
// CHECK: %[[LO:.*]] = vector.extract %[[PAIR]][0]
// CHECK: %[[HI:.*]] = vector.extract %[[PAIR]][1]
// CHECK: arith.addf %[[LO]], %[[HI]] : f32
// CHECK: rocdl.update.dpp %[[Q1:.*]], %[[Q1]] with 177, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[Q2:.*]], %[[Q2]] with 78, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[M4:.*]], %[[M4]] with 321, 15, 15, true : f32
// CHECK: rocdl.update.dpp %[[M8:.*]], %[[M8]] with 320, 15, 15, true : f32
// CHECK-NOT: swizzle
// CHECK: %[[S16:.*]] = rocdl.permlane16.swap %[[W16:.*]], %[[W16]], false, false
// CHECK: llvm.extractvalue %[[S16]][0]
// CHECK: llvm.extractvalue %[[S16]][1]
// CHECK: %[[S32:.*]] = rocdl.permlane32.swap %[[W32:.*]], %[[W32]], false, false
// CHECK: llvm.extractvalue %[[S32]][0]
// CHECK: llvm.extractvalue %[[S32]][1]
// CHECK: %[[VIEW:.*]] = memref.view %[[LDS]][%{{.*}}][] : memref<16xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[VIEW]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[VIEW]]
// CHECK: memref.store
func.func @sum(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 16 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  %s = tile.reduce(%v) axis = 0 {tile.lds_offset = 0 : i64} : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.addf %a, %c : f32
    tile.reduce.return %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A max has no packed form: its 4 registers fold in a chain, which LLVM
// fuses into v_max3_f32.
// CHECK-LABEL: gpu.func @max
// CHECK-NOT: vector<2xf32>
// CHECK-COUNT-3: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: rocdl.update.dpp
func.func @max(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 16 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  %s = tile.reduce(%v) axis = 0 {tile.lds_offset = 0 : i64} : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%a: f32, %c: f32):
    %t = arith.maximumf %a, %c : f32
    tile.reduce.return %t : f32
  }
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// -----

#c = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 1], order = [0, 1]>

// Row sums where lane bits 0-1 run down the rows: lanes 4 and 8 apart hold
// other rows' values, so a mirror would mix rows; those exchanges stay
// exact xors (ds_swizzle).
// CHECK-LABEL: gpu.func @row_sums
// CHECK-NOT: rocdl.update.dpp
// CHECK: amdgpu.swizzle_bitmode %{{.*}} 31 0 4
// CHECK: amdgpu.swizzle_bitmode %{{.*}} 31 0 8
// CHECK: rocdl.permlane16.swap
// CHECK: rocdl.permlane32.swap
func.func @row_sums(%v: f32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %x = tile.splat %v : f32 -> tensor<4x16xf32, #c>
  %s = tile.reduce(%x) axis = 1 : (tensor<4x16xf32, #c>) -> tensor<4xf32, #tile.slice<dim = 1, parent = #c>> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.addf %a, %b : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>

// x[:, None] and broadcasting only rename registers within a lane.
// CHECK-LABEL: gpu.func @outer
// CHECK: %[[COL:.*]] = vector.broadcast %{{.*}} : f32 to vector<1xf32>
// CHECK: %[[ROW:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: %[[COLB:.*]] = vector.shuffle %[[COL]], %[[COL]] [0, 0, 0, 0] : vector<1xf32>, vector<1xf32>
// CHECK-NEXT: arith.mulf %[[COLB]], %[[ROW]] : vector<4xf32>
func.func @outer(%a: f32, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %col = tile.splat %a : f32 -> tensor<16xf32, #tile.slice<dim = 1, parent = #b>>
  %row = tile.splat %a : f32 -> tensor<64xf32, #tile.slice<dim = 0, parent = #b>>
  %c = tile.expand_dims %col {axis = 1 : i32} : tensor<16xf32, #tile.slice<dim = 1, parent = #b>> -> tensor<16x1xf32, #b>
  %cb = tile.broadcast %c : tensor<16x1xf32, #b> -> tensor<16x64xf32, #b>
  %r = tile.expand_dims %row {axis = 0 : i32} : tensor<64xf32, #tile.slice<dim = 0, parent = #b>> -> tensor<1x64xf32, #b>
  %rb = tile.broadcast %r : tensor<1x64xf32, #b> -> tensor<16x64xf32, #b>
  %p = arith.mulf %cb, %rb : tensor<16x64xf32, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>, #b>
  tile.store %os, %p : tensor<16x64x!tile.ptr<f32>, #b>, tensor<16x64xf32, #b>
  return
}


// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A loop carries each lane's registers; pointers carry their element indices
// (their memref stays the argument's).
// CHECK-LABEL: gpu.func @loop
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32, #gpu.address_space<global>>
// CHECK: %[[XA:.*]] = memref.assume_alignment %[[X]], 16
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[IDX:.*]] = %{{.*}}) -> (vector<4xf32>, vector<4xindex>) : i32 {
// CHECK: %[[I0:.*]] = vector.extract %[[IDX]][0]
// CHECK: vector.load %[[XA]][%[[I0]]] {alignment = 16 : i64}
// CHECK: scf.yield %{{.*}}, %{{.*}} : vector<4xf32>, vector<4xindex>
func.func @loop(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %p0 = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %zero = arith.constant dense<0.0> : tensor<1024xf32, #b>
  %step = arith.constant dense<1024> : tensor<1024xi32, #b>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<1024xf32, #b>, tensor<1024x!tile.ptr<f32>, #b>) : i32 {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
    %a = arith.addf %acc, %v : tensor<1024xf32, #b>
    %q = tile.addptr %p, %step : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
    scf.yield %a, %q : tensor<1024xf32, #b>, tensor<1024x!tile.ptr<f32>, #b>
  }
  tile.store %p0, %res#0 : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Into a buffer under 2 GiB (`:range32`), a loop carries a lane's element
// indices as i32 scalars, sign-extended in the body: 32-bit increments, and
// LLVM drops the indices nothing reads (here the 3 after the vector load's
// first).
// CHECK-LABEL: gpu.func @loop_range32
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[O0:.*]] = %{{.*}}, %[[O1:.*]] = %{{.*}}, %[[O2:.*]] = %{{.*}}, %[[O3:.*]] = %{{.*}}) -> (vector<4xf32>, i32, i32, i32, i32) : i32 {
// CHECK: %[[I0:.*]] = arith.index_cast %[[O0]] : i32 to index
// CHECK: %[[I3:.*]] = arith.index_cast %[[O3]] : i32 to index
// CHECK: %[[IDX:.*]] = vector.from_elements %[[I0]], %{{.*}}, %{{.*}}, %[[I3]] : vector<4xindex>
// CHECK: vector.load %{{.*}}[%[[I0]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[IDX]]
// CHECK: %[[N0:.*]] = vector.extract %[[NEXT]][0]
// CHECK: arith.index_cast %[[N0]] : index to i32
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>, i32, i32, i32, i32
func.func @loop_range32(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %p0 = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %zero = arith.constant dense<0.0> : tensor<1024xf32, #b>
  %step = arith.constant dense<1024> : tensor<1024xi32, #b>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %res:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %p = %p0) -> (tensor<1024xf32, #b>, tensor<1024x!tile.ptr<f32>, #b>) : i32 {
    %v = tile.load %p : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
    %a = arith.addf %acc, %v : tensor<1024xf32, #b>
    %q = tile.addptr %p, %step : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
    scf.yield %a, %q : tensor<1024xf32, #b>, tensor<1024x!tile.ptr<f32>, #b>
  }
  tile.store %p0, %res#0 : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Masked accesses into a buffer under 2 GiB need no branch (here with a
// mask uniform over each lane's 4 elements, one vector each): through the
// argument's buffer resource, a masked-off lane reads or writes at 2^31
// bytes (element 2^29 of f32), where loads give zeros and stores are dropped.
// CHECK-LABEL: gpu.func @masked_buffer_access
// CHECK: %[[FAR:.*]] = arith.constant 536870912 : index
// CHECK: %[[BUF:.*]] = amdgpu.fat_raw_buffer_cast
// CHECK-NOT: scf.if
// CHECK: %[[AT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FAR]] : index
// CHECK: %[[V:.*]] = vector.load %[[BUF]][%[[AT]]]
// CHECK: %[[TO:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FAR]] : index
// CHECK: vector.store %[[V]], %[[BUF]][%[[TO]]]
// CHECK-NOT: scf.if
// CHECK: gpu.return
func.func @masked_buffer_access(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b>
  %c0 = arith.constant 0 : i32
  %any = arith.cmpi sgt, %n, %c0 : i32
  %m = tile.splat %any : i1 -> tensor<1024xi1, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %p, mask = %m : tensor<1024xi1, #b> : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  tile.store %p, %v, mask = %m : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>, tensor<1024xi1, #b>
  return
}

// -----

#b4 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#b1 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Pure ops ahead of an LDS exchange whose results only later ops use (the
// store's mask here) are computed after it: their values do not stay live
// across the exchange's barriers.
// CHECK-LABEL: gpu.func @sink_past_exchange
// CHECK-NOT: arith.cmpi
// CHECK: gpu.barrier
// CHECK-NOT: arith.cmpi
// CHECK: gpu.barrier
// CHECK: arith.cmpi slt
// CHECK: gpu.return
func.func @sink_past_exchange(%x: !tile.ptr<f32>, %v: f32, %n: i32) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 1024 : i32} : tensor<1024xi32, #b1>
  %ns = tile.splat %n : i32 -> tensor<1024xi32, #b1>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b1>
  %a = tile.splat %v : f32 -> tensor<1024xf32, #b4>
  %c = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<1024xf32, #b4> -> tensor<1024xf32, #b1>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b1>
  %p = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b1>, tensor<1024xi32, #b1>
  tile.store %p, %c, mask = %m : tensor<1024x!tile.ptr<f32>, #b1>, tensor<1024xf32, #b1>, tensor<1024xi1, #b1>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// Atomics on a tile update each element once: lanes holding broadcast
// copies (here: warps 1-3 and lanes 16-63 of a 64-element tile) skip it.
// A scalar atomic runs in thread 0 and reaches the others through LDS.
// The op's ordering (Triton's default acq_rel at gpu scope) is one release
// fence before its updates and one acquire fence after, at the agent
// scope; each update is marked with that scope (a relaxed atomic there).
// CHECK-LABEL: gpu.func @atomics
// CHECK-SAME: workgroup(%[[LDS:.*]] : memref<4xi8, #gpu.address_space<workgroup>>)
// CHECK: %[[LANE:.*]] = arith.andi %{{.*}}, %c63_i32
// CHECK: %[[SHIFTED:.*]] = arith.shrui %{{.*}}, %c6_i32
// CHECK: %[[WARP:.*]] = rocdl.readfirstlane %[[SHIFTED]] : i32
// CHECK: %[[L:.*]] = arith.andi %[[LANE]], %c48_i32
// CHECK: %[[LOK:.*]] = arith.cmpi eq, %[[L]], %c0_i32
// CHECK: %[[W:.*]] = arith.andi %[[WARP]], %c3_i32
// CHECK: %[[WOK:.*]] = arith.cmpi eq, %[[W]], %c0_i32
// CHECK: %[[OWNS:.*]] = arith.andi %[[LOK]], %[[WOK]]
// CHECK: llvm.fence syncscope("agent") release
// CHECK-NOT: llvm.fence
// CHECK: scf.if %[[OWNS]] -> (i32) {
// CHECK-NEXT: memref.atomic_rmw addi {{.*}} {rocktile.syncscope = "agent"}
// CHECK-NOT: llvm.fence
// CHECK: llvm.fence syncscope("agent") acquire
// CHECK: memref.view %[[LDS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: llvm.fence syncscope("agent") release
// CHECK-NEXT: memref.generic_atomic_rmw
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: llvm.fence syncscope("agent") acquire
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: memref.load
// A relaxed atomic has no fence (at the system scope, marked ""); a
// release one at cta scope a workgroup release fence before, none after.
// CHECK-NOT: llvm.fence
// CHECK: memref.atomic_rmw assign {{.*}} {rocktile.syncscope = ""}
// CHECK: llvm.fence syncscope("workgroup") release
// CHECK: memref.atomic_rmw maxs {{.*}} {rocktile.syncscope = "workgroup"}
// CHECK-NOT: llvm.fence
// CHECK: gpu.return
func.func @atomics(%x: !tile.ptr<i32>, %lock: !tile.ptr<i32>) attributes {tile.lds_bytes = 4 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #b>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<64x!tile.ptr<i32>, #b>
  %xp = tile.addptr %xs, %r : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b>
  %old = tile.atomic_rmw <add> %xp, %r : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %prev = tile.atomic_cas %lock, %c0, %c1 {tile.lds_offset = 0 : i64} : !tile.ptr<i32>, i32
  tile.store %lock, %prev : !tile.ptr<i32>, i32
  %o1 = tile.atomic_rmw <xchg> %xp, %r {sem = "relaxed", scope = "sys"} : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b>
  %o2 = tile.atomic_rmw <max> %xp, %r {sem = "release", scope = "cta"} : tensor<64x!tile.ptr<i32>, #b>, tensor<64xi32, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#c = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A conversion that moves elements between lanes goes through LDS: every
// lane writes its elements, as wide as its registers are consecutive in LDS
// (one 128-bit store), then reads its new ones (4 scalars).
// CHECK-LABEL: gpu.func @convert
// CHECK: %[[VIEW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[VIEW]][%{{.*}}] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: vector.load %[[VIEW]]{{.*}} vector<1xf32>
func.func @convert(%v: f32, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %f = arith.sitofp %r : tensor<1024xi32, #b> to tensor<1024xf32, #b>
  %g = tile.convert_layout %f {tile.lds_offset = 0 : i64} : tensor<1024xf32, #b> -> tensor<1024xf32, #c>
  %s = tile.reduce(%g) axis = 0 {tile.lds_offset = 0 : i64} : (tensor<1024xf32, #c>) -> f32 {
  ^bb0(%a: f32, %x: f32):
    %t = arith.maxnumf %a, %x : f32
    tile.reduce.return %t : f32
  }
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
#t = #tile.blocked<sizePerThread = [4, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 4], order = [0, 1]>
#r = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A transpose keeps every lane's registers (its layout is the source's with
// the dimensions swapped); a reshape moves elements through LDS in row-major
// order.
// CHECK-LABEL: gpu.func @trans_reshape
// CHECK: %[[X:.*]] = arith.sitofp
// CHECK-NOT: vector.shuffle
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.store {{.*}} vector<1xf32>
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : {{.*}} vector<4xf32>
func.func @trans_reshape(%p: !tile.ptr<f32>) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 4 : i32} {
  %c = tile.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32, #tile.slice<dim = 0, parent = #b>>
  %e = tile.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #tile.slice<dim = 0, parent = #b>> -> tensor<1x16xi32, #b>
  %x = tile.broadcast %e : tensor<1x16xi32, #b> -> tensor<64x16xi32, #b>
  %f = arith.sitofp %x : tensor<64x16xi32, #b> to tensor<64x16xf32, #b>
  %t = tile.trans %f {order = array<i32: 1, 0>} : tensor<64x16xf32, #b> -> tensor<16x64xf32, #t>
  %r = tile.reshape %t {tile.lds_offset = 0 : i64} : tensor<16x64xf32, #t> -> tensor<1024xf32, #r>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #r>
  tile.store %ps, %r : tensor<1024x!tile.ptr<f32>, #r>, tensor<1024xf32, #r>
  return
}

// -----

#flat = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
#rows = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]>

// A reshape into its source's layout reshaped is the same registers: no
// LDS, no barrier: what is stored is the converted vector's elements.
// CHECK-LABEL: gpu.func @reshape_in_place
// CHECK: %[[F:.*]] = arith.sitofp {{.*}} : vector<4xi32> to vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: vector.extract %[[F]][3]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @reshape_in_place(%p: !tile.ptr<f32>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %i = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #flat>
  %f = arith.sitofp %i : tensor<1024xi32, #flat> to tensor<1024xf32, #flat>
  %r = tile.reshape %f : tensor<1024xf32, #flat> -> tensor<4x256xf32, #rows>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<4x256x!tile.ptr<f32>, #rows>
  %rr = tile.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32, #tile.slice<dim = 1, parent = #rows>>
  %re = tile.expand_dims %rr {axis = 1 : i32} : tensor<4xi32, #tile.slice<dim = 1, parent = #rows>> -> tensor<4x1xi32, #rows>
  %rb = tile.broadcast %re : tensor<4x1xi32, #rows> -> tensor<4x256xi32, #rows>
  %q = tile.addptr %ps, %rb : tensor<4x256x!tile.ptr<f32>, #rows>, tensor<4x256xi32, #rows>
  tile.store %q, %r : tensor<4x256x!tile.ptr<f32>, #rows>, tensor<4x256xf32, #rows>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#i = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>

// A gather writes its source to LDS in row-major order as whole vectors,
// then each lane reads its two elements at (row, index) one by one.
// CHECK-LABEL: gpu.func @gather
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} vector<4xf32>
// CHECK: gpu.barrier
// CHECK-COUNT-2: memref.load {{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.load {{.*}}workgroup
// CHECK: gpu.return
func.func @gather(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 4 : i32} {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>, #b>
  %x = tile.load %ps : tensor<16x64x!tile.ptr<f32>, #b> -> tensor<16x64xf32, #b>
  %qs = tile.splat %q : !tile.ptr<i32> -> tensor<16x8x!tile.ptr<i32>, #i>
  %i = tile.load %qs : tensor<16x8x!tile.ptr<i32>, #i> -> tensor<16x8xi32, #i>
  %g = tile.gather %x[%i] {axis = 1 : i32, tile.lds_offset = 0 : i64} : tensor<16x64xf32, #b>, tensor<16x8xi32, #i> -> tensor<16x8xf32, #i>
  %pg = tile.splat %p : !tile.ptr<f32> -> tensor<16x8x!tile.ptr<f32>, #i>
  tile.store %pg, %g : tensor<16x8x!tile.ptr<f32>, #i>, tensor<16x8xf32, #i>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// device_print / device_assert become gpu.printf / cf.assert, and the kernel
// is marked as runnable only in the emulator (with the op's location).
// CHECK-LABEL: gpu.func @debug
// CHECK-SAME: rocktile.emulator_only = #loc
// CHECK: gpu.printf "pid (%d, %d, %d) idx (%d) x%%: %d\0A"
// With hex, a float is printed as its bits and an i8 at its width; fp8 is
// printed through fp32.
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: gpu.printf "pid (%d, %d, %d) idx (%d) h: 0x%08x\0A"{{.*}}, %[[BITS]] :
// CHECK: gpu.printf "pid (%d, %d, %d) idx (%d) b: 0x%02hhx\0A"
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : f8E5M2 to f32
// CHECK: gpu.printf "pid (%d, %d, %d) idx (%d) e5: %f\0A"{{.*}}, %[[WIDE]] :
// CHECK: cf.assert %{{.*}}, "x must be small"
func.func @debug(%n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
  tile.print %r {prefix = "x%: "} : tensor<256xi32, #b>
  %f = arith.sitofp %r : tensor<256xi32, #b> to tensor<256xf32, #b>
  tile.print %f {prefix = "h: ", hex} : tensor<256xf32, #b>
  %byte = arith.trunci %r : tensor<256xi32, #b> to tensor<256xi8, #b>
  tile.print %byte {prefix = "b: ", hex} : tensor<256xi8, #b>
  %e5 = arith.truncf %f : tensor<256xf32, #b> to tensor<256xf8E5M2, #b>
  tile.print %e5 {prefix = "e5: "} : tensor<256xf8E5M2, #b>
  %ns = tile.splat %n : i32 -> tensor<256xi32, #b>
  %ok = arith.cmpi slt, %r, %ns : tensor<256xi32, #b>
  tile.assert %ok {message = "x must be small"} : tensor<256xi1, #b>
  return
}

// -----

// A 32x32x32 bf16 dot over 2x2 warps: each warp's 16x16 tile is one
// v_mfma_f32_16x16x32_bf16 on the lane's whole A and B operand vectors
// (which came through LDS from the loads) and the zero accumulator.
// CHECK-LABEL: gpu.func @dot
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.store {{.*}} vector<1xbf16>
// CHECK: gpu.barrier
// CHECK: %[[A:.*]] = vector.load {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: %[[B:.*]] = vector.load {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK-NOT: rocdl.sched.barrier
// CHECK: amdgpu.mfma 16x16x32 %[[A]] * %[[B]] + %{{.*}} blgp =  none : vector<8xbf16>, vector<8xbf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// CHECK: gpu.return
#blocked = #tile.blocked<sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]>
#slice = #tile.slice<dim = 0, parent = #blocked>
#slice1 = #tile.slice<dim = 1, parent = #blocked>
module {
  func.func @dot(%arg0: !tile.ptr<bf16>, %arg1: !tile.ptr<bf16>, %arg2: !tile.ptr<f32>) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 4 : i32} {
    %0 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice>
    %1 = tile.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #slice1>
    %2 = tile.expand_dims %1 {axis = 1 : i32} : tensor<32xi32, #slice1> -> tensor<32x1xi32, #blocked>
    %3 = tile.expand_dims %0 {axis = 0 : i32} : tensor<32xi32, #slice> -> tensor<1x32xi32, #blocked>
    %cst = arith.constant dense<32> : tensor<32x1xi32, #blocked>
    %4 = arith.muli %2, %cst : tensor<32x1xi32, #blocked>
    %5 = tile.broadcast %4 : tensor<32x1xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %6 = tile.broadcast %3 : tensor<1x32xi32, #blocked> -> tensor<32x32xi32, #blocked>
    %7 = arith.addi %5, %6 : tensor<32x32xi32, #blocked>
    %8 = tile.splat %arg0 : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>, #blocked>
    %9 = tile.addptr %8, %7 : tensor<32x32x!tile.ptr<bf16>, #blocked>, tensor<32x32xi32, #blocked>
    %10 = tile.load %9 : tensor<32x32x!tile.ptr<bf16>, #blocked> -> tensor<32x32xbf16, #blocked>
    %11 = tile.splat %arg1 : !tile.ptr<bf16> -> tensor<32x32x!tile.ptr<bf16>, #blocked>
    %12 = tile.addptr %11, %7 : tensor<32x32x!tile.ptr<bf16>, #blocked>, tensor<32x32xi32, #blocked>
    %13 = tile.load %12 : tensor<32x32x!tile.ptr<bf16>, #blocked> -> tensor<32x32xbf16, #blocked>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = [[16, 0], [0, 16]]>>
    %14 = tile.convert_layout %10 {tile.lds_offset = 0 : i64} : tensor<32x32xbf16, #blocked> -> tensor<32x32xbf16, #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[16, 0], [0, 0]]>>
    %15 = tile.convert_layout %13 {tile.lds_offset = 0 : i64} : tensor<32x32xbf16, #blocked> -> tensor<32x32xbf16, #tile.linear<register = [[1, 0], [2, 0], [4, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 0], [0, 16]]>>
    %16 = tile.dot %14, %15, %cst_0 {instr = "mfma_f32_16x16x32_bf16"} : tensor<32x32xbf16, #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[16, 0], [0, 0]]>>, tensor<32x32xbf16, #tile.linear<register = [[1, 0], [2, 0], [4, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 0], [0, 16]]>> -> tensor<32x32xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = [[16, 0], [0, 16]]>>
    %17 = tile.splat %arg2 : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #blocked>
    %18 = tile.addptr %17, %7 : tensor<32x32x!tile.ptr<f32>, #blocked>, tensor<32x32xi32, #blocked>
    %19 = tile.convert_layout %16 {tile.lds_offset = 0 : i64} : tensor<32x32xf32, #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = [[16, 0], [0, 16]]>> -> tensor<32x32xf32, #blocked>
    tile.store %18, %19 : tensor<32x32x!tile.ptr<f32>, #blocked>, tensor<32x32xf32, #blocked>
    return
  }
}


// -----

// The operands of a dot read from pipelined LDS slots: one wait for all
// the reads, then a fence that keeps the backend's scheduler from moving
// the matrix instructions back among them (an exchange's operands, in @dot,
// get neither).
// CHECK-LABEL: gpu.func @dot_of_slots
// CHECK: %[[A:.*]] = vector.load %{{.*}} : memref<2560xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: amdgpu.transpose_load
// CHECK: %[[B:.*]] = vector.shuffle
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NEXT: amdgpu.mfma 16x16x32 %[[A]] * %[[B]]
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[16, 0], [0, 0]]>
#opB = #tile.linear<register = [[1, 0], [2, 0], [4, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 0], [0, 16]]>
#acc = #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = [[16, 0], [0, 16]]>
func.func @dot_of_slots(%c: !tile.ptr<f32>, %slot: i32) attributes {tile.lds_bytes = 8192 : i64, tile.num_warps = 4 : i32} {
  %a = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  %b = tile.local_alloc {tile.lds_offset = 4096 : i64} : memref<2x32x32xbf16, #gpu.address_space<workgroup>>
  %x = tile.local_load %a[%slot] : memref<2x32x32xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #opA>
  %y = tile.local_load %b[%slot] : memref<2x32x32xbf16, #gpu.address_space<workgroup>> -> tensor<32x32xbf16, #opB>
  %zero = arith.constant dense<0.000000e+00> : tensor<32x32xf32, #acc>
  %d = tile.dot %x, %y, %zero {instr = "mfma_f32_16x16x32_bf16"} : tensor<32x32xbf16, #opA>, tensor<32x32xbf16, #opB> -> tensor<32x32xf32, #acc>
  %p = tile.splat %c : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #acc>
  tile.store %p, %d : tensor<32x32x!tile.ptr<f32>, #acc>, tensor<32x32xf32, #acc>
  return
}

// -----

// A slot the author arranged (the explicit level): the store writes where
// the swizzle puts each lane's 8 elements (XOR of the row's phase, then the
// slot's first element added), with no barrier of its own, and the read
// takes the same arrangement.
// CHECK-LABEL: gpu.func @authors_slot
// CHECK-NOT: gpu.barrier
// CHECK: arith.xori
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK-NOT: gpu.barrier
// CHECK: vector.load {{.*}} vector<8xbf16>
// CHECK: gpu.return
#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [16, 4], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @authors_slot(%v: bf16, %out: !tile.ptr<bf16>, %slot: i32) attributes {tile.lds_bytes = 8192 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 2, maxPhase = 4, rowPitch = 0>, tile.lds_offset = 0 : i64} : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  %t = tile.splat %v : bf16 -> tensor<64x32xbf16, #rows>
  tile.local_store %t, %buf[%slot] : tensor<64x32xbf16, #rows>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
  %r = tile.local_load %buf[%slot] : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #rows>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #rows>
  tile.store %p, %r : tensor<64x32x!tile.ptr<bf16>, #rows>, tensor<64x32xbf16, #rows>
  return
}

// -----

// A GEMM's A operand (128x64 bf16, K contiguous) staged for
// v_mfma_f32_16x16x32_bf16: 128-bit writes and reads, in an arrangement
// whose XOR swizzle makes both free of bank conflicts (the thread's offset
// is swizzled once; each register's constant is added to it).
// CHECK-LABEL: gpu.func @swizzled_operand
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK: gpu.barrier
// CHECK: arith.xori
// CHECK-COUNT-8: vector.load {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK-NOT: vector.load
// CHECK: gpu.return
#blocked = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 32], [32, 0], [64, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[16, 0], [0, 0]]>
func.func @swizzled_operand(%v: bf16, %out: !tile.ptr<bf16>) attributes {tile.lds_bytes = 16384 : i64, tile.num_warps = 4 : i32} {
  %a = tile.splat %v : bf16 -> tensor<128x64xbf16, #blocked>
  %b = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<128x64xbf16, #blocked> -> tensor<128x64xbf16, #opA>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<128x64x!tile.ptr<bf16>, #opA>
  tile.store %p, %b : tensor<128x64x!tile.ptr<bf16>, #opA>, tensor<128x64xbf16, #opA>
  return
}

// -----

// An int8 tile written down its columns: each lane's 4 bytes for one LDS
// write come from 4 registers, gathered as a dword of shifted, masked bytes
// (which the backend turns into v_perm_b32), not as an i8 shuffle.
// CHECK-LABEL: gpu.func @byte_gather
// CHECK: gpu.barrier
// CHECK: vector.bitcast {{.*}} : vector<64xi8> to vector<16xi32>
// CHECK: arith.ori
// CHECK: vector.store {{.*}} {alignment = 4 : i64} : {{.*}}, vector<4xi8>
#rows = #tile.blocked<sizePerThread = [4, 16], threadsPerWarp = [16, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#cols = #tile.blocked<sizePerThread = [16, 1], threadsPerWarp = [4, 16], warpsPerCTA = [1, 1], order = [0, 1]>
func.func @byte_gather(%v: i8, %out: !tile.ptr<i8>) attributes {tile.lds_bytes = 4096 : i64, tile.num_warps = 1 : i32} {
  %a = tile.splat %v : i8 -> tensor<64x64xi8, #rows>
  %b = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<64x64xi8, #rows> -> tensor<64x64xi8, #cols>
  %p = tile.splat %out : !tile.ptr<i8> -> tensor<64x64x!tile.ptr<i8>, #cols>
  tile.store %p, %b : tensor<64x64x!tile.ptr<i8>, #cols>, tensor<64x64xi8, #cols>
  return
}

// -----

// A GEMM's B operand (64x128 bf16, N contiguous as row-major B is) staged
// for v_mfma_f32_16x16x32_bf16: whole 128-bit rows written along N, and read
// back with gfx950's transpose reads, each giving a lane 4 consecutive k of
// its column (two per 8-element operand vector), with no register packing.
// CHECK-LABEL: gpu.func @transposed_operand
// CHECK: gpu.barrier
// CHECK-COUNT-4: vector.store {{.*}} {alignment = 16 : i64} : {{.*}} vector<8xbf16>
// CHECK: gpu.barrier
// CHECK-COUNT-8: amdgpu.transpose_load {{.*}} -> vector<4xbf16>
// CHECK-NOT: vector.load
// CHECK-NOT: vector.shuffle
// CHECK: gpu.return
#rowsB = #tile.blocked<sizePerThread = [4, 8], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]>
#opB = #tile.linear<register = [[1, 0], [2, 0], [4, 0], [32, 0], [0, 64]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0], [16, 0]], warp = [[0, 16], [0, 32]]>
func.func @transposed_operand(%v: bf16, %out: !tile.ptr<bf16>) attributes {tile.lds_bytes = 16384 : i64, tile.num_warps = 4 : i32} {
  %a = tile.splat %v : bf16 -> tensor<64x128xbf16, #rowsB>
  %b = tile.convert_layout %a {tile.lds_offset = 0 : i64} : tensor<64x128xbf16, #rowsB> -> tensor<64x128xbf16, #opB>
  %p = tile.splat %out : !tile.ptr<bf16> -> tensor<64x128x!tile.ptr<bf16>, #opB>
  tile.store %p, %b : tensor<64x128x!tile.ptr<bf16>, #opB>, tensor<64x128xbf16, #opB>
  return
}

// -----

// Math that LLVM would lower for AMDGPU as a device-library call is
// arithmetic at the cut: tanh and atan as MLIR's polynomial approximations,
// cosh and pow through exp and log; exp stays for LLVM (an AMDGPU sequence).
// CHECK-LABEL: gpu.func @expanded_math
// CHECK-NOT: math.tanh
// CHECK-NOT: math.atan
// CHECK-NOT: math.cosh
// CHECK-NOT: math.powf
// CHECK: math.fma
// CHECK: math.exp
// CHECK: gpu.return
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
func.func @expanded_math(%x: f32, %out: !tile.ptr<f32>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %a = math.tanh %x : f32
  %b = math.atan %a : f32
  %c = math.cosh %b : f32
  %d = math.powf %c, %x : f32
  %v = tile.splat %d : f32 -> tensor<256xf32, #b>
  %p = tile.splat %out : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  tile.store %p, %v : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
  return
}

// -----

// fp64 exp, log, tanh and erf (and pow, through exp and log) have no AMDGPU
// lowering in LLVM but a device-library call: they become fp64 arithmetic at
// the cut. exp: k = rint(x log2 e), r by fma with ln 2 in two parts, the
// series of e^r, and 2^k from exponent bits.
// CHECK-LABEL: gpu.func @float64_math
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK-NOT: math.powf
// CHECK: math.roundeven {{.*}} : f64
// CHECK: math.fma {{.*}} : f64
// CHECK: arith.shli {{.*}} : i64
// CHECK: arith.bitcast {{.*}} : i64 to f64
// CHECK: gpu.return
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
func.func @float64_math(%x: f64, %out: !tile.ptr<f64>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %a = math.exp %x : f64
  %b = math.log %a : f64
  %c = math.tanh %b : f64
  %d = math.erf %c : f64
  %e = math.powf %d, %x : f64
  %v = tile.splat %e : f64 -> tensor<256xf64, #b>
  %p = tile.splat %out : !tile.ptr<f64> -> tensor<256x!tile.ptr<f64>, #b>
  tile.store %p, %v : tensor<256x!tile.ptr<f64>, #b>, tensor<256xf64, #b>
  return
}

// -----

// A volatile load is a plain memref load marked for the LLVM lowerings (a
// volatile load on the GPU, a wait point in the emulator), never a buffer
// load, followed by a single-thread fence that keeps a loop reading only it
// from being erased as free of effects.
// CHECK-LABEL: gpu.func @volatile_flag
// CHECK: scf.while
// CHECK: memref.load %{{.*}} {rocktile.volatile} : memref<?xi32, #gpu.address_space<global>>
// CHECK-NEXT: llvm.fence syncscope("singlethread") acquire
// CHECK: scf.condition
func.func @volatile_flag(%flag: !tile.ptr<i32>) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  scf.while : () -> () {
    %v = tile.load %flag {isVolatile} : !tile.ptr<i32> -> i32
    %wait = arith.cmpi eq, %v, %c0 : i32
    scf.condition(%wait)
  } do {
    scf.yield
  }
  return
}

// -----

// Code generation hints for LLVM on the kernel (Triton's waves_per_eu) go to
// the gpu.func, which the ROCDL lowering turns into amdgpu-waves-per-eu.
// CHECK-LABEL: gpu.func @occupancy_hint
// CHECK-SAME: rocdl.waves_per_eu = 2 : i32
func.func @occupancy_hint() attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32, rocdl.waves_per_eu = 2 : i32} {
  return
}

// -----

#b2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// Inline assembly runs once per element: llvm.inline_asm on each lane's
// scalars; several outputs come back in a struct.
// CHECK-LABEL: gpu.func @inline_asm
// CHECK-SAME: %{{.*}}: memref<?xf32, #gpu.address_space<global>>, %[[S:.*]]: f32)
// CHECK: %[[R0:.*]] = llvm.inline_asm "v_max_f32 $0, $1, $1", "=v,v" %[[S]] : (f32) -> f32
// CHECK: %[[R1:.*]] = llvm.inline_asm "v_max_f32 $0, $1, $1", "=v,v" %[[S]] : (f32) -> f32
// CHECK: %[[X0:.*]] = llvm.inline_asm has_side_effects "v_mov_b32 $0, $2\0Av_mov_b32 $1, $2", "=v,=v,v" %[[R0]] : (f32) -> !llvm.struct<(f32, f32)>
// CHECK: %[[A0:.*]] = llvm.extractvalue %[[X0]][0] : !llvm.struct<(f32, f32)>
// CHECK: %[[X1:.*]] = llvm.inline_asm has_side_effects {{.*}} %[[R1]] : (f32) -> !llvm.struct<(f32, f32)>
// CHECK: %[[A1:.*]] = llvm.extractvalue %[[X1]][0] : !llvm.struct<(f32, f32)>
// CHECK: vector.from_elements %[[A0]], %[[A1]] : vector<2xf32>
func.func @inline_asm(%p: !tile.ptr<f32>, %s: f32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %a = tile.splat %s : f32 -> tensor<128xf32, #b2>
  %m = tile.elementwise_inline_asm "v_max_f32 $0, $1, $1" "=v,v" %a {pure} : (tensor<128xf32, #b2>) -> tensor<128xf32, #b2>
  %x:2 = tile.elementwise_inline_asm "v_mov_b32 $0, $2\nv_mov_b32 $1, $2" "=v,=v,v" %m : (tensor<128xf32, #b2>) -> (tensor<128xf32, #b2>, tensor<128xf32, #b2>)
  %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b2>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #b2>
  %q = tile.addptr %ps, %r : tensor<128x!tile.ptr<f32>, #b2>, tensor<128xi32, #b2>
  %sum = arith.addf %x#0, %x#1 : tensor<128xf32, #b2>
  tile.store %q, %sum : tensor<128x!tile.ptr<f32>, #b2>, tensor<128xf32, #b2>
  return
}

// -----

#b4 = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// With pack = 4, four i8 elements go to the assembly as one i32 and come
// back the same way; the lane's four elements make one run.
// CHECK-LABEL: gpu.func @inline_asm_packed
// CHECK: %[[V:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi8>
// CHECK: %[[W:.*]] = llvm.bitcast %[[V]] : vector<4xi8> to i32
// CHECK: %[[R:.*]] = llvm.inline_asm "v_not_b32 $0, $1", "=v,v" %[[W]] : (i32) -> i32
// CHECK: %[[U:.*]] = llvm.bitcast %[[R]] : i32 to vector<4xi8>
// CHECK-COUNT-4: vector.extract %[[U]]
// CHECK-NOT: llvm.inline_asm
// CHECK: gpu.return
func.func @inline_asm_packed() attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %i = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b4>
  %a = arith.trunci %i : tensor<256xi32, #b4> to tensor<256xi8, #b4>
  %m = tile.elementwise_inline_asm "v_not_b32 $0, $1" "=v,v" %a {pure, pack = 4 : i32} : (tensor<256xi8, #b4>) -> tensor<256xi8, #b4>
  tile.print %m {prefix = ""} : tensor<256xi8, #b4>
  return
}

// -----

#b2 = #tile.blocked<sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>

// The body of tile.map_elementwise is lowered once per element, its scf.if
// on each element's own scalar.
// CHECK-LABEL: gpu.func @map_elementwise
// CHECK: %[[E0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK: %[[C0:.*]] = arith.cmpf ogt, %[[E0]]
// CHECK: %[[R0:.*]] = scf.if %[[C0]] -> (f32)
// CHECK: math.exp %[[E0]]
// CHECK: %[[E1:.*]] = vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK: %[[C1:.*]] = arith.cmpf ogt, %[[E1]]
// CHECK: %[[R1:.*]] = scf.if %[[C1]] -> (f32)
// CHECK: math.exp %[[E1]]
// CHECK: gpu.printf {{.*}} %[[R0]]
// CHECK: gpu.printf {{.*}} %[[R1]]
func.func @map_elementwise() attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %zero = arith.constant 0.0 : f32
  %i = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #b2>
  %a = arith.sitofp %i : tensor<128xi32, #b2> to tensor<128xf32, #b2>
  %r = tile.map_elementwise(%a) pack = 1 : (tensor<128xf32, #b2>) -> tensor<128xf32, #b2> {
  ^bb0(%e: f32):
    %pos = arith.cmpf ogt, %e, %zero : f32
    %v = scf.if %pos -> f32 {
      scf.yield %e : f32
    } else {
      %m = math.exp %e : f32
      scf.yield %m : f32
    }
    tile.map_elementwise.return %v : f32
  }
  tile.print %r {prefix = ""} : tensor<128xf32, #b2>
  return
}

// -----

// The clock is thread 0's reading, handed to every thread through LDS.
// CHECK-LABEL: gpu.func @realtime
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: %[[NOW:.*]] = llvm.call_intrinsic "llvm.readsteadycounter"() : () -> i64
// CHECK: memref.store %[[NOW]]
// CHECK: gpu.barrier
// CHECK: %[[T:.*]] = memref.load
// CHECK: gpu.printf {{.*}} %[[T]]
func.func @realtime() attributes {tile.lds_bytes = 8 : i64, tile.num_warps = 4 : i32} {
  %t = tile.realtime {tile.lds_offset = 0 : i64} : i64
  tile.print %t {prefix = "t"} : i64
  return
}

// -----

// Tiles that fill the register file are scheduled for register pressure,
// not latency. With 16 warps a wave may use 128 registers per lane: the
// stored values and their addresses (32-bit offsets) take 64 each. Splats
// and masks take no registers per element, and values dead after an op
// (%x at the exp) do not count beside its results.
// CHECK-LABEL: gpu.func @fills_the_registers
// CHECK-SAME: passthrough = {{\[\[}}"amdgpu-sched-strategy", "iterative-minreg"]]
#w16 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [16], order = [0]>
func.func @fills_the_registers(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 16 : i32} {
  %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %ns = tile.splat %n : i32 -> tensor<65536xi32, #w16>
  %mask = arith.cmpi slt, %r, %ns : tensor<65536xi32, #w16>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #w16>
  %ptrs = tile.addptr %ps, %r : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xi32, #w16>
  %x = tile.load %ptrs, mask = %mask : tensor<65536xi1, #w16> : tensor<65536x!tile.ptr<f32>, #w16> -> tensor<65536xf32, #w16>
  %y = math.exp %x : tensor<65536xf32, #w16>
  %r2 = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %out = tile.addptr %ps, %r2 : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xi32, #w16>
  tile.store %out, %y : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xf32, #w16>
  return
}

// -----

// The same storing bf16, two to a register: 32 + 64 registers per lane,
// LLVM's default scheduling.
// CHECK-LABEL: gpu.func @fits_in_the_registers
// CHECK-NOT: passthrough
// CHECK: gpu.return
#w16 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [16], order = [0]>
func.func @fits_in_the_registers(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 16 : i32} {
  %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %ns = tile.splat %n : i32 -> tensor<65536xi32, #w16>
  %mask = arith.cmpi slt, %r, %ns : tensor<65536xi32, #w16>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #w16>
  %ptrs = tile.addptr %ps, %r : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xi32, #w16>
  %x = tile.load %ptrs, mask = %mask : tensor<65536xi1, #w16> : tensor<65536x!tile.ptr<f32>, #w16> -> tensor<65536xf32, #w16>
  %y = math.exp %x : tensor<65536xf32, #w16>
  %h = arith.truncf %y : tensor<65536xf32, #w16> to tensor<65536xbf16, #w16>
  %r2 = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %qs = tile.splat %q : !tile.ptr<bf16> -> tensor<65536x!tile.ptr<bf16>, #w16>
  %out = tile.addptr %qs, %r2 : tensor<65536x!tile.ptr<bf16>, #w16>, tensor<65536xi32, #w16>
  tile.store %out, %h : tensor<65536x!tile.ptr<bf16>, #w16>, tensor<65536xbf16, #w16>
  return
}

// -----

// In a loop: the tile loaded in its body (64 registers per lane) and the one
// live around it (%x, stored as bf16 after the loop) fill the 128 a wave of
// 16 warps may use; nowhere outside the loop do tiles take more than 96.
// CHECK-LABEL: gpu.func @fills_the_registers_in_a_loop
// CHECK-SAME: passthrough = {{\[\[}}"amdgpu-sched-strategy", "iterative-minreg"]]
#w16 = #tile.blocked<sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [16], order = [0]>
func.func @fills_the_registers_in_a_loop(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %q: !tile.ptr<bf16> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.lds_bytes = 64 : i64, tile.num_warps = 16 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #w16>
  %ptrs = tile.addptr %ps, %r : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xi32, #w16>
  %x = tile.load %ptrs : tensor<65536x!tile.ptr<f32>, #w16> -> tensor<65536xf32, #w16>
  %total = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %r3 = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
    %in = tile.addptr %ps, %r3 : tensor<65536x!tile.ptr<f32>, #w16>, tensor<65536xi32, #w16>
    %t = tile.load %in : tensor<65536x!tile.ptr<f32>, #w16> -> tensor<65536xf32, #w16>
    %s = tile.reduce(%t) axis = 0 {tile.lds_offset = 0 : i64} : (tensor<65536xf32, #w16>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce.return %c : f32
    }
    %next = arith.addf %acc, %s : f32
    scf.yield %next : f32
  }
  %h = arith.truncf %x : tensor<65536xf32, #w16> to tensor<65536xbf16, #w16>
  %r2 = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #w16>
  %qs = tile.splat %q : !tile.ptr<bf16> -> tensor<65536x!tile.ptr<bf16>, #w16>
  %out = tile.addptr %qs, %r2 : tensor<65536x!tile.ptr<bf16>, #w16>, tensor<65536xi32, #w16>
  tile.store %out, %h : tensor<65536x!tile.ptr<bf16>, #w16>, tensor<65536xbf16, #w16>
  tile.store %p, %total : !tile.ptr<f32>, f32
  return
}

// -----

// Async loads (direct-to-LDS on gfx950): the pointers' layout hands the
// lanes of a wave consecutive 16-byte runs of the slot's arrangement, so
// each run is one amdgpu.gather_to_lds through the argument's buffer
// resource, to an LDS element the wave shares (the slot's first, plus the
// warp's part: warps hold the highest offsets). The wait leaves the
// count's instructions in flight and waits for the wave's LDS accesses,
// then the marked barrier.
// CHECK-LABEL: gpu.func @async_load
// CHECK: %[[BUFFER:.*]] = amdgpu.fat_raw_buffer_cast
// CHECK: %[[VIEW:.*]] = memref.view
// CHECK: %[[SLOT:.*]] = rocdl.readfirstlane %arg1 : i32
// CHECK: %[[FIRST:.*]] = arith.muli %[[SLOT]], %c2048_i32
// CHECK: %[[W0:.*]] = arith.muli %{{.*}}, %c512_i32
// CHECK: %[[PART:.*]] = arith.addi %[[FIRST]], %[[W0]]
// CHECK: %[[W1:.*]] = arith.muli %{{.*}}, %c1024_i32
// CHECK: %[[AT:.*]] = arith.addi %[[PART]], %[[W1]]
// CHECK: %[[DST:.*]] = arith.index_cast %[[AT]]
// CHECK: amdgpu.gather_to_lds %[[BUFFER]][%{{.*}}], %[[VIEW]][%[[DST]]] : vector<8xbf16>, memref<?xbf16, #amdgpu.address_space<fat_raw_buffer>>, memref<6144xbf16, #gpu.address_space<workgroup>>
// CHECK-NOT: amdgpu.gather_to_lds
// CHECK: amdgpu.memory_counter_wait load(1) ds(0)
// CHECK-NEXT: gpu.barrier {rocktile.barrier_after_waits}
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8], [8, 16]], warp = [[16, 0], [32, 0]]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[0, 0], [16, 0]]>
func.func @async_load(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %slot: i32) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %s = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  %p = tile.assume %s {contiguity = array<i64: 1, 32>, divisibility = array<i64: 64, 64>} : tensor<64x32x!tile.ptr<bf16>, #copier>
  tile.async_load %p into %buf[%slot] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.async_wait {outstanding = 1 : i32}
  %x = tile.local_load %buf[%slot] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  return
}

// -----

// Commit groups (Gluon's async_copy.commit_group and wait_group): a wait
// leaves in flight the instructions of the newest groups, counted back
// along every path to it (here through the loop's back edge and out to the
// prologue: 2 either way); copies not yet committed are waited for (0).
// The barriers of tile-insert-barriers wait for the wave's LDS accesses
// only, not for copies in flight.
// CHECK-LABEL: gpu.func @commit_groups
// CHECK: scf.for
// CHECK: amdgpu.gather_to_lds
// CHECK: amdgpu.memory_counter_wait load(2)
// CHECK-NEXT: amdgpu.memory_counter_wait ds(0)
// CHECK-NEXT: gpu.barrier {rocktile.barrier_after_waits}
// CHECK: amdgpu.gather_to_lds
// CHECK-NEXT: amdgpu.memory_counter_wait load(0)
#copier = #tile.linear<register = [[0, 1], [0, 2], [0, 4]], lane = [[0, 8], [0, 16], [1, 0], [2, 0], [4, 8], [8, 16]], warp = [[16, 0], [32, 0]]>
#opA = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [32, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 8], [0, 16]], warp = [[0, 0], [16, 0]]>
func.func @commit_groups(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %n: i32) attributes {tile.lds_bytes = 12288 : i64, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %buf = tile.local_alloc {tile.lds_offset = 0 : i64} : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  %s = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>, #copier>
  %p = tile.assume %s {contiguity = array<i64: 1, 32>, divisibility = array<i64: 64, 64>} : tensor<64x32x!tile.ptr<bf16>, #copier>
  tile.async_load %p into %buf[%c0] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.commit_group
  tile.async_load %p into %buf[%c1] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.commit_group
  scf.for %i = %c0 to %n step %c1 : i32 {
    tile.async_load %p into %buf[%i] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
    tile.commit_group
    tile.wait_groups {outstanding = 2 : i32}
    tile.barrier {lds}
    %x = tile.local_load %buf[%i] : memref<3x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16, #opA>
  }
  tile.async_load %p into %buf[%c0] : tensor<64x32x!tile.ptr<bf16>, #copier>, memref<3x64x32xbf16, #gpu.address_space<workgroup>>
  tile.wait_groups {outstanding = 1 : i32}
  return
}

// -----

#b = #tile.blocked<sizePerThread = [32], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>

// A lane's 32 consecutive offsets start at a multiple of 32; a bound that
// is a multiple of 16 falls between runs of 16 of them, so the lane makes
// two compares and repeats each over its run. Without the bound's
// divisibility every register gets its own.
// CHECK-LABEL: gpu.func @shared_compares
// CHECK-COUNT-2: arith.cmpi slt
// CHECK-NOT: arith.cmpi
// CHECK: gpu.return
func.func @shared_compares(%x: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 8192 : i32, start = 0 : i32} : tensor<8192xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<8192xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<8192xi32, #b>
  %v = arith.extui %m : tensor<8192xi1, #b> to tensor<8192xi8, #b>
  %xs = tile.splat %x : !tile.ptr<i8> -> tensor<8192x!tile.ptr<i8>, #b>
  %xp = tile.addptr %xs, %r : tensor<8192x!tile.ptr<i8>, #b>, tensor<8192xi32, #b>
  tile.store %xp, %v : tensor<8192x!tile.ptr<i8>, #b>, tensor<8192xi8, #b>
  return
}

// CHECK-LABEL: gpu.func @unshared_compares
// CHECK-COUNT-32: arith.cmpi slt
// CHECK-NOT: arith.cmpi
// CHECK: gpu.return
func.func @unshared_compares(%x: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {end = 8192 : i32, start = 0 : i32} : tensor<8192xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<8192xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<8192xi32, #b>
  %v = arith.extui %m : tensor<8192xi1, #b> to tensor<8192xi8, #b>
  %xs = tile.splat %x : !tile.ptr<i8> -> tensor<8192x!tile.ptr<i8>, #b>
  %xp = tile.addptr %xs, %r : tensor<8192x!tile.ptr<i8>, #b>, tensor<8192xi32, #b>
  tile.store %xp, %v : tensor<8192x!tile.ptr<i8>, #b>, tensor<8192xi8, #b>
  return
}

// -----

#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
// A slice of gfx950's swizzled direct-to-LDS copy layout: register bit 0
// holds row 9 = 8 XOR 1, and lane bit 3 row 1, so coordinates combine by
// XOR. Such an exchange moves one element per store and load, each at its
// row-major index (coordinates XORed at run time), not vectors.
#swizzled = #tile.slice<dim = 1, parent = #tile.linear<register = [[9, 0], [16, 0]], lane = [[0, 0], [0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = [[32, 0], [64, 0]]>>

// CHECK-LABEL: gpu.func @exchange_into_swizzled_slice
// CHECK: %[[ROW:.*]] = arith.xori
// CHECK: arith.xori %[[ROW]], %c9_i32 : i32
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.store %{{.*}} : memref<128xi32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %view[%{{.*}}] : memref<128xi32, #gpu.address_space<workgroup>>
func.func @exchange_into_swizzled_slice(%x: !tile.ptr<i32>) attributes {tile.lds_bytes = 512 : i64, tile.num_warps = 4 : i32} {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #b>
  %xs = tile.splat %x : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #b>
  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<i32>, #b>, tensor<128xi32, #b>
  %v = tile.load %p : tensor<128x!tile.ptr<i32>, #b> -> tensor<128xi32, #b>
  %c = tile.convert_layout %v {tile.lds_offset = 0 : i64} : tensor<128xi32, #b> -> tensor<128xi32, #swizzled>
  %ys = tile.splat %x : !tile.ptr<i32> -> tensor<128x!tile.ptr<i32>, #swizzled>
  %r2 = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32, #swizzled>
  %q = tile.addptr %ys, %r2 : tensor<128x!tile.ptr<i32>, #swizzled>, tensor<128xi32, #swizzled>
  tile.store %q, %c : tensor<128x!tile.ptr<i32>, #swizzled>, tensor<128xi32, #swizzled>
  return
}

// -----

// A lane's 16 elements come in 4 loads of 4: joined pairwise (4 + 4, then
// 8 + 8), not inserted one by one into the whole vector, whose IR would
// grow with the square of a lane's elements.
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
// CHECK-LABEL: gpu.func @joined_loads
// CHECK-COUNT-4: vector.load {{.*}} vector<4xf32>
// CHECK: %[[A:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK: %[[B:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7] : vector<4xf32>, vector<4xf32>
// CHECK: vector.shuffle %[[A]], %[[B]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NOT: vector.shuffle {{.*}} : vector<16xf32>, vector<4xf32>
func.func @joined_loads(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  %v = tile.load %xp : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>, #b>
  %op = tile.addptr %os, %r : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xi32, #b>
  tile.store %op, %v : tensor<1024x!tile.ptr<f32>, #b>, tensor<1024xf32, #b>
  return
}

// -----

// isNontemporal (cache_modifier=".cs") reaches the loads and stores.
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
// CHECK-LABEL: gpu.func @nontemporal
// CHECK: vector.load {{.*}} {alignment = 16 : i64, nontemporal = true}
// CHECK: vector.store {{.*}} {alignment = 16 : i64, nontemporal = true}
func.func @nontemporal(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %out: !tile.ptr<f32> {tile.divisibility = 16 : i32}) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %r = tile.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  %v = tile.load %xp {isNontemporal} : tensor<256x!tile.ptr<f32>, #b> -> tensor<256xf32, #b>
  %os = tile.splat %out : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #b>
  %op = tile.addptr %os, %r : tensor<256x!tile.ptr<f32>, #b>, tensor<256xi32, #b>
  tile.store %op, %v {isNontemporal} : tensor<256x!tile.ptr<f32>, #b>, tensor<256xf32, #b>
  return
}

// -----

// A lane's 1024 elements need more registers than a wave of one warp has
// (512): its accesses run as one loop over private copies of the indices,
// the mask (as bytes), `other` and the result, not as 256 unrolled chunks;
// the store reuses the copies the load made.
#b = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [1], order = [0]>
// CHECK-LABEL: gpu.func @looped_chunks
// CHECK-DAG: %[[OUT:.*]] = memref.alloca() : memref<1024xf32, #gpu.address_space<private>>
// CHECK-DAG: %[[OTHER:.*]] = memref.alloca() : memref<1024xf32, #gpu.address_space<private>>
// CHECK-DAG: %[[MASK:.*]] = memref.alloca() : memref<1024xi8, #gpu.address_space<private>>
// CHECK: vector.store %{{.*}}, %[[INDEX:.*]][%{{.*}}] : memref<1024xindex, #gpu.address_space<private>>, vector<1024xindex>
// CHECK: %[[BYTES:.*]] = arith.extui %{{.*}} : vector<1024xi1> to vector<1024xi8>
// CHECK: vector.store %[[BYTES]], %[[MASK]]
// CHECK: vector.store %{{.*}}, %[[OTHER]]
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   memref.load %[[INDEX]][%[[G]]]
// CHECK:   %[[M:.*]] = memref.load %[[MASK]][%[[G]]]
// CHECK:   %[[P:.*]] = arith.cmpi ne, %[[M]], %{{.*}} : i8
// CHECK:   %[[V:.*]] = vector.load %{{.*}} : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<4xf32>
// CHECK:   %[[O:.*]] = vector.load %[[OTHER]][%[[G]]] : memref<1024xf32, #gpu.address_space<private>>, vector<4xf32>
// CHECK:   %[[C:.*]] = arith.select %[[P]], %[[V]], %[[O]] : vector<4xf32>
// CHECK:   vector.store %[[C]], %[[OUT]][%[[G]]]
// CHECK: }
// The store reads the loaded tile and the mask from the load's copies (the
// whole loaded vector, unused, is gone).
// CHECK-NOT: vector<1024xf32>
// CHECK-NOT: vector.store {{.*}}, %[[OUT]]
// CHECK-NOT: vector.store {{.*}}, %[[MASK]]
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:   %[[W:.*]] = vector.load %[[OUT]][%[[H]]] : memref<1024xf32, #gpu.address_space<private>>, vector<4xf32>
// CHECK:   memref.load %[[MASK]][%[[H]]]
// CHECK:   vector.store %[[W]], %{{.*}} : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, vector<4xf32>
// CHECK: }
// CHECK-NOT: vector.load {{.*}}, vector<4xf32>
// CHECK: gpu.return
func.func @looped_chunks(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32}, %n: i32 {tile.divisibility = 16 : i32}) attributes {tile.lds_bytes = 0 : i64, tile.num_warps = 1 : i32} {
  %r = tile.make_range {end = 65536 : i32, start = 0 : i32} : tensor<65536xi32, #b>
  %ns = tile.splat %n : i32 -> tensor<65536xi32, #b>
  %m = arith.cmpi slt, %r, %ns : tensor<65536xi32, #b>
  %two = arith.constant dense<2.0> : tensor<65536xf32, #b>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #b>
  %xp = tile.addptr %xs, %r : tensor<65536x!tile.ptr<f32>, #b>, tensor<65536xi32, #b>
  %v = tile.load %xp, mask = %m : tensor<65536xi1, #b>, other = %two : tensor<65536x!tile.ptr<f32>, #b> -> tensor<65536xf32, #b>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<65536x!tile.ptr<f32>, #b>
  %yp = tile.addptr %ys, %r : tensor<65536x!tile.ptr<f32>, #b>, tensor<65536xi32, #b>
  tile.store %yp, %v, mask = %m : tensor<65536x!tile.ptr<f32>, #b>, tensor<65536xf32, #b>, tensor<65536xi1, #b>
  return
}

// -----

// A sub-block of an author's slot (Gluon's .slice): the lane's coordinates
// start at the sub-block's origin (row 32 here), so the padded rows' pitch
// applies to them as to the whole block's.
// CHECK-LABEL: gpu.func @sub_block
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %c32_i32 : i32
// CHECK: arith.muli %[[ROW]], %c72_i32 : i32
// CHECK: vector.load
// CHECK: vector.store
#rows = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]>
func.func @sub_block(%slot: i32) attributes {tile.lds_bytes = 9216 : i64, tile.num_warps = 4 : i32} {
  %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 1, perPhase = 1, maxPhase = 1, rowPitch = 72>, tile.lds_offset = 0 : i64} : memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  %x = tile.local_load %buf[%slot] {offsets = array<i64: 32, 0>} : memref<1x64x64xbf16, #gpu.address_space<workgroup>> -> tensor<32x64xbf16, #rows>
  tile.local_store %x, %buf[%slot] {offsets = array<i64: 0, 0>} : tensor<32x64xbf16, #rows>, memref<1x64x64xbf16, #gpu.address_space<workgroup>>
  return
}
