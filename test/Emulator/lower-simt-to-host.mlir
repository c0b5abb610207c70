// RUN: rocktile-opt %s --tile-lower-simt-to-host="wave-size=64" | FileCheck %s

// A workgroup becomes a host function; segments between cross-lane ops and
// barriers are loops over the 128 threads; the uniform row offset is
// computed once; accesses are bounds-checked and report their source site.
// CHECK: module attributes {rocktile.emulator_sites = [{arg = 0 : i64, element_bytes = 4 : i64, kind = "load", lds_offset = 0 : i64, location = "kernel.py:3:7"}, {arg = 0 : i64, element_bytes = 4 : i64, kind = "store"
// CHECK-DAG: func.func private @rocktile_emu_fault(i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @rocktile_emu_ds_swizzle(i64, i64, i64, i64, i64, i64)
// CHECK-LABEL: func.func @k_workgroup(
// CHECK-SAME: %[[CTX:[^:]*]]: index, %[[BX:[^:]*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index,
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32, #gpu.address_space<global>>, %[[LDS:[^:]*]]: memref<8xi8, #gpu.address_space<workgroup>>)
// CHECK: %[[ROW:.*]] = arith.muli %[[BX]]
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[I:.*]] = arith.addi %[[ROW]], %[[T]]
// CHECK: memref.dim %[[X]]
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load %[[X]][%[[I]]]
// CHECK: } else {
// CHECK: func.call @rocktile_emu_fault
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<128xf32>
// CHECK: call @rocktile_emu_ds_swizzle
// CHECK: memref.view %[[LDS]]
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[X]]
// CHECK: memref.dealloc
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%x: memref<?xf32, #gpu.address_space<global>>) workgroup(%lds : memref<8xi8, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %b = gpu.block_id x
      %row = arith.muli %b, %c128 : index
      %t = gpu.thread_id x
      %i = arith.addi %row, %t : index
      %v = memref.load %x[%i] : memref<?xf32, #gpu.address_space<global>> loc("kernel.py":3:7)
      %w = amdgpu.swizzle_bitmode %v 31 0 4 : f32
      gpu.barrier
      %view = memref.view %lds[%c0][] : memref<8xi8, #gpu.address_space<workgroup>> to memref<2xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %v, %w : f32
      memref.store %s, %x[%i] : memref<?xf32, #gpu.address_space<global>>
      gpu.return
    }
  }
}
