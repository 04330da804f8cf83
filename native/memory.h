#pragma once
// What sexton's own memory costs its container, and the kernel's OOM events.
#include <string>

namespace sexton {

// Drops sexton's mappings of file pages it is not using (the node binary's text is most of
// its RSS): they stay in the page cache and come back on use as minor faults. Only read-only
// file mappings holding no private (copied-on-write) page are touched, so no content changes.
// Returns the bytes of RSS released.
long long release_file_pages();

// Gives back the free memory of every malloc arena (glibc keeps what was freed resident, in
// the middle of its heaps as well as at their top). Returns whether any was given back; always
// false where the C library has no malloc_trim (musl returns freed memory by itself).
bool trim_malloc_heap();

// Every thread that needs a malloc arena from now on shares the main one. glibc gives each
// thread that meets contention an arena of its own (up to 8 per CPU), and each arena keeps what
// its thread freed: V8's workers' arenas grew with each status query for an hour
// (bench/RESULTS.md). sexton's own threads allocate little. Threads that already
// have an arena keep it; a no-op where the C library is not glibc (musl has no arenas). It also
// fixes malloc's trim threshold (64 KiB, no top pad), so that the free top of every arena,
// those threads' too, goes back on the next large free instead of staying resident.
void share_one_malloc_arena();

// Asks V8 for its most thorough collection (Isolate::LowMemoryNotification: full GCs that
// compact and give free pages back). Only on the JS thread. Returns false where this Node's V8
// does not export it.
bool compact_js_heap();

// Tells V8 what a browser tells it of a hidden tab (Isolate::IsolateInBackgroundNotification):
// nobody waits on this isolate, so it favours memory over speed. Only on the JS thread; false
// where this Node's V8 does not export it.
bool put_isolate_in_background();

// Watches the memory cgroup at `dir` for OOM kills (v1: an eventfd on memory.oom_control;
// v2: memory.events) and posts a Notice::kOom each time. Returns 0 or the errno.
int watch_oom_events(const std::string& dir, bool v2);

}  // namespace sexton
