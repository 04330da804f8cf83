// Ending a process tree from below: the walk the stop deadline (kill.cc) and `sexton probe`
// (tools/probe.cc) share. Async-signal-safe: system calls and the stack, no allocation.
#include "end_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sexton {

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

}  // namespace

// Passes over /proc until no new descendant turns up: each kills the children of those found so
// far (a killed parent's children come to us, a subreaper, and are found by the next pass).
// By pid, not pidfd: the window between reading a parent and the kill is a few microseconds.
bool signal_descendants(int signal) {
  int tree[kMaxTree];
  int count = 0;
  tree[count++] = getpid();
  for (int pass = 0; pass < 16; pass++) {
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return false;
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
    if (!found) return true;
  }
  return true;
}

}  // namespace sexton
