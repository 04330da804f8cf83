// State shared by the JS thread, the reaper thread and signal handlers.
// It lives on the heap and is never destroyed: a static object shared with the reaper thread
// deadlocked process.exit() (docs/architecture.md), and sexton leaves through _exit anyway.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sexton {

constexpr int kMaxSignal = 65;  // signals are 1..64 on Linux; index 0 unused

struct Counters {
  std::atomic<uint64_t> reaped{0};
  std::atomic<uint64_t> orphans_reaped{0};
  std::atomic<uint64_t> received[kMaxSignal];
  std::atomic<uint64_t> forwarded[kMaxSignal];  // indexed by the signal actually delivered
  std::atomic<uint64_t> dropped[kMaxSignal];
};

struct MainChild {
  // Guarded by the reaper mutex: "register pid" (spawn) and "reap and mark dead" (reaper)
  // never interleave, so a fast-exiting child is never reaped before it is known.
  std::mutex mutex;
  std::condition_variable spawned;  // wakes the reaper when it had no children
  uint64_t spawn_count = 0;
  pid_t pid = 0;
  // Read by signal handlers without the mutex: where forwarded signals go, 0 before the main
  // child exists and after it was reaped.
  std::atomic<pid_t> target_pid{0};
  std::atomic<int> pidfd{-1};
};

Counters& counters();
MainChild& main_child();

}  // namespace sexton
