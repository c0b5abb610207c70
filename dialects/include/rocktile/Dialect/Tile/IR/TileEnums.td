#ifndef ROCKTILE_TILE_ENUMS
#define ROCKTILE_TILE_ENUMS

include "mlir/IR/EnumAttr.td"
include "rocktile/Dialect/Tile/IR/TileDialect.td"

def Tile_AtomicKind : I32EnumAttr<"AtomicKind", "read-modify-write operation of tile.atomic_rmw", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"umax", 3>, I32EnumAttrCase<"umin", 4>, I32EnumAttrCase<"xchg", 5>,
    I32EnumAttrCase<"and_", 6, "and">, I32EnumAttrCase<"or_", 7, "or">, I32EnumAttrCase<"xor_", 8, "xor">]> {
  let cppNamespace = "::rocktile::tile";
  let genSpecializedAttr = 0;
}

def Tile_AtomicKindAttr : EnumAttr<Tile_Dialect, Tile_AtomicKind, "atomic_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif
