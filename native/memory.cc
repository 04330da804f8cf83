#include "memory.h"

#include <errno.h>
#include <dlfcn.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "notifier.h"

namespace sexton {
namespace {

// The free top an arena may keep: a heap grows back by page faults, no system call.
constexpr int kTrimThreshold = 64 * 1024;

struct Mapping {
  unsigned long start = 0, end = 0;
  bool candidate = false;  // read-only and backed by a file
  long rss_kb = 0, anonymous_kb = 0, swap_kb = 0, private_dirty_kb = 0;
};

long long release(const Mapping& m) {
  // A private page copied on write (relocations made read-only afterwards) shows in Anonymous
  // while in memory and in Swap once swapped out: either way, dropping it would lose content.
  if (!m.candidate || m.anonymous_kb != 0 || m.swap_kb != 0 || m.private_dirty_kb != 0 || m.rss_kb == 0) return 0;
  if (madvise(reinterpret_cast<void*>(m.start), m.end - m.start, MADV_DONTNEED) != 0) return 0;
  return m.rss_kb * 1024LL;
}

}  // namespace

long long release_file_pages() {
  FILE* smaps = fopen("/proc/self/smaps", "re");
  if (smaps == nullptr) return 0;
  long long released = 0;
  Mapping m;
  char line[512];
  while (fgets(line, sizeof line, smaps) != nullptr) {
    unsigned long start, end;
    char perms[5];
    int path_at = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &path_at) == 3 && path_at > 0) {
      released += release(m);
      m = Mapping{start, end};
      m.candidate = perms[1] != 'w' && line[path_at] == '/';
    } else if (strncmp(line, "Rss:", 4) == 0) {
      m.rss_kb = atol(line + 4);
    } else if (strncmp(line, "Anonymous:", 10) == 0) {
      m.anonymous_kb = atol(line + 10);
    } else if (strncmp(line, "Swap:", 5) == 0) {
      m.swap_kb = atol(line + 5);
    } else if (strncmp(line, "Private_Dirty:", 14) == 0) {
      m.private_dirty_kb = atol(line + 14);
    }
  }
  released += release(m);
  fclose(smaps);
  return released;
}

bool trim_malloc_heap() {
#ifdef __GLIBC__
  return malloc_trim(0) == 1;
#else
  return false;
#endif
}

void share_one_malloc_arena() {
#ifdef __GLIBC__
  mallopt(M_ARENA_MAX, 1);
  // glibc raises its trim threshold to twice the largest mmapped block freed so far (up to 64
  // MiB): after a burst of scrapes it was several MiB, and an arena's free top below that
  // stays resident. malloc_trim cannot help: it trims the top of the main arena only, and the
  // arenas V8's workers took before the line above kept 0.5-5 MiB tops each after a burst. A
  // fixed threshold gives a top back on the next free that reaches it, in every arena; it also
  // fixes the mmap threshold at its default (128 KiB), so big blocks go back as they are freed.
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  mallopt(M_TOP_PAD, 0);
#endif
}

// One of V8's Isolate members, looked up rather than linked: a Node-API addon must load on any
// Node, and one whose V8 lacks a member (never seen; these exist since V8 5) only loses what it
// does. They are plain non-virtual members, so `this` is the first argument (the Itanium C++ ABI).
using IsolateCall = void (*)(void*);
IsolateCall isolate_member(const char* symbol) { return reinterpret_cast<IsolateCall>(dlsym(RTLD_DEFAULT, symbol)); }

// Calls `member` on the current isolate; false when it could not be called.
bool call_on_current_isolate(IsolateCall member) {
  using GetCurrent = void* (*)();
  static auto get_current = reinterpret_cast<GetCurrent>(dlsym(RTLD_DEFAULT, "_ZN2v87Isolate10GetCurrentEv"));
  void* isolate = get_current != nullptr ? get_current() : nullptr;
  if (isolate == nullptr || member == nullptr) return false;
  member(isolate);
  return true;
}

bool compact_js_heap() {
  static const IsolateCall low_memory = isolate_member("_ZN2v87Isolate21LowMemoryNotificationEv");
  return call_on_current_isolate(low_memory);
}

bool put_isolate_in_background() {
  static const IsolateCall in_background = isolate_member("_ZN2v87Isolate31IsolateInBackgroundNotificationEv");
  static bool told = false;  // once is enough; every answer to a client asks (src/init/memory.ts)
  if (!told) told = call_on_current_isolate(in_background);
  return told;
}

int watch_oom_events(const std::string& dir, bool v2) {
  if (v2) {
    int fd = open((dir + "/memory.events").c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    watch_fd(fd, POLLPRI, kRereadFile, Notice::kOom);
    return 0;
  }
  int efd = eventfd(0, EFD_CLOEXEC);
  if (efd < 0) return errno;
  int oom_control = open((dir + "/memory.oom_control").c_str(), O_RDONLY | O_CLOEXEC);
  int event_control = open((dir + "/cgroup.event_control").c_str(), O_WRONLY | O_CLOEXEC);
  int result = 0;
  if (oom_control < 0 || event_control < 0) {
    result = errno;
  } else {
    char text[32];
    int n = snprintf(text, sizeof text, "%d %d", efd, oom_control);
    if (write(event_control, text, n) != n) result = errno;
  }
  if (event_control >= 0) close(event_control);
  // The kernel holds its own reference to memory.oom_control once registered.
  if (oom_control >= 0) close(oom_control);
  if (result != 0) {
    close(efd);
    return result;
  }
  watch_fd(efd, POLLIN, kReadEventfd, Notice::kOom);
  return 0;
}

}  // namespace sexton
