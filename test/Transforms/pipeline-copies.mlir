// RUN: rocktile-opt %s -split-input-file --tile-pipeline-copies="target=gfx1250" | FileCheck %s
// RUN: rocktile-opt %s -split-input-file --tile-pipeline-copies="target=gfx950" | FileCheck %s --check-prefix=GFX950

// Two stages: one copy ahead. The prologue starts iteration 0's copy if the
// loop runs at all. The loop splits: all but its last iteration wait for
// their warp's copies (none may stay in flight), start the next iteration's
// into the other slot (its offsets the loop's, computed at that iteration)
// and read their own slot; the last iteration, from where those end, only
// waits and reads. The loop carries its slot from 0, turned by a select
// (as i % N, LLVM would make every slot address an induction variable of
// its own), and beside it the slot it copies into, from 1: the slot the
// previous iteration read.
// CHECK-LABEL: func.func @two_stages
// CHECK: %[[BUF:.*]] = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %c0_i32, %[[N:.*]] : i32
// CHECK: scf.if %[[FIRST]] {
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] shape [%{{.*}}, %{{.*}}] strides [%{{.*}}, %{{.*}}] into %[[BUF]][%c0_i32{{.*}}]
// CHECK: %[[MAINUB:.*]] = arith.subi %[[N]], %c1_i32
// CHECK: %[[TAILLB:.*]] = arith.maxsi %[[MAINUB]]
// CHECK: %[[MAIN:.*]]:3 = scf.for %[[K:.*]] = %c0_i32 to %[[MAINUB]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %c0_i32{{.*}}, %[[INTO:.*]] = %c1_i32{{.*}})
// CHECK-NEXT: tile.async_wait {outstanding = 0 : i32}
// CHECK: %[[TURNED:.*]] = arith.addi %[[SLOT]], %c1_i32
// CHECK: %[[WRAPS:.*]] = arith.cmpi eq, %[[TURNED]], %c2_i32
// CHECK: %[[NEXTSLOT:.*]] = arith.select %[[WRAPS]], %c0_i32{{.*}}, %[[TURNED]]
// CHECK-NOT: scf.if
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %c1_i32 : i32
// CHECK: %[[OFF:.*]] = arith.muli %[[NEXT]], %c32_i32
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %[[OFF]]] {{.*}} into %[[BUF]][%[[INTO]]]
// CHECK: tile.local_load %[[BUF]][%[[SLOT]]] : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
// CHECK: scf.yield %{{.*}}, %[[NEXTSLOT]], %[[SLOT]] : tensor<64x32xbf16>, i32, i32
// CHECK: scf.for %[[T:.*]] = %[[TAILLB]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[MAIN]]#0)
// CHECK: %[[TAILSLOT:.*]] = arith.remsi %[[T]], %c2_i32
// CHECK-NEXT: tile.async_wait {outstanding = 0 : i32}
// CHECK-NOT: tile.async_copy
// CHECK: tile.local_load %[[BUF]][%[[TAILSLOT]]]
// CHECK-NOT: tile.descriptor_load
func.func @two_stages(%base: !tile.ptr<bf16>, %m: i32, %M: i32, %K: i32, %s: i32, %n: i32) -> tensor<64x32xbf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %zero = arith.constant 0.0 : bf16
  %init = tile.splat %zero : bf16 -> tensor<64x32xbf16>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<64x32xbf16>) : i32 {
    %off = arith.muli %k, %c32 : i32
    %a = tile.descriptor_load %base[%m, %off] shape [%M, %K] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<64x32xbf16>
    %sum = arith.addf %acc, %a : tensor<64x32xbf16>
    scf.yield %sum : tensor<64x32xbf16>
  } {tile.num_stages = 2 : i32}
  return %r : tensor<64x32xbf16>
}

// -----

// Three stages and two loads: the prologue starts two iterations' copies;
// the loop's first part may leave the next iteration's two copies in flight;
// its last two iterations wait for all.
// CHECK-LABEL: func.func @three_stages
// CHECK-COUNT-2: tile.local_alloc : memref<3x32x32xbf16
// CHECK: scf.if
// CHECK-COUNT-2: tile.async_copy
// CHECK: scf.if
// CHECK-COUNT-2: tile.async_copy
// CHECK: arith.subi %{{.*}}, %c2_i32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[SLOT:.*]] = %c0_i32{{.*}}, %[[INTO:.*]] = %c2_i32{{.*}})
// CHECK-NEXT: tile.async_wait {outstanding = 2 : i32}
// CHECK: %[[FOLLOWING:.*]] = arith.addi %[[SLOT]], %c1_i32
// CHECK-COUNT-2: tile.async_copy {{.*}} into %{{.*}}[%[[INTO]]]
// CHECK-COUNT-2: tile.local_load %{{.*}}[%[[SLOT]]]
// CHECK: scf.yield {{.*}}, %[[SLOT]] :
// CHECK: scf.for
// CHECK: tile.async_wait {outstanding = 0 : i32}
// CHECK-NOT: tile.async_copy
// CHECK-COUNT-2: tile.local_load
func.func @three_stages(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %M: i32, %s: i32, %n: i32) -> tensor<32x32xbf16> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : bf16
  %init = tile.splat %zero : bf16 -> tensor<32x32xbf16>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<32x32xbf16>) : i32 {
    %x = tile.descriptor_load %a[%k, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<32x32xbf16>
    %y = tile.descriptor_load %b[%c0, %k] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<32x32xbf16>
    %p = arith.addf %x, %y : tensor<32x32xbf16>
    %sum = arith.addf %acc, %p : tensor<32x32xbf16>
    scf.yield %sum : tensor<32x32xbf16>
  } {tile.num_stages = 3 : i32}
  return %r : tensor<32x32xbf16>
}

// -----

// An offset the loop carries (a block pointer advanced each iteration) is
// stepped ahead with the copies: the prologue computes it for iteration 1,
// the loop carries it one iteration ahead of its own.
// CHECK-LABEL: func.func @carried_offset
// CHECK: %[[SECOND:.*]] = arith.addi %c0_i32{{.*}}, %c32_i32
// CHECK: scf.if
// CHECK: tile.async_copy %{{.*}}[%c0_i32{{.*}}, %c0_i32{{.*}}]
// CHECK: scf.for %{{.*}} = %{{.*}} iter_args(%[[OFF:.*]] = %c0_i32{{.*}}, %[[AHEAD:.*]] = %[[SECOND]], %[[SLOT:.*]] = %c0_i32{{.*}}, %[[INTO:.*]] = %c1_i32{{.*}}) -> (i32, i32, i32, i32)
// CHECK: %[[NEXT:.*]] = arith.addi %[[AHEAD]], %c32_i32
// CHECK: tile.async_copy %{{.*}}[%[[AHEAD]], %c0_i32{{.*}}]
// CHECK: scf.yield %{{.*}}, %[[NEXT]], %{{.*}}, %[[SLOT]] : i32, i32, i32, i32
// CHECK-NOT: tile.descriptor_load
func.func @carried_offset(%base: !tile.ptr<bf16>, %M: i32, %s: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%off = %c0) -> (i32) : i32 {
    %x = tile.descriptor_load %base[%off, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<32x32xbf16>
    %next = arith.addi %off, %c32 : i32
    scf.yield %next : i32
  } {tile.num_stages = 2 : i32}
  return
}

// -----

// A base the loop computes from values defined outside it (a 4-D
// descriptor's, moved by the head's offset) is the same in every iteration:
// its ops move before the loop, and the load is pipelined.
// CHECK-LABEL: func.func @invariant_base
// CHECK: %[[MOVED:.*]] = tile.addptr %{{.*}}, %{{.*}} : !tile.ptr<bf16>, i64
// CHECK: tile.local_alloc : memref<2x32x32xbf16
// CHECK: tile.async_copy %[[MOVED]][
// CHECK: scf.for
// CHECK-NOT: tile.addptr
// CHECK: tile.async_copy %[[MOVED]][
// CHECK-NOT: tile.descriptor_load
func.func @invariant_base(%base: !tile.ptr<bf16>, %head: i64, %M: i32, %s: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c32 = arith.constant 32 : i32
  scf.for %k = %c0 to %n step %c1 : i32 {
    %off = arith.muli %k, %c32 : i32
    %step = arith.muli %head, %head : i64
    %moved = tile.addptr %base, %step : !tile.ptr<bf16>, i64
    %x = tile.descriptor_load %moved[%off, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<32x32xbf16>
  } {tile.num_stages = 2 : i32}
  return
}

// -----

// A dot operand loaded through pointers the loop advances: the load of
// iteration i + 1 is made at the end of iteration i, from pointers the loop
// carries one iteration ahead, and its tile carried in registers to its
// iteration. Such a loop keeps 2 stages when asked for more (a second tile
// in flight would be copied register by register each iteration). The
// prologue loads iteration 0 if it exists; the last iteration loads nothing.
// CHECK-LABEL: func.func @pointer_loads
// CHECK-NOT: tile.local_alloc
// CHECK: %[[SECOND:.*]] = tile.addptr %[[P0:.*]], %[[STEP:.*]] :
// CHECK: %[[T0:.*]] = scf.if %{{.*}} -> (tensor<32x32xbf16>) {
// CHECK:   tile.load %[[P0]], mask
// CHECK: } else {
// CHECK:   tile.splat
// CHECK: %[[MAINUB:.*]] = arith.subi %{{.*}}, %c1_i32
// CHECK: %[[MAIN:.*]]:4 = scf.for {{.*}} to %[[MAINUB]] {{.*}} iter_args(%{{.*}} = %[[P0]], %{{.*}} = %{{.*}}, %[[P:.*]] = %[[SECOND]], %[[CUR:.*]] = %[[T0]])
// CHECK-NOT: tile.async_wait
// CHECK: %[[D:.*]] = tile.dot %[[CUR]], %[[CUR]]
// CHECK: %[[Q:.*]] = tile.addptr %[[P]], %[[STEP]]
// CHECK: %[[LOADED:.*]] = tile.load %[[P]], mask
// CHECK: scf.yield %{{.*}}, %[[D]], %[[Q]], %[[LOADED]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[MAIN]]#0, %{{.*}} = %[[MAIN]]#1, %[[TCUR:.*]] = %[[MAIN]]#3)
// CHECK-NOT: tile.load
// CHECK: tile.dot %[[TCUR]], %[[TCUR]]
func.func @pointer_loads(%p0: tensor<32x32x!tile.ptr<bf16>>, %step: tensor<32x32xi32>, %n: i32) -> tensor<32x32xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<32x32xf32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %init) -> (tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xf32>) : i32 {
    %bound = tile.splat %k : i32 -> tensor<32x32xi32>
    %m = arith.cmpi slt, %step, %bound : tensor<32x32xi32>
    %x = tile.load %p, mask = %m : tensor<32x32xi1> : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
    %d = tile.dot %x, %x, %acc : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
    %q = tile.addptr %p, %step : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
    scf.yield %q, %d : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xf32>
  } {tile.num_stages = 3 : i32}
  return %r#1 : tensor<32x32xf32>
}

// -----

// Three stages of a dot operand loaded through pointers in 16-byte runs
// along its rows: copied into 3 LDS slots by the target's async loads
// (tile.async_load, 2 copies ahead) with the block copies' schedule; the
// pointers the loop advances go 2 iterations ahead.
// CHECK-LABEL: func.func @async_loads
// CHECK: %[[BUF:.*]] = tile.local_alloc : memref<3x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK:   tile.async_load %{{.*}} into %[[BUF]][%c0_i32{{.*}}]
// CHECK: scf.if
// CHECK:   tile.async_load %{{.*}} into %[[BUF]][%c1_i32{{.*}}]
// CHECK: scf.for
// CHECK:   tile.async_wait {outstanding = 1 : i32}
// CHECK:   tile.async_load %{{.*}} into %[[BUF]]
// CHECK:   %[[A:.*]] = tile.local_load %[[BUF]]
// CHECK:   tile.dot %[[A]], %arg1
// CHECK: scf.for
// CHECK:   tile.async_wait {outstanding = 0 : i32}
// CHECK-NOT: tile.load
func.func @async_loads(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32},
                       %w: tensor<32x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<64x64xf32>
  %rows = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %cols = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %stride = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r2, %stride : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %cb : tensor<64x32xi32>
  %base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %p0 = tile.addptr %base, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %step = arith.constant dense<32> : tensor<64x32xi32>
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %init) -> (tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>) : i32 {
    %x = tile.load %p : tensor<64x32x!tile.ptr<bf16>> -> tensor<64x32xbf16>
    %d = tile.dot %x, %w, %acc : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %q = tile.addptr %p, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    scf.yield %q, %d : tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>
  } {tile.num_stages = 3 : i32}
  return %r#1 : tensor<64x64xf32>
}

// -----

// A row of scales loaded each iteration beside a dot operand goes one
// iteration ahead with it, in registers: loaded in its place, its wait
// would also wait for whatever the loop started before it (the copies into
// LDS, on gfx950). At 2 stages only; not where the loop writes memory. The
// operand, in 16-byte runs through a :range32 pointer, is copied into 2 LDS
// slots at 2 stages on both targets.
// CHECK-LABEL: func.func @side_loads
// CHECK: tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: scf.if %{{.*}} -> (tensor<64xf32>)
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>, tensor<64x!tile.ptr<f32>>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x!tile.ptr<f32>>, tensor<64xf32>, i32, i32)
// CHECK:   tile.async_wait {outstanding = 0 : i32}
// CHECK:   tile.async_load
// CHECK: scf.for {{.*}} -> (tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>, tensor<64x!tile.ptr<f32>>, tensor<64xf32>)
// CHECK-NOT: tile.load
// CHECK: scf.yield
// GFX950-LABEL: func.func @side_loads
// GFX950: tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
// GFX950: scf.if %{{.*}} -> (tensor<64xf32>)
// GFX950: scf.for {{.*}} -> (tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>, tensor<64x!tile.ptr<f32>>, tensor<64x32x!tile.ptr<bf16>>, tensor<64x!tile.ptr<f32>>, tensor<64xf32>, i32, i32)
// GFX950:   tile.async_wait {outstanding = 0 : i32}
// GFX950:   tile.async_load
func.func @side_loads(%a: !tile.ptr<bf16> {tile.divisibility = 16 : i32, tile.pointer_range = 32 : i32},
                      %s: !tile.ptr<f32>, %w: tensor<32x64xbf16>, %n: i32) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<64x64xf32>
  %rows = tile.make_range {start = 0 : i32, end = 64 : i32} : tensor<64xi32>
  %cols = tile.make_range {start = 0 : i32, end = 32 : i32} : tensor<32xi32>
  %r2 = tile.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c2 = tile.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %stride = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r2, %stride : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x32xi32>
  %cb = tile.broadcast %c2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %cb : tensor<64x32xi32>
  %base = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %p0 = tile.addptr %base, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %sbase = tile.splat %s : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %s0 = tile.addptr %sbase, %rows : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %step = arith.constant dense<32> : tensor<64x32xi32>
  %sstep = arith.constant dense<1> : tensor<64xi32>
  %r:3 = scf.for %k = %c0 to %n step %c1 iter_args(%p = %p0, %acc = %init, %sp = %s0)
      -> (tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>, tensor<64x!tile.ptr<f32>>) : i32 {
    %x = tile.load %p : tensor<64x32x!tile.ptr<bf16>> -> tensor<64x32xbf16>
    %scale = tile.load %sp : tensor<64x!tile.ptr<f32>> -> tensor<64xf32>
    %d = tile.dot %x, %w, %init : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %e = tile.expand_dims %scale {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    %sb = tile.broadcast %e : tensor<64x1xf32> -> tensor<64x64xf32>
    %ds = arith.mulf %d, %sb : tensor<64x64xf32>
    %sum = arith.addf %acc, %ds : tensor<64x64xf32>
    %q = tile.addptr %p, %step : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
    %sq = tile.addptr %sp, %sstep : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
    scf.yield %q, %sum, %sq : tensor<64x32x!tile.ptr<bf16>>, tensor<64x64xf32>, tensor<64x!tile.ptr<f32>>
  } {tile.num_stages = 2 : i32}
  return %r#1 : tensor<64x64xf32>
}

// -----

// Not pipelined: one stage; a load whose tile is no dot operand; pointers
// computed from a loaded value.
// CHECK-LABEL: func.func @unpipelined
// CHECK-NOT: tile.async_copy
// CHECK-NOT: scf.if
// CHECK-COUNT-3: tile.load
func.func @unpipelined(%base: !tile.ptr<bf16>, %p: tensor<32x32x!tile.ptr<bf16>>, %idx: tensor<32x32x!tile.ptr<i32>>,
                       %M: i32, %s: i32, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %init = tile.splat %zero : f32 -> tensor<32x32xf32>
  scf.for %k = %c0 to %n step %c1 : i32 {
    %x = tile.descriptor_load %base[%k, %c0] shape [%M, %M] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<32x32xbf16>
  } {tile.num_stages = 1 : i32}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %x = tile.load %p : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
    %y = arith.addf %x, %x : tensor<32x32xbf16>
  } {tile.num_stages = 2 : i32}
  scf.for %k = %c0 to %n step %c1 : i32 {
    %o = tile.load %idx : tensor<32x32x!tile.ptr<i32>> -> tensor<32x32xi32>
    %q = tile.addptr %p, %o : tensor<32x32x!tile.ptr<bf16>>, tensor<32x32xi32>
    %x = tile.load %q : tensor<32x32x!tile.ptr<bf16>> -> tensor<32x32xbf16>
    %d = tile.dot %x, %x, %init : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
  } {tile.num_stages = 2 : i32}
  return
}
