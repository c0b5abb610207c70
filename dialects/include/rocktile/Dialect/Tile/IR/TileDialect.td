#ifndef ROCKTILE_TILE_DIALECT
#define ROCKTILE_TILE_DIALECT

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::rocktile::tile";
  let summary = "Tile-level programs: whole-block tensors, pointers and layouts";
  let description = [{
    The `tile` dialect is what `@rocktile.jit` traces a Python kernel into.
    Values are whole tiles (builtin ranked tensors) owned by one workgroup;
    which lane holds which element is decided later by layout assignment,
    which attaches a `#tile.blocked` / `#tile.slice` encoding to every tensor.
    Elementwise math uses upstream `arith` and `math` ops on those tensors.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif
