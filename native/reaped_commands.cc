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
constexpr int kNameSize = 16;  // TASK_COMM_LEN

struct Table {
  std::mutex mutex;
  char names[kSlots][kNameSize] = {};
  uint64_t counts[kSlots] = {};
  int used = 0;
  uint64_t other = 0;
};

Table& table() {
  static Table* instance = new Table();  // never destroyed, see state.h
  return *instance;
}

void read_comm(pid_t pid, char (&name)[kNameSize]) {
  char path[32];
  snprintf(path, sizeof path, "/proc/%d/comm", pid);
  name[0] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t n = read(fd, name, kNameSize - 1);
  close(fd);
  if (n <= 0) return;
  name[n] = '\0';
  if (name[n - 1] == '\n') name[n - 1] = '\0';
}

}  // namespace

void count_reaped_command(pid_t zombie, bool read_name) {
  char name[kNameSize];
  if (read_name && proc_trusted.load()) read_comm(zombie, name);
  else snprintf(name, sizeof name, "(unnamed)");
  Table& t = table();
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
  memcpy(t.names[t.used], name, kNameSize);
  t.counts[t.used++] = 1;
}

void set_proc_trusted(bool trusted) { proc_trusted.store(trusted); }

std::vector<CommandCount> reaped_commands() {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  std::vector<CommandCount> out;
  for (int i = 0; i < t.used; i++) out.push_back({t.names[i], t.counts[i]});
  if (t.other > 0) out.push_back({"(other)", t.other});
  return out;
}

}  // namespace sexton
