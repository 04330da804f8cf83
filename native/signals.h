#pragma once
#include <cstdint>

namespace sexton {

// What sexton does with a signal it receives.
constexpr int kDrop = 0;         // count it and tell JS; the child never sees it
constexpr int kNotifyOnly = -1;  // tell JS and let policy decide (e.g. a drain delay)
// A notice's result when there was no child to forward to (not yet spawned, or already reaped):
// kept, and forwarded at the spawn if that is still to come.
constexpr int kNoChildYet = -2;  // apart from kNotifyOnly: an action and a result never share a value
// Any positive value: forward as that signal number (rewrites are just a different number).

// Installs a handler for every catchable signal except SIGCHLD. Forwarding happens inside
// the handler, so it keeps working while the JS thread is busy; JS hears about it afterwards
// through the notifier (notifier.h), if it asked to. Signals that arrive before the main
// child exists are kept and forwarded right after spawn.
void install_signal_handlers();

// Which threads the handler may run on: signal_mask.h.

void set_signal_action(int signal, int action);
// Whether JS is told of every arrival of `signal`, or only of failures and kNotifyOnly.
void set_signal_notify(int signal, bool on);
void set_forward_to_group(bool group);

// Delivers signals that arrived before the main child existed; call after spawn. Returns the
// errno of forwarding `watched` if this call forwarded it, else 0 (another flush took it
// first); a failed forward of any other signal is posted to JS as a notice.
int forward_pending_signals(int watched = 0);

// Forwards a signal to the main child (or its group) as the handler would, counting it.
int signal_main_child(int signal);

// Whether a SIGTERM has gone to the main child's process group (--pgroup): every member had it,
// and the daemons' and leftovers' TERM must not be a second one (src/init/process-tree.ts).
bool group_got_term();

// How many times `signal` has arrived: the handler's counter, and one pending for sexton that
// no handler has run for yet.
uint64_t signals_received(int signal);

// After handling `signal`, sexton stops itself with SIGSTOP (dumb-init's job control: the
// shell that started it sees it stop; SIGCONT resumes it and is forwarded).
void set_stop_self_after(int signal, bool on);

}  // namespace sexton
