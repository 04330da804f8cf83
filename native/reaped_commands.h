#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sexton {

// Orphans reaped, counted by command name (the kernel's comm, read from /proc just before
// the zombie is reaped: after that the name is gone). Without read_name it counts as unnamed.
void count_reaped_command(pid_t zombie, bool read_name);

// Names are read only while /proc shows sexton's own PID namespace.
void set_proc_trusted(bool trusted);

struct CommandCount {
  std::string command;
  uint64_t count;
};

std::vector<CommandCount> reaped_commands();

}  // namespace sexton
