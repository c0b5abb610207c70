// Racecheck and initcheck for global memory: what each launch's accesses to
// its buffer arguments did, kept in shadow memory beside them.
#ifndef ROCKTILE_EMULATOR_GLOBALCHECKS_H
#define ROCKTILE_EMULATOR_GLOBALCHECKS_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocktile::emulator {

/// Which racechecks run (ROCKTILE_EMULATOR_RACECHECK: unset or "1" both,
/// "workgroup" only within workgroups, "0" none).
struct RacecheckScope {
  bool withinWorkgroups = true, acrossWorkgroups = true;
  static RacecheckScope fromEnvironment();
};

/// Who accesses global memory: a wave of a workgroup, between two of its
/// barriers (`epoch`), having last acquired at release `acquired`.
struct GlobalAccessor {
  int64_t workgroup; // linear index in the grid
  uint32_t epoch;
  int32_t wave;
  uint32_t acquired;
};

/// What an access conflicts with, when it does.
struct GlobalConflict {
  enum Kind { None, WithinWorkgroup, AcrossWorkgroups, Uninitialized } kind = None;
  int64_t byte = 0;            // from the argument's address
  int32_t otherSite = -1;      // the earlier access's site
  int64_t otherWorkgroup = -1; // linear index
  int32_t otherWave = -1;      // -1: several waves
  bool otherWrote = false;
};

class GlobalMemoryChecks {
public:
  /// A kernel argument as the checks see it: its bytes (none for a
  /// scalar), in granules of the smallest element any access to it uses;
  /// with `initialized` (a flag per byte, set where the host or a kernel
  /// wrote it), initcheck covers it.
  /// `written`: whether the launch's own accesses to it may write it. One
  /// that is not, sharing no byte with one that is, races with nothing:
  /// racecheck keeps no shadow of it (softmax's input was half the
  /// shadow's memory traffic).
  struct Buffer {
    uint64_t address = 0, bytes = 0;
    unsigned granule = 1;
    uint8_t *initialized = nullptr;
    bool written = true;
  };
  GlobalMemoryChecks(const std::vector<Buffer> &buffers, RacecheckScope scope);
  ~GlobalMemoryChecks();
  GlobalMemoryChecks(const GlobalMemoryChecks &) = delete;
  GlobalMemoryChecks &operator=(const GlobalMemoryChecks &) = delete;

  enum class Kind { Read, Write, Atomic };
  /// Records an access to bytes [byte, byte + bytes) of argument `arg` at
  /// `site`; the first conflict it finds, if any. A `flagRead` (a volatile
  /// load) reads what other workgroups write without ordering: it races
  /// with no write of theirs.
  GlobalConflict access(const GlobalAccessor &who, int arg, int64_t byte, int64_t bytes, Kind kind,
                        int32_t site, bool flagRead = false);
  /// Whether accesses to argument `arg` are checked at all (racecheck or
  /// initcheck): where not, callers only count them.
  bool checks(int arg) const { return initialized[arg] || shadowOf[arg] >= 0; }
  /// A release fence at device or system scope: writes before it are
  /// ordered before what an acquire after it sees.
  void release() { releases.fetch_add(1, std::memory_order_acq_rel); }
  /// An acquire fence: the value to keep as GlobalAccessor::acquired.
  uint32_t acquire() const { return releases.load(std::memory_order_acquire); }

private:
  /// One granule of an argument: what the waves of the workgroup that
  /// touched it last did since their last barrier (see Recent in the .cpp;
  /// `readers` has a bit per wave that read it), which workgroup last wrote
  /// it without an atomic (1 + index, and the release count then), and the
  /// sites.
  struct Granule {
    uint64_t recent, plainWrite;
    uint32_t readers;
    int32_t writeSite, readSite, writerReadSite, plainWriteSite;
    uint32_t generation; // of the launch that touched it last
  };
  struct Shadow {
    uint64_t address, bytes;
    unsigned granule;
    Granule *granules;
  };
  GlobalConflict checkRace(const GlobalAccessor &who, Granule &g, Kind kind, int32_t site, bool flagRead);

  RacecheckScope scope;
  std::vector<Shadow> shadows;
  std::vector<int> shadowOf; // per argument, -1 for none
  std::vector<uint8_t *> initialized;
  std::atomic<uint32_t> releases{1};
  uint32_t generation;
};

} // namespace rocktile::emulator

#endif
