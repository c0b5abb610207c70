#ifndef ROCKTILE_TILE_OPS
#define ROCKTILE_TILE_OPS

include "rocktile/Dialect/Tile/IR/TileDialect.td"
include "rocktile/Dialect/Tile/IR/TileTypes.td"
include "rocktile/Dialect/Tile/IR/TileAttrs.td"
include "rocktile/Dialect/Tile/IR/TileEnums.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Program indexing
//===----------------------------------------------------------------------===//

class Tile_GridQueryOp<string mnemonic> : Tile_Op<mnemonic, [Pure]> {
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_ProgramIdOp : Tile_GridQueryOp<"program_id"> {
  let summary = "Index of this program (workgroup) along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0
    ```
  }];
}

def Tile_NumProgramsOp : Tile_GridQueryOp<"num_programs"> {
  let summary = "Number of programs (workgroups) along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Tile construction and shape
//===----------------------------------------------------------------------===//

def Tile_MakeRangeOp : Tile_Op<"make_range", [Pure]> {
  let summary = "The integers [start, end) as a 1-D tile";
  let description = [{
    `end - start` must be a power of two and equal the result's size.

    ```mlir
    %r = tile.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32>
    ```
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure]> {
  let summary = "A tile with every element equal to a scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : f32 -> tensor<128xf32>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeat a tile along its size-1 dimensions";
  let description = [{
    Same rank and element type; every dimension of the source is either equal
    to the result's or 1.

    ```mlir
    %b = tile.broadcast %x : tensor<1x64xf32> -> tensor<32x64xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure]> {
  let summary = "Insert a size-1 dimension";
  let description = [{
    The Python spelling is `x[:, None]`.

    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [Pure, AllTypesMatch<["src", "result"]>]> {
  let summary = "Facts about an integer or pointer tile the compiler may rely on";
  let description = [{
    Returns `src` unchanged. Per dimension, its elements come in runs of
    `contiguity` consecutive values whose first is a multiple of
    `divisibility`, and in runs of `constancy` equal values
    (`tl.multiple_of`, `tl.max_contiguous`, `tl.max_constancy`). Of
    pointers, the values are addresses: `divisibility` counts bytes and
    `contiguity` consecutive elements. The compiler uses them to vectorize
    memory accesses; a false claim is the kernel's bug.

    ```mlir
    %o = tile.assume %offs {contiguity = array<i64: 1024>, divisibility = array<i64: 16>}
        : tensor<1024xi32>
    %p = tile.assume %ptr {divisibility = array<i64: 16>} : !tile.ptr<f16>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$src,
                       OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity,
                       OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs AnyTypeOf<[Tile_IntLike, Tile_PtrLike]>:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure]> {
  let summary = "Permute the dimensions of a tile";
  let description = [{
    Result dimension `i` is source dimension `order[i]` (`tl.trans`,
    `tl.permute`). Lanes keep their elements: the result's layout is the
    source's with its dimensions permuted.

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>} : tensor<16x64xf32> -> tensor<64x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "View a tile's elements, in row-major order, with another shape";
  let description = [{
    The element at row-major position k of the source is at row-major
    position k of the result (`tl.reshape`). A reshape of a reshape is one
    reshape of the first source, and none where the shapes agree (a 4-D
    descriptor block of [1, 1, BLOCK, D] read as the 2-D tile it is).

    ```mlir
    %r = tile.reshape %x : tensor<16x64xf32> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Read a tile's elements at indices along one dimension";
  let description = [{
    Element `(i_0, ..., i_n)` of the result is the element of `src` at the
    same coordinates, except along `axis`, where it is at
    `index[i_0, ..., i_n]` (`tl.gather`). `index` and the result have one
    shape, `src`'s but along `axis`. An index outside `src`'s axis is
    undefined behaviour, as in Triton: it reads another element of `src`
    (the emulator reports a read past all of `src` as an LDS fault with the
    line). The lowering writes `src` to LDS and each lane reads the elements
    it holds.

    ```mlir
    %g = tile.gather %src[%index] {axis = 1 : i32}
        : tensor<32x64xf32>, tensor<32x16xi32> -> tensor<32x16xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_Tensor:$index, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` type($src) `,` type($index) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout", [Pure]> {
  let summary = "Move a tile's elements to the lanes of another layout";
  let description = [{
    Same shape and elements, another distribution. Layout assignment inserts
    it where a value's layout differs from what its user needs; the lowering
    renames registers when the lanes already hold the right elements and
    goes through LDS otherwise.

    ```mlir
    %y = tile.convert_layout %x : tensor<64xf32, #slice> -> tensor<64xf32, #blocked>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def Tile_AddPtrOp : Tile_Op<"addptr", [Pure, AllTypesMatch<["ptr", "result"]>]> {
  let summary = "Advance pointers by a number of elements";
  let description = [{
    Offsets count elements of the pointee type. A tile of pointers takes a
    tile of offsets of the same shape.

    ```mlir
    %q = tile.addptr %p, %offs : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_IntLike:$offset);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)";
  let hasVerifier = 1;
}

def Tile_IntToPtrOp : Tile_Op<"int_to_ptr", [Pure, Elementwise]> {
  let summary = "Pointers from 64-bit integer addresses";
  let description = [{
    Reads each 64-bit integer as the byte address of an element of the
    result's pointee type, as Triton's `x.to(tl.pointer_type(T))` of an int64
    does (grouped GEMMs load their operands' addresses from an array). The
    address must be a multiple of the pointee's size.

    ```mlir
    %p = tile.int_to_ptr %address : i64 -> !tile.ptr<f16>
    %ps = tile.int_to_ptr %addresses : tensor<16xi64> -> tensor<16x!tile.ptr<f16>>
    ```
  }];
  let arguments = (ins Tile_IntLike:$src);
  let results = (outs Tile_PtrLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_PtrToIntOp : Tile_Op<"ptr_to_int", [Pure, Elementwise]> {
  let summary = "The byte address of each pointer, as a 64-bit integer";
  let description = [{
    Triton's `p.to(tl.int64)` of a pointer; with `tile.int_to_ptr` it casts a
    pointer to another pointee type.

    ```mlir
    %address = tile.ptr_to_int %p : !tile.ptr<f16> -> i64
    ```
  }];
  let arguments = (ins Tile_PtrLike:$src);
  let results = (outs Tile_IntLike:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    OptionalTypesMatchWith<"other has the result's type", "result", "other", "$_self">]> {
  let summary = "Load from global memory, optionally masked";
  let description = [{
    Loads the element behind each pointer. Where `mask` is false nothing is
    read and the result is `other` (undefined when `other` is absent).

    An `isVolatile` load (`tl.load(..., volatile=True)`) reads memory each time
    it runs, as a spin-wait on a flag another program sets needs: it is
    never merged with another load, moved out of a loop, or copied ahead
    into LDS (it counts as a write for that), and it becomes a volatile
    load on the GPU and a point where the emulator lets other workgroups
    run. An `isNontemporal` load (`cache_modifier=".cs"`, "likely accessed
    once") is a nontemporal one on the GPU (`nt` on gfx950,
    `th:TH_LOAD_NT` on gfx1250): the caches are not to keep its lines.

    ```mlir
    %v = tile.load %ptrs, mask = %m, other = %zero
        : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
    %flag = tile.load %p {isVolatile} : !tile.ptr<i32> -> i32
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Optional<Tile_BoolLike>:$mask,
                       Optional<Tile_Value>:$other, UnitAttr:$isVolatile,
                       UnitAttr:$isNontemporal);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $ptr (`,` `mask` `=` $mask^ `:` type($mask))? (`,` `other` `=` $other^)?
    attr-dict `:` type($ptr) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorLoadOp : Tile_Op<"descriptor_load", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Load a block of a strided tensor, zero outside its bounds";
  let description = [{
    Element `i` of the result is the tensor's element `offsets + i`, the
    tensor being `shape` elements of `strides` (in elements, the last one
    1) from `base`; elements outside `[0, shape)` read as zero. This is
    `desc.load(offsets)` of a tensor descriptor (`tl.make_tensor_descriptor`)
    or a block pointer's load: the front end emits it where the target
    copies whole blocks (gfx1250's Tensor Data Mover), and expands other
    loads into masked `tile.load`s.

    ```mlir
    %blk = tile.descriptor_load %base[%off0, %off1] shape [%m, %k] strides [%sk, %c1]
        : !tile.ptr<bf16> -> tensor<64x32xbf16>
    ```
  }];
  let arguments = (ins Tile_PtrType:$base, Variadic<I32>:$offsets, Variadic<I32>:$shape,
                       Variadic<I32>:$strides);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $base `[` $offsets `]` `shape` ` ` `[` $shape `]` `strides` ` ` `[` $strides `]` attr-dict
    `:` qualified(type($base)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_DescriptorStoreOp : Tile_Op<"descriptor_store", [AttrSizedOperandSegments,
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Store a block into a strided tensor, nothing outside its bounds";
  let description = [{
    Writes element `i` of `value` to the tensor's element `offsets + i`,
    the tensor being `shape` elements of `strides` (in elements, the last
    one 1) from `base`; elements outside `[0, shape)` are not written. This
    is `desc.store(offsets, value)` of a tensor descriptor: the front end
    emits it where the target copies whole blocks out of LDS (gfx1250's
    Tensor Data Mover), and expands other stores into masked `tile.store`s.

    ```mlir
    tile.descriptor_store %base[%off0, %off1] shape [%m, %n] strides [%sm, %c1], %blk
        : !tile.ptr<bf16>, tensor<64x32xbf16>
    ```
  }];
  let arguments = (ins Tile_PtrType:$base, Variadic<I32>:$offsets, Variadic<I32>:$shape,
                       Variadic<I32>:$strides, Tile_Tensor:$value);
  let assemblyFormat = [{
    $base `[` $offsets `]` `shape` ` ` `[` $shape `]` `strides` ` ` `[` $strides `]` `,` $value attr-dict
    `:` qualified(type($base)) `,` type($value)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Asynchronous copies (made by tile-pipeline-copies)
//===----------------------------------------------------------------------===//

def Tile_LdsBuffer : MemRefRankOf<[Tile_Int, Tile_Float], [3, 4]>;

def Tile_LocalAllocOp : Tile_Op<"local_alloc", [MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "LDS for blocks of a tile, one slot per stage";
  let description = [{
    Workgroup memory holding `d0` blocks (slots) of the shape of the other
    dimensions, live for the rest of the function. `tile-allocate-lds`
    places it (`tile.lds_offset`) apart from every op's scratch. Where
    each element of a slot lives is `arrangement` when the kernel's author
    gave one (`gl.allocate_shared_memory`), else what the slot's copies
    and reads make cheapest.

    ```mlir
    %buf = tile.local_alloc : memref<2x64x32xbf16, #gpu.address_space<workgroup>>
    %own = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 1, maxPhase = 4,
                                                        rowPitch = 0>}
        : memref<1x64x32xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_SharedLayoutAttr>:$arrangement);
  let results = (outs Tile_LdsBuffer:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_LocalStoreOp : Tile_Op<"local_store", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Write a tile into a slot of LDS";
  let description = [{
    Each lane writes the elements it holds of `value` into slot `slot` of
    `buffer`, where the buffer's arrangement puts them (a copy held by
    several lanes is written once). With `offsets`, `value` is the
    sub-block of the slot that starts there (Gluon's `.slice`): of
    power-of-two extents, each offset a multiple of its extent. Nothing orders it with other warps'
    reads: the author of the explicit level places the barrier
    (`tile.barrier`), and the emulator reports a read that races with it.

    ```mlir
    tile.local_store %v, %buf[%slot] : tensor<64x32xbf16, #blocked>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Tile_Tensor:$value, Tile_LdsBuffer:$buffer, I32:$slot,
                       OptionalAttr<DenseI64ArrayAttr>:$offsets);
  let assemblyFormat = "$value `,` $buffer `[` $slot `]` attr-dict `:` type($value) `,` type($buffer)";
  let hasVerifier = 1;
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Start copying a block of a strided tensor into a slot of LDS";
  let description = [{
    Starts the copy of the block that `tile.descriptor_load` with the same
    operands would load into slot `slot` of `buffer`; the copy completes at
    a `tile.async_wait` that covers it. Elements outside the tensor are
    zero in the slot.

    ```mlir
    tile.async_copy %base[%i, %k] shape [%m, %kk] strides [%s, %c1] into %buf[%slot]
        : !tile.ptr<bf16>, memref<2x64x32xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Tile_PtrType:$base, Variadic<I32>:$offsets, Variadic<I32>:$shape,
                       Variadic<I32>:$strides, Tile_LdsBuffer:$buffer, I32:$slot);
  let assemblyFormat = [{
    $base `[` $offsets `]` `shape` ` ` `[` $shape `]` `strides` ` ` `[` $strides `]` `into` $buffer `[` $slot `]`
    attr-dict `:` qualified(type($base)) `,` type($buffer)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncLoadOp : Tile_Op<"async_load", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>]> {
  let summary = "Start loading the elements a tile of pointers addresses into a slot of LDS";
  let description = [{
    Starts loading what `tile.load %ptr, mask = %mask` would load into slot
    `slot` of `buffer`, without passing through registers (gfx950's
    direct-to-LDS buffer loads, gfx1250's `global_load_async_to_lds`); the
    copy completes at a `tile.async_wait` that covers it. Masked-off
    elements are zero in the slot. Each lane copies runs of 16 bytes, lanes
    in order to consecutive runs of LDS, so the pointers' layout is the one
    the slot's arrangement gives (`tile-assign-layouts`).

    ```mlir
    tile.async_load %ptrs, mask = %mask : tensor<128x64xi1> into %buf[%slot]
        : tensor<128x64x!tile.ptr<bf16>>, memref<3x128x64xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins RankedTensorOf<[Tile_PtrType]>:$ptr, Optional<RankedTensorOf<[I1]>>:$mask, Tile_LdsBuffer:$buffer,
                       I32:$slot);
  let assemblyFormat = [{
    $ptr (`,` `mask` `=` $mask^ `:` type($mask))? `into` $buffer `[` $slot `]` attr-dict `:` type($ptr) `,`
    type($buffer)
  }];
  let hasVerifier = 1;
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait", [MemoryEffects<[MemRead<DefaultResource>,
                                                              MemWrite<DefaultResource>]>]> {
  let summary = "Wait for asynchronous copies, then synchronize the workgroup";
  let description = [{
    Each warp waits until at most `outstanding` of the copies it started are
    still in flight (its oldest ones complete first), then the workgroup
    meets at a barrier: the completed copies' slots are readable by every
    warp, and every read issued before the barrier is done (so a slot read
    before it may be copied into after it).

    ```mlir
    tile.async_wait {outstanding = 2 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$outstanding);
  let assemblyFormat = "attr-dict";
}

def Tile_WaitTensorCopiesOp : Tile_Op<"wait_tensor_copies", [MemoryEffects<[MemRead<DefaultResource>,
                                                                             MemWrite<DefaultResource>]>]> {
  let summary = "Wait for this warp's Tensor Data Mover copies, without a barrier";
  let description = [{
    The warp waits until at most `outstanding` of the `tile.async_copy`s it
    started are still in flight (its oldest complete first; each copy is
    one Tensor Data Mover instruction per warp). Unlike `tile.async_wait`
    nothing else happens: the rows other warps copied are readable only
    after a barrier (`tile.barrier`), which the explicit level's author
    places (Gluon's `tdm.async_wait`).

    ```mlir
    tile.wait_tensor_copies {outstanding = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$outstanding);
  let assemblyFormat = "attr-dict";
}

def Tile_CommitGroupOp : Tile_Op<"commit_group", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Close the group of this warp's async loads started since the last one";
  let description = [{
    The `tile.async_load`s this warp started since its previous
    `tile.commit_group` form one group, which a `tile.wait_groups` counts
    (Gluon's `async_copy.commit_group`).

    ```mlir
    tile.commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WaitGroupsOp : Tile_Op<"wait_groups", [MemoryEffects<[MemRead<DefaultResource>,
                                                               MemWrite<DefaultResource>]>]> {
  let summary = "Wait until at most N of this warp's committed groups of async loads are in flight";
  let description = [{
    The warp waits until at most `outstanding` of its newest groups
    (`tile.commit_group`) may still be in flight: every older one has
    landed, and so has every load started after the last commit. Nothing
    else happens: other warps' loads are readable after a barrier, which
    `tile-insert-barriers` places (Gluon's `async_copy.wait_group`). The
    lowering waits on the chip's counter for as many instructions as the
    `outstanding` groups before it issue on every path to it (fewer where
    paths differ, which waits longer).

    ```mlir
    tile.wait_groups {outstanding = 1 : i32}
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$outstanding);
  let assemblyFormat = "attr-dict";
}

def Tile_LocalLoadOp : Tile_Op<"local_load", [MemoryEffects<[MemRead<DefaultResource>]>]> {
  let summary = "Read a block from a slot of LDS";
  let description = [{
    The block in slot `slot` of `buffer`, which a completed
    `tile.async_copy` wrote; with `offsets`, the sub-block of the result's
    shape that starts there (power-of-two extents, each offset a multiple
    of its extent: Gluon's `.slice`).

    ```mlir
    %a = tile.local_load %buf[%slot] : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x32xbf16>
    %h = tile.local_load %buf[%slot] {offsets = array<i64: 0, 16>}
        : memref<2x64x32xbf16, #gpu.address_space<workgroup>> -> tensor<64x16xbf16>
    ```
  }];
  let arguments = (ins Tile_LdsBuffer:$buffer, I32:$slot, OptionalAttr<DenseI64ArrayAttr>:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$buffer `[` $slot `]` attr-dict `:` type($buffer) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Store to global memory, optionally masked";
  let description = [{
    Writes each element of `value` behind its pointer where `mask` is true.
    An `isNontemporal` store (`cache_modifier=".cs"`) is a nontemporal one on
    the GPU, as tile.load's.

    ```mlir
    tile.store %ptrs, %v, mask = %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$value,
                       Optional<Tile_BoolLike>:$mask, UnitAttr:$isNontemporal);
  let assemblyFormat = [{
    $ptr `,` $value (`,` `mask` `=` $mask^)? attr-dict `:` type($ptr) `,`
    type($value) (`,` type($mask)^)?
  }];
  let hasVerifier = 1;
}

def Tile_AtomicRMWOp : Tile_Op<"atomic_rmw", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "Atomic read-modify-write of global memory, returning the old values";
  let description = [{
    For each pointer where `mask` is true, atomically combines the element in
    memory with `value` (`add`, `max`, `min` signed or floating, `umax`/`umin`
    unsigned, `xchg`, `and`, `or`, `xor`) and returns what memory held
    before (undefined where masked off). Each element is updated once, however
    many lanes hold it. A scalar pointer is updated once per program.

    `sem` orders the op's accesses with the program's other memory accesses
    (Triton's `acq_rel` by default, `acquire`, `release`, `relaxed`), as
    seen by the programs of `scope` (`gpu` by default, `cta`, `sys`): once
    for the whole op, as fences before (release) and after (acquire) its
    element updates, which are themselves relaxed.

    ```mlir
    %old = tile.atomic_rmw <add> %ptrs, %v, mask = %m : tensor<64xi1>
        : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
    %prev = tile.atomic_rmw <xchg> %flag, %one {scope = "sys", sem = "release"} : !tile.ptr<i32>, i32
    ```
  }];
  let arguments = (ins Tile_AtomicKindAttr:$kind, Tile_PtrLike:$ptr, Tile_Value:$value,
                       Optional<Tile_BoolLike>:$mask, DefaultValuedStrAttr<StrAttr, "acq_rel">:$sem,
                       DefaultValuedStrAttr<StrAttr, "gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = [{
    $kind $ptr `,` $value (`,` `mask` `=` $mask^ `:` type($mask))? attr-dict `:` type($ptr) `,`
    type($value)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicCASOp : Tile_Op<"atomic_cas", [
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<DefaultResource>]>,
    AllTypesMatch<["cmp", "value", "result"]>]> {
  let summary = "Atomic compare-and-swap in global memory, returning the old values";
  let description = [{
    For each pointer, atomically: if memory holds `cmp`, write `value`.
    Returns what memory held before. A scalar pointer is updated once per
    program (the usual lock: `while tl.atomic_cas(lock, 0, 1) == 1: pass`).
    `sem` and `scope` as for `tile.atomic_rmw`.

    ```mlir
    %old = tile.atomic_cas %lock, %zero, %one : !tile.ptr<i32>, i32
    ```
  }];
  let arguments = (ins Tile_PtrLike:$ptr, Tile_Value:$cmp, Tile_Value:$value,
                       DefaultValuedStrAttr<StrAttr, "acq_rel">:$sem, DefaultValuedStrAttr<StrAttr, "gpu">:$scope);
  let results = (outs Tile_Value:$result);
  let assemblyFormat = "$ptr `,` $cmp `,` $value attr-dict `:` type($ptr) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Print values from the device (tl.device_print)";
  let description = [{
    Prints each element of each operand with the program id and the
    element's index, after `prefix`; with `hex`, values are printed as the
    zero-padded hexadecimal of their bits. Runs in the emulator; compiling
    it for hardware is an error for now (printing there needs the ROCm
    device library's hostcalls).

    ```mlir
    tile.print %x {prefix = "x: "} : tensor<64xf32>
    tile.print %x {prefix = "bits of x: ", hex} : tensor<64xf32>
    ```
  }];
  let arguments = (ins Variadic<Tile_Value>:$args, StrAttr:$prefix, UnitAttr:$hex);
  let assemblyFormat = "$args attr-dict `:` type($args)";
}

def Tile_ElementwiseInlineAsmOp : Tile_Op<"elementwise_inline_asm", [Elementwise,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "AMDGPU inline assembly run on each element (tl.inline_asm_elementwise)";
  let description = [{
    Runs `asm_string` once per element of its operands (tiles of one shape
    or scalars), with LLVM's inline-assembly `constraints` (outputs first:
    `"=v,v,v"`, `$0` the first output). One result per output. Without
    `pure` it has side effects: it is neither removed nor moved. The
    emulator cannot run it.

    With `pack` > 1 (a power of two) each run takes `pack` consecutive
    elements of a lane, as Triton does: elements narrower than 32 bits
    travel packed into vectors of up to 32 bits (four i8 as one
    `vector<4xi8>` operand), wider ones as one operand each; outputs alike.

    ```mlir
    %m = tile.elementwise_inline_asm "v_max_f32 $0, $1, $2" "=v,v,v" %a, %b {pure}
        : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints, UnitAttr:$pure,
                       DefaultValuedAttr<ConfinedAttr<I32Attr, [IntMinValue<1>]>, "1">:$pack,
                       Variadic<AnyType>:$args);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = "$asm_string $constraints $args attr-dict `:` functional-type($args, $outputs)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// How many of `pack` elements of type `element` one operand (or
    /// output) of the assembly holds.
    static int64_t elementsPerOperand(::mlir::Type element, int64_t pack);
  }];
}

def Tile_MapElementwiseOp : Tile_Op<"map_elementwise", [Elementwise, RecursiveMemoryEffects]> {
  let summary = "A scalar function run on each element (tl.map_elementwise)";
  let description = [{
    Runs the body once per `pack` elements of its operands (tiles of one
    shape): the body takes `pack` scalars of each operand, operand-major
    (operand i's element j is argument i * pack + j), and yields `pack`
    scalars of each result in the same order. The body may branch on its
    scalars (`scf.if`), so that each element computes only its own side.

    ```mlir
    %y = tile.map_elementwise(%x) pack = 1 : (tensor<64xf32>) -> tensor<64xf32> {
    ^bb0(%e: f32):
      %pos = arith.cmpf ogt, %e, %zero : f32
      %r = scf.if %pos -> f32 {
        scf.yield %e : f32
      } else {
        %m = math.expm1 %e : f32
        scf.yield %m : f32
      }
      tile.map_elementwise.return %r : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, ConfinedAttr<I32Attr, [IntMinValue<1>]>:$pack);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $srcs `)` `pack` `=` $pack attr-dict `:` functional-type($srcs, $results) $body
  }];
  let hasRegionVerifier = 1;
}

def Tile_MapElementwiseReturnOp : Tile_Op<"map_elementwise.return",
    [HasParent<"MapElementwiseOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Yield the scalars one tile.map_elementwise body computed";
  let description = [{
    ```mlir
    tile.map_elementwise.return %r : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Check a condition on the device (tl.device_assert)";
  let description = [{
    Every element of `condition` must be true; otherwise the launch fails
    with `message` and the source location. Runs in the emulator; compiling
    it for hardware is an error for now.

    ```mlir
    tile.assert %ok {message = "index out of range"} : tensor<64xi1>
    ```
  }];
  let arguments = (ins Tile_BoolLike:$condition, StrAttr:$message);
  let assemblyFormat = "$condition attr-dict `:` type($condition)";
}

def Tile_RealtimeOp : Tile_Op<"realtime", [MemoryEffects<[MemRead]>]> {
  let summary = "The chip's constant-rate clock, one reading for the whole program";
  let description = [{
    The 100 MHz real-time counter (`s_memrealtime` on gfx950,
    `s_sendmsg_rtn_b64 ... MSG_RTN_GET_REALTIME` on gfx1250), read by the
    program's first thread and handed to the others through LDS, so that
    every thread sees the same time and decisions made on it agree
    (`tl.atomic_poll`'s timeout). In the emulator, the host's steady clock
    in the same 10 ns ticks.

    ```mlir
    %t = tile.realtime : i64
    ```
  }];
  let results = (outs I64:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "Synchronize all threads of the program";
  let description = [{
    Every thread waits until all have arrived, and memory writes before it
    are visible after it within the program (`tl.debug_barrier()`). With
    `lds`, only LDS is ordered: each wave's own LDS accesses complete, then
    the workgroup meets, and copies into LDS still in flight go on (the
    barriers `tile-insert-barriers` places; a fence on global memory would
    wait for them).

    ```mlir
    tile.barrier
    tile.barrier {lds}
    ```
  }];
  let arguments = (ins UnitAttr:$lds);
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

def Tile_DotOp : Tile_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>, AttrSizedOperandSegments]> {
  let summary = "Matrix product plus accumulator: D = A x B + C";
  let description = [{
    `a` is M x K, `b` K x N, `acc` and the result M x N (`tl.dot`), or, for
    a batched product, B x M x K, B x K x N and B x M x N: one product per
    leading index. The
    products are summed in the accumulator's type; A and B have the same
    kind of element (both floats or both integers). Layout assignment picks
    the target's matrix instruction, recorded as `instr`, and gives the
    operands its A/B layouts and the accumulator its D layout.

    Three more attributes, also set by layout assignment, say how the
    product maps onto the instruction. `warps_n` fixes how many warps split
    N (else the split is chosen from the shape). `transposed` computes
    Dᵀ = Bᵀ Aᵀ: the instruction's A operand is Bᵀ, so D's lanes run along M
    and its registers along N (layout assignment computes every dot so, as
    rows of a row-major D are then stored from registers as vectors).
    Canonicalization folds an add into the accumulator: `acc + dot(a, b, 0)`
    (arith.addf or addi of the same type, either order, the dot used only
    there) becomes `dot(a, b, acc)`, as Triton folds `acc += tl.dot(a, b)`:
    the matrix instructions then add the products to `acc` instead of to a
    zero tile added afterwards (the same sum, in the instruction's order).

    `k_order` renames K: bit i of the instruction's k index stands for K
    index `k_order[i]`, for A and B alike, which leaves the product
    unchanged. A dot whose A is the previous dot's result uses both to take
    it from the registers that already hold it.

    With `scales` (`tl.dot_scaled` on MX formats), A and B are fp8, i8
    bytes holding two E2M1 codes each along K (the first in the low nibble)
    where `a_format` / `b_format` say "e2m1" (A is then M x K/2, B K/2 x N),
    or i8 FP6 codes (the low 6 bits) where they say "e2m3" or "e3m2",
    and each element is multiplied by the E8M0 scale (2^(s-127), 0xFF NaN)
    of its block of 32 consecutive k: `a_scale` is M x K/32 (per row of A),
    `b_scale` N x K/32 (per column of B), both i8. With f8E4M3FN scales
    (NVFP4: both operands E2M1) each scale covers 16 consecutive k instead
    (M x K/16 and N x K/16). Such a dot is 2-D, has an f32 accumulator and
    no `k_order`; it runs on the scaled matrix instructions (gfx950's
    `v_mfma_scale_f32_*_f8f6f4`, gfx1250's `v_wmma_scale_f32_16x16x128_f8f6f4`
    and, for E4M3 scales, `v_wmma_scale16_f32_16x16x128_f8f6f4`).

    ```mlir
    %d = tile.dot %a, %b, %c : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %e = tile.dot %p, %v, %c {instr = "mfma_f32_16x16x32_bf16", transposed, warps_n = 1 : i32,
                              k_order = array<i64: 1, 2, 16, 4, 8>}
        : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    %f = tile.dot %x, %y, %c scales %xs, %ys
        : tensor<32x128xf8E4M3FN>, tensor<128x32xf8E5M2>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
    %g = tile.dot %x, %w, %c scales %xs, %ys {b_format = "e2m1"}
        : tensor<32x128xf8E4M3FN>, tensor<64x32xi8>, tensor<32x4xi8>, tensor<32x4xi8> -> tensor<32x32xf32>
    %h = tile.dot %v, %w, %c scales %vs, %ws {a_format = "e2m1", b_format = "e2m1"}
        : tensor<32x64xi8>, tensor<64x32xi8>, tensor<32x8xf8E4M3FN>, tensor<32x8xf8E4M3FN> -> tensor<32x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$acc,
                       Optional<Tile_Tensor>:$a_scale, Optional<Tile_Tensor>:$b_scale,
                       OptionalAttr<StrAttr>:$a_format, OptionalAttr<StrAttr>:$b_format,
                       OptionalAttr<StrAttr>:$instr, OptionalAttr<I32Attr>:$warps_n,
                       UnitAttr:$transposed, OptionalAttr<DenseI64ArrayAttr>:$k_order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc (`scales` $a_scale^ `,` $b_scale)? attr-dict `:` type($a) `,` type($b)
    (`,` type($a_scale)^ `,` type($b_scale))? `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// The number of elements along K (A's last dimension, twice it for
    /// E2M1 bytes).
    int64_t getReductionSize() {
      int64_t k = getA().getType().getShape().back();
      return getAFormat() == "e2m1" ? 2 * k : k;
    }
    /// The k each scale covers: 32 for E8M0 (i8) scales, 16 for E4M3 ones;
    /// 0 for an unscaled dot.
    int64_t getScaleBlock() {
      if (!getAScale())
        return 0;
      return getAScale().getType().getElementType().isInteger(8) ? 32 : 16;
    }
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Tile_ScaledUpcastOp : Tile_Op<"scaled_upcast", [Pure]> {
  let summary = "E2M1 codes times their blocks' E8M0 scales, as 16-bit floats";
  let description = [{
    `codes` holds two E2M1 codes per i8 along `axis` (the first in the low
    nibble); the result, of the same shape but twice as long along `axis`,
    holds each code's value times the E8M0 scale (2^(s-127), 0xFF NaN) of
    its block, in bf16 or f16. `scales` has the result's shape but along
    `axis`, where each scale covers a block of consecutive elements: the
    result's length there divided by `scales`'. A block covers at least 8
    elements. Every product is exact in the result's type (E2M1 has one
    mantissa bit) unless it leaves its range.

    It is `tl.dot_scaled`'s conversion of an MXFP4 operand whose other side
    is bf16 or fp16, on the targets' scaled conversions: gfx950's
    `v_cvt_scalef32_pk_{bf16,f16}_fp4` (one byte of codes with an fp32
    scale) and gfx1250's `v_cvt_scale_pk8_{bf16,f16}_fp4` (four bytes with
    an E8M0 scale that it reads from lane L % 16 of the wave). Layout
    assignment gives it the layout of the dot operand it feeds and its
    operands that one's packed and block-wise versions, so the codes go
    through LDS as bytes rather than as 16-bit values.

    ```mlir
    %b = tile.scaled_upcast %codes, %scales {axis = 0 : i32}
        : tensor<64x128xi8>, tensor<4x128xi8> -> tensor<128x128xbf16>
    ```
  }];
  let arguments = (ins Tile_Tensor:$codes, Tile_Tensor:$scales, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$codes `,` $scales attr-dict `:` type($codes) `,` type($scales) `->` type($result)";
  let extraClassDeclaration = [{
    /// The consecutive elements along `axis` that one scale covers.
    int64_t getScaleBlock() {
      return getType().getDimSize(getAxis()) / getScales().getType().getDimSize(getAxis());
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reduction
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [Pure]> {
  let summary = "Reduce tiles along one axis with a combiner region";
  let description = [{
    Combines the elements of each operand along `axis` with the region, which
    takes (accumulated..., next...) scalars and yields the new accumulators.
    The combiner must be associative and commutative: the order in which
    elements meet is the layout's. Reducing a 1-D tile gives scalars.

    ```mlir
    %s = tile.reduce(%x) axis = 0 : (tensor<128xf32>) -> f32 {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce.return %c : f32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Value>:$results);
  let regions = (region SizedRegion<1>:$combiner);
  let assemblyFormat = [{
    `(` $srcs `)` `axis` `=` $axis attr-dict `:` functional-type($srcs, $results)
    $combiner
  }];
  let hasRegionVerifier = 1;
}

def Tile_ReduceReturnOp : Tile_Op<"reduce.return",
    [HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Yield the combined values of a tile.reduce combiner";
  let description = [{
    ```mlir
    tile.reduce.return %c : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "$values attr-dict `:` type($values)";
}

#endif
