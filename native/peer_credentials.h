#pragma once
#include <sys/types.h>

namespace sexton {

struct PeerCredentials {
  pid_t pid = 0;  // in the caller's PID namespace; 0 when the peer is not visible there
  uid_t uid = 0;
  gid_t gid = 0;
  int error = 0;  // errno of getsockopt, 0 on success
};

// Who is at the other end of a connected Unix socket, as the kernel recorded it when the
// connection was made (SO_PEERCRED): it cannot be forged by the peer. Node has no such call.
PeerCredentials peer_credentials(int fd);

}  // namespace sexton
