#pragma once
// The sd_notify socket: a datagram Unix socket the main child's tree sends READY=1 and friends
// to (the protocol systemd and podman speak). The notifier thread only says "readable"; the JS
// thread receives, without blocking, and the socket is watched again once it has.
#include <sys/types.h>

#include <string>
#include <vector>

namespace sexton {

struct Datagram {
  pid_t pid = 0;          // the sender in sexton's PID namespace (SCM_CREDENTIALS); 0: not visible
  uid_t uid = 0;
  size_t length = 0;      // the datagram's real length, even when it was cut
  bool truncated = false; // longer than kNotifyMax: its text is cut and must be ignored
  int descriptors = 0;    // descriptors it carried (closed at once: sexton keeps none)
  std::string text;
};

// systemd reads notifications into a buffer of this size and refuses longer ones.
constexpr size_t kNotifyMax = 4096;

// Binds a non-blocking, close-on-exec datagram socket at `address` (a leading NUL: abstract)
// with SO_PASSCRED, and has the notifier thread watch it. Returns 0 or the errno. Once only.
int open_notify_socket(const std::string& address);

// Up to `max` waiting datagrams, without blocking; then the socket is watched again. `error`
// gets the errno of a failed receive other than EAGAIN, else 0.
std::vector<Datagram> receive_notifications(size_t max, int* error);

}  // namespace sexton
