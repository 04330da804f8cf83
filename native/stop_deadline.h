// The stop's deadline: the guarantee under the lifecycle's policy (src/init/lifecycle.ts).
// When the stop signal arrives (as PID 1: or the main child exits), the handler arms a one-shot
// ITIMER_REAL; if sexton is still
// there when it expires, the kernel's SIGALRM runs the handler on whichever thread is free
// (never the main thread, which blocks it: signals.h) and the handler SIGKILLs what is left,
// writes one line and leaves with _exit, whatever JS is doing. No thread is made for it: the
// kernel's timer is the clock and the signal handler the actor, so the invariant "no thread
// after the spawn" holds, and while no stop signal has come there is nothing armed (no wake-up).
#pragma once
#include <signal.h>

#include <string>

namespace sexton {

struct StopDeadline {
  int signal = 0;            // the stop signal; 0: no deadline (the peers' personalities)
  long milliseconds = 0;     // from the stop signal's arrival
  int exit_code = 0;         // the status sexton leaves with at the deadline
  std::string line;          // written to stderr, as is, when it fires
  bool kill_namespace = false;  // PID 1: kill(-1); else the main child's group and descendants
  bool child_group = false;     // the main child leads a process group of its own
  bool walk_proc = false;       // /proc is this namespace's: descendants may be found there
  // PID 1 only: how long JS has to answer the main child's exit before the addon sends TERM to
  // every process left itself; 0: no such watch. The lines for that TERM and for the deadline
  // that follows it (which exits with the main child's status, not exit_code).
  long main_exit_answer_ms = 0;
  std::string main_exit_term_line;
  std::string main_exit_line;
  // kMainExitCodes bytes: the status to leave with at that deadline for each status the main
  // child left with (its code, or 128 + its signal), --remap-exit applied by JS beforehand.
  std::string main_exit_codes;
};

constexpr size_t kMainExitCodes = 256;

// On the JS thread, before the spawn, once; the binding has checked the values. A stop signal
// already counted arms it at once.
void set_stop_deadline(const StopDeadline& deadline);

// From the signal handler, for each signal received: the first stop signal arms the timer.
void arm_stop_deadline_on(int signal);

// From the reaper thread, when the main child has exited with `status` (a wait status). As PID 1
// with no stop signal armed yet: arms the timer for main_exit_answer_ms. JS that answers in time
// (main_exit_answered) turns it into the deadline. JS that does not (its code pages reclaimed at
// a cgroup v2 memory limit, a blocked loop) gets TERM sent to every process left on its behalf,
// which ends what holds the memory, and the deadline counted from then.
void arm_stop_deadline_on_main_exit(int status);

// On the JS thread, once it has handled the main child's exit (and sent its own TERM).
void main_exit_answered();

// From the signal handler: true when this SIGALRM is the deadline's own (the kernel's timer
// sends it with SI_KERNEL, which no other process can forge); then it does not return.
bool is_stop_deadline(int signal, const siginfo_t* info);

}  // namespace sexton
