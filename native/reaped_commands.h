#pragma once
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace sexton {

constexpr int kCommandSize = 16;  // TASK_COMM_LEN

// Reads a zombie's command name (the kernel's comm) from /proc: only possible before it is
// reaped. False, with an empty name, when it cannot: /proc is not trusted (set_proc_trusted),
// or the read failed. Reaper thread only.
bool read_command(pid_t zombie, char (&name)[kCommandSize]);

// Names are read only while /proc shows sexton's own PID namespace: in another's, a pid names
// some other process.
void set_proc_trusted(bool trusted);

// Counts a reaped orphan under its name, or as unnamed when name is null.
void count_reaped_orphan(const char* name);

struct CommandCount {
  std::string command;
  uint64_t count;
};

// Named orphans by command; past the table's size, further names count as "(other)".
std::vector<CommandCount> reaped_commands();

// Orphans reaped without a name: a storm outran naming, or /proc could not tell.
uint64_t unnamed_orphans();

}  // namespace sexton
