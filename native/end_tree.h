// Signals every descendant of this process that /proc shows, a subreaper's whole tree.
#pragma once

namespace sexton {

// How often a KILL round repeats until the tree is empty (a process may fork meanwhile): the
// probe's pace and the init's (src/init/lifecycle.ts KILL_REPEAT_SECONDS; a unit test keeps them one).
constexpr double kKillRepeatSeconds = 0.1;

// Async-signal-safe and allocation-free. false when /proc cannot be read (nothing was signalled).
bool signal_descendants(int signal);

}  // namespace sexton
