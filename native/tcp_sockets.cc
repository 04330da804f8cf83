#include "tcp_sockets.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace sexton {
namespace {

// The kernel's TCP states (include/net/tcp_states.h): not in a userspace header.
constexpr int kTimeWait = 6;
constexpr int kNewSynRecv = 12;

int send_dump_request(int fd, uint8_t family) {
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message = {};
  message.header.nlmsg_len = sizeof message;
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  message.request.sdiag_family = family;
  message.request.sdiag_protocol = IPPROTO_TCP;
  // TIME_WAIT and request sockets carry no tcp_info and no data still to come.
  message.request.idiag_states = ~((1U << kTimeWait) | (1U << kNewSynRecv));
  message.request.idiag_ext = 1 << (INET_DIAG_INFO - 1);
  sockaddr_nl kernel = {};
  kernel.nl_family = AF_NETLINK;
  ssize_t sent = sendto(fd, &message, sizeof message, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel);
  return sent == static_cast<ssize_t>(sizeof message) ? 0 : (sent < 0 ? errno : EIO);
}

void add_socket(const nlmsghdr* header, std::vector<TcpSocket>* out) {
  const auto* message = static_cast<const inet_diag_msg*>(NLMSG_DATA(header));
  TcpSocket socket;
  socket.state = message->idiag_state;
  socket.local_port = ntohs(message->id.idiag_sport);
  socket.cookie = (static_cast<uint64_t>(message->id.idiag_cookie[1]) << 32) | message->id.idiag_cookie[0];
  socket.queued = message->idiag_rqueue;
  int length = static_cast<int>(header->nlmsg_len) - static_cast<int>(NLMSG_LENGTH(sizeof *message));
  for (auto* attribute = reinterpret_cast<const rtattr*>(message + 1); RTA_OK(attribute, length); attribute = RTA_NEXT(attribute, length)) {
    if (attribute->rta_type != INET_DIAG_INFO) continue;
    // Older kernels send a shorter tcp_info: the counter is only read when it is there.
    constexpr size_t kEnd = offsetof(tcp_info, tcpi_bytes_received) + sizeof(uint64_t);
    if (RTA_PAYLOAD(attribute) < kEnd) continue;
    uint64_t received;
    memcpy(&received, static_cast<const char*>(RTA_DATA(attribute)) + offsetof(tcp_info, tcpi_bytes_received), sizeof received);
    socket.bytes_received = received;
  }
  out->push_back(socket);
}

// Reads one dump to its end; sockets past `limit` are counted as truncation, not kept.
int read_dump(int fd, size_t limit, std::vector<TcpSocket>* out, bool* truncated) {
  alignas(nlmsghdr) static char buffer[32 * 1024];
  for (;;) {
    ssize_t got = recv(fd, buffer, sizeof buffer, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    int left = static_cast<int>(got);
    for (auto* header = reinterpret_cast<nlmsghdr*>(buffer); NLMSG_OK(header, left); header = NLMSG_NEXT(header, left)) {
      if (header->nlmsg_type == NLMSG_DONE) return 0;
      if (header->nlmsg_type == NLMSG_ERROR) {
        const auto* error = static_cast<const nlmsgerr*>(NLMSG_DATA(header));
        return error->error == 0 ? 0 : -error->error;
      }
      if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY) continue;
      if (out->size() >= limit) *truncated = true;
      else add_socket(header, out);
    }
    if (got == 0) return EIO;
  }
}

}  // namespace

int tcp_sockets(size_t limit, std::vector<TcpSocket>* out, bool* truncated) {
  *truncated = false;
  int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return errno;
  // The kernel writes the dump during recv: it never waits on the network. A bound anyway, so
  // that the JS thread can never hang here.
  timeval bound = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  int rc = 0;
  for (uint8_t family : {AF_INET, AF_INET6}) {
    rc = send_dump_request(fd, family);
    if (rc == 0) rc = read_dump(fd, limit, out, truncated);
    if (rc != 0) break;
  }
  close(fd);
  return rc;
}

}  // namespace sexton
