#include "main_child.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace sexton {

MainChild& main_child() {
  static MainChild* instance = new MainChild();
  return *instance;
}

void register_main_child(pid_t pid) {
  MainChild& child = main_child();
  child.pid = pid;
  child.pidfd.store(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  child.target_pid.store(pid);
  child.spawned_pid.store(pid);
  child.spawn_count++;
  child.spawned.notify_all();
}

void forget_main_child() {
  MainChild& child = main_child();
  child.pid = 0;
  // Forwarding ends with the main child: its pid and process group may be reused from now on.
  child.target_pid.store(0);
}

}  // namespace sexton
