// The emulator's host program, compiled in process by LLVM's ORC JIT. It is
// linked against the symbols it is given and nothing else: never against
// the libraries the process happens to have loaded, which differ from one
// machine to the next (a conversion builtin that one libgcc exports and
// another lacks would pass here and fail there).
#ifndef ROCKTILE_EMULATOR_HOSTJIT_H
#define ROCKTILE_EMULATOR_HOSTJIT_H

#include "mlir/IR/BuiltinOps.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm::orc {
class LLJIT;
}

namespace rocktile::emulator {

struct HostSymbol {
  const char *name;
  void *address;
};

class HostJit {
public:
  /// Compiles `module` (LLVM dialect) for the host CPU `cpu` (empty: this
  /// machine's, with all its features) and looks up `entry`, which takes
  /// its arguments packed as an array of pointers to them. A call to a
  /// symbol that `symbols` lacks is an error naming it.
  static mlir::FailureOr<std::unique_ptr<HostJit>>
  create(mlir::ModuleOp module, llvm::StringRef entry, llvm::StringRef cpu,
         llvm::ArrayRef<HostSymbol> symbols);
  ~HostJit();

  void (*entry)(void **) = nullptr;
  /// The external symbols the compiled code calls, sorted.
  std::vector<std::string> imports;

private:
  HostJit() = default;
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

} // namespace rocktile::emulator

#endif
