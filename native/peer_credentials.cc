#include "peer_credentials.h"

#include <errno.h>
#include <sys/socket.h>

namespace sexton {

PeerCredentials peer_credentials(int fd) {
  PeerCredentials out;
  struct ucred credentials = {};
  socklen_t size = sizeof credentials;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) {
    out.error = errno;
    return out;
  }
  out.pid = credentials.pid;
  out.uid = credentials.uid;
  out.gid = credentials.gid;
  return out;
}

}  // namespace sexton
