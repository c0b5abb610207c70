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
    lane that holds `c` with `dim` inserted in the parent.

    ```mlir
    tensor<64xf32, #tile.slice<dim = 1, parent = #tile.blocked<...>>>
    ```
  }];
  let parameters = (ins "unsigned":$dim, "BlockedLayoutAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
  let genVerifyDecl = 1;
}

#endif
