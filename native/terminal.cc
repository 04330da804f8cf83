#include "terminal.h"

#include <errno.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "signals.h"

namespace sexton {

int detach_controlling_terminal(bool* was_leader) {
  *was_leader = getsid(0) == getpid();
  // The kernel signals the terminal's foreground group only: arm the drop only when that is
  // sexton's, or a later, real SIGHUP would be lost.
  bool signalled = *was_leader && tcgetpgrp(STDIN_FILENO) == getpgrp();
  if (signalled) {
    ignore_next_signal(SIGHUP, true);
    ignore_next_signal(SIGCONT, true);
  }
  if (ioctl(STDIN_FILENO, TIOCNOTTY) == 0) return 0;
  int error = errno;
  if (signalled) {
    ignore_next_signal(SIGHUP, false);
    ignore_next_signal(SIGCONT, false);
  }
  return error;
}

void take_new_session() {
  setsid();
  ioctl(STDIN_FILENO, TIOCSCTTY, 0);
}

}  // namespace sexton
