#include "kill.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "end_tree.h"
#include "main_child.h"

namespace sexton {

int signal_every_process(int signal) {
  if (getpid() != 1) return EPERM;
  return kill(-1, signal) == 0 ? 0 : errno;
}

namespace {

// Field 22 of /proc/PID/stat; the command name (field 2) may contain spaces and ')'.
unsigned long long read_start_time(int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[1024];
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  char* field = strrchr(buffer, ')');
  if (field == nullptr) return 0;
  for (int i = 2; i < 22 && field != nullptr; i++) field = strchr(field + 1, ' ');
  return field == nullptr ? 0 : strtoull(field + 1, nullptr, 10);
}

}  // namespace

int signal_process(int pid, int signal, unsigned long long start_time) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return errno;
  // The pidfd pins whoever holds pid now: it is the scanned process only if it started then.
  int result = ESRCH;
  if (read_start_time(pid) == start_time) {
    result = syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0) == 0 ? 0 : errno;
  }
  close(pidfd);
  return result;
}

void signal_main_child_tree_now(int signal, bool child_group, bool walk_proc) {
  MainChild& child = main_child();
  int pidfd = child.pidfd.load();
  if (pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
  pid_t group = child.spawned_pid.load();
  if (child_group && group > 0) kill(-group, signal);
  if (walk_proc) signal_descendants(signal);
}

}  // namespace sexton
