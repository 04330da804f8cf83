// The main child: the one process whose signals sexton forwards and whose exit is sexton's own.
// Three parties touch it, on three kinds of thread, and these rules keep them apart:
//  - spawn (JS thread) registers it and the reaper (its own thread) reaps it, both through a
//    MainChild::Lock, which holds the mutex: a child that exits at once is never reaped before
//    it is known to be the main one. Its pid and spawn count are readable only through a Lock.
//  - signal handlers (any thread) never take the mutex, since they may interrupt its holder:
//    they read target() and pidfd(), atomics set before the child can run and cleared
//    (the target only) once it is reaped, when its pid may already belong to another process.
//  - the pidfd is never closed: a handler on another thread may be about to use it, and a
//    closed number could by then name another file. One descriptor for sexton's lifetime.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sexton {

class MainChild {
 public:
  // The mutex, held for the Lock's lifetime; what spawn and the reaper do, they do through it.
  class Lock {
   public:
    explicit Lock(MainChild& child) : child_(child), held_(child.mutex_) {}
    // 0 before the spawn and once reaped.
    pid_t pid() const { return child_.pid_; }
    uint64_t spawns() const { return child_.spawn_count_; }
    // The spawn made `pid` the main child: handlers forward to it from now on.
    void registered(pid_t pid);
    // The reaper reaped it: forwarding ends, its pid and group may be reused from now on.
    void reaped();
    // Sleeps, the mutex let go meanwhile, until a spawn after the `seen`th.
    void wait_for_spawn_after(uint64_t seen);

   private:
    MainChild& child_;
    std::unique_lock<std::mutex> held_;
  };

  // For handlers, without the lock: where forwarded signals go (0 = nowhere), and its pidfd.
  pid_t target() const { return target_pid_.load(); }
  int pidfd() const { return pidfd_.load(); }
  // The last main child's pid, never cleared: the number of its process group when it leads
  // one, which outlives it while any member lives (the kernel reuses no pid a group holds).
  pid_t last_spawned() const { return spawned_pid_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable spawned_;  // wakes the reaper, which sleeps while it has no child
  uint64_t spawn_count_ = 0;         // under mutex_
  pid_t pid_ = 0;                    // under mutex_
  std::atomic<pid_t> target_pid_{0};
  std::atomic<int> pidfd_{-1};
  std::atomic<pid_t> spawned_pid_{0};
};

// On the heap, never destroyed (see state.h).
MainChild& main_child();

}  // namespace sexton
