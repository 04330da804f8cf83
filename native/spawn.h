#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace sexton {

struct SpawnRequest {
  std::vector<std::string> argv;        // bytes, as sexton received them
  std::vector<std::string> candidates;  // full paths to try with execve, in PATH order
  std::string oom_score_adj;            // written to the child's oom_score_adj; empty: inherit
  enum Session { kOwnGroup, kNewSession, kSameGroup } session = kOwnGroup;  // see spawn.cc
};

struct SpawnResult {
  pid_t pid = -1;
  int exec_errno = 0;  // non-zero when the child could not exec (it exits 127 and is reaped)
  int fork_errno = 0;
};

// Forks and execs the main child and registers it with the reaper before anyone can reap it.
SpawnResult spawn(const SpawnRequest& request);

}  // namespace sexton
