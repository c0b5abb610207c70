// RUN: rocktile-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile-convert-simt-to-llvm{chipset=gfx950}))' | FileCheck %s
// RUN: rocktile-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile-convert-simt-to-llvm{chipset=gfx950}))' | FileCheck %s --check-prefix=FLAT

// Math becomes LLVM intrinsics (expanded by the AMDGPU backend), never calls
// into the ROCm device library; address spaces become AMDGPU's numbers.
// CHECK-NOT: __ocml
// CHECK-LABEL: llvm.func @k
// CHECK-SAME: !llvm.ptr<1>
// CHECK-SAME: rocdl.flat_work_group_size = "128,128"
// CHECK-SAME: rocdl.kernel
// CHECK-SAME: rocdl.reqd_work_group_size = array<i32: 128, 1, 1>
// CHECK: rocdl.workitem.id.x
// The grid size comes from the hidden kernel arguments, not the device library.
// CHECK: %[[HIDDEN:.*]] = llvm.call_intrinsic "llvm.amdgcn.implicitarg.ptr"() : () -> !llvm.ptr<4>
// CHECK: %[[Y:.*]] = llvm.getelementptr %[[HIDDEN]][4] : (!llvm.ptr<4>) -> !llvm.ptr<4>, i8
// CHECK: llvm.load %[[Y]] invariant {alignment = 4 : i64} : !llvm.ptr<4> -> i32
// CHECK: llvm.intr.exp(%{{.*}}) : (vector<4xf32>) -> vector<4xf32>
// CHECK: llvm.intr.exp2
// tl.exp2 (afn) is the hardware instruction, element by element.
// CHECK: %[[E:.*]] = llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<2xf32>
// CHECK: %[[X:.*]] = llvm.call_intrinsic "llvm.amdgcn.exp2"(%[[E]]) : (f32) -> f32
// CHECK: llvm.insertelement %[[X]]
// CHECK: llvm.call_intrinsic "llvm.amdgcn.exp2"
// CHECK-NOT: llvm.amdgcn.exp2
// CHECK: llvm.intr.log
// The precise rsqrt (libdevice.rsqrt) is a correctly rounded sqrt and a
// divide; tl.rsqrt and tl.sqrt (afn) are v_rsq_f32 and v_sqrt_f32.
// CHECK: llvm.intr.sqrt
// CHECK: llvm.fdiv
// CHECK: llvm.call_intrinsic "llvm.amdgcn.rsq"(%{{.*}}) : (f32) -> f32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.sqrt"(%{{.*}}) : (f32) -> f32
// CHECK: rocdl.update.dpp
// CHECK: rocdl.ds_swizzle
// CHECK: rocdl.permlane32.swap
// CHECK: rocdl.barrier
// CHECK: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32, #gpu.address_space<global>>, %s: f32) workgroup(%lds : memref<16xi8, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = vector.broadcast %s : f32 to vector<4xf32>
      %t = gpu.thread_id x
      %gy = gpu.grid_dim y
      %e = math.exp %v : vector<4xf32>
      %e2 = math.exp2 %s : f32
      %pair = vector.broadcast %s : f32 to vector<2xf32>
      %fast = math.exp2 %pair fastmath<afn> : vector<2xf32>
      %fast0 = vector.extract %fast[0] : f32 from vector<2xf32>
      %fast1 = vector.extract %fast[1] : f32 from vector<2xf32>
      %fsum = arith.addf %fast0, %fast1 : f32
      %e2f = arith.addf %e2, %fsum : f32
      %l = math.log %e2f : f32
      %r0 = math.rsqrt %l : f32
      %r1 = math.rsqrt %r0 fastmath<afn> : f32
      %r = math.sqrt %r1 fastmath<afn> : f32
      %d = rocdl.update.dpp %r, %r with 177, 15, 15, true : f32
      %w = amdgpu.swizzle_bitmode %d 31 0 4 : f32
      %p = amdgpu.permlane_swap %w 32 : f32
      %view = memref.view %lds[%c0][] : memref<16xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      memref.store %p, %view[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
      %g = vector.load %x[%c0] {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      %sum = arith.addf %g, %e : vector<4xf32>
      vector.store %sum, %x[%c0] : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      gpu.return
    }
  }
}

// -----

// Memory from address 0 (pointers made from integers): a descriptor of null
// global pointers whose size reaches 2^63 bytes. The check that such an
// address is a multiple of the element size is the emulator's alone.
// FLAT-LABEL: llvm.func @flat
// FLAT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr<1>
// FLAT: llvm.insertvalue %[[NULL]], %{{.*}}[0]
// FLAT: llvm.insertvalue %[[NULL]], %{{.*}}[1]
// FLAT: llvm.mlir.constant(2305843009213693951 : index) : i64
// FLAT: %[[BASE:.*]] = llvm.extractvalue %{{.*}}[1]
// FLAT: %[[ADDRESS:.*]] = llvm.getelementptr inbounds|nuw %[[BASE]][%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
// FLAT: llvm.load %[[ADDRESS]] : !llvm.ptr<1> -> f32
// FLAT-NOT: cf.assert
// FLAT: llvm.return
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @flat(%address: i64, %out: memref<?xf32, #gpu.address_space<global>>) kernel {
      %flat = builtin.unrealized_conversion_cast to memref<?xf32, #gpu.address_space<global>> {rocktile.flat_memory}
      %index = arith.index_cast %address : i64 to index
      %c2 = arith.constant 2 : index
      %c0 = arith.constant 0 : index
      %elements = arith.shrui %index, %c2 : index
      %low = arith.andi %index, %c2 : index
      %aligned = arith.cmpi eq, %low, %c0 : index
      cf.assert %aligned, "misaligned" {rocktile.emulator_check}
      %v = memref.load %flat[%elements] : memref<?xf32, #gpu.address_space<global>>
      memref.store %v, %out[%c0] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}

// -----

// tile.async_wait's barrier follows explicit waits: a bare s_barrier between
// wavefront-scope fences (a workgroup-scope release would wait for every
// copy in flight); other barriers stay rocdl.barrier, which LLVM gives
// workgroup fences.
// CHECK-LABEL: llvm.func @after_waits
// CHECK: rocdl.s.wait.asynccnt 4
// CHECK-NEXT: llvm.fence syncscope("wavefront") release
// CHECK-NEXT: rocdl.s.barrier
// CHECK-NEXT: llvm.fence syncscope("wavefront") acquire
// CHECK-NEXT: rocdl.barrier
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @after_waits() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      rocdl.s.wait.asynccnt 4
      gpu.barrier {rocktile.barrier_after_waits}
      gpu.barrier
      gpu.return
    }
  }
}

// -----

// A load marked volatile (a volatile tile.load) is an LLVM volatile load,
// which the AMDGPU backend issues every time (sc0 sc1 on gfx950).
// CHECK-LABEL: llvm.func @spin
// CHECK: llvm.load volatile %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: llvm.load volatile %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @spin(%flag: memref<?xi32, #gpu.address_space<global>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %v = memref.load %flag[%c0] {rocktile.volatile} : memref<?xi32, #gpu.address_space<global>>
      %w = vector.load %flag[%c0] {alignment = 8 : i64, rocktile.volatile} : memref<?xi32, #gpu.address_space<global>>, vector<2xi32>
      gpu.return
    }
  }
}

// -----

// An atomic marked with a scope is a relaxed (monotonic) atomicrmw at that
// scope; below the system scope it may use the native float atomics
// (ordinary memory of this device, denormal mode not honoured). Unmarked,
// it keeps MemRef's lowering (acq_rel at the system scope).
// CHECK-LABEL: llvm.func @scoped_atomics
// CHECK: llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("agent") monotonic {rocdl.ignore_denormal_mode, rocdl.no_fine_grained_memory, rocdl.no_remote_memory} : !llvm.ptr<1>, f32
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} syncscope("workgroup") monotonic
// CHECK: llvm.atomicrmw xchg %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.atomicrmw add %{{.*}}, %{{.*}} acq_rel : !llvm.ptr<1>, i32
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @scoped_atomics(%f: memref<?xf32, #gpu.address_space<global>>, %i: memref<?xi32, #gpu.address_space<global>>, %v: f32, %n: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %a = memref.atomic_rmw addf %v, %f[%c0] {rocktile.syncscope = "agent"} : (f32, memref<?xf32, #gpu.address_space<global>>) -> f32
      %b = memref.atomic_rmw maxs %n, %i[%c0] {rocktile.syncscope = "workgroup"} : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
      %c = memref.atomic_rmw assign %n, %i[%c0] {rocktile.syncscope = ""} : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
      %d = memref.atomic_rmw addi %n, %i[%c0] : (i32, memref<?xi32, #gpu.address_space<global>>) -> i32
      gpu.return
    }
  }
}

// -----

// A compare-and-swap (tl.atomic_cas) is one relaxed cmpxchg at its scope,
// not the generic lowering's retry loop.
// CHECK-LABEL: llvm.func @compare_exchange
// CHECK: %[[X:.*]] = llvm.cmpxchg %{{.*}}, %{{.*}}, %{{.*}} syncscope("agent") monotonic monotonic : !llvm.ptr<1>, i32
// CHECK: llvm.extractvalue %[[X]][0]
// CHECK-NOT: llvm.cmpxchg
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @compare_exchange(%lock: memref<?xi32, #gpu.address_space<global>>, %cmp: i32, %v: i32) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %old = memref.generic_atomic_rmw %lock[%c0] : memref<?xi32, #gpu.address_space<global>> {
      ^bb0(%current: i32):
        %same = arith.cmpi eq, %current, %cmp : i32
        %new = arith.select %same, %v, %current : i32
        memref.atomic_yield %new : i32
      } {rocktile.compare_exchange, rocktile.syncscope = "agent"}
      gpu.return
    }
  }
}
