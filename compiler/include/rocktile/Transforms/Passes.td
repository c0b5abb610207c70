#ifndef ROCKTILE_TRANSFORMS_PASSES
#define ROCKTILE_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def CheckSpinWaits : Pass<"tile-check-spin-waits", "mlir::ModuleOp"> {
  let summary = "Reject loops that wait on a plain load of memory the loop never changes";
  let description = [{
    An `scf.while` whose condition depends on a plain (not volatile)
    `tile.load` of the same pointers in every iteration, and whose regions
    write no memory (no store, atomic,
    volatile load or other op with a write effect) can only run zero times
    or for ever: nothing in it changes what it reads, and the compiler may
    read the memory once (LLVM hoists the load out of the loop, on the GPU
    as on the emulator's host), so another program's write is never seen.
    That is a spin-wait written with a plain load; the pass reports it at
    the load, before the canonicalizer would erase such a loop as free of
    effects. A spin-wait loads with `volatile=True` (`{isVolatile}`) or
    polls with an atomic.

    Before (an error at the load):
    ```mlir
    scf.while : () -> () {
      %v = tile.load %flag : !tile.ptr<i32> -> i32
      %wait = arith.cmpi eq, %v, %c0 : i32
      scf.condition(%wait)
    } do {
      scf.yield
    }
    ```
    After: unchanged where no loop is such a spin.
  }];
}

def FuseMultiplyAdd : Pass<"tile-fuse-multiply-add", "mlir::ModuleOp"> {
  let summary = "Contract float products and the sums they are added into to fmas (Triton's enable_fp_fusion)";
  let description = [{
    An `arith.addf` or `arith.subf` of f32 or f64 values (scalars or tiles)
    one of whose operands is an `arith.mulf` in the same block becomes one
    `math.fma`, rounded once, as Triton's default `enable_fp_fusion=True`
    lets LLVM contract it (aggressively on AMDGPU: every such sum; the
    product stays where something else uses it). Here it is done before the
    emulator's cut, so that the GPU and the emulator round the same way. A
    function with `tile.fp_fusion = 0` (`enable_fp_fusion=False`) keeps its
    products and sums apart. Runs after the canonicalizer has folded adds of
    dots into their accumulators.

    Before:
    ```mlir
    %p = arith.mulf %a, %b : tensor<64xf32>
    %s = arith.subf %c, %p : tensor<64xf32>
    ```
    After:
    ```mlir
    %n = arith.negf %a : tensor<64xf32>
    %s = math.fma %n, %b, %c : tensor<64xf32>
    ```
  }];
  let dependentDialects = ["mlir::math::MathDialect"];
}

def PipelineCopies : Pass<"tile-pipeline-copies", "mlir::ModuleOp"> {
  let summary = "Software-pipeline a loop's block copies and dot operand loads over N stages (num_stages)";
  let description = [{
    In an `scf.for` that carries `tile.num_stages = N` (`tl.range(...,
    num_stages=N)`), or else inside a function that carries it (the launch's
    `num_stages`), or else with N = 2 (Triton's AMD default), when N >= 2,
    the loads of the loop body whose operands the loop computes from its
    induction variable, loop-invariant values and values it carries and
    advances that way (a pointer or offset stepped each iteration) start
    N - 1 iterations ahead, those carried values stepped ahead with them:

    - every `tile.descriptor_load` with loop-invariant base, extents and
      strides becomes a copy into one of N LDS slots (`tile.local_alloc`). In
      all but the last N - 1 iterations: a wait for this iteration's copies
      (`tile.async_wait`, leaving the next N - 2 iterations' in flight), the
      copy N - 1 iterations ahead into the slot read one iteration ago, and
      the read of this iteration's slot (`tile.local_load`); in the last
      N - 1, a wait for all and the read. Where the target's LDS would not
      hold N + 1 blocks per copy (the slots and room for the loop's other
      LDS uses), the loop gets as many stages as it does hold, with a
      warning at the loop.
    - every `tile.load` of a 2-D tile used only as a `tile.dot` operand
      that the target's async loads can copy (16-byte runs along the last
      dimension, at least one per thread; masks only where a buffer
      resource reads zeros for masked-off lanes, on gfx950) becomes a copy
      into N LDS slots the same way (`tile.async_load`), where the LDS
      holds N + 1 blocks per copy (and the function's
      `tile.async_copies_from_stages`, if any, is at most the loop's
      stages); else the loop is pipelined with such loads in registers:
    - every other `tile.load` of a 2-D tile that is a `tile.dot` operand is
      made at the end of the iteration before its own, and its tile carried
      there in registers. A loop with such loads has at most 2 stages: a
      second tile per load in flight would cost a copy of each of its
      registers every iteration. At 2 stages, a small load (at most 8
      words per lane) that feeds no dot operand goes ahead in registers
      with them where nothing in the loop writes memory.

    A prologue makes the first N - 1 iterations' loads (those that exist),
    and the loop splits in two: the iterations whose loads N - 1 ahead exist,
    then the last N - 1, which start none. Any trip count (0 and 1 included)
    is correct. Other loads stay as they are.

    Before (N = 2):
    ```mlir
    scf.for %k = %c0 to %n step %c1 : i32 {
      %off = arith.muli %k, %c32 : i32
      %a = tile.descriptor_load %base[%m, %off] shape [%M, %K] strides [%s, %c1] : !tile.ptr<bf16> -> tensor<64x32xbf16>
      ...
    } {tile.num_stages = 2 : i32}
    ```
    After:
    ```mlir
    %buf = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
    scf.if %c0 < %n { tile.async_copy %base[%m, %c0 * 32] ... into %buf[%c0] }
    %r = scf.for %k = %c0 to %n - 1 step %c1 : i32 {
      %slot = %k % 2
      tile.async_wait {outstanding = 0 : i32}
      tile.async_copy %base[%m, (%k + 1) * 32] ... into %buf[(%k + 1) % 2]
      %a = tile.local_load %buf[%slot] : memref<2x64x32xbf16, ...> -> tensor<64x32xbf16>
      ...
    }
    scf.for %k = max(%n - 1, %c0) to %n step %c1 iter_args(... = %r) : i32 {
      tile.async_wait {outstanding = 0 : i32}
      %a = tile.local_load %buf[%k % 2] : ...
      ...
    }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx950\"", "Target chip">,
    Option<"numWarps", "num-warps", "unsigned", "4", "Warps per workgroup">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

def InsertBarriers : Pass<"tile-insert-barriers", "mlir::ModuleOp"> {
  let summary = "Order an explicit-level kernel's shared-memory accesses with barriers where warps could race";
  let description = [{
    In a kernel of the explicit level (every tile has a layout), the author
    reads and writes LDS blocks (`tile.local_store`, `tile.local_load`) and
    starts copies into them (`tile.async_copy`, `tile.async_load`). As
    Triton's Gluon does, the compiler places the barriers: a `tile.barrier`
    goes before each access that may touch a slot another warp wrote, or
    write one another warp read, since the last barrier on some path to it
    (through loops' back edges and both sides of branches). Slots are told
    apart when both indices are constants; otherwise any slot of a buffer
    may be any other. A barrier the author wrote (`gl.barrier()`) or a
    `tile.async_wait` (which ends in one) counts. A copy's own wait is the
    author's (`tile.wait_tensor_copies`, `tile.async_wait`): a barrier does
    not make a copy land.

    Before:
    ```mlir
    tile.local_store %a, %buf[%c0] : tensor<64x32xbf16, #blocked>, memref<1x64x32xbf16, #lds>
    %x = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #lds> -> tensor<64x32xbf16, #dot>
    ```
    After:
    ```mlir
    tile.local_store %a, %buf[%c0] : tensor<64x32xbf16, #blocked>, memref<1x64x32xbf16, #lds>
    tile.barrier
    %x = tile.local_load %buf[%c0] : memref<1x64x32xbf16, #lds> -> tensor<64x32xbf16, #dot>
    ```
  }];
}

def AssignLayouts : Pass<"tile-assign-layouts", "mlir::ModuleOp"> {
  let summary = "Give every tile a layout: coalesced blocked layouts for memory, slices for reductions";
  let description = [{
    Chooses, per tensor rank, one blocked layout whose per-lane vector is as
    wide as the kernel's widest provably contiguous and aligned memory access
    (up to 128 bits), fills a wave along the fastest dimension and the
    workgroup's warps after it. Reduction results get the slice of their
    operand's layout; `tile.expand_dims` of a slice gives back its parent.
    Values built only from ranges, splats and constants are recomputed in the
    layout a consumer needs instead of being converted. A conflict that would
    need a layout conversion is reported at the op. A `tile.dot` gets the
    target's first matrix instruction that fits its types and shape, or, when
    the kernel carries `tile.matrix_instr_nonkdim = 16 | 32` (Triton's
    option), the first one of that M and N if there is one. A dot whose
    accumulator alone needs more registers per lane than the target gives a
    lane at `num-warps` is an error at the dot (it could only spill, and the
    backend's register allocator would take minutes to say so).

    A function whose tiles all have layouts already (a kernel of the
    explicit level, `rocktile.gluon`) keeps them: the pass only checks that
    each one places its tile on the target's wave size and on `num-warps`
    warps, and reports the first that does not at the op making the tile.
    `tile-pipeline-copies` leaves such a kernel's loops alone too.

    Before:
    ```mlir
    %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32>
    ```
    After (gfx950, 4 warps, 16-byte aligned accesses of f32):
    ```mlir
    #blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]>
    %r = tile.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx950\"", "Target chip">,
    Option<"numWarps", "num-warps", "unsigned", "4", "Warps per workgroup">,
  ];
  // Its layouts are the tile dialect's attributes, which a module of only
  // upstream ops (tiles of a function's arguments) has not loaded.
  let dependentDialects = ["rocktile::tile::TileDialect"];
}

def AllocateLds : Pass<"tile-allocate-lds", "mlir::ModuleOp"> {
  let summary = "Place every op's LDS scratch and check the target's LDS budget";
  let description = [{
    Ops that exchange data between warps through LDS (a reduction across
    warps) get a byte offset `tile.lds_offset`; the kernel gets the total in
    `tile.lds_bytes`. Scratch lives only during its op (the op synchronizes
    before and after), so all scratch shares one offset: 0, or, while the
    slots of pipelined copies (`tile.local_alloc`, each with bytes of its
    own from 0) are in use, the first byte after them; after the slots'
    last use, 0 again. A kernel that needs more LDS than the target has is
    an error naming both sizes.

    Before:
    ```mlir
    %s = tile.reduce(%x) axis = 0 : (tensor<1024xf32, #blocked>) -> f32 {...}
    ```
    After (4 warps):
    ```mlir
    func.func @k(...) attributes {tile.lds_bytes = 16 : i64}
    %s = tile.reduce(%x) axis = 0 {tile.lds_offset = 0 : i64} : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx950\"", "Target chip">,
  ];
}

def LowerToSimt : Pass<"tile-lower-to-simt", "mlir::ModuleOp"> {
  let summary = "Lower tiles to per-lane SIMT code in upstream dialects (the emulator's cut)";
  let description = [{
    Each kernel becomes a `gpu.func` in a `gpu.module` carrying the target.
    A tile becomes, in each lane, a `vector<R x T>` of the R elements its
    layout gives that lane; pointer arguments become
    `memref<?xT, #gpu.address_space<global>>` and tiles of pointers vectors of
    element indices into them. Loads and stores use the widest vector the
    pointers' contiguity, alignment and mask allow; reductions combine within a
    lane, across lanes with `gpu.shuffle xor` and across warps through LDS.
    Layout conversions that move elements between lanes go through LDS in the
    arrangement `chooseLdsLayout` picks, read back with `vector.load`, or with
    the target's transpose reads where they are cheaper (a dot operand
    contiguous along M or N): `amdgpu.transpose_load` on gfx950,
    `rocdl.ds.load.tr16.b128`/`tr8.b64` on an LDS pointer on gfx1250.
    Block copies and async loads into LDS slots: `rocdl.tensor.load.to.lds`
    (gfx1250), `amdgpu.gather_to_lds` (gfx950) and
    `rocdl.global.load.async.to.lds.b128` (gfx1250); `tile.async_wait` becomes
    waits for the wave's LDS accesses and all but its copies' newest
    instructions (`s_wait_tensorcnt`, vmcnt, `s_wait_asynccnt`), then a
    `gpu.barrier` marked `rocktile.barrier_after_waits`. A `tile.dot` of
    operands read from slots (`tile.local_load`) waits for the wave's LDS
    reads once, then `rocdl.sched.barrier 0` keeps the backend from moving
    its matrix instructions back among the reads.
    `scf.for` carries the element indices of pointers into buffers under
    2 GiB as i32 scalars. Pure ops ahead of an LDS exchange whose results
    are only used after it are lowered after it. The kernel's `rocdl.*`
    attributes (`rocdl.waves_per_eu`) go to the `gpu.func`; a kernel whose
    tiles fill the registers a wave may use (`registerDemand`) gets
    `passthrough = [["amdgpu-sched-strategy", "iterative-minreg"]]`, LLVM's
    scheduling for register pressure.

    Before:
    ```mlir
    %v = tile.load %p, mask = %m : tensor<1024xi1, #b>
        : tensor<1024x!tile.ptr<f32>, #b> -> tensor<1024xf32, #b>
    ```
    After (one lane, 4 registers):
    ```mlir
    %v = scf.if %m0 -> (vector<4xf32>) {
      %l = vector.load %x[%i0] {alignment = 16 : i64} : memref<?xf32, #gpu.address_space<global>>, vector<4xf32>
      scf.yield %l : vector<4xf32>
    } else { ... }
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"gfx950\"", "Target chip">,
  ];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect",
    "mlir::vector::VectorDialect", "mlir::scf::SCFDialect",
    "mlir::arith::ArithDialect", "mlir::amdgpu::AMDGPUDialect",
    "mlir::ROCDL::ROCDLDialect", "mlir::cf::ControlFlowDialect", "mlir::LLVM::LLVMDialect",
  ];
}

def ConvertSimtToLLVM : Pass<"tile-convert-simt-to-llvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower SIMT code (gpu, arith, math, memref, vector, amdgpu) to LLVM + ROCDL";
  let description = [{
    Upstream's conversions, assembled with one difference from
    `convert-gpu-to-rocdl`: math ops become LLVM intrinsics, which the AMDGPU
    backend expands itself, instead of calls into the ROCm device library, so
    code objects link with nothing but the kernel. A `gpu.barrier` marked
    `rocktile.barrier_after_waits` (tile.async_wait's, whose waits are
    explicit) is `s_barrier` between wavefront-scope fences, which order
    memory accesses in the compiler but wait for nothing: a workgroup-scope
    fence would wait for every copy in flight. Address spaces map to
    AMDGPU's: global 1, workgroup (LDS) 3, private 5. `scf` must already be
    lowered to `cf`.

    Before:
    ```mlir
    %e = math.exp %x : vector<4xf32>
    ```
    After:
    ```mlir
    %e = llvm.intr.exp(%x) : (vector<4xf32>) -> vector<4xf32>
    ```
  }];
  let options = [
    Option<"chipset", "chipset", "std::string", "\"gfx950\"", "Target chip">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::ROCDL::ROCDLDialect"];
}

#endif
