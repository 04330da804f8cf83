// How sexton replaces or ends itself.
#pragma once
#include <string>
#include <vector>

namespace sexton {

// Replaces sexton with a fresh copy of itself (same pid, so PID 1 stays PID 1).
// Returns only on failure, with errno.
int exec_self(const std::vector<std::string>& argv, const std::vector<std::string>& env);

[[noreturn]] void exit_now(int code);

}  // namespace sexton
