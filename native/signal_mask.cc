#include "signal_mask.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>

#include "state.h"

namespace sexton {
namespace {

std::atomic<bool> installed{false};

// What the handler forwards: every signal it catches but the faults a thread raises on itself.
sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig = 1; sig < kMaxSignal && sig <= SIGRTMAX; sig++) {
    if (is_catchable(sig) && !is_fault_signal(sig)) sigaddset(&set, sig);
  }
  return set;
}

}  // namespace

bool is_fault_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT ||
         sig == SIGTRAP || sig == SIGSYS;
}

bool is_catchable(int sig) {
  // 32 and 33 belong to glibc's threads (sigaction refuses them).
  return sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD && (sig < 32 || sig >= SIGRTMIN);
}

void note_handlers_installed() { installed.store(true); }

void block_forwarded_signals() {
  sigset_t set = forwarded_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void unblock_forwarded_signals() {
  sigset_t set = forwarded_set();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void take_signals_off_main_thread() {
  if (installed.load()) block_forwarded_signals();
}

}  // namespace sexton
