#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

namespace sexton {

bool become_subreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

bool is_subreaper() {
  int flag = 0;
  return prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0) == 0 && flag != 0;
}

bool set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0) == 0; }

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

int exec_self(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, vars;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) vars.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  vars.push_back(nullptr);
  // Node marked stdio close-on-exec at startup; the next sexton needs it as much as this one.
  for (int fd = 0; fd <= 2; fd++) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  execve(args[0], args.data(), vars.data());
  return errno;
}

// _exit, not exit: static destructors racing the reaper thread deadlocked process.exit().
void exit_now(int code) { _exit(code); }

}  // namespace sexton
