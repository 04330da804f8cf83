// The one reader of /proc/PID/stat on the native side: the stop deadline's kill of the tree, the
// pid-reuse check of a scanned process, and `sexton probe`'s end of its tree all read it here.
#pragma once

namespace sexton {

constexpr int kStatParent = 4;
constexpr int kStatStartTime = 22;

// Field `n` (1-based, 3 or more) of /proc/PID/stat as a number, or 0. Safe in a signal handler
// (the deadline's): the stack and system calls only. The command name (field 2) may hold spaces
// and ')': fields are counted from the last ')'.
unsigned long long stat_field(int pid, int n);

}  // namespace sexton
