// The tile dialect: types, layout attributes and ops.
#ifndef ROCKTILE_DIALECT_TILE_IR_TILE_H
#define ROCKTILE_DIALECT_TILE_IR_TILE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rocktile/Dialect/Tile/IR/LinearLayout.h"

#include "rocktile/Dialect/Tile/IR/TileDialect.h.inc"
#include "rocktile/Dialect/Tile/IR/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "rocktile/Dialect/Tile/IR/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "rocktile/Dialect/Tile/IR/TileOps.h.inc"

namespace rocktile::tile {
/// The element type of a scalar or tensor type.
mlir::Type getElementTypeOrSelf(mlir::Type type);
/// `type`'s shape (empty for scalars) with `elementType` in place of its element.
mlir::Type cloneWithElementType(mlir::Type type, mlir::Type elementType);
/// The linear layout of a tensor type carrying a tile layout encoding, or
/// nullopt when the tensor has no encoding.
std::optional<LinearLayout> getLinearLayout(mlir::RankedTensorType type);
/// Calls `fn` on each value that `op` and the ops nested in it define
/// (their results, and the arguments of their regions' blocks), with the
/// op that defines it, until `fn` fails; then fails.
mlir::LogicalResult forEachDefinedValue(mlir::Operation *op,
                                        llvm::function_ref<mlir::LogicalResult(mlir::Value, mlir::Operation *)> fn);
/// Whether every tile that `op` and the ops inside it make has a layout
/// already, as a kernel of the explicit level (rocktile.gluon) gives each
/// one: the compiler then places none itself. False with no tiles at all.
bool hasExplicitLayouts(mlir::Operation *op);
} // namespace rocktile::tile

#endif
