#pragma once
#include <stddef.h>
#include <stdint.h>

#include <vector>

namespace sexton {

// One TCP socket of sexton's network namespace, as sock_diag reports it.
struct TcpSocket {
  uint8_t state = 0;            // TCP_LISTEN, TCP_ESTABLISHED, ... (netinet/tcp.h)
  uint16_t local_port = 0;
  uint64_t cookie = 0;          // the kernel's id of this socket: tells a new one from an old one
  uint64_t bytes_received = 0;  // tcpi_bytes_received: data that arrived, read by the app or not
  uint32_t queued = 0;          // idiag_rqueue: for a listener, connections waiting for accept()
};

// Every TCP socket (IPv4 and IPv6) of the caller's network namespace except those in TIME_WAIT,
// up to `limit`, from one inet_diag dump per family. Node has no netlink: this is the only way
// it can see data arriving on a connection that stays open (a balancer's pooled connection).
// Returns 0 or an errno; *truncated says the namespace had more than `limit`.
int tcp_sockets(size_t limit, std::vector<TcpSocket>* out, bool* truncated);

}  // namespace sexton
