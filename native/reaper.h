#pragma once
#include <sys/types.h>

#include <functional>

namespace sexton {

struct ReapEvent {
  enum Kind { kMainExited, kNoChildren, kOrphanReaped } kind;
  pid_t pid = 0;
  int exit_code = -1;  // set when the main child exited normally
  int signal = 0;      // set when the main child was killed by a signal
  bool last_child = false;  // main exited and sexton has no other child: nothing is left
  unsigned unreported = 0;  // kOrphanReaped: orphans reaped since the last report, not reported
};

// Called on the reaper thread; must hand the event to JS without blocking.
using ReapListener = std::function<void(const ReapEvent&)>;

// Starts the reaper thread (once). It blocks in waitid until some child exits, reaps every
// exited child, and reports the main child's exit and "no children left" to the listener.
// Returns 0, or the errno of pthread_create (EAGAIN at the pids limit).
int start_reaper(ReapListener listener);

// Also report each orphan reaped (tini's -w): one event each, so only when asked. At most
// kOrphanReportsQueued wait for JS at a time; the reaper counts the rest, and the next report
// JS takes carries that count (take_report), so a storm cannot grow the queue.
void set_report_orphans(bool on);
constexpr int kOrphanReportsQueued = 256;

// On the JS thread, as it takes a report (or drops it: sexton is leaving): an orphan report then
// carries the orphans reaped meanwhile that got no report of their own.
void take_report(ReapEvent* event);


}  // namespace sexton
