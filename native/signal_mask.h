// Which signals sexton's handler forwards, and the threads they may not land on.
//
// The main thread may be running JS or sit in a long system call (reading /proc, giving back
// pages) when a signal comes: a handler run there waits for it, and the child, woken from that
// CPU, then waits for it too. So once the notifier thread exists the main thread blocks what the
// handler forwards, and the kernel runs the handler on a thread that is idle (the notifier, or
// one of Node's that waits for work; SIGUSR1 only on the notifier, as Node's block it). The
// reaper blocks them too, so its waitid is not interrupted.
#pragma once

namespace sexton {

// A fault a thread raises on itself: it must stay unblocked wherever it happens.
bool is_fault_signal(int sig);
// What sigaction lets sexton catch (not KILL, STOP, CHLD, nor glibc's own 32 and 33).
bool is_catchable(int sig);

void note_handlers_installed();       // by install_signal_handlers (signals.h)
void take_signals_off_main_thread();  // on the main thread, by start_notifier once it runs
void block_forwarded_signals();       // on the calling thread
void unblock_forwarded_signals();     // on the calling thread (the notifier)

}  // namespace sexton
