#include "kill.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "main_child.h"

namespace sexton {

int signal_every_process(int signal) {
  if (getpid() != 1) return EPERM;
  return kill(-1, signal) == 0 ? 0 : errno;
}

namespace {

// Field `n` (1-based, 3 or more) of /proc/PID/stat as a number, or 0. The one reader of stat
// here, and safe in a signal handler (the deadline's): the stack and system calls only. The
// command name (field 2) may hold spaces and ')': fields are counted from the last ')'.
unsigned long long stat_field(int pid, int n) {
  char path[32] = "/proc/";
  size_t at = 6;
  char digits[12];
  int length = 0;
  for (int rest = pid; rest > 0 && length < 11; rest /= 10) {
    digits[length++] = static_cast<char>('0' + rest % 10);
  }
  while (length > 0) path[at++] = digits[--length];
  for (const char* c = "/stat"; *c; c++) path[at++] = *c;
  path[at] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[1024];
  ssize_t got = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (got <= 0) return 0;
  buffer[got] = '\0';
  const char* field = strrchr(buffer, ')');
  for (int i = 2; i < n && field != nullptr; i++) field = strchr(field + 1, ' ');
  if (field == nullptr) return 0;
  unsigned long long value = 0;
  for (const char* c = field + 1; *c >= '0' && *c <= '9'; c++) value = value * 10 + static_cast<unsigned>(*c - '0');
  return value;
}

constexpr int kStatParent = 4;
constexpr int kStatStartTime = 22;

}  // namespace

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

namespace {

// What a handler may use: system calls and the stack. No malloc, no stdio, no std::string.
constexpr int kMaxTree = 1024;

int parse_pid(const char* text) {
  int value = 0;
  for (; *text; text++) {
    if (*text < '0' || *text > '9' || value > 99999999) return 0;
    value = value * 10 + (*text - '0');
  }
  return value;
}

bool contains(const int* pids, int count, int pid) {
  for (int i = 0; i < count; i++) if (pids[i] == pid) return true;
  return false;
}

struct Dirent64 {
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[];
};

// Passes over /proc until no new descendant turns up: each kills the children of those found so
// far (a killed parent's children come to sexton, a subreaper, and are found by the next pass).
// By pid, not pidfd: the window between reading a parent and the kill is a few microseconds.
void signal_descendants_now(int signal) {
  int tree[kMaxTree];
  int count = 0;
  tree[count++] = getpid();
  for (int pass = 0; pass < 16; pass++) {
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return;
    bool found = false;
    alignas(8) char entries[4096];
    long n;
    while ((n = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
      for (long at = 0; at < n;) {
        const Dirent64* entry = reinterpret_cast<const Dirent64*>(entries + at);
        at += entry->length;
        int pid = parse_pid(entry->name);
        if (pid <= 0 || contains(tree, count, pid) || !contains(tree, count, static_cast<int>(stat_field(pid, kStatParent)))) continue;
        kill(pid, signal);
        if (count < kMaxTree) tree[count++] = pid;
        found = true;
      }
    }
    close(dir);
    if (!found) return;
  }
}

}  // namespace

void signal_main_child_tree_now(int signal, bool child_group, bool walk_proc) {
  MainChild& child = main_child();
  int pidfd = child.pidfd();
  if (pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, signal, nullptr, 0);
  pid_t group = child.last_spawned();
  if (child_group && group > 0) kill(-group, signal);
  if (walk_proc) signal_descendants_now(signal);
}

}  // namespace sexton
