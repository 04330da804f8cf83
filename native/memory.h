#pragma once
// What sexton's own memory costs its container, and the kernel's OOM events.
#include <string>

namespace sexton {

// Drops sexton's mappings of file pages it is not using (the node binary's text is most of
// its RSS): they stay in the page cache and come back on use as minor faults. Only read-only
// file mappings holding no private (copied-on-write) page are touched, so no content changes.
// Returns the bytes of RSS released.
long long release_file_pages();

// Watches the memory cgroup at `dir` for OOM kills (v1: an eventfd on memory.oom_control;
// v2: memory.events) and posts a Notice::kOom each time. Returns 0 or the errno.
int watch_oom_events(const std::string& dir, bool v2);

}  // namespace sexton
