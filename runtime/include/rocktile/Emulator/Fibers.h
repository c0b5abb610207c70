// Workgroups that wait for each other: the emulator runs such a launch's
// workgroups as fibers on one host thread, each on a stack of its own, and
// switches between them where one may wait (rocktile_emu_spin), so that all
// of them are resident however many cores the host has.
#ifndef ROCKTILE_EMULATOR_FIBERS_H
#define ROCKTILE_EMULATOR_FIBERS_H

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

namespace rocktile::emulator {

class Fibers {
public:
  /// `task(i)` for i in [0, count), each on a fiber of its own, started in
  /// order as the running ones give way.
  Fibers(size_t count, std::function<void(size_t)> task);
  ~Fibers();

  /// Runs until every task has returned or stop() was called (tasks not
  /// finished then are abandoned, never resumed). False when a stack could
  /// not be mapped.
  bool run();
  /// From inside a task: lets the next fiber run (a task not started yet,
  /// while there is one, else the next resident one, round-robin).
  void yield();
  /// From inside a task: ends run() at this task's next yield.
  void stop() { stopped = true; }

  /// Whether every task has started.
  bool allStarted() const { return started == count; }
  /// How many tasks are resident (started, not returned).
  size_t resident() const { return started - finished; }

private:
  struct Fiber;
  static void entry(unsigned high, unsigned low);
  void switchTo(size_t next);

  size_t count, started = 0, finished = 0, running = 0;
  bool stopped = false;
  std::function<void(size_t)> task;
  std::vector<std::unique_ptr<Fiber>> fibers;   // by task, null until started or once returned
  std::vector<std::unique_ptr<Fiber>> spare;    // stacks of returned tasks, for the next ones
  std::deque<size_t> ready;                     // tasks that gave way, in order
  struct Scheduler;
  std::unique_ptr<Scheduler> scheduler; // run()'s context, which each yield returns to
};

} // namespace rocktile::emulator

#endif
