#ifndef ROCKTILE_EMULATOR_PASSES
#define ROCKTILE_EMULATOR_PASSES

include "mlir/Pass/PassBase.td"

def LowerSimtToHost : Pass<"tile-lower-simt-to-host", "mlir::ModuleOp"> {
  let summary = "Turn each SIMT kernel into a host function that runs one workgroup";
  let description = [{
    The CPU emulator's entry: a `gpu.func` at the cut becomes
    `func.func @<kernel>_workgroup`, which runs every lane of one workgroup.
    The body is cut into segments at the points where lanes must be in
    lockstep: `gpu.barrier` and every cross-lane op (`amdgpu.dpp`,
    `amdgpu.swizzle_bitmode`, `amdgpu.permlane_swap`, `gpu.shuffle`, the
    matrix instructions, and the lane exchange of `amdgpu.transpose_load`
    and `rocdl.ds.load.tr*`, whose LDS read is each lane's own plain read).
    Each
    segment runs as a loop over the workgroup's threads; values that cross a
    segment live in per-thread arrays; cross-lane ops become calls into the
    emulation runtime (runtime/lib/Emulator/WaveOps.cpp), which applies the
    instruction's semantics to the whole wave at once. Values that no thread
    index reaches are computed once per workgroup. `scf.for`, `scf.if` and
    `scf.while` around lockstep ops run on the host with thread 0's bounds
    and conditions, after a runtime check that every thread agrees.

    Every global and LDS access is checked against its buffer; a miss calls
    `rocktile_emu_fault` with the access's site (its source location) and is
    skipped. `memref.assume_alignment` becomes a check of the claim. After a
    volatile load and after an atomic in a `scf.while`, where a workgroup
    may wait for another, `rocktile_emu_spin` gets the value read: the
    runtime then runs the launch's workgroups as fibers that give way there
    (and the module is marked `rocktile.emulator_spins`).

    Before:
    ```mlir
    gpu.func @k(%x: memref<?xf32, #gpu.address_space<global>>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<?xf32, #gpu.address_space<global>>
      %w = amdgpu.swizzle_bitmode %v 31 0 4 : f32
      ...
    }
    ```
    After:
    ```mlir
    func.func @k_workgroup(%ctx: index, %bx: index, %by: index, %bz: index,
                           %gx: index, %gy: index, %gz: index,
                           %x: memref<?xf32, #gpu.address_space<global>>) {
      %v_all = memref.alloc() : memref<256xf32>
      scf.for %t = %c0 to %c256 step %c1 { ...checked load...; memref.store %v, %v_all[%t] }
      func.call @rocktile_emu_ds_swizzle(...)
      ...
    }
    ```
  }];
  let options = [
    Option<"waveSize", "wave-size", "unsigned", "64", "Lanes per wave of the emulated target">,
  ];
  let dependentDialects = [
    "mlir::func::FuncDialect", "mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
    "mlir::arith::ArithDialect", "mlir::vector::VectorDialect",
  ];
}

#endif
