// Ending a process tree from below: the walk the stop deadline (kill.cc) and `sexton probe`
// (tools/probe.cc) share. Async-signal-safe: system calls and the stack, no allocation.
#include "end_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proc_stat.h"

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
        if (pid <= 0 || contains(tree, count, pid)) continue;
        if (!contains(tree, count, static_cast<int>(stat_field(pid, kStatParent)))) continue;
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
