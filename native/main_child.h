// The main child: the one process whose signals sexton forwards and whose exit is sexton's own.
// Three parties touch it, on three kinds of thread, and these rules keep them apart:
//  - spawn (JS thread) registers it and the reaper (its own thread) reaps it, both holding
//    `mutex`: a child that exits at once is never reaped before it is known to be the main one.
//  - signal handlers (any thread) never take the mutex, since they may interrupt its holder:
//    they read `target_pid` and `pidfd`, atomics set before the child can run and cleared
//    (target_pid only) once it is reaped, when its pid may already belong to another process.
//  - the pidfd is never closed: a handler on another thread may be about to use it, and a
//    closed number could by then name another file. One descriptor for sexton's lifetime.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sexton {

struct MainChild {
  std::mutex mutex;
  std::condition_variable spawned;  // wakes the reaper, which sleeps while it has no child
  uint64_t spawn_count = 0;         // under mutex
  pid_t pid = 0;                    // under mutex; 0 before the spawn and once reaped
  std::atomic<pid_t> target_pid{0};  // for handlers: where forwarded signals go, 0 = nowhere
  std::atomic<int> pidfd{-1};        // for handlers: signals the child without racing pid reuse
  // The last main child's pid, never cleared: the number of its process group when it leads one,
  // which outlives it while any member lives (the kernel reuses no pid a group still holds).
  std::atomic<pid_t> spawned_pid{0};
};

// On the heap, never destroyed (see state.h).
MainChild& main_child();

// Both with main_child().mutex held.
void register_main_child(pid_t pid);
void forget_main_child();

}  // namespace sexton
