#include "notifier.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>

#include "signal_mask.h"

namespace sexton {
namespace {

int notice_pipe[2] = {-1, -1};
// Written by a handler whose notice found the pipe full: a wake-up of its own, so that the
// thread hears of the loss even if it emptied the pipe before the handler could say so.
int lost_fd = -1;
NoticeListener* listener = nullptr;  // heap, never destroyed (see state.h)

struct Watched {
  std::atomic<int> fd{-1};
  std::atomic<short> events{0};
  std::atomic<int> rearm{kReadEventfd};
  std::atomic<int> kind{0};
} watched;

struct WatchedOnce {
  std::atomic<int> fd{-1};
  std::atomic<bool> armed{false};
  std::atomic<int> kind{0};
} once;

void* notify_loop(void*) {
  unblock_forwarded_signals();  // the thread the signal handler runs on (signal_mask.h)
  for (;;) {
    // poll skips a negative fd: a slot not in use, or the one-shot one until it is re-armed.
    pollfd fds[4] = {{notice_pipe[0], POLLIN, 0}, {lost_fd, POLLIN, 0}, {watched.fd.load(), watched.events.load(), 0},
                     {once.armed.load() ? once.fd.load() : -1, POLLIN, 0}};
    int n = poll(fds, 4, -1);
    if (n < 0) continue;  // EINTR
    if (fds[0].revents & POLLIN) {
      Notice notice;
      if (read(notice_pipe[0], &notice, sizeof notice) == sizeof notice && notice.kind != Notice::kWake) {
        (*listener)(notice);
      }
    }
    if (fds[1].revents & POLLIN) {
      uint64_t drops;
      if (read(lost_fd, &drops, sizeof drops) == sizeof drops) (*listener)(Notice{Notice::kLost});
    }
    if (fds[2].fd >= 0 && (fds[2].revents & fds[2].events)) {
      // An eventfd stays readable until read; a cgroup file fires until read again.
      char buffer[512];
      ssize_t ignored = watched.rearm.load() == kReadEventfd ? read(fds[2].fd, buffer, 8)
                                                            : pread(fds[2].fd, buffer, sizeof buffer, 0);
      (void)ignored;
      (*listener)(Notice{static_cast<Notice::Kind>(watched.kind.load())});
    }
    if (fds[3].fd >= 0 && (fds[3].revents & (POLLIN | POLLERR))) {
      once.armed.store(false);
      (*listener)(Notice{static_cast<Notice::Kind>(once.kind.load())});
    }
  }
  return nullptr;
}

}  // namespace

int start_notifier(NoticeListener on_notice) {
  if (listener != nullptr) return 0;
  if (pipe2(notice_pipe, O_CLOEXEC) != 0) return errno;
  fcntl(notice_pipe[1], F_SETFL, O_NONBLOCK);
  lost_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (lost_fd < 0) return errno;
  listener = new NoticeListener(std::move(on_notice));
  pthread_t thread;
  // A small stack: it only polls and copies notices.
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  int rc = pthread_create(&thread, &attr, notify_loop, nullptr);
  pthread_attr_destroy(&attr);
  if (rc != 0) return rc;
  pthread_detach(thread);
  // The handler can now tell JS without the main thread: from here the main thread blocks the
  // forwarded signals, so a signal never waits behind JavaScript (start_notifier runs on it).
  take_signals_off_main_thread();
  return 0;
}

void post_notice(const Notice& notice) {
  if (notice_pipe[1] < 0) return;
  if (write(notice_pipe[1], &notice, sizeof notice) == sizeof notice) return;
  uint64_t one = 1;  // eventfd_write is async-signal-safe; it fails only at 2^64-2 drops
  ssize_t ignored = write(lost_fd, &one, sizeof one);
  (void)ignored;
}

void watch_fd(int fd, short events, Rearm rearm, Notice::Kind kind) {
  watched.events.store(events);
  watched.rearm.store(rearm);
  watched.kind.store(kind);
  watched.fd.store(fd);
  post_notice(Notice{Notice::kWake});  // poll again with the new fd
}

void watch_readable_once(int fd, Notice::Kind kind) {
  once.kind.store(kind);
  once.fd.store(fd);
  rearm_readable_once();
}

void rearm_readable_once() {
  once.armed.store(true);
  post_notice(Notice{Notice::kWake});  // poll again with the fd back in
}

}  // namespace sexton
