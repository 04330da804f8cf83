// State shared by the JS thread, the reaper thread and signal handlers.
// It lives on the heap and is never destroyed: a static object shared with the reaper thread
// deadlocked process.exit() (docs/architecture.md), and sexton leaves through _exit anyway.
#pragma once
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "main_child.h"  // the other shared state, with its own rules

namespace sexton {

constexpr int kMaxSignal = 65;  // signals are 1..64 on Linux; index 0 unused

struct Counters {
  std::atomic<uint64_t> reaped{0};
  std::atomic<uint64_t> orphans_reaped{0};
  std::atomic<uint64_t> received[kMaxSignal];
  std::atomic<uint64_t> forwarded[kMaxSignal];  // indexed by the signal actually delivered
  std::atomic<uint64_t> dropped[kMaxSignal];
};

Counters& counters();

}  // namespace sexton
