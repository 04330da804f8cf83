#include "notify_socket.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notifier.h"

namespace sexton {
namespace {

int notify_fd = -1;

// Room for the credentials and a few descriptors: any that do not fit are closed by the
// kernel (MSG_CTRUNC), those that do are closed here.
constexpr size_t kControlSize = CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(16 * sizeof(int));

void read_control(msghdr* message, Datagram* out) {
  for (cmsghdr* c = CMSG_FIRSTHDR(message); c != nullptr; c = CMSG_NXTHDR(message, c)) {
    if (c->cmsg_level != SOL_SOCKET) continue;
    if (c->cmsg_type == SCM_CREDENTIALS && c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
      struct ucred credentials;
      memcpy(&credentials, CMSG_DATA(c), sizeof credentials);
      out->pid = credentials.pid;
      out->uid = credentials.uid;
    } else if (c->cmsg_type == SCM_RIGHTS) {
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; i++) {
        int fd;
        memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
        close(fd);
      }
      out->descriptors += static_cast<int>(count);
    }
  }
  if (message->msg_flags & MSG_CTRUNC) out->descriptors += 1;  // at least one more, closed by the kernel
}

}  // namespace

int open_notify_socket(const std::string& address) {
  if (notify_fd >= 0) return EALREADY;
  sockaddr_un where = {};
  where.sun_family = AF_UNIX;
  if (address.empty() || address.size() >= sizeof where.sun_path) return ENAMETOOLONG;
  memcpy(where.sun_path, address.data(), address.size());
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int on = 1;
  socklen_t size = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address.size());
  if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 || bind(fd, reinterpret_cast<sockaddr*>(&where), size) != 0) {
    int error = errno;
    close(fd);
    return error;
  }
  notify_fd = fd;
  watch_readable_once(fd, Notice::kNotify);
  return 0;
}

std::vector<Datagram> receive_notifications(size_t max, int* error) {
  std::vector<Datagram> out;
  *error = 0;
  if (notify_fd < 0) return out;
  char buffer[kNotifyMax];
  alignas(cmsghdr) char control[kControlSize];
  while (out.size() < max) {
    iovec part = {buffer, sizeof buffer};
    msghdr message = {};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    // MSG_TRUNC: the real length, so that an oversized datagram is told from a full one.
    ssize_t n = recvmsg(notify_fd, &message, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) *error = errno;
      break;
    }
    Datagram d;
    read_control(&message, &d);
    d.length = static_cast<size_t>(n);
    d.truncated = (message.msg_flags & MSG_TRUNC) != 0 || d.length > sizeof buffer;
    d.text.assign(buffer, d.truncated ? 0 : d.length);
    out.push_back(std::move(d));
  }
  rearm_readable_once();  // level-triggered: anything still waiting wakes the thread again
  return out;
}

}  // namespace sexton
