#pragma once
// The controlling terminal, for dumb-init's setsid mode: the child leads a session of its own
// and takes the terminal, so job control in it works as in a login shell.

namespace sexton {

// Gives up sexton's controlling terminal (TIOCNOTTY on stdin) so the child can take it. When
// sexton leads its session and is the terminal's foreground group, the kernel answers with one
// SIGHUP and one SIGCONT to that group (*signals_self). dumb-init counts those two off; sexton's
// handlers never forward them, because the kernel names sexton itself as their sender (SI_USER
// from the task that made the call), and signals.cc drops every signal sexton sent itself.
// Returns 0 or the errno of the ioctl.
int detach_controlling_terminal(bool* signals_self);

// In the child, after fork: a new session, with stdin's terminal as its controlling terminal
// when it is free. Async-signal-safe; failures are left to show (the child runs without one).
void take_new_session();

}  // namespace sexton
