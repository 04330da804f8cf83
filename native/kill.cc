#include "kill.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

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

// Field 4 of /proc/PID/stat, or 0.
int parent_of(const char* pid_text) {
  char path[40] = "/proc/";
  size_t at = 6;
  for (const char* c = pid_text; *c && at < sizeof path - 6; c++) path[at++] = *c;
  for (const char* c = "/stat"; *c; c++) path[at++] = *c;
  path[at] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[512];
  ssize_t n = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  char* field = strrchr(buffer, ')');  // the command name may hold spaces and ')'
  if (field == nullptr || field[1] == '\0' || field[2] == '\0' || field[3] != ' ') return 0;
  int ppid = 0;
  for (char* c = field + 4; *c >= '0' && *c <= '9'; c++) ppid = ppid * 10 + (*c - '0');
  return ppid;
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
        if (pid <= 0 || contains(tree, count, pid) || !contains(tree, count, parent_of(entry->name))) continue;
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
