#include "reaped_commands.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace sexton {
namespace {

// False when /proc is not this PID namespace's: a pid there names some other process.
std::atomic<bool> proc_trusted{true};

// A fixed table, so that counting never allocates on the reaper thread; names beyond it are
// counted as "(other)".
constexpr int kSlots = 64;

struct Table {
  std::mutex mutex;
  char names[kSlots][kCommandSize] = {};
  uint64_t counts[kSlots] = {};
  int used = 0;
  uint64_t other = 0;
  std::atomic<uint64_t> unnamed{0};
};

Table& table() {
  static Table* instance = new Table();  // never destroyed, see state.h
  return *instance;
}

// /proc, opened once (tried again while it fails, e.g. at RLIMIT_NOFILE): each name is then
// one openat relative to it.
int proc_dir() {
  static int fd = -1;  // only the reaper thread calls this
  if (fd < 0) fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  return fd;
}

}  // namespace

bool read_command(pid_t zombie, char (&name)[kCommandSize]) {
  name[0] = '\0';
  int proc = proc_trusted.load() ? proc_dir() : -1;
  if (proc < 0) return false;
  char path[24];
  snprintf(path, sizeof path, "%d/comm", zombie);
  int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ssize_t n = read(fd, name, kCommandSize - 1);
  close(fd);
  if (n <= 0) {
    name[0] = '\0';
    return false;
  }
  name[n] = '\0';
  if (name[n - 1] == '\n') name[n - 1] = '\0';
  return true;
}

void count_reaped_orphan(const char* name) {
  Table& t = table();
  if (name == nullptr) {
    t.unnamed.fetch_add(1);
    return;
  }
  std::lock_guard<std::mutex> lock(t.mutex);
  for (int i = 0; i < t.used; i++) {
    if (strcmp(t.names[i], name) == 0) {
      t.counts[i]++;
      return;
    }
  }
  if (t.used == kSlots) {
    t.other++;
    return;
  }
  snprintf(t.names[t.used], kCommandSize, "%s", name);
  t.counts[t.used++] = 1;
}

std::vector<CommandCount> reaped_commands() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::vector<CommandCount> out;
  for (int i = 0; i < t.used; i++) out.push_back({t.names[i], t.counts[i]});
  if (t.other > 0) out.push_back({"(other)", t.other});
  return out;
}

void set_proc_trusted(bool trusted) { proc_trusted.store(trusted); }

uint64_t unnamed_orphans() {
  return table().unnamed.load();
}

}  // namespace sexton
