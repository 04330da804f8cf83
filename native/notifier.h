#pragma once
// The notifier thread: how signal handlers and the kernel's OOM events reach JS. Handlers
// write fixed-size notices into a non-blocking pipe (async-signal-safe); the thread reads
// them and hands each to JS through a bounded queue, blocking itself, never a handler, when
// JS is behind. When the pipe is full a notice is dropped and JS is told that some were lost,
// so policy catches up from the native counters instead.
#include <functional>

namespace sexton {

struct Notice {
  enum Kind { kSignal = 1, kOom = 2, kLost = 3, kWake = 4, kNotify = 5 } kind;
  int signal = 0;  // kSignal: as received
  int action = 0;  // kSignal: kDrop, kNotifyOnly or the signal forwarded
  int sender = 0;  // kSignal: si_pid, 0 when sent from outside sexton's PID namespace
  int result = 0;  // kSignal: 0 when delivered, else the errno of the delivery
};

using NoticeListener = std::function<void(const Notice&)>;

// Creates the pipe and the thread (once); returns 0 or the errno that prevented it.
int start_notifier(NoticeListener listener);

// Async-signal-safe. Drops the notice when the pipe is full, and says so through a wake-up of its
// own (the thread then posts a kLost notice).
void post_notice(const Notice& notice);

// How a watched fd is re-armed after it fires.
enum Rearm { kReadEventfd, kRereadFile };

// Also poll `fd` (for `events`) and post a notice of `kind` each time it fires. One at most.
void watch_fd(int fd, short events, Rearm rearm, Notice::Kind kind);

// Also poll `fd` for input, once: when it is readable, post a notice of `kind` and stop watching
// it until rearm_readable_once(), so that the JS thread, not this one, reads it (one at most).
void watch_readable_once(int fd, Notice::Kind kind);
void rearm_readable_once();

}  // namespace sexton
