#ifndef ROCKTILE_TILE_TYPES
#define ROCKTILE_TILE_TYPES

include "rocktile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_PtrType : TypeDef<Tile_Dialect, "Pointer"> {
  let mnemonic = "ptr";
  let summary = "Pointer into global memory";
  let description = [{
    A pointer to elements of `pointeeType` in global memory. Pointer
    arithmetic (`tile.addptr`) counts in elements. Example: `!tile.ptr<f32>`.
  }];
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
}

def Tile_Int : AnyTypeOf<[AnySignlessInteger]>;
def Tile_Float : AnyTypeOf<[F8E4M3FN, F8E5M2, F16, BF16, F32, F64]>;
def Tile_Scalar : AnyTypeOf<[Tile_Int, Tile_Float, Tile_PtrType]>;
def Tile_Tensor : RankedTensorOf<[Tile_Int, Tile_Float, Tile_PtrType]>;
def Tile_Value : AnyTypeOf<[Tile_Scalar, Tile_Tensor]>;
def Tile_IntLike : AnyTypeOf<[Tile_Int, RankedTensorOf<[Tile_Int]>]>;
def Tile_BoolLike : AnyTypeOf<[I1, RankedTensorOf<[I1]>]>;
def Tile_PtrLike : AnyTypeOf<[Tile_PtrType, RankedTensorOf<[Tile_PtrType]>]>;

#endif
