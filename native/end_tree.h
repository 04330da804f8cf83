// Signals every descendant of this process that /proc shows, a subreaper's whole tree.
#pragma once

namespace sexton {

// Async-signal-safe and allocation-free. false when /proc cannot be read (nothing was signalled).
bool signal_descendants(int signal);

}  // namespace sexton
