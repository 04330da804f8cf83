#include "kill.h"

#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "end_tree.h"
#include "main_child.h"
#include "proc_stat.h"

namespace sexton {

int signal_every_process(int signal) {
  if (getpid() != 1) return EPERM;
  return kill(-1, signal) == 0 ? 0 : errno;
}

int signal_process(int pid, int signal, unsigned long long start_time) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno;
  // The pidfd pins whoever holds pid now: it is the scanned process only if it started then.
  int result = ESRCH;
  if (stat_field(pid, kStatStartTime) == start_time) {
    result = syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0 ? 0 : errno;
  }
  close(pidfd);
  return result;
}

void signal_main_child_tree_now(int signal, bool child_group, bool walk_proc) {
  MainChild& child = main_child();
  int pidfd = child.pidfd();
  if (pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
  pid_t group = child.last_spawned();
  if (child_group && group > 0) kill(-group, signal);
  if (walk_proc) signal_descendants(signal);
}

}  // namespace sexton
