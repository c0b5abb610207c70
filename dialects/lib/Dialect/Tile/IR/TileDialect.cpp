#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace rocktile::tile;

#include "rocktile/Dialect/Tile/IR/TileDialect.cpp.inc"
#include "rocktile/Dialect/Tile/IR/TileEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileAttrs.cpp.inc"

namespace {
/// Prints layouts once at the top of the module as #blocked, #slice, ...
struct TileOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedLayoutAttr>(attr))
      return os << "blocked", AliasResult::FinalAlias;
    if (isa<SliceLayoutAttr>(attr))
      return os << "slice", AliasResult::FinalAlias;
    return AliasResult::NoAlias;
  }
};
} // namespace

void TileDialect::initialize() {
  addInterfaces<TileOpAsmInterface>();
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
