#ifndef ROCKTILE_TILE_ATTRS
#define ROCKTILE_TILE_ATTRS

include "rocktile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/TensorEncoding.td"

// A layout must have the rank of the tensor it encodes.
class Tile_LayoutAttr<string name, string mnemonic_>
    : AttrDef<Tile_Dialect, name, [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = mnemonic_;
  let extraClassDeclaration = [{
    /// The layout as a map from (register, lane, warp) to tensor coordinates.
    LinearLayout toLinearLayout(llvm::ArrayRef<int64_t> shape) const;
  }];
}

def Tile_BlockedLayoutAttr : Tile_LayoutAttr<"BlockedLayout", "blocked"> {
  let summary = "Blocked distribution of a tensor over registers, lanes and warps";
  let description = [{
    Each lane holds `sizePerThread` contiguous elements per dimension; a warp
    tiles `threadsPerWarp` lanes, the workgroup `warpsPerCTA` warps; the tile
    repeats over registers until the tensor is covered. `order` lists
    dimensions fastest first. Dimensions smaller than the tile are broadcast.

    ```mlir
    tensor<1024xf32, #tile.blocked<sizePerThread = [4], threadsPerWarp = [64],
                                   warpsPerCTA = [4], order = [0]>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"unsigned">:$sizePerThread,
    ArrayRefParameter<"unsigned">:$threadsPerWarp,
    ArrayRefParameter<"unsigned">:$warpsPerCTA,
    ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `sizePerThread` `=` `[` $sizePerThread `]` `,`
        `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
        `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
        `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_SliceLayoutAttr : Tile_LayoutAttr<"SliceLayout", "slice"> {
  let summary = "A parent layout with one dimension removed";
  let description = [{
    The layout of a reduction result along `dim`, and of the operand of a
    `tile.expand_dims` that re-inserts `dim`: element `c` is held by every
    lane that holds `c` with `dim` inserted in the parent. The parent is a
    blocked layout, or a linear one of a tensor whose `dim` has size 1 (a
    matrix-instruction layout collapsed along `dim`).

    ```mlir
    tensor<64xf32, #tile.slice<dim = 1, parent = #tile.blocked<...>>>
    tensor<64xf32, #tile.slice<dim = 1, parent = #tile.linear<register = [[32, 0]],
        lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]], warp = [[16, 0]]>>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "Attribute":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_LinearLayoutAttr : Tile_LayoutAttr<"LinearLayout", "linear"> {
  let summary = "A linear layout spelled out: the coordinate of each index bit";
  let description = [{
    For each bit of the register, lane and warp index, the tensor coordinate
    it contributes; an element's owner is the XOR of the bases of the set
    bits. Matrix-instruction layouts (MFMA/WMMA accumulators and dot
    operands, built from the target's instruction tables) are written this
    way, so the dialect needs no per-target attribute. The bases must lie
    inside the tensor and together reach every element of it.

    ```mlir
    // v_mfma_f32_16x16x32_bf16's accumulator, one wave
    tensor<16x16xf32, #tile.linear<register = [[1, 0], [2, 0]],
        lane = [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]], warp = []>>
    ```
  }];
  let parameters = (ins "unsigned":$rank,
                        ArrayRefParameter<"int64_t">:$registerBases,
                        ArrayRefParameter<"int64_t">:$laneBases,
                        ArrayRefParameter<"int64_t">:$warpBases);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "const LinearLayout &":$layout), [{
      llvm::SmallVector<int64_t> flat[3];
      for (unsigned in = 0; in < 3; ++in)
        for (const LinearLayout::Coord &c : layout.getBases(LinearLayout::InDim(in)))
          flat[in].append(c.begin(), c.end());
      return $_get($_ctxt, layout.getRank(), flat[0], flat[1], flat[2]);
    }]>
  ];
}

def Tile_SharedLayoutAttr : AttrDef<Tile_Dialect, "SharedLayout"> {
  let mnemonic = "shared";
  let summary = "Where each element of a slot of LDS lives, as its author chose";
  let description = [{
    The arrangement of a `tile.local_alloc` slot that the kernel's author
    gave (the explicit level; otherwise the compiler chooses one from the
    slot's copies and reads). Elements are row-major over `order`, fastest
    dimension first. Along `order[0]`, groups of `vec` elements trade places
    by XOR with the phase of their row (the index along `order[1]`):
    `(row / perPhase) % maxPhase`, as Gluon's SwizzledSharedLayout. A
    non-zero `rowPitch` instead puts rows that many elements apart
    (padding after each row, as Gluon's PaddedSharedLayout with one
    interval the length of a row); such rows are not swizzled.

    ```mlir
    %buf = tile.local_alloc {arrangement = #tile.shared<order = [1, 0], vec = 8, perPhase = 1, maxPhase = 8,
                                                        rowPitch = 0>}
        : memref<2x128x64xbf16, #gpu.address_space<workgroup>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$order, "int64_t":$vec, "int64_t":$perPhase,
                        "int64_t":$maxPhase, "int64_t":$rowPitch);
  let assemblyFormat = [{
    `<` `order` `=` `[` $order `]` `,` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,`
        `maxPhase` `=` $maxPhase `,` `rowPitch` `=` $rowPitch `>`
  }];
  let genVerifyDecl = 1;
}

#endif
