#include "rocktile/Emulator/Fibers.h"
#include <cstdint>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

using namespace rocktile::emulator;

namespace {
/// A workgroup's host code keeps its per-thread values on the heap; its
/// stack holds the frames of one thread's segment and the runtime's calls.
/// Mapped without reserving memory, it costs what is touched.
constexpr size_t kStackBytes = size_t(8) << 20;
} // namespace

struct Fibers::Fiber {
  ucontext_t context;
  void *stack;

  Fiber() {
    stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (stack == MAP_FAILED)
      stack = nullptr;
    else // a guard page below: an overflow faults instead of writing over memory
      mprotect(stack, size_t(sysconf(_SC_PAGESIZE)), PROT_NONE);
  }
  ~Fiber() {
    if (stack)
      munmap(stack, kStackBytes);
  }
};

struct Fibers::Scheduler {
  ucontext_t context;
};

/// The task a fiber being made starts (makecontext passes only ints: the
/// Fibers object's address goes in two halves).
static thread_local size_t startingTask;

Fibers::Fibers(size_t count, std::function<void(size_t)> task)
    : count(count), task(std::move(task)), fibers(count), scheduler(new Scheduler) {}

Fibers::~Fibers() = default;

void Fibers::entry(unsigned high, unsigned low) {
  auto *self = reinterpret_cast<Fibers *>((uintptr_t(high) << 32) | uintptr_t(low));
  size_t i = startingTask;
  self->task(i);
  // Back to run() through uc_link, which frees nothing: the stack is
  // handed to the next task from there.
  self->spare.push_back(std::move(self->fibers[i]));
  ++self->finished;
}

void Fibers::switchTo(size_t next) {
  running = next;
  swapcontext(&scheduler->context, &fibers[next]->context);
}

bool Fibers::run() {
  while (!stopped) {
    if (!allStarted()) {
      size_t i = started++;
      if (spare.empty()) {
        fibers[i] = std::make_unique<Fiber>();
        if (!fibers[i]->stack)
          return false;
      } else {
        fibers[i] = std::move(spare.back());
        spare.pop_back();
      }
      Fiber &f = *fibers[i];
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack;
      f.context.uc_stack.ss_size = kStackBytes;
      f.context.uc_link = &scheduler->context;
      auto self = uintptr_t(this);
      makecontext(&f.context, reinterpret_cast<void (*)()>(&Fibers::entry), 2, unsigned(self >> 32),
                  unsigned(self & 0xffffffffu));
      startingTask = i;
      switchTo(i);
      continue;
    }
    if (ready.empty())
      return true; // every task returned
    size_t next = ready.front();
    ready.pop_front();
    switchTo(next);
  }
  return true;
}

void Fibers::yield() {
  ready.push_back(running);
  swapcontext(&fibers[running]->context, &scheduler->context);
}
