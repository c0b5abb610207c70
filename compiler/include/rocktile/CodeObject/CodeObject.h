// From LLVM IR to an HSA code object, in process: the AMDGPU backend emits
// assembly, the MC layer assembles it into an object, lld links that into a
// .hsaco, and the metadata note is read back.
#ifndef ROCKTILE_CODEOBJECT_CODEOBJECT_H
#define ROCKTILE_CODEOBJECT_CODEOBJECT_H

#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace rocktile {

/// The code object's section holding the kernel's SIMT program (see
/// emitCode), which the GPU's loader ignores.
inline constexpr const char *kSimtSection = ".rocktile_simt";

/// Runs LLVM's O3 pipeline on `module` for `chip` and emits the assembly
/// text and the relocatable object, which also holds `simt` (the SIMT
/// program, compressed) in kSimtSection; `occupancy` is the backend's waves
/// per SIMD for the kernel's registers, LDS and workgroup size.
llvm::Error emitCode(llvm::Module &module, llvm::StringRef chip, llvm::StringRef simt,
                     std::string &assembly, std::string &object, int64_t &occupancy);

/// Links a relocatable object into a shared code object with lld.
llvm::Expected<std::string> linkCodeObject(llvm::StringRef object);

/// One entry of a kernel's kernarg segment, as its metadata note declares it.
struct KernargSlot {
  int64_t offset, size;
  std::string valueKind; // global_buffer, by_value, hidden_...
};

/// Reads the first kernel's resource usage from the code object's AMDGPU
/// metadata note, plus its code size from the symbol table, and its
/// kernarg slots in order.
llvm::Expected<std::map<std::string, int64_t>>
readKernelMetadata(llvm::StringRef hsaco, std::string &kernelName, std::vector<KernargSlot> &kernargs);

} // namespace rocktile

#endif
