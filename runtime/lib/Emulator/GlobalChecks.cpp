#include "rocktile/Emulator/GlobalChecks.h"
#include "llvm/ADT/STLExtras.h"
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>

using namespace rocktile::emulator;

RacecheckScope RacecheckScope::fromEnvironment() {
  const char *env = std::getenv("ROCKTILE_EMULATOR_RACECHECK");
  if (!env || !std::strcmp(env, "1"))
    return {};
  if (!std::strcmp(env, "workgroup"))
    return {true, false};
  return {false, false};
}

namespace {
// Granule::recent, from the high bits down: workgroup tag (24 bits, 0 for
// none), barrier epoch (20), writer wave (6), whether that write was an
// atomic (1), whether that wave had read the granule before it wrote (1).
// A tag or epoch that wraps can only hide a race, never invent one.
constexpr unsigned kNoWave = 63;
uint64_t workgroupTag(int64_t workgroup) { return uint64_t(workgroup) % 0xFFFFFF + 1; }
struct Recent {
  uint64_t tag, epoch;
  unsigned writer;
  bool atomicWrite, writerRead;
  static Recent unpack(uint64_t w) {
    return {w >> 40, (w >> 20) & 0xFFFFF, unsigned(w >> 14) & 63, bool((w >> 13) & 1), bool((w >> 12) & 1)};
  }
  uint64_t pack() const {
    return tag << 40 | (epoch & 0xFFFFF) << 20 | uint64_t(writer) << 14 | uint64_t(atomicWrite) << 13 |
           uint64_t(writerRead) << 12;
  }
};
} // namespace

namespace {
/// Shadows outlive their launch, so that the next launch on the same memory
/// finds their pages mapped (a fresh mapping's page faults cost more than
/// the checks), at most kKeptShadows of them, the least recently used
/// dropped first. A launch's granules carry its generation: any other
/// generation reads as untouched.
struct ShadowMapping {
  uint64_t address, bytes;
  unsigned granule;
  void *pages;
  size_t mapped;
  uint64_t lastUse;
  bool inUse;
};
constexpr size_t kKeptShadows = 16;
std::mutex poolMutex;
std::vector<ShadowMapping> pool;
uint64_t useClock = 0;
uint32_t generations = 0;

void *takeShadow(uint64_t address, uint64_t bytes, unsigned granule, size_t mapped) {
  std::lock_guard<std::mutex> lock(poolMutex);
  for (ShadowMapping &m : pool)
    if (!m.inUse && m.address == address && m.bytes == bytes && m.granule == granule) {
      m.inUse = true, m.lastUse = ++useClock;
      return m.pages;
    }
  void *p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return nullptr;
  pool.push_back({address, bytes, granule, p, mapped, ++useClock, true});
  return p;
}

void giveBackShadow(void *pages) {
  std::lock_guard<std::mutex> lock(poolMutex);
  llvm::find_if(pool, [&](const ShadowMapping &m) { return m.pages == pages; })->inUse = false;
  while (pool.size() > kKeptShadows) {
    auto idle = [](const ShadowMapping &m) { return !m.inUse; };
    auto oldest = pool.end();
    for (auto it = pool.begin(); it != pool.end(); ++it)
      if (idle(*it) && (oldest == pool.end() || it->lastUse < oldest->lastUse))
        oldest = it;
    if (oldest == pool.end())
      return;
    munmap(oldest->pages, oldest->mapped);
    pool.erase(oldest);
  }
}
} // namespace

GlobalMemoryChecks::GlobalMemoryChecks(const std::vector<Buffer> &buffers, RacecheckScope scope) : scope(scope) {
  {
    std::lock_guard<std::mutex> lock(poolMutex);
    generation = ++generations;
  }
  for (Buffer b : buffers) {
    initialized.push_back(b.initialized);
    shadowOf.push_back(-1);
    // Arguments that name the same memory share its shadow, in the smaller
    // granule of theirs (each with its own would miss the other's
    // accesses); one the launch cannot write needs none unless it shares
    // bytes with one it may.
    for (const Buffer &other : buffers) {
      if (other.bytes && other.address == b.address && other.bytes == b.bytes)
        b.granule = std::min(b.granule, other.granule);
      b.written |= other.written && other.address < b.address + b.bytes && b.address < other.address + other.bytes;
    }
    if (!b.bytes || !b.written || !(scope.withinWorkgroups || scope.acrossWorkgroups))
      continue;
    for (size_t i = 0; i < shadows.size() && shadowOf.back() < 0; ++i)
      if (shadows[i].address == b.address && shadows[i].bytes == b.bytes)
        shadowOf.back() = int(i);
    if (shadowOf.back() >= 0)
      continue;
    // Pages the kernel never touches are never backed.
    size_t mapped = (b.bytes + b.granule - 1) / b.granule * sizeof(Granule);
    void *pages = takeShadow(b.address, b.bytes, b.granule, mapped);
    if (!pages)
      continue; // too large to shadow: that argument goes unchecked
    shadowOf.back() = int(shadows.size());
    shadows.push_back({b.address, b.bytes, b.granule, static_cast<Granule *>(pages)});
  }
}

GlobalMemoryChecks::~GlobalMemoryChecks() {
  for (const Shadow &s : shadows)
    giveBackShadow(s.granules);
}

GlobalConflict GlobalMemoryChecks::access(const GlobalAccessor &who, int arg, int64_t byte, int64_t bytes, Kind kind,
                                          int32_t site, bool flagRead) {
  if (uint8_t *flags = initialized[arg]) {
    if (kind != Kind::Write)
      for (int64_t b = byte; b < byte + bytes; ++b)
        if (!__atomic_load_n(flags + b, __ATOMIC_RELAXED))
          return {GlobalConflict::Uninitialized, b};
    if (kind != Kind::Read)
      for (int64_t b = byte; b < byte + bytes; ++b)
        __atomic_store_n(flags + b, 1, __ATOMIC_RELAXED);
  }
  if (shadowOf[arg] < 0)
    return {};
  const Shadow &s = shadows[shadowOf[arg]];
  for (int64_t g = byte / s.granule, last = (byte + bytes - 1) / s.granule; g <= last; ++g)
    if (GlobalConflict c = checkRace(who, s.granules[g], kind, site, flagRead); c.kind != GlobalConflict::None) {
      c.byte = g * s.granule;
      return c;
    }
  return {};
}

GlobalConflict GlobalMemoryChecks::checkRace(const GlobalAccessor &who, Granule &g, Kind kind, int32_t site,
                                             bool flagRead) {
  GlobalConflict conflict;
  if (g.generation != generation)
    g = {0, 0, 0, -1, -1, -1, -1, generation};
  if (scope.withinWorkgroups) {
    // Waves of one workgroup between two of its barriers: an access
    // conflicts with another wave's write (unless both are atomics), and a
    // write with another wave's read. Except for an update in place (`x =
    // tl.load(p); tl.store(p, f(x))`), where every wave holding a copy of
    // an element reads it and one wave writes it: a write by a wave that
    // read the bytes itself, and other waves' reads of them by the
    // instruction it read them with, are copies of one read.
    Recent r = Recent::unpack(__atomic_load_n(&g.recent, __ATOMIC_RELAXED));
    auto wave = unsigned(who.wave);
    uint32_t self = uint32_t(1) << wave;
    if (r.tag != workgroupTag(who.workgroup) || r.epoch != (who.epoch & 0xFFFFF)) {
      r = {workgroupTag(who.workgroup), who.epoch & 0xFFFFF, kNoWave, false, false};
      g.readers = 0;
    }
    bool copyOfWritersRead = kind == Kind::Read && r.writerRead && site == g.writerReadSite;
    if (r.writer != kNoWave && r.writer != wave && !(kind == Kind::Atomic && r.atomicWrite) && !copyOfWritersRead)
      return {GlobalConflict::WithinWorkgroup, 0, g.writeSite, who.workgroup, int32_t(r.writer), true};
    uint32_t others = g.readers & ~self;
    if (kind != Kind::Read && others && !(g.readers & self))
      return {GlobalConflict::WithinWorkgroup, 0, g.readSite, who.workgroup, __builtin_ctz(others), false};
    if (kind == Kind::Read) {
      g.readers |= self;
      g.readSite = site;
    } else {
      r.writerRead = g.readers & self;
      r.writer = wave, r.atomicWrite = kind == Kind::Atomic;
      g.writeSite = site, g.writerReadSite = g.readSite;
    }
    __atomic_store_n(&g.recent, r.pack(), __ATOMIC_RELAXED);
  }
  if (scope.acrossWorkgroups && kind != Kind::Atomic && !flagRead) {
    // A workgroup's plain write, then another's plain write or read of the
    // bytes, unless a release after the write and an acquire before the
    // second access order them (as a lock or a hand-off through a flag
    // does): on the GPU the second may not see the first.
    int32_t otherSite = g.plainWriteSite;
    uint64_t earlier;
    if (kind == Kind::Write) {
      uint64_t mine = uint64_t(who.workgroup + 1) << 32 | releases.load(std::memory_order_relaxed);
      earlier = __atomic_exchange_n(&g.plainWrite, mine, __ATOMIC_RELAXED);
      g.plainWriteSite = site;
    } else {
      earlier = __atomic_load_n(&g.plainWrite, __ATOMIC_RELAXED);
    }
    auto earlierWorkgroup = int64_t(earlier >> 32) - 1;
    if (earlierWorkgroup >= 0 && earlierWorkgroup != who.workgroup && who.acquired <= uint32_t(earlier))
      conflict = {GlobalConflict::AcrossWorkgroups, 0, otherSite, earlierWorkgroup, -1, true};
  }
  return conflict;
}
