#include "terminal.h"

#include <errno.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

namespace sexton {

int detach_controlling_terminal(bool* signals_self) {
  // Only a session leader's TIOCNOTTY makes the kernel signal, and only the foreground group.
  *signals_self = getsid(0) == getpid() && tcgetpgrp(STDIN_FILENO) == getpgrp();
  if (ioctl(STDIN_FILENO, TIOCNOTTY) == 0) return 0;
  *signals_self = false;
  return errno;
}

void take_new_session() {
  setsid();
  ioctl(STDIN_FILENO, TIOCSCTTY, 0);
}

}  // namespace sexton
