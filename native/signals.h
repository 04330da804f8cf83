#pragma once
#include <functional>

namespace sexton {

// What sexton does with a signal it receives.
constexpr int kDrop = 0;         // count it and tell JS; the child never sees it
constexpr int kNotifyOnly = -1;  // tell JS and let policy decide (e.g. a drain delay)
// Any positive value: forward as that signal number (rewrites are just a different number).

struct SignalNotice {
  int signal;     // as received
  int action;     // kDrop, kNotifyOnly or the signal forwarded
  int sender;     // si_pid: 0 when sent from outside sexton's PID namespace
  int result;     // 0 when delivered, else the errno of kill
};

using SignalListener = std::function<void(const SignalNotice&)>;

// Installs a handler for every catchable signal except SIGCHLD. Forwarding happens inside
// the handler, so it keeps working while the JS thread is busy; JS hears about it afterwards
// on the listener (called on a relay thread, must not block).
void install_signal_handlers(SignalListener listener);

void set_signal_action(int signal, int action);
void set_forward_to_group(bool group);

// Delivers signals that arrived before the main child existed; call after spawn.
void forward_pending_signals();

// Forwards a signal to the main child (or its group) as the handler would, counting it.
int signal_main_child(int signal);

}  // namespace sexton
