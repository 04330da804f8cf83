// sexton's place among processes: subreaper for orphans, and what it gets when its parent dies.
#pragma once

namespace sexton {

// PR_SET_CHILD_SUBREAPER: orphans of our descendants come to us instead of the host's init.
bool become_subreaper();
bool is_subreaper();

// PR_SET_PDEATHSIG: the signal sexton gets when its own parent dies.
bool set_parent_death_signal(int signal);

// PR_SET_NAME: the calling thread's command name (comm, 15 bytes kept). On the main thread it
// is the process's name in /proc/PID/comm and ps.
bool set_thread_name(const char* name);

}  // namespace sexton
