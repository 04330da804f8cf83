#include "log_sink.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace sexton {
namespace {

enum Mode { kPlain, kSocket, kOwnDescription, kPollFirst };
// Indexed by the fd asked for: stderr, and stdout where tini sends its info lines.
int sink_fds[3] = {0, 1, 2};
Mode modes[3] = {kPlain, kPlain, kPlain};

}  // namespace

const char* open_log_sink(int fd) {
  if (fd < 1 || fd > 2) return "unsupported";
  int& sink_fd = sink_fds[fd];
  Mode& mode = modes[fd];
  sink_fd = fd;
  struct stat st;
  // The system call, not glibc's fstat: that symbol is new in glibc 2.33 (see glibc_compat.c).
  if (syscall(SYS_fstat, fd, &st) != 0) return (mode = kPlain), "closed";
  if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) return (mode = kPlain), "file";
  if (S_ISSOCK(st.st_mode)) return (mode = kSocket), "socket";
  char path[32];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  int own = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (own >= 0) {
    sink_fd = own;
    return (mode = kOwnDescription), "own non-blocking description";
  }
  // No /proc, or a pipe sexton may not open again (a non-root sexton whose stdio pipes belong to
  // root), or a FIFO nobody reads: look before writing, and for a pipe measure the room. A child
  // writing between the look and the write can still block that one write (docs/operations.md).
  return (mode = kPollFirst), "poll before write";
}

long write_log(const char* data, size_t length, int fd) {
  if (fd < 1 || fd > 2) return -EBADF;
  int sink_fd = sink_fds[fd];
  Mode mode = modes[fd];
  ssize_t n;
  if (mode == kSocket) {
    n = send(sink_fd, data, length, MSG_DONTWAIT | MSG_NOSIGNAL);
  } else {
    if (mode == kPollFirst) {
      pollfd p = {sink_fd, POLLOUT, 0};
      if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)) return -EAGAIN;
      // POLLOUT on a pipe means one free page; a line needs room for all of it.
      int size = fcntl(sink_fd, F_GETPIPE_SZ);
      int unread = 0;
      if (size > 0 && ioctl(sink_fd, FIONREAD, &unread) == 0 && static_cast<size_t>(size - unread) < length) return -EAGAIN;
    }
    n = write(sink_fd, data, length);
  }
  return n >= 0 ? n : -errno;
}

}  // namespace sexton
