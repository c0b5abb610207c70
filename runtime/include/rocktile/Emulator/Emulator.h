// The CPU emulator: runs a kernel's SIMT program (the cut) on the host,
// lane-accurately, one workgroup per host thread at a time.
#ifndef ROCKTILE_EMULATOR_EMULATOR_H
#define ROCKTILE_EMULATOR_EMULATOR_H

#include "mlir/IR/BuiltinOps.h"
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace rocktile::emulator {

class HostJit;
struct HostSymbol;

/// Every symbol the host program may call (HostSymbols.cpp); nothing else
/// links, whatever the process has loaded.
llvm::ArrayRef<HostSymbol> hostSymbols();

/// One launch argument, in the kernel's parameter order.
struct KernelArg {
  enum Kind { Buffer, Int, Float } kind;
  std::string name;
  uint64_t address = 0;      // Buffer: the host address of element 0
  int64_t numElements = 0;   // Buffer: elements from `address` to the end of the allocation
  uint8_t *initialized = nullptr; // Buffer: a flag per byte, set where written (initcheck; null: not checked)
  int64_t intValue = 0;
  double floatValue = 0;
};

/// The argIndex of an access through a pointer made from an integer
/// address (tile.int_to_ptr): its address says what it reaches.
constexpr int kAddressedMemory = -3;

/// Marks a host program in which a workgroup may wait for another: a
/// volatile load or an atomic in a while loop calls rocktile_emu_spin.
constexpr llvm::StringLiteral kSpinPoints = "rocktile.emulator_spins";

/// Where a checked access sits in the source, read back from the lowering.
struct FaultSite {
  std::string kind;      // load, store, alignment
  int argIndex;          // kernel argument, -1 for LDS, kAddressedMemory
  int64_t ldsOffset;     // LDS: byte offset of the view
  int64_t elementBytes;
  int64_t accessBytes;   // what each execution accesses, aligned to it (racecheck's granule)
  std::string location;  // file:line:col
  std::string message;   // assert: the kernel's message
  bool volatileLoad;     // kind "volatile load": a hand-off's flag, which racecheck lets race
};

/// An LDS instruction's bank use: how many times a wave ran it, and the
/// cycles its bank conflicts added (per phase of lanes served together, the
/// most distinct dwords any bank got, minus one).
struct BankUse {
  int64_t executions = 0, extraCycles = 0;
};

/// One LDS instruction's bank use over a launch, with its source site.
struct BankConflicts {
  std::string location, kind;
  BankUse use;
};

/// The bytes a launch's lanes read, wrote and atomically updated through
/// one buffer argument (each lane's access counted: a value several lanes
/// read counts for each).
struct GlobalTraffic {
  int64_t read = 0, written = 0, atomic = 0;
};

class EmulatedKernel {
public:
  /// Lowers `simt` (consumed) for the host and JIT-compiles it for the host
  /// CPU `hostCpu` (empty: this machine's). Errors are reported through the
  /// context's diagnostics.
  static mlir::FailureOr<std::unique_ptr<EmulatedKernel>>
  create(mlir::ModuleOp simt, unsigned waveSize, unsigned ldsBanks, llvm::StringRef hostCpu = "");
  ~EmulatedKernel();

  /// Runs every workgroup of `grid` on up to `workers` host threads (where
  /// workgroups may wait for each other, or the launch is `cooperative`,
  /// all of them at once, as fibers on the calling thread). Returns
  /// an error message (empty on success): bad arguments or the first memory
  /// fault, naming the workgroup, wave, lane, buffer and source line.
  std::string launch(std::array<int64_t, 3> grid, const std::vector<KernelArg> &args, unsigned workers,
                     bool cooperative = false) const;

  /// A kernel argument as the SIMT program takes it: a buffer (a memref
  /// descriptor in the kernarg segment) or a scalar of `bits`.
  struct ArgSlot {
    bool isBuffer;
    unsigned bits;         // scalars: width
    bool isFloat;
    unsigned elementBytes; // buffers: of an element
  };
  const std::vector<ArgSlot> &getArgSlots() const { return slots; }
  int64_t getNumThreads() const { return numThreads; }
  const std::string &getName() const { return name; }
  /// The LDS instructions of the last launch that ran, with their bank use.
  std::vector<BankConflicts> getBankConflicts() const;
  /// Per kernel argument, the global memory traffic of the last launch that
  /// ran (zero for scalars).
  const std::vector<GlobalTraffic> &getGlobalTraffic() const { return traffic; }
  /// The external symbols the host code calls (all from hostSymbols()).
  const std::vector<std::string> &getHostImports() const;

private:
  EmulatedKernel() = default;
  std::string name;
  unsigned waveSize = 0, ldsBanks = 0;
  mutable std::vector<BankUse> bankUse; // per site, of the last launch
  mutable std::vector<GlobalTraffic> traffic; // per argument, of the last launch
  int64_t numThreads = 0, ldsBytes = 0;
  std::vector<ArgSlot> slots;
  std::vector<FaultSite> sites;
  std::unique_ptr<HostJit> jit;
  void (*entry)(void **) = nullptr;
  bool spins = false; // workgroups may wait for each other (kSpinPoints)

  friend struct LaunchState;
  friend struct WorkgroupRunner;
};

} // namespace rocktile::emulator

#endif
