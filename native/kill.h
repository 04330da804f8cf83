// Signals sexton sends on its own (the stop sequence), beyond forwarding to the main child.
#pragma once

namespace sexton {

// Every process of sexton's PID namespace but sexton. Refuses unless sexton is PID 1:
// anywhere else kill(-1) would hit the whole machine.
int signal_every_process(int signal);

// Signals one process found by a /proc scan, only if pid still names the process that was
// scanned (same start time): pids are reused within a fraction of a second here.
int signal_process(int pid, int signal, unsigned long long start_time);

// Async-signal-safe (the stop deadline's, native/stop_deadline.h): the main child (through its
// pidfd), its process group when it leads one, and with `walk_proc` every descendant of sexton
// that /proc shows, found without allocating. Best effort: out of descriptors, only the first two.
void signal_main_child_tree_now(int signal, bool child_group, bool walk_proc);

}  // namespace sexton
