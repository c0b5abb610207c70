#include "rocktile/Emulator/Emulator.h"
#include "rocktile/Emulator/Fibers.h"
#include "rocktile/Emulator/GlobalChecks.h"
#include "rocktile/Emulator/HostJit.h"
#include "rocktile/Emulator/Passes.h"
#include "rocktile/Emulator/TensorDataMover.h"
#include "rocktile/Emulator/WaveOps.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace mlir;
using namespace rocktile::emulator;

namespace rocktile::emulator {
struct LaunchState;
/// What one host thread needs while running workgroups; the JIT-compiled
/// code gets its address as `ctx` and hands it back on a fault.
struct WorkerContext {
  LaunchState *launch;
  std::array<int64_t, 3> workgroup;
  int64_t linearWorkgroup = 0;
  /// The launch's release count at this workgroup's last acquire fence.
  uint32_t acquired = 0;
  /// Per LDS byte: which waves touched it since the last barrier (valid
  /// while `epoch` is the current one), and where.
  struct LdsByte {
    uint32_t epoch = 0;
    int32_t writer = -1, writeSite = -1, readSite = -1;
    uint64_t readers = 0; // bit per wave (at most 32 waves of 32 lanes)
  };
  std::vector<LdsByte> lds;
  uint32_t epoch = 1;
  uint8_t *ldsBase = nullptr;
  /// Tensor copies issued and not yet waited for, per wave in issue order;
  /// per LDS byte, 1 + the site of the load that will write it, or -(1 +
  /// the site) of the store that will read it (0: none).
  struct TensorCopy {
    int64_t site;
    TensorDescriptor desc;
    uint64_t ldsOffset;
    bool store;
  };
  std::vector<std::deque<TensorCopy>> copies;
  /// Direct-to-LDS and async loads (one counter, vmcnt or asynccnt) issued
  /// and not yet waited for, per wave in issue order: each instruction's
  /// bytes per lane, read at issue, and where they land.
  struct AsyncLoad {
    int64_t site;
    std::vector<std::pair<uint64_t, std::array<uint8_t, 16>>> runs; // (LDS byte, data)
    int64_t bytes;
  };
  std::vector<std::deque<AsyncLoad>> asyncLoads;
  std::vector<int32_t> copyPending;
  /// Consecutive lanes that accessed the same bytes (a broadcast read is
  /// one run).
  struct LaneRun {
    int32_t firstLane, lastLane;
    int64_t firstByte, bytes;
    int64_t firstDword() const { return firstByte / 4; }
    int64_t endDword() const { return (firstByte + bytes + 3) / 4; }
  };
  struct AccessGroup {
    int32_t site, wave;
    std::vector<LaneRun> lanes;
  };
  /// Per site, the run its last access extended: the thread that would
  /// extend it next, and what it must access (valid while `flushes` is).
  struct SiteRun {
    int64_t nextThread = -1, firstByte = 0, bytes = 0;
    uint32_t execution = 0, group = 0, flushes = 0;
  };
  /// Bank use since the last barrier: each thread's executions of each
  /// site, and for each (site, wave, execution) the runs of lanes that
  /// accessed it, in `groups`, found through
  /// `groupOf[siteWave(site, wave)][execution]` (all reused: LDS accesses
  /// are among the emulator's most frequent calls); totals per site for the
  /// launch.
  std::vector<SiteRun> lastRun;
  uint32_t flushes = 0;
  std::vector<uint32_t> executions; // site * threads + thread
  std::vector<std::vector<uint32_t>> groupOf; // 1 + index in `groups`, 0: none yet
  std::vector<AccessGroup> groups;
  size_t liveGroups = 0;
  std::vector<llvm::SmallVector<int64_t, 2>> bankDwords; // scratch of flushBanks: per bank, the distinct dwords
  std::vector<BankUse> bankUse; // per site
  std::vector<GlobalTraffic> traffic; // per kernel argument
  /// In a launch whose workgroups may wait for each other: the fibers they
  /// run on, and what this workgroup's last wait read, how many times in a
  /// row.
  Fibers *fibers = nullptr;
  int64_t waitSite = -1, waitRepeats = 0;
  uint64_t waitBits = 0;
};

struct LaunchState {
  const EmulatedKernel &kernel;
  const std::vector<KernelArg> &args;
  std::array<int64_t, 3> grid;
  GlobalMemoryChecks checks;
  std::mutex mutex;
  std::string fault;
  std::atomic<bool> failed{false};

  /// The index of a site's accesses by a wave in WorkerContext::groupOf.
  int64_t siteWave(int64_t site, int64_t wave) const {
    return ((site * kernel.numThreads) >> llvm::countr_zero(kernel.waveSize)) + wave;
  }

  void ldsAccess(WorkerContext &w, int64_t site, int64_t index, int64_t bytes, int64_t thread,
                 bool write) {
    const FaultSite &s = kernel.sites[site];
    int64_t first = s.ldsOffset + index * s.elementBytes;
    // Waves are powers of two: shifts, not divisions, on this hot path.
    unsigned shift = llvm::countr_zero(kernel.waveSize);
    auto wave = int32_t(thread >> shift);
    uint32_t execution = w.executions[site * kernel.numThreads + thread]++;
    // The next lane of the wave accessing the same bytes changes nothing
    // the checks below would find: a race needs another wave, and pending
    // copies change only between segments. It extends the run the site's
    // last access started.
    WorkerContext::SiteRun &last = w.lastRun[site];
    if (thread == last.nextThread && execution == last.execution && first == last.firstByte &&
        bytes == last.bytes && last.flushes == w.flushes && (thread & (kernel.waveSize - 1))) {
      w.groups[last.group].lanes.back().lastLane += 1;
      last.nextThread += 1;
      return;
    }
    std::vector<uint32_t> &groupOf = w.groupOf[siteWave(site, wave)];
    if (groupOf.size() <= execution)
      groupOf.resize(execution + 1);
    if (!groupOf[execution]) {
      if (w.liveGroups == w.groups.size())
        w.groups.emplace_back();
      WorkerContext::AccessGroup &g = w.groups[w.liveGroups++];
      g.site = int32_t(site), g.wave = wave;
      g.lanes.clear();
      groupOf[execution] = uint32_t(w.liveGroups);
    }
    auto lane = int32_t(thread & (kernel.waveSize - 1));
    w.groups[groupOf[execution] - 1].lanes.push_back({lane, lane, first, bytes});
    last = {thread + 1, first, bytes, execution, groupOf[execution] - 1, w.flushes};
    for (int64_t byte = first; byte < first + bytes; ++byte) {
      if (int32_t copy = w.copyPending[byte]; blocks(copy, write))
        return reportPending(w, site, std::abs(copy) - 1, byte, thread, write);
      if (!touchLds(w, site, byte, wave, write))
        return;
    }
  }

  /// The same access by every thread of the workgroup (an LDS address all
  /// of them read or write): each wave's lanes as one run.
  void ldsAccessAll(WorkerContext &w, int64_t site, int64_t index, int64_t bytes, bool write) {
    for (int64_t first = 0; first < kernel.numThreads && !failed; first += kernel.waveSize) {
      ldsAccess(w, site, index, bytes, first, write);
      WorkerContext::SiteRun &last = w.lastRun[site];
      w.groups[last.group].lanes.back().lastLane = int32_t(kernel.waveSize - 1);
      last.nextThread = first + kernel.waveSize;
    }
  }

  /// Whether a byte's pending copy (WorkerContext::copyPending) forbids an
  /// access to it: what a pending load will write is unreadable, what a
  /// pending store will read unwritable.
  static bool blocks(int32_t pending, bool write) { return pending > 0 || (pending < 0 && write); }

  /// Records `wave`'s access to LDS byte `byte` at `site`; false (after
  /// reporting it) when it races with another wave's since the last barrier.
  bool touchLds(WorkerContext &w, int64_t site, int64_t byte, int32_t wave, bool write) {
    uint64_t self = uint64_t(1) << wave;
    WorkerContext::LdsByte &e = w.lds[byte];
    if (e.epoch != w.epoch)
      e = {w.epoch};
    if (e.writer >= 0 && e.writer != wave)
      return reportRace(w, site, e.writeSite, byte, wave, e.writer, write, true), false;
    if (write && (e.readers & ~self))
      return reportRace(w, site, e.readSite, byte, wave, llvm::countr_zero(e.readers & ~self), true, false),
             false;
    if (write)
      e.writer = wave, e.writeSite = int32_t(site);
    else
      e.readers |= self, e.readSite = int32_t(site);
    return true;
  }

  /// tensor_load_to_lds (or, `store`, tensor_store_from_lds) in each wave
  /// of the workgroup.
  void tensorCopy(WorkerContext &w, int64_t site, const uint32_t *g0, const uint32_t *g1, int64_t n, bool store) {
    llvm::StringRef name = store ? "tensor_store_from_lds" : "tensor_load_to_lds";
    for (int64_t first = 0; first < n; first += kernel.waveSize) {
      auto wave = int32_t(first / kernel.waveSize);
      for (int64_t t = first + 1; t < first + kernel.waveSize; ++t)
        if (std::memcmp(g0 + 4 * t, g0 + 4 * first, 16) || std::memcmp(g1 + 8 * t, g1 + 8 * first, 32))
          return fail(w, site, t, ("the lanes of the wave disagree on the descriptor of " + name).str());
      std::array<uint32_t, 4> d0;
      std::array<uint32_t, 8> d1;
      std::memcpy(d0.data(), g0 + 4 * first, 16);
      std::memcpy(d1.data(), g1 + 8 * first, 32);
      TensorDescriptor d = decodeTensorDescriptor(d0, d1);
      if (!d.valid)
        continue;
      std::string why = checkTensorDescriptor(d);
      if (why.empty() && store && d.padEnable)
        why = "LDS padding (the Tensor Data Mover pads LDS rows only when it loads them)";
      if (!why.empty())
        return fail(w, site, first, (name + ": " + why).str());
      uint64_t offset = uint32_t(d.ldsAddress - uint32_t(reinterpret_cast<uintptr_t>(w.ldsBase)));
      if (offset + d.ldsBytes() > w.lds.size())
        return fail(w, site, first,
                    llvm::formatv("{0} {1} LDS bytes [{2}, {3}), past the {4} bytes of LDS", name,
                                  store ? "reads" : "writes", offset, offset + d.ldsBytes(), w.lds.size()));
      for (uint64_t i = 0, count = uint64_t(d.tileDim[0]) * d.tileDim[1]; i < count; ++i)
        for (uint64_t byte = offset + d.ldsOffset(i); byte < offset + d.ldsOffset(i) + d.elementBytes; ++byte) {
          if (int32_t copy = w.copyPending[byte]; blocks(copy, !store))
            return reportPending(w, site, std::abs(copy) - 1, byte, first, !store);
          if (!touchLds(w, site, byte, wave, !store))
            return;
          w.copyPending[byte] = store ? -int32_t(site + 1) : int32_t(site + 1);
        }
      w.copies[wave].push_back({site, d, offset, store});
    }
  }

  /// A copy completes: a load's in-bounds elements land in LDS, and its
  /// out-of-bounds ones are dropped, leaving their LDS bytes as they were
  /// (the hardware's zero fill is not confirmed: the compiler must not rely
  /// on it); a store writes its in-bounds elements from LDS.
  void completeCopy(WorkerContext &w, int32_t wave, const WorkerContext::TensorCopy &c) {
    const TensorDescriptor &d = c.desc;
    // A tile that starts in a buffer argument stays in it; one that starts
    // outside them all (a descriptor on a pointer the kernel loaded) may
    // reach any mapped host memory, as accesses through such pointers may.
    bool ofArgument = bufferHolding(d.globalAddress, d.elementBytes).first >= 0;
    for (uint64_t r = 0; r < d.tileDim[1]; ++r) {
      uint64_t cols = r < d.tensorDim[1] ? std::min<uint64_t>(d.tileDim[0], d.tensorDim[0]) : 0;
      uint64_t global = d.globalAddress + r * d.stride[0] * d.elementBytes, bytes = cols * d.elementBytes;
      std::string outside;
      if (bytes && ofArgument && !insideBuffer(global, bytes))
        outside = "outside every buffer argument";
      else if (bytes && !ofArgument)
        outside = addressedAccessError(global, bytes, c.store);
      if (!outside.empty())
        return fail(w, c.site, wave * kernel.waveSize,
                    llvm::formatv("{0} {1} bytes at address {2:x} (row {3} of the tile), {4}",
                                  c.store ? "tensor_store_from_lds writes" : "tensor_load_to_lds reads", bytes,
                                  global, r, outside));
      if (int arg = bytes && ofArgument ? bufferHolding(global, bytes).first : -1; arg >= 0) {
        globalAccess(w, c.site, arg, int64_t(global - args[arg].address), int64_t(bytes), wave * kernel.waveSize,
                     c.store ? GlobalMemoryChecks::Kind::Write : GlobalMemoryChecks::Kind::Read, [&] {
                       return llvm::formatv("tensor_load_to_lds (row {0} of the tile)", r).str();
                     });
        if (failed)
          return;
      }
      for (uint64_t col = 0; col < cols; ++col) {
        uint8_t *lds = w.ldsBase + c.ldsOffset + d.ldsOffset(r * d.tileDim[0] + col);
        auto *memory = reinterpret_cast<uint8_t *>(global + col * d.elementBytes);
        if (c.store)
          std::memcpy(memory, lds, d.elementBytes);
        else
          std::memcpy(lds, memory, d.elementBytes);
      }
    }
    for (uint64_t i = 0, count = uint64_t(d.tileDim[0]) * d.tileDim[1]; i < count; ++i)
      for (uint64_t k = 0; k < d.elementBytes; ++k)
        w.copyPending[c.ldsOffset + d.ldsOffset(i) + k] = 0;
  }

  /// A direct-to-LDS or async load in each wave: lane t's `bytes` bytes
  /// (`data`, read at issue) land at LDS element `index[t]` of the view at
  /// `ldsOffset`, or (`waveShared`, as gfx950's M0) at the wave's first
  /// lane's element plus t runs.
  void asyncLoad(WorkerContext &w, int64_t site, const uint8_t *data, const int64_t *index, int64_t n,
                 int64_t eltBytes, int64_t bytes, int64_t ldsOffset, bool waveShared) {
    for (int64_t first = 0; first < n; first += kernel.waveSize) {
      auto wave = int32_t(first / kernel.waveSize);
      WorkerContext::AsyncLoad load{site, {}, bytes};
      for (int64_t t = first; t < first + kernel.waveSize; ++t) {
        int64_t element = waveShared ? index[first] + (t - first) * bytes / eltBytes : index[t];
        int64_t at = ldsOffset + element * eltBytes;
        if (at < 0 || at + bytes > int64_t(w.lds.size()))
          return fail(w, site, t,
                      llvm::formatv("an async load writes LDS bytes [{0}, {1}), outside the {2} bytes of LDS", at,
                                    at + bytes, w.lds.size()));
        for (int64_t byte = at; byte < at + bytes; ++byte) {
          if (int32_t copy = w.copyPending[byte]; blocks(copy, /*write=*/true))
            return reportPending(w, site, std::abs(copy) - 1, byte, t, /*write=*/true);
          if (!touchLds(w, site, byte, wave, /*write=*/true))
            return;
          w.copyPending[byte] = int32_t(site + 1);
        }
        std::array<uint8_t, 16> run{};
        std::memcpy(run.data(), data + t * bytes, bytes);
        load.runs.push_back({uint64_t(at), run});
      }
      w.asyncLoads[wave].push_back(std::move(load));
    }
  }

  /// vmcnt / asynccnt: each wave's oldest async loads land until at most
  /// `count` are in flight.
  void waitAsyncLoads(WorkerContext &w, int64_t count) {
    for (auto &queue : w.asyncLoads)
      while (int64_t(queue.size()) > count) {
        const WorkerContext::AsyncLoad &load = queue.front();
        for (const auto &[at, run] : load.runs) {
          std::memcpy(w.ldsBase + at, run.data(), load.bytes);
          std::fill(w.copyPending.begin() + at, w.copyPending.begin() + at + load.bytes, 0);
        }
        queue.pop_front();
      }
  }

  void waitTensorcnt(WorkerContext &w, int64_t count) {
    for (auto [wave, queue] : llvm::enumerate(w.copies))
      while (int64_t(queue.size()) > count && !failed) {
        completeCopy(w, int32_t(wave), queue.front());
        queue.pop_front();
      }
  }

  bool insideBuffer(uint64_t address, uint64_t bytes) const { return bufferHolding(address, bytes).second; }

  /// The buffer argument that bytes [address, address + bytes) overlap
  /// (-1: none), and whether it holds all of them.
  std::pair<int, bool> bufferHolding(uint64_t address, uint64_t bytes) const {
    for (auto [i, slot, a] : llvm::enumerate(kernel.slots, args)) {
      uint64_t end = a.address + uint64_t(a.numElements) * slot.elementBytes;
      if (slot.isBuffer && address < end && address + bytes > a.address)
        return {int(i), address >= a.address && address + bytes <= end};
    }
    return {-1, false};
  }

  /// An access through an integer address, by `thread` at `site`: whether
  /// it may proceed. Inside a buffer argument (a pointer chosen at run
  /// time among arguments, or read from memory) it is checked and counted
  /// as an access through that argument.
  bool addressedAccess(WorkerContext &w, int64_t site, uint64_t address, uint64_t bytes, int64_t thread,
                       GlobalMemoryChecks::Kind kind) {
    if (!addressedAccessError(address, bytes, kind != GlobalMemoryChecks::Kind::Read).empty())
      return false;
    if (int arg = bufferHolding(address, bytes).first; arg >= 0)
      globalAccess(w, site, arg, int64_t(address - args[arg].address), int64_t(bytes), thread, kind, [&] {
        return llvm::formatv("{0} of {1} bytes at address {2:x}", kernel.sites[site].kind, bytes, address).str();
      });
    return true;
  }

  /// Why an access through a pointer made from an integer may not happen,
  /// or "" when it may: it must lie inside one buffer argument, or in
  /// mapped host memory (readable; writable for a store) outside all of
  /// them, whose extent the emulator cannot know.
  std::string addressedAccessError(uint64_t address, uint64_t bytes, bool store) {
    auto [buffer, inside] = bufferHolding(address, bytes);
    if (buffer >= 0) {
      const KernelArg &a = args[buffer];
      if (inside)
        return "";
      return llvm::formatv("reaches outside '{0}' ({1} elements of {2} bytes at {3:x})", a.name,
                           a.numElements, kernel.slots[buffer].elementBytes, a.address);
    }
    std::call_once(mappingsRead, [&] { mappings = readMappings(); });
    for (uint64_t at = address; at < address + bytes;) {
      // The kernel lists its mappings in address order.
      auto m = llvm::partition_point(mappings, [&](const Mapping &m) { return m.end <= at; });
      if (m == mappings.end() || at < m->start)
        return llvm::formatv("reaches address {0:x}, which is not mapped host memory", at);
      if (!m->readable || (store && !m->writable))
        return llvm::formatv("reaches address {0:x}, which is not {1} host memory", at,
                             store ? "writable" : "readable");
      at = m->end;
    }
    return "";
  }

  /// The process's memory mappings (/proc/self/maps), read once per launch:
  /// the kernel runs while the host program waits.
  struct Mapping {
    uint64_t start, end;
    bool readable, writable;
  };
  std::vector<Mapping> mappings;
  std::once_flag mappingsRead;
  static std::vector<Mapping> readMappings() {
    std::vector<Mapping> out;
    auto maps = llvm::MemoryBuffer::getFileAsStream("/proc/self/maps");
    if (!maps)
      return out;
    llvm::SmallVector<llvm::StringRef> lines;
    (*maps)->getBuffer().split(lines, '\n', -1, false);
    for (llvm::StringRef line : lines) {
      auto [range, rest] = line.split(' ');
      auto [start, end] = range.split('-');
      Mapping m{};
      if (start.getAsInteger(16, m.start) || end.getAsInteger(16, m.end) || rest.size() < 2)
        continue;
      m.readable = rest[0] == 'r';
      m.writable = rest[1] == 'w';
      out.push_back(m);
    }
    return out;
  }

  /// A launch on fibers: the resident workgroups, and when anything last
  /// changed (a wait read something new, a workgroup ended).
  std::vector<WorkerContext *> resident;
  std::chrono::steady_clock::time_point lastProgress = std::chrono::steady_clock::now();

  /// Where a workgroup may wait for another (rocktile_emu_spin): having
  /// read `bits` at `site`, it lets the others run. When every resident
  /// workgroup has kept reading the same thing for a while and nothing
  /// changed for ROCKTILE_EMULATOR_DEADLOCK_SECONDS (5 s by default), the
  /// launch has deadlocked: a fault naming each one's waiting line.
  void wait(WorkerContext &w, int64_t site, uint64_t bits) {
    constexpr int64_t kRepeats = 1000;
    if (site == w.waitSite && bits == w.waitBits) {
      ++w.waitRepeats;
    } else {
      w.waitSite = site, w.waitBits = bits, w.waitRepeats = 0;
      lastProgress = std::chrono::steady_clock::now();
    }
    if (!failed && w.waitRepeats % kRepeats == kRepeats - 1 && w.fibers->allStarted() &&
        llvm::all_of(resident, [](WorkerContext *r) { return r->waitRepeats >= kRepeats - 1; }) &&
        std::chrono::steady_clock::now() - lastProgress > deadlockTimeout())
      reportDeadlock();
    if (failed)
      w.fibers->stop();
    w.fibers->yield();
  }

  static std::chrono::duration<double> deadlockTimeout() {
    const char *env = std::getenv("ROCKTILE_EMULATOR_DEADLOCK_SECONDS");
    return std::chrono::duration<double>(env ? std::atof(env) : 5.0);
  }

  void reportDeadlock() {
    std::lock_guard<std::mutex> lock(mutex);
    failed = true;
    std::string s = llvm::formatv("kernel {0}: deadlock: each of the {1} resident workgroups keeps waiting for a "
                                  "value that no other one changes",
                                  kernel.name, resident.size());
    constexpr size_t kShown = 8;
    for (WorkerContext *r : llvm::ArrayRef(resident).take_front(kShown))
      s += llvm::formatv("\n  workgroup ({0}, {1}, {2}) waits at {3} (reading {4:x} there)", r->workgroup[0],
                         r->workgroup[1], r->workgroup[2], kernel.sites[r->waitSite].location, r->waitBits);
    if (resident.size() > kShown)
      s += llvm::formatv("\n  ... and {0} more", resident.size() - kShown);
    fault = s;
  }

  void reportPending(const WorkerContext &w, int64_t site, int64_t copySite, int64_t byte, int64_t thread,
                     bool write) {
    const FaultSite &copy = kernel.sites[copySite];
    fail(w, site, thread,
         llvm::formatv("LDS byte {0} {1} before its copy was waited for: the {2} at {3} has not completed ({4} too "
                       "weak, or missing)",
                       byte, write ? "written" : "read", copy.kind, copy.location,
                       copy.kind == "tensor copy" ? "s_wait_tensorcnt" : "s_waitcnt vmcnt / s_wait_asynccnt"));
  }

  /// Records the first fault of the launch: `what`, by `thread`, at `site`.
  void fail(const WorkerContext &w, int64_t site, int64_t thread, const std::string &what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failed)
      return;
    failed = true;
    fault = llvm::formatv("{0}: {1}\n  at {2}", where(w, thread), what, kernel.sites[site].location);
  }

  /// "kernel K, workgroup (x, y, z), wave W, lane L": who faulted.
  std::string where(const WorkerContext &w, int64_t thread) const {
    return llvm::formatv("kernel {0}, workgroup ({1}, {2}, {3}), wave {4}, lane {5}", kernel.name, w.workgroup[0],
                         w.workgroup[1], w.workgroup[2], thread / kernel.waveSize, thread % kernel.waveSize);
  }

  /// The bank conflicts of the LDS accesses since the last barrier. A wave's
  /// access is served in phases of consecutive lanes, as many as the banks
  /// hold their dwords (all 4-byte banks for one dword each); within a
  /// phase, lanes reading one dword share it, and a bank asked for k
  /// distinct dwords takes k cycles. (CDNA4 serves 128-bit accesses in a
  /// non-consecutive lane order: not modelled yet.)
  void flushBanks(WorkerContext &w) {
    auto &banks = w.bankDwords;
    banks.resize(kernel.ldsBanks);
    for (WorkerContext::AccessGroup &g : llvm::MutableArrayRef(w.groups).take_front(w.liveGroups)) {
      auto &runs = g.lanes;
      auto byLane = [](const WorkerContext::LaneRun &x, const WorkerContext::LaneRun &y) {
        return x.firstLane < y.firstLane;
      };
      if (!llvm::is_sorted(runs, byLane))
        llvm::sort(runs, byLane);
      int64_t dwords = 1;
      for (const auto &r : runs)
        dwords = std::max(dwords, r.endDword() - r.firstDword());
      int64_t perPhase = std::max<int64_t>(1, kernel.ldsBanks / dwords), extra = 0;
      // Per phase, each bank's distinct dwords: the most of any bank, less
      // one, is the phase's extra cycles.
      size_t r = 0;
      for (int64_t phase = runs.front().firstLane / perPhase; r < runs.size(); ++phase) {
        int64_t lo = phase * perPhase, hi = lo + perPhase;
        while (r < runs.size() && runs[r].lastLane < lo)
          ++r;
        size_t most = 1;
        for (size_t k = r; k < runs.size() && runs[k].firstLane < hi; ++k)
          for (int64_t d = runs[k].firstDword(); d < runs[k].endDword(); ++d) {
            auto &seen = banks[d % kernel.ldsBanks];
            if (!llvm::is_contained(seen, d))
              seen.push_back(d), most = std::max(most, seen.size());
          }
        extra += int64_t(most) - 1;
        for (size_t k = r; k < runs.size() && runs[k].firstLane < hi; ++k)
          for (int64_t d = runs[k].firstDword(); d < runs[k].endDword(); ++d)
            banks[d % kernel.ldsBanks].clear();
      }
      BankUse &use = w.bankUse[g.site];
      use.executions += 1, use.extraCycles += extra;
      // Only the counters of the threads that ran the site start again.
      uint32_t *executions = &w.executions[g.site * kernel.numThreads + g.wave * kernel.waveSize];
      for (const auto &run : runs)
        std::fill(executions + run.firstLane, executions + run.lastLane + 1, 0u);
      w.groupOf[siteWave(g.site, g.wave)].clear();
    }
    w.liveGroups = 0;
    w.flushes += 1;
  }

  void reportRace(const WorkerContext &w, int64_t site, int64_t otherSite, int64_t byte, int64_t wave,
                  int64_t otherWave, bool write, bool otherWrote) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failed)
      return;
    failed = true;
    fault = llvm::formatv("kernel {0}, workgroup ({1}, {2}, {3}): LDS race on byte {4}: wave {5} {6} it "
                          "at {7}, and wave {8} {9} it at {10} with no barrier between them",
                          kernel.name, w.workgroup[0], w.workgroup[1], w.workgroup[2], byte, wave,
                          write ? "writes" : "reads", kernel.sites[site].location, otherWave,
                          otherWrote ? "wrote" : "read", kernel.sites[otherSite].location);
  }

  static void countTraffic(WorkerContext &w, int arg, int64_t bytes, GlobalMemoryChecks::Kind kind) {
    GlobalTraffic &t = w.traffic[arg];
    (kind == GlobalMemoryChecks::Kind::Read ? t.read : kind == GlobalMemoryChecks::Kind::Write ? t.written
                                                                                               : t.atomic) += bytes;
  }

  /// A load, store or atomic by `thread` at `site` of `count` elements of
  /// its buffer argument from `index`.
  void elementAccess(WorkerContext &w, int64_t site, int64_t index, int64_t count, int64_t thread,
                     GlobalMemoryChecks::Kind kind) {
    const FaultSite &s = kernel.sites[site];
    globalAccess(w, site, s.argIndex, index * s.elementBytes, count * s.elementBytes, thread, kind, [&] {
      return llvm::formatv("{0} of {1} element(s) at index {2}", s.kind, count, index).str();
    });
  }

  /// An access by `thread` at `site` to bytes [byte, byte + bytes) of
  /// buffer argument `arg` (racecheck and initcheck); `what` names it.
  void globalAccess(WorkerContext &w, int64_t site, int arg, int64_t byte, int64_t bytes, int64_t thread,
                    GlobalMemoryChecks::Kind kind, llvm::function_ref<std::string()> what) {
    countTraffic(w, arg, bytes, kind);
    if (!checks.checks(arg)) // only counted: this runs for every access
      return;
    const FaultSite &s = kernel.sites[site];
    GlobalAccessor who{w.linearWorkgroup, w.epoch, int32_t(thread / kernel.waveSize), w.acquired};
    GlobalConflict c = checks.access(who, arg, byte, bytes, kind, int32_t(site), s.volatileLoad);
    if (c.kind == GlobalConflict::None)
      return;
    const KernelArg &a = args[arg];
    std::string memory = llvm::formatv("byte {0} of '{1}' (address {2:x})", c.byte, a.name, a.address + c.byte);
    if (c.kind == GlobalConflict::Uninitialized)
      return fail(w, site, thread,
                  llvm::formatv("{0} reads {1}, which neither the host nor a kernel wrote (uninitialized memory)",
                                what(), memory));
    const char *verb = kind == GlobalMemoryChecks::Kind::Read    ? "reads"
                       : kind == GlobalMemoryChecks::Kind::Write ? "writes"
                                                                 : "atomically updates";
    std::lock_guard<std::mutex> lock(mutex);
    if (failed)
      return;
    failed = true;
    if (c.kind == GlobalConflict::WithinWorkgroup) {
      fault = llvm::formatv("kernel {0}, workgroup ({1}, {2}, {3}): global memory race on {4}: wave {5} {6} it "
                            "at {7}, and wave {8} {9} it at {10} with no barrier between them",
                            kernel.name, w.workgroup[0], w.workgroup[1], w.workgroup[2], memory, who.wave, verb,
                            s.location, c.otherWave, c.otherWrote ? "wrote" : "read",
                            kernel.sites[c.otherSite].location);
      return;
    }
    int64_t o = c.otherWorkgroup;
    fault = llvm::formatv("kernel {0}: global memory race on {1}: workgroup ({2}, {3}, {4}) {10} it at {5}, and "
                          "workgroup ({6}, {7}, {8}) wrote it at {9}, neither with an atomic nor ordered by a "
                          "release and an acquire (ROCKTILE_EMULATOR_RACECHECK=workgroup turns this check off "
                          "where a kernel means such a race)",
                          kernel.name, memory, w.workgroup[0], w.workgroup[1], w.workgroup[2], s.location,
                          o % grid[0], o / grid[0] % grid[1], o / (grid[0] * grid[1]),
                          kernel.sites[c.otherSite].location, verb);
  }

  void report(const WorkerContext &w, int64_t site, int64_t index, int64_t count, int64_t size,
              int64_t thread) {
    const FaultSite &s = kernel.sites[site];
    std::string addressed = s.argIndex == kAddressedMemory
                                ? addressedAccessError(uint64_t(index) * s.elementBytes,
                                                       uint64_t(count) * s.elementBytes, s.kind == "store")
                                : "";
    std::lock_guard<std::mutex> lock(mutex);
    if (failed)
      return;
    failed = true;
    std::string where = this->where(w, thread);
    if (s.kind == "assert" || s.kind == "check") {
      fault = llvm::formatv("{0}: {1}{2}\n  at {3}", where, s.kind == "assert" ? "device_assert failed: " : "",
                            s.message, s.location);
      return;
    }
    if (s.kind == "divergent" || s.kind == "divergent-loop") {
      bool loop = s.kind == "divergent-loop";
      fault = llvm::formatv("{0}: threads disagree on {1} a barrier or a cross-lane op (thread 0 and "
                            "thread {2}); every thread of the program must {3} there\n  at {4}",
                            where, loop ? "the bounds of a loop that holds" : "a condition that guards",
                            thread, loop ? "run the same iterations" : "take the same path", s.location);
      return;
    }
    if (s.kind == "alignment") {
      fault = llvm::formatv("{0}: pointer argument '{1}' (address {2:x}) is not {3}-byte aligned, "
                            "as the kernel was specialized for\n  at {4}",
                            where, args[s.argIndex].name, uint64_t(index), s.elementBytes,
                            s.location);
      return;
    }
    if (s.argIndex == kAddressedMemory) {
      fault = llvm::formatv("{0}: {1} of {2} element(s) at address {3:x}, through a pointer made from an "
                            "integer, {4}\n  at {5}",
                            where, s.kind, count, uint64_t(index) * s.elementBytes, addressed, s.location);
      return;
    }
    std::string buffer, address;
    if (s.argIndex >= 0) {
      const KernelArg &a = args[s.argIndex];
      buffer = llvm::formatv("'{0}' ({1} elements of {2} bytes at {3:x})", a.name, size,
                             s.elementBytes, a.address);
      address = llvm::formatv(" (address {0:x})", a.address + uint64_t(index * s.elementBytes));
    } else {
      buffer = llvm::formatv("LDS ({0} elements of {1} bytes at LDS byte {2})", size,
                             s.elementBytes, s.ldsOffset);
      address = llvm::formatv(" (LDS byte {0})", s.ldsOffset + index * s.elementBytes);
    }
    if (s.kind == "misaligned") {
      fault = llvm::formatv("{0}: vector access at index {1}{2} of {3} is not {4}-byte aligned, as the "
                            "compiled code claims\n  at {5}",
                            where, index, address, buffer, count, s.location);
      return;
    }
    fault = llvm::formatv("{0}: {1} of {2} element(s) at index {3}{4} is outside {5}\n  at {6}",
                          where, s.kind, count, index, address, buffer, s.location);
  }
};
} // namespace rocktile::emulator

extern "C" void rocktile_emu_fault(int64_t ctx, int64_t site, int64_t index, int64_t count,
                                   int64_t size, int64_t thread) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->report(*w, site, index, count, size, thread);
}

extern "C" int64_t rocktile_emu_addressed_access(int64_t ctx, int64_t site, int64_t address, int64_t bytes,
                                                 int64_t thread, int64_t kind) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  return w->launch->addressedAccess(*w, site, uint64_t(address), uint64_t(bytes), thread,
                                    GlobalMemoryChecks::Kind(kind));
}

extern "C" void rocktile_emu_spin(int64_t ctx, int64_t site, int64_t bits) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  if (w->fibers)
    w->launch->wait(*w, site, uint64_t(bits));
}

extern "C" void rocktile_emu_global_access(int64_t ctx, int64_t site, int64_t index, int64_t count,
                                           int64_t thread, int64_t kind) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->elementAccess(*w, site, index, count, thread, GlobalMemoryChecks::Kind(kind));
}

extern "C" void rocktile_emu_release(int64_t ctx) { reinterpret_cast<WorkerContext *>(ctx)->launch->checks.release(); }

extern "C" void rocktile_emu_acquire(int64_t ctx) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->acquired = w->launch->checks.acquire();
}

extern "C" int64_t rocktile_emu_realtime() {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now).count() / 10;
}

extern "C" void rocktile_emu_lds_barrier(int64_t ctx) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->flushBanks(*w);
  ++w->epoch;
}

extern "C" void rocktile_emu_tensor_load(int64_t ctx, int64_t site, int64_t g0, int64_t g1, int64_t n) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->tensorCopy(*w, site, reinterpret_cast<const uint32_t *>(g0), reinterpret_cast<const uint32_t *>(g1),
                        n, /*store=*/false);
}

extern "C" void rocktile_emu_tensor_store(int64_t ctx, int64_t site, int64_t g0, int64_t g1, int64_t n) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->tensorCopy(*w, site, reinterpret_cast<const uint32_t *>(g0), reinterpret_cast<const uint32_t *>(g1),
                        n, /*store=*/true);
}

extern "C" void rocktile_emu_async_load(int64_t ctx, int64_t site, int64_t data, int64_t index, int64_t n,
                                        int64_t eltBytes, int64_t bytes, int64_t ldsOffset, int64_t waveShared) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->asyncLoad(*w, site, reinterpret_cast<const uint8_t *>(data), reinterpret_cast<const int64_t *>(index),
                       n, eltBytes, bytes, ldsOffset, waveShared != 0);
}

extern "C" void rocktile_emu_wait_async_loads(int64_t ctx, int64_t count) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->waitAsyncLoads(*w, count);
}

extern "C" void rocktile_emu_wait_tensorcnt(int64_t ctx, int64_t count) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->waitTensorcnt(*w, count);
}

extern "C" void rocktile_emu_lds_access(int64_t ctx, int64_t site, int64_t index, int64_t bytes,
                                        int64_t thread, int64_t write) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->ldsAccess(*w, site, index, bytes, thread, write);
}

extern "C" void rocktile_emu_lds_access_all(int64_t ctx, int64_t site, int64_t index, int64_t bytes,
                                            int64_t write) {
  auto *w = reinterpret_cast<WorkerContext *>(ctx);
  w->launch->ldsAccessAll(*w, site, index, bytes, write);
}

extern "C" int64_t rocktile_emu_shared_value(int64_t ctx, int64_t site, int64_t values, int64_t n,
                                             int64_t bytes) {
  auto *v = reinterpret_cast<const char *>(values);
  for (int64_t t = 1; t < n; ++t)
    if (std::memcmp(v + t * bytes, v, bytes)) {
      auto *w = reinterpret_cast<WorkerContext *>(ctx);
      w->launch->report(*w, site, 0, 0, 0, t);
      break;
    }
  int64_t first = 0;
  std::memcpy(&first, v, bytes); // little-endian: the low bytes
  return first;
}

EmulatedKernel::~EmulatedKernel() = default;

const std::vector<std::string> &EmulatedKernel::getHostImports() const { return jit->imports; }

std::vector<BankConflicts> EmulatedKernel::getBankConflicts() const {
  std::vector<BankConflicts> out;
  for (auto [site, use] : llvm::zip(sites, bankUse))
    if (use.executions)
      out.push_back({site.location, site.kind, use});
  return out;
}

FailureOr<std::unique_ptr<EmulatedKernel>> EmulatedKernel::create(ModuleOp simt, unsigned waveSize,
                                                                  unsigned ldsBanks,
                                                                  llvm::StringRef hostCpu) {
  std::unique_ptr<EmulatedKernel> k(new EmulatedKernel());
  k->waveSize = waveSize;
  k->ldsBanks = ldsBanks;
  gpu::GPUFuncOp kernel;
  simt.walk([&](gpu::GPUFuncOp f) {
    if (f.isKernel() && !kernel)
      kernel = f;
  });
  if (!kernel)
    return simt.emitError("no kernel to emulate"), failure();
  k->name = kernel.getName().str();
  if (auto size = kernel.getKnownBlockSizeAttr())
    k->numThreads = size[0];
  for (BlockArgument lds : kernel.getWorkgroupAttributions())
    k->ldsBytes = cast<MemRefType>(lds.getType()).getNumElements();
  for (Type t : kernel.getArgumentTypes()) {
    if (auto memref = dyn_cast<MemRefType>(t))
      k->slots.push_back({true, 64, false, std::max<unsigned>(memref.getElementTypeBitWidth() / 8, 1)});
    else
      k->slots.push_back({false, t.getIntOrFloatBitWidth(), isa<FloatType>(t), 0});
  }

  PassManager pm(simt.getContext());
  pm.addPass(emulator::createLowerSimtToHost({waveSize}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createHostToLLVM());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (failed(pm.run(simt)))
    return failure();
  k->spins = simt->hasAttr(kSpinPoints);
  for (Attribute a : simt->getAttrOfType<ArrayAttr>("rocktile.emulator_sites")) {
    auto d = cast<DictionaryAttr>(a);
    k->sites.push_back({d.getAs<StringAttr>("kind").str(),
                        int(d.getAs<IntegerAttr>("arg").getInt()),
                        d.getAs<IntegerAttr>("lds_offset").getInt(),
                        d.getAs<IntegerAttr>("element_bytes").getInt(),
                        d.getAs<IntegerAttr>("access_bytes").getInt(),
                        d.getAs<StringAttr>("location").str(),
                        d.getAs<StringAttr>("message").str(),
                        d.getAs<StringAttr>("kind").getValue() == "volatile load"});
  }

  auto jit = HostJit::create(simt, k->name + "_workgroup", hostCpu, hostSymbols());
  if (failed(jit))
    return failure();
  k->jit = std::move(*jit);
  k->entry = k->jit->entry;
  return k;
}

/// A scalar's bits as the kernel's parameter type holds them.
static uint64_t scalarBits(const KernelArg &a, unsigned bits, bool isFloat) {
  if (!isFloat)
    return a.kind == KernelArg::Int ? uint64_t(a.intValue) : uint64_t(int64_t(a.floatValue));
  double v = a.kind == KernelArg::Float ? a.floatValue : double(a.intValue);
  if (bits == 64) {
    uint64_t out;
    std::memcpy(&out, &v, 8);
    return out;
  }
  llvm::APFloat f(v);
  bool lost;
  const llvm::fltSemantics &sem = bits == 32 ? llvm::APFloat::IEEEsingle()
                                  : bits == 16 ? llvm::APFloat::IEEEhalf()
                                               : llvm::APFloat::BFloat();
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.bitcastToAPInt().getZExtValue();
}

namespace rocktile::emulator {
/// One workgroup at a time on one host thread (or fiber): its context, LDS,
/// and the host function's packed arguments (ctx, block ids, grid dims,
/// kernel arguments, LDS; each memref as allocated, aligned, offset, size,
/// stride).
struct WorkgroupRunner {
  LaunchState &state;
  std::array<int64_t, 3> grid;
  WorkerContext ctx;
  std::vector<uint8_t> lds;
  std::vector<uint64_t> values;
  std::vector<void *> packed;

  WorkgroupRunner(LaunchState &state, std::array<int64_t, 3> grid)
      : state(state), grid(grid), ctx{&state, {0, 0, 0}} {
    const EmulatedKernel &k = state.kernel;
    ctx.lds.resize(k.ldsBytes);
    ctx.copyPending.resize(k.ldsBytes);
    ctx.copies.resize(k.numThreads / k.waveSize);
    ctx.asyncLoads.resize(k.numThreads / k.waveSize);
    ctx.executions.resize(k.sites.size() * k.numThreads);
    ctx.groupOf.resize(k.sites.size() * k.numThreads / k.waveSize);
    ctx.lastRun.resize(k.sites.size());
    ctx.bankUse.resize(k.sites.size());
    ctx.traffic.resize(state.args.size());
    lds.assign(std::max<int64_t>(k.ldsBytes, 1), 0xcd);
    ctx.ldsBase = lds.data();
    auto push = [&](uint64_t v) { values.push_back(v); };
    push(reinterpret_cast<uint64_t>(&ctx));
    for (int i = 0; i < 3; ++i)
      push(0);
    for (int64_t g : grid)
      push(uint64_t(g));
    for (auto [slot, a] : llvm::zip(k.slots, state.args)) {
      if (slot.isBuffer) {
        for (uint64_t v : {a.address, a.address, uint64_t(0), uint64_t(a.numElements), uint64_t(1)})
          push(v);
      } else {
        push(scalarBits(a, slot.bits, slot.isFloat));
      }
    }
    if (k.ldsBytes)
      for (uint64_t v : {uint64_t(lds.data()), uint64_t(lds.data()), uint64_t(0), uint64_t(k.ldsBytes), uint64_t(1)})
        push(v);
    for (uint64_t &v : values)
      packed.push_back(&v);
  }

  void run(int64_t wg) {
    ctx.workgroup = {wg % grid[0], wg / grid[0] % grid[1], wg / (grid[0] * grid[1])};
    ctx.linearWorkgroup = wg, ctx.acquired = 0;
    ctx.waitSite = -1, ctx.waitRepeats = 0; // nor what it last waited for
    ++ctx.epoch; // a new workgroup: nothing of the last one's LDS accesses counts
    for (auto &queue : ctx.copies) // nor its copies never waited for
      queue.clear();
    for (auto &queue : ctx.asyncLoads)
      queue.clear();
    std::fill(ctx.copyPending.begin(), ctx.copyPending.end(), 0);
    for (int i = 0; i < 3; ++i)
      values[1 + i] = uint64_t(ctx.workgroup[i]);
    state.kernel.entry(packed.data());
    // A store still in flight would write after the kernel: its wait is missing.
    for (auto [wave, queue] : llvm::enumerate(ctx.copies))
      for (const WorkerContext::TensorCopy &c : queue)
        if (c.store)
          state.fail(ctx, c.site, int64_t(wave) * state.kernel.waveSize,
                     "tensor_store_from_lds never waited for: the workgroup ended with it in flight "
                     "(s_wait_tensorcnt missing)");
    state.flushBanks(ctx);
  }
};
} // namespace rocktile::emulator

std::string EmulatedKernel::launch(std::array<int64_t, 3> grid, const std::vector<KernelArg> &args,
                                   unsigned workers, bool cooperative) const {
  if (args.size() != slots.size())
    return llvm::formatv("kernel {0} takes {1} arguments, got {2}", name, slots.size(), args.size());
  for (auto [i, a] : llvm::enumerate(args)) {
    if (slots[i].isBuffer != (a.kind == KernelArg::Buffer))
      return llvm::formatv("argument '{0}' of kernel {1} must be {2}", a.name, name,
                           slots[i].isBuffer ? "an array or tensor" : "a number");
    if (!slots[i].isFloat && !slots[i].isBuffer && a.kind == KernelArg::Int && slots[i].bits < 64) {
      int64_t lo = -(int64_t(1) << (slots[i].bits - 1)), hi = (int64_t(1) << slots[i].bits) - 1;
      if (slots[i].bits > 1 && (a.intValue < lo || a.intValue > hi))
        return llvm::formatv("argument '{0}' = {1} does not fit in i{2}", a.name, a.intValue,
                             slots[i].bits);
    }
  }
  for (int64_t g : grid)
    if (g < 0)
      return llvm::formatv("grid dimensions must not be negative, got ({0}, {1}, {2})", grid[0],
                           grid[1], grid[2]);
  int64_t total = grid[0] * grid[1] * grid[2];
  if (total == 0)
    return "";

  // Racecheck's granule for a buffer: the smallest block any access to it
  // covers whole (a load of 4 floats aligned to 16 bytes covers one block of
  // 16), so that accesses to neighbouring blocks never share one; the
  // element where a copy (async, or the Tensor Data Mover's rows, which
  // name no argument) may start anywhere.
  bool tensorCopies = llvm::any_of(sites, [](const FaultSite &s) { return s.kind == "tensor copy"; });
  std::vector<GlobalMemoryChecks::Buffer> buffers(args.size());
  for (auto [b, slot, a] : llvm::zip(buffers, slots, args))
    if (slot.isBuffer)
      b = {a.address, uint64_t(a.numElements) * slot.elementBytes, tensorCopies ? slot.elementBytes : 0u,
           a.initialized};
  for (const FaultSite &s : sites) {
    bool access = s.kind == "load" || s.kind == "volatile load" || s.kind == "store" || s.kind == "atomic update";
    if (s.argIndex == kAddressedMemory && access) {
      // It may reach any buffer argument: none is tracked in larger granules.
      for (GlobalMemoryChecks::Buffer &b : buffers)
        b.granule = b.granule ? std::min<unsigned>(b.granule, s.elementBytes) : unsigned(s.elementBytes);
      continue;
    }
    if (s.argIndex < 0 || !(access || s.kind == "async copy"))
      continue; // checks of alignment access nothing
    unsigned &granule = buffers[s.argIndex].granule;
    unsigned covered = unsigned(access ? s.accessBytes : s.elementBytes);
    granule = granule ? std::min(granule, covered) : covered;
  }
  for (auto [b, slot] : llvm::zip(buffers, slots))
    if (slot.isBuffer && !b.granule)
      b.granule = slot.elementBytes;
  // What the launch may write: the arguments its stores and atomics name;
  // any of them where one goes through an address, or a Tensor Data Mover
  // copy (which names no argument) may store. (GlobalMemoryChecks adds
  // whatever shares bytes with those.)
  auto writes = [](const FaultSite &s) { return s.kind == "store" || s.kind == "atomic update"; };
  bool writesAnywhere = llvm::any_of(sites, [&](const FaultSite &s) {
    return (s.argIndex == kAddressedMemory && writes(s)) || s.kind == "tensor copy";
  });
  for (auto [i, b] : llvm::enumerate(buffers))
    b.written = writesAnywhere || llvm::any_of(sites, [&, i = i](const FaultSite &s) {
                  return s.argIndex == int(i) && writes(s);
                });
  LaunchState state{*this, args, grid, {buffers, RacecheckScope::fromEnvironment()}};
  // Each runner serves one workgroup after another; its bank use is the
  // launch's once all have run.
  std::vector<std::unique_ptr<WorkgroupRunner>> runners;
  if (spins || cooperative) {
    // Workgroups may wait for each other: all of them resident, as fibers
    // on this thread that give way where they wait; a returned one's runner
    // serves the next.
    std::vector<WorkgroupRunner *> idle;
    Fibers fibers(total, [&](size_t wg) {
      if (idle.empty()) {
        runners.push_back(std::make_unique<WorkgroupRunner>(state, grid));
        runners.back()->ctx.fibers = &fibers;
        idle.push_back(runners.back().get());
      }
      WorkgroupRunner &runner = *idle.back();
      idle.pop_back();
      state.resident.push_back(&runner.ctx);
      runner.run(int64_t(wg));
      llvm::erase(state.resident, &runner.ctx);
      state.lastProgress = std::chrono::steady_clock::now();
      idle.push_back(&runner);
    });
    if (!fibers.run())
      state.fault = llvm::formatv("kernel {0}: the emulator could not map a stack for another workgroup, with {1} "
                                  "of {2} resident (all must be at once)", name, fibers.resident(), total);
  } else {
    unsigned n = std::max<unsigned>(1, std::min<int64_t>(workers, total));
    for (unsigned i = 0; i < n; ++i)
      runners.push_back(std::make_unique<WorkgroupRunner>(state, grid));
    std::atomic<int64_t> next{0};
    auto work = [&](WorkgroupRunner &runner) {
      for (int64_t wg; !state.failed && (wg = next++) < total;)
        runner.run(wg);
    };
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; ++i)
      threads.emplace_back(work, std::ref(*runners[i]));
    work(*runners[0]);
    for (std::thread &t : threads)
      t.join();
  }
  bankUse.assign(sites.size(), {});
  for (const auto &runner : runners)
    for (auto [sum, mine] : llvm::zip(bankUse, runner->ctx.bankUse))
      sum.executions += mine.executions, sum.extraCycles += mine.extraCycles;
  traffic.assign(args.size(), {});
  for (const auto &runner : runners)
    for (auto [sum, mine] : llvm::zip(traffic, runner->ctx.traffic))
      sum.read += mine.read, sum.written += mine.written, sum.atomic += mine.atomic;
  std::fflush(stdout); // device_print output, before the caller prints more
  return state.fault;
}
