// librocktile_hip: the part of HIP's C API that rocktile's launchers use,
// implemented on the CPU emulator, so that they run on any machine. It tests
// the ABI (code object selection, kernarg packing, memory API), not the
// hardware: a module is the SIMT program that rocktile compiled, read from
// the code object's .rocktile_simt section, and a launch reads every
// argument from the kernarg bytes at the offsets and sizes the code object's
// metadata note declares. Device memory is host memory; hipMalloc's blocks
// bound the emulator's checks of each buffer argument.
//
//   ROCKTILE_HIP_ARCH   the emulated device's architecture (gfx950, the
//                       default, or gfx1250): hipModuleLoadData refuses
//                       another's code object, as a GPU does, and
//                       hipGetDeviceProperties reports it as gcnArchName.
//   ROCKTILE_HIP_SKIP_LAUNCH=1  launches copy their kernarg bytes and run
//                       nothing: what a launch costs the host, without the
//                       kernel (bench/launch_overhead.py).
#include "rocktile/CodeObject/CodeObject.h"
#include "rocktile/Emulator/Emulator.h"
#include "rocktile/Pipeline/Pipeline.h"
#include "rocktile/Target/Target.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Compression.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

using namespace mlir;
using namespace rocktile;

namespace {
// HIP's values of the errors this library returns.
enum : int {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidMemcpyDirection = 21,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorNotFound = 500,
  hipErrorLaunchFailure = 719,
  hipErrorCooperativeLaunchTooLarge = 720,
};
// HIP's `extra` markers of a kernarg buffer.
void *const kBufferPointer = reinterpret_cast<void *>(1), *const kBufferSize = reinterpret_cast<void *>(2),
            *const kEnd = reinterpret_cast<void *>(3);

struct Module {
  std::unique_ptr<emulator::EmulatedKernel> kernel;
  std::string symbol;
  std::vector<KernargSlot> kernargs;
  const Target *target;
  /// How many of its workgroups one CU of the device holds at once.
  Target::Residency residency;
};

std::mutex mutex; // guards the state below
/// A hipMalloc block: its size, and a flag per byte that the host (a copy,
/// a memset) or a kernel wrote it (initcheck).
struct Block {
  size_t bytes;
  std::vector<uint8_t> initialized;
};
std::map<uintptr_t, Block> allocations;
thread_local int lastError = hipSuccess;

int fail(int error, const std::string &message) {
  std::fprintf(stderr, "rocktile HIP emulator: %s\n", message.c_str());
  return lastError = error;
}

std::string deviceArch() {
  const char *arch = std::getenv("ROCKTILE_HIP_ARCH");
  return arch && *arch ? arch : "gfx950";
}

/// The architecture a code object is for, from its ELF header's flags.
std::string imageArch(const llvm::object::ELF64LEObjectFile &file) {
  switch (file.getELFFile().getHeader().e_flags & llvm::ELF::EF_AMDGPU_MACH) {
  case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  case llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1250:
    return "gfx1250";
  default:
    return "another architecture";
  }
}

/// The bytes of an ELF image given only its start: up to the end of its
/// section header table, which lld writes last.
llvm::StringRef imageBytes(const void *image) {
  llvm::object::ELF64LE::Ehdr header;
  std::memcpy(&header, image, sizeof header);
  return {static_cast<const char *>(image), size_t(header.e_shoff + header.e_shnum * header.e_shentsize)};
}

int loadModule(Module &module, const void *image) {
  if (!image || std::memcmp(image, "\x7f" "ELF", 4) != 0)
    return fail(hipErrorInvalidImage, "hipModuleLoadData: not an ELF code object");
  llvm::StringRef bytes = imageBytes(image);
  auto file = llvm::object::ELF64LEObjectFile::create(llvm::MemoryBufferRef(bytes, "code object"));
  if (!file)
    return fail(hipErrorInvalidImage, "hipModuleLoadData: " + llvm::toString(file.takeError()));
  std::string arch = imageArch(*file), device = deviceArch();
  if (arch != device)
    return lastError = hipErrorNoBinaryForGpu; // quietly, as a launcher tries each of its code objects
  llvm::StringRef section;
  for (const llvm::object::SectionRef &s : file->sections())
    if (auto name = s.getName(); name && *name == kSimtSection)
      if (auto contents = s.getContents())
        section = *contents;
  if (section.size() < 8)
    return fail(hipErrorInvalidImage, "hipModuleLoadData: the code object has no SIMT program (it was not "
                                      "compiled by this rocktile)");
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i)
    size |= uint64_t(uint8_t(section[i])) << (8 * i);
  llvm::SmallVector<uint8_t> simt;
  if (llvm::Error e = llvm::compression::zlib::decompress(llvm::arrayRefFromStringRef(section.drop_front(8)),
                                                          simt, size))
    return fail(hipErrorInvalidImage, "hipModuleLoadData: " + llvm::toString(std::move(e)));
  auto metadata = readKernelMetadata(bytes, module.symbol, module.kernargs);
  if (!metadata)
    return fail(hipErrorInvalidImage, "hipModuleLoadData: " + llvm::toString(metadata.takeError()));
  MLIRContext context;
  DialectRegistry registry;
  registerDialects(registry);
  context.appendDialectRegistry(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> program =
      parseSourceString<ModuleOp>(llvm::StringRef(reinterpret_cast<const char *>(simt.data()), simt.size()),
                                  &context);
  FailureOr<std::unique_ptr<emulator::EmulatedKernel>> kernel = failure();
  if (program)
    kernel = emulator::EmulatedKernel::create(*program, (*metadata)["wave_size"], lookupTarget(arch)->ldsBanks);
  if (failed(kernel))
    return fail(hipErrorInvalidImage, "hipModuleLoadData: " + diagnostics);
  module.kernel = std::move(*kernel);
  module.target = lookupTarget(arch);
  module.residency = module.target->residentWorkgroups(
      unsigned((*metadata)["vgpr_count"] + (*metadata)["agpr_count"]), (*metadata)["lds_bytes"],
      module.kernel->getNumThreads() / module.target->waveSize);
  return hipSuccess;
}

/// The elements of `elementBytes` from `address` to the end of the hipMalloc
/// block holding it; `declared` (the descriptor's size) for other memory.
/// The bytes from `address` to the end of the hipMalloc block holding it,
/// or -1 when no live block holds it (host memory, freed memory, NULL).
int64_t bytesInBlock(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin() || address >= std::prev(it)->first + std::prev(it)->second.bytes)
    return -1;
  --it;
  return int64_t(it->first + it->second.bytes - address);
}

/// The initcheck flag of the byte at `address`, in a live block.
uint8_t *initializedFlags(uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = std::prev(allocations.upper_bound(address));
  return it->second.initialized.data() + (address - it->first);
}

/// A buffer argument's elements: what its hipMalloc block holds from its
/// address on; none when no block holds it, so that any access through it
/// (a host pointer, freed memory, NULL) is a located fault, not a write into
/// the host's memory.
int64_t bufferElements(uint64_t address, unsigned elementBytes) {
  return std::max<int64_t>(bytesInBlock(address), 0) / elementBytes;
}

/// Why [ptr, ptr + bytes) is not device memory to `what` ("" when it is).
std::string deviceRangeError(const void *ptr, size_t bytes, const char *what) {
  if (!ptr)
    return std::string(what) + " is NULL";
  int64_t inBlock = bytesInBlock(uintptr_t(ptr));
  if (inBlock < 0)
    return std::string(what) + " is not memory from hipMalloc (host memory, or freed)";
  if (uint64_t(inBlock) < bytes)
    return std::string(what) + " reaches " + std::to_string(bytes - inBlock) +
           " bytes past the end of its hipMalloc block";
  return "";
}

/// The fields of HIP 6's hipDeviceProp_t (hipDeviceProp_tR0600) that this
/// library fills, at their offsets in that struct (natural alignment, x86-64).
/// Its other fields read as zero.
struct DevicePropField {
  size_t offset, size;
};
constexpr DevicePropField kPropName{0, 256}, kPropTotalGlobalMem{288, 8}, kPropSharedMemPerBlock{296, 8},
    kPropWarpSize{308, 4}, kPropMaxThreadsPerBlock{320, 4}, kPropMultiProcessorCount{388, 4},
    kPropGcnArchName{1160, 256};
constexpr size_t kDevicePropBytes = 1472; // sizeof(hipDeviceProp_tR0600)

bool skipLaunches() {
  const char *skip = std::getenv("ROCKTILE_HIP_SKIP_LAUNCH");
  return skip && std::strcmp(skip, "1") == 0;
}

int launch(const Module &module, std::array<int64_t, 3> grid, unsigned block, const std::vector<uint8_t> &kernarg,
           bool cooperative) {
  const emulator::EmulatedKernel &k = *module.kernel;
  const char *api = cooperative ? "hipModuleLaunchCooperativeKernel" : "hipModuleLaunchKernel";
  if (block != k.getNumThreads())
    return fail(hipErrorInvalidValue, api + (": " + module.symbol) + " runs in workgroups of " +
                                          std::to_string(k.getNumThreads()) + " threads, got " +
                                          std::to_string(block));
  std::vector<KernargSlot> slots;
  for (const KernargSlot &s : module.kernargs)
    if (!llvm::StringRef(s.valueKind).starts_with("hidden_"))
      slots.push_back(s);
  auto read = [&](const KernargSlot &s) {
    uint64_t v = 0;
    std::memcpy(&v, kernarg.data() + s.offset, std::min<size_t>(s.size, 8));
    return v;
  };
  std::vector<emulator::KernelArg> args;
  size_t next = 0;
  for (auto [i, slot] : llvm::enumerate(k.getArgSlots())) {
    emulator::KernelArg a{emulator::KernelArg::Int, "argument " + std::to_string(i)};
    size_t used = slot.isBuffer ? 5 : 1; // a buffer is a memref descriptor
    if (next + used > slots.size())
      return fail(hipErrorInvalidValue, api + std::string(": the code object declares too few arguments"));
    if (slot.isBuffer) {
      // base, aligned base, offset, size, stride
      a.kind = emulator::KernelArg::Buffer;
      a.address = read(slots[next + 1]) + read(slots[next + 2]) * slot.elementBytes;
      a.numElements = bufferElements(a.address, slot.elementBytes);
      if (a.numElements)
        a.initialized = initializedFlags(a.address);
    } else if (slot.isFloat) {
      a.kind = emulator::KernelArg::Float;
      uint64_t bits = read(slots[next]);
      if (slot.bits == 64) {
        std::memcpy(&a.floatValue, &bits, 8);
      } else if (slot.bits == 32) {
        float f;
        uint32_t b32 = uint32_t(bits);
        std::memcpy(&f, &b32, 4);
        a.floatValue = f;
      } else {
        return fail(hipErrorInvalidValue, api + std::string(": 16-bit float scalars are not emulated"));
      }
    } else {
      uint64_t bits = read(slots[next]);
      unsigned width = slot.bits;
      a.intValue = width >= 64 ? int64_t(bits) : int64_t(bits << (64 - width)) >> (64 - width);
      if (width == 1)
        a.intValue = bits & 1;
    }
    next += used;
    args.push_back(a);
  }
  std::string fault = k.launch(grid, args, std::max(1u, std::thread::hardware_concurrency()), cooperative);
  if (!fault.empty())
    return fail(hipErrorLaunchFailure, module.symbol + ": " + fault);
  return hipSuccess;
}
size_t kernargBytes(const Module &module) {
  size_t bytes = 0;
  for (const KernargSlot &s : module.kernargs)
    bytes = std::max<size_t>(bytes, s.offset + s.size);
  return bytes;
}

/// HIP's kernelParams: one pointer per declared argument, to its value.
void packKernelParams(const Module &module, void **kernelParams, std::vector<uint8_t> &kernarg) {
  size_t i = 0;
  for (const KernargSlot &s : module.kernargs)
    if (!llvm::StringRef(s.valueKind).starts_with("hidden_"))
      std::memcpy(kernarg.data() + s.offset, kernelParams[i++], s.size);
}
} // namespace

extern "C" {
typedef Module *hipModule_t;
typedef Module *hipFunction_t;
typedef void *hipStream_t;

int hipInit(unsigned) { return hipSuccess; }
int hipGetDeviceCount(int *count) { return count ? (*count = 1, hipSuccess) : hipErrorInvalidValue; }
int hipGetDevice(int *device) { return device ? (*device = 0, hipSuccess) : hipErrorInvalidValue; }
int hipSetDevice(int device) { return device == 0 ? hipSuccess : hipErrorInvalidValue; }
int hipGetDevicePropertiesR0600(void *prop, int device) {
  if (!prop || device != 0)
    return hipErrorInvalidValue;
  std::string arch = deviceArch();
  const Target *target = lookupTarget(arch);
  if (!target)
    return fail(hipErrorInvalidValue, "ROCKTILE_HIP_ARCH=" + arch + " is not a rocktile target");
  auto *bytes = static_cast<char *>(prop);
  std::memset(bytes, 0, kDevicePropBytes);
  auto put = [&](DevicePropField f, auto value) { std::memcpy(bytes + f.offset, &value, f.size); };
  std::string name = "rocktile HIP emulator (" + target->product.str() + ")";
  std::strncpy(bytes + kPropName.offset, name.c_str(), kPropName.size - 1);
  std::strncpy(bytes + kPropGcnArchName.offset, arch.c_str(), kPropGcnArchName.size - 1);
  put(kPropTotalGlobalMem, uint64_t(1) << 36);
  put(kPropSharedMemPerBlock, uint64_t(target->ldsBytes));
  put(kPropWarpSize, int32_t(target->waveSize));
  put(kPropMaxThreadsPerBlock, int32_t(target->maxWorkgroupSize));
  put(kPropMultiProcessorCount, int32_t(target->computeUnits));
  return hipSuccess;
}
int hipDeviceSynchronize(void) { return hipSuccess; }           // launches complete when they return
int hipStreamSynchronize(hipStream_t) { return hipSuccess; }
int hipGetLastError(void) { return std::exchange(lastError, hipSuccess); }
const char *hipGetErrorString(int error) {
  switch (error) {
  case hipSuccess: return "hipSuccess";
  case hipErrorInvalidValue: return "hipErrorInvalidValue";
  case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
  case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
  case hipErrorInvalidImage: return "hipErrorInvalidImage";
  case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
  case hipErrorNotFound: return "hipErrorNotFound";
  case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
  case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
  default: return "unknown HIP error";
  }
}

int hipMalloc(void **ptr, size_t bytes) {
  if (!ptr)
    return hipErrorInvalidValue;
  *ptr = std::aligned_alloc(256, (std::max<size_t>(bytes, 1) + 255) / 256 * 256);
  if (!*ptr)
    return lastError = hipErrorOutOfMemory;
  std::lock_guard<std::mutex> lock(mutex);
  allocations[uintptr_t(*ptr)] = {bytes, std::vector<uint8_t>(bytes)};
  return hipSuccess;
}
int hipFree(void *ptr) {
  if (!ptr)
    return hipSuccess;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (allocations.erase(uintptr_t(ptr))) {
      std::free(ptr);
      return hipSuccess;
    }
  }
  return fail(hipErrorInvalidValue, "hipFree: the pointer is not the start of a live hipMalloc block "
                                    "(freed twice, or not from hipMalloc)");
}
// Device memory is host memory here, so each side that HIP's kind says is
// the device's is checked against the hipMalloc blocks: the bounds a GPU's
// page tables would enforce.
int hipMemcpy(void *dst, const void *src, size_t bytes, int kind) {
  enum { HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Default };
  if (kind < HostToHost || kind > Default)
    return fail(hipErrorInvalidMemcpyDirection, "hipMemcpy: " + std::to_string(kind) + " is no hipMemcpyKind");
  if (!bytes)
    return hipSuccess;
  if (!dst || !src)
    return fail(hipErrorInvalidValue, std::string("hipMemcpy: the ") + (dst ? "source" : "destination") +
                                          " is NULL");
  bool dstDevice = kind == HostToDevice || kind == DeviceToDevice || (kind == Default && bytesInBlock(uintptr_t(dst)) >= 0);
  bool srcDevice = kind == DeviceToHost || kind == DeviceToDevice || (kind == Default && bytesInBlock(uintptr_t(src)) >= 0);
  for (auto [device, ptr, what] : {std::tuple{dstDevice, (const void *)dst, "the destination"},
                                   std::tuple{srcDevice, src, "the source"}})
    if (std::string why = device ? deviceRangeError(ptr, bytes, what) : ""; !why.empty())
      return fail(hipErrorInvalidValue, "hipMemcpy of " + std::to_string(bytes) + " bytes: " + why);
  std::memmove(dst, src, bytes);
  // What a copy writes is initialized where its source was (host memory
  // always is).
  if (uint8_t *flags = dstDevice ? initializedFlags(uintptr_t(dst)) : nullptr; flags && srcDevice)
    std::memmove(flags, initializedFlags(uintptr_t(src)), bytes);
  else if (flags)
    std::memset(flags, 1, bytes);
  return hipSuccess;
}
int hipMemset(void *dst, int value, size_t bytes) {
  if (std::string why = bytes ? deviceRangeError(dst, bytes, "the destination") : ""; !why.empty())
    return fail(hipErrorInvalidValue, "hipMemset of " + std::to_string(bytes) + " bytes: " + why);
  std::memset(dst, value, bytes);
  if (bytes)
    std::memset(initializedFlags(uintptr_t(dst)), 1, bytes);
  return hipSuccess;
}

int hipModuleLoadData(hipModule_t *module, const void *image) {
  if (!module)
    return hipErrorInvalidValue;
  auto m = std::make_unique<Module>();
  if (int error = loadModule(*m, image))
    return error;
  *module = m.release();
  return hipSuccess;
}
int hipModuleUnload(hipModule_t module) {
  delete module;
  return hipSuccess;
}
int hipModuleGetFunction(hipFunction_t *function, hipModule_t module, const char *name) {
  if (!function || !module || !name)
    return hipErrorInvalidValue;
  if (module->symbol != name)
    return fail(hipErrorNotFound, std::string("hipModuleGetFunction: the module has no kernel '") + name +
                                      "' (it has '" + module->symbol + "')");
  *function = module;
  return hipSuccess;
}
int hipModuleLaunchKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned sharedBytes, hipStream_t, void **kernelParams, void **extra) {
  if (!f || by != 1 || bz != 1 || sharedBytes != 0)
    return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: rocktile kernels take 1-D workgroups and no "
                                      "dynamic LDS");
  size_t bytes = kernargBytes(*f);
  std::vector<uint8_t> kernarg(bytes, 0);
  if (extra) {
    void *buffer = nullptr;
    size_t *size = nullptr;
    for (size_t i = 0; extra[i] != kEnd; i += 2)
      if (extra[i] == kBufferPointer)
        buffer = extra[i + 1];
      else if (extra[i] == kBufferSize)
        size = static_cast<size_t *>(extra[i + 1]);
      else
        return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: unknown entry in extra");
    if (!buffer || !size || *size < bytes)
      return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: the extra kernarg buffer is missing or holds " +
                                            std::to_string(size ? *size : 0) + " bytes of the " +
                                            std::to_string(bytes) + " the kernel declares");
    std::memcpy(kernarg.data(), buffer, bytes);
  } else if (kernelParams) {
    packKernelParams(*f, kernelParams, kernarg);
  } else {
    return fail(hipErrorInvalidValue, "hipModuleLaunchKernel: neither kernelParams nor extra");
  }
  if (skipLaunches())
    return hipSuccess;
  return launch(*f, {gx, gy, gz}, bx, kernarg, /*cooperative=*/false);
}
// Every workgroup resident at once, so that they may wait for each other: a
// grid the device cannot hold fails, as on a GPU, and the emulator runs all
// of the workgroups at once whatever the host's cores.
int hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                     unsigned by, unsigned bz, unsigned sharedBytes, hipStream_t,
                                     void **kernelParams) {
  if (!f || by != 1 || bz != 1 || sharedBytes != 0)
    return fail(hipErrorInvalidValue, "hipModuleLaunchCooperativeKernel: rocktile kernels take 1-D workgroups "
                                      "and no dynamic LDS");
  if (!kernelParams)
    return fail(hipErrorInvalidValue, "hipModuleLaunchCooperativeKernel: no kernelParams");
  int64_t grid = int64_t(gx) * gy * gz, most = f->residency.onChip;
  if (grid > most)
    return fail(hipErrorCooperativeLaunchTooLarge,
                "hipModuleLaunchCooperativeKernel: a grid of " + std::to_string(grid) + " workgroups cannot all "
                "be resident on " + f->target->chip.str() + ", which holds at most " + std::to_string(most) +
                " of " + f->symbol + " at once (" + f->residency.reason + ")");
  std::vector<uint8_t> kernarg(kernargBytes(*f), 0);
  packKernelParams(*f, kernelParams, kernarg);
  if (skipLaunches())
    return hipSuccess;
  return launch(*f, {gx, gy, gz}, bx, kernarg, /*cooperative=*/true);
}
// How many workgroups of `blockSize` threads one CU holds at once.
int hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *workgroups, hipFunction_t f, int blockSize,
                                                       size_t sharedBytes) {
  if (!workgroups || !f || sharedBytes != 0 || blockSize != int(f->kernel->getNumThreads()))
    return fail(hipErrorInvalidValue, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor: " +
                                          (f ? f->symbol + " runs in workgroups of " +
                                                   std::to_string(f->kernel->getNumThreads()) +
                                                   " threads and no dynamic LDS"
                                             : std::string("no function")));
  *workgroups = int(f->residency.perCu);
  return hipSuccess;
}
}
