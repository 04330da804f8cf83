#include "main_child.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace sexton {

MainChild& main_child() {
  static MainChild* instance = new MainChild();
  return *instance;
}

void MainChild::Lock::registered(pid_t pid) {
  child_.pid_ = pid;
  child_.pidfd_.store(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  child_.target_pid_.store(pid);
  child_.spawned_pid_.store(pid);
  child_.spawn_count_++;
  child_.spawned_.notify_all();
}

void MainChild::Lock::reaped() {
  child_.pid_ = 0;
  child_.target_pid_.store(0);
}

void MainChild::Lock::wait_for_spawn_after(uint64_t seen) {
  child_.spawned_.wait(held_, [&] { return child_.spawn_count_ != seen; });
}

}  // namespace sexton
