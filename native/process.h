#pragma once
#include <string>
#include <vector>

namespace sexton {

// PR_SET_CHILD_SUBREAPER: orphans of our descendants come to us instead of the host's init.
bool become_subreaper();
bool is_subreaper();

// PR_SET_PDEATHSIG: the signal sexton gets when its own parent dies.
bool set_parent_death_signal(int signal);

// Every process of sexton's PID namespace but sexton. Refuses unless sexton is PID 1:
// anywhere else kill(-1) would hit the whole machine.
int signal_every_process(int signal);

// Signals one process found by a /proc scan, only if pid still names the process that was
// scanned (same start time): pids are reused within a fraction of a second here.
int signal_process(int pid, int signal, unsigned long long start_time);

// Replaces sexton with a fresh copy of itself (same pid, so PID 1 stays PID 1).
// Returns only on failure, with errno.
int exec_self(const std::vector<std::string>& argv, const std::vector<std::string>& env);

[[noreturn]] void exit_now(int code);

}  // namespace sexton
