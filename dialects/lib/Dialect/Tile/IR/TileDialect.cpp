#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace rocktile::tile;

#include "rocktile/Dialect/Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "rocktile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "rocktile/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "rocktile/Dialect/Tile/IR/TileOps.cpp.inc"
      >();
}

Type rocktile::tile::getElementTypeOrSelf(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.getElementType();
  return type;
}

Type rocktile::tile::cloneWithElementType(Type type, Type elementType) {
  if (auto t = dyn_cast<RankedTensorType>(type))
    return t.clone(elementType);
  return elementType;
}
