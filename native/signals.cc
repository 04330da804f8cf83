// Process-wide sigaction handlers. They run on whatever thread the kernel picks, so they use
// only async-signal-safe calls and atomics: forward with pidfd_send_signal/kill, then, when
// policy asked to hear about this signal, post a notice that the notifier thread hands to JS.
#include "signals.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "main_child.h"
#include "notifier.h"
#include "signal_mask.h"
#include "state.h"
#include "stop_deadline.h"

namespace sexton {
namespace {

std::atomic<int> actions[kMaxSignal];
// Whether JS hears of a signal that was simply forwarded: a flood then costs JS nothing.
std::atomic<bool> notify[kMaxSignal];
std::atomic<bool> to_group{false};
std::atomic<uint64_t> pending{0};  // bit n-1: signal n arrived before there was a child
std::atomic<bool> stop_self_after[kMaxSignal];
std::atomic<bool> stop_owed{false};  // a stop-self signal came before the child was registered
std::atomic<bool> group_termed{false};  // group_got_term()
struct sigaction previous[kMaxSignal];  // what was installed before us (V8's SIGSEGV handler)
pid_t own_pid = 0;
bool installed = false;

// si_code > 0 means the kernel raised it for something this process did (a real fault);
// si_pid == own_pid means sexton sent it to itself (abort, or SIGPIPE from its own write).
bool sent_by_someone_else(const siginfo_t* info) {
  return info->si_code <= 0 && info->si_pid != own_pid;
}

// A real crash must stay a crash. Whoever handled the signal before us goes first: Node's
// handler lets V8 turn a WebAssembly trap into a JS exception (we stay installed and the
// program goes on) and otherwise resets to the default. With no handler before us, reset to
// the default: a fault re-executes and kills, a self-sent one is raised again.
void crash_like_before(int sig, siginfo_t* info, void* context) {
  const struct sigaction& before = previous[sig];
  if ((before.sa_flags & SA_SIGINFO) && before.sa_sigaction != nullptr) {
    before.sa_sigaction(sig, info, context);
    return;
  }
  if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(sig);
    return;
  }
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  if (info->si_code <= 0) raise(sig);
}

int deliver(int sig) {
  MainChild& child = main_child();
  pid_t pid = child.target();
  if (pid <= 0) return ESRCH;
  int rc;
  if (to_group.load()) {
    // Set before the kill, so that JS never finds the group's TERM unsent while a member may
    // already have it; taken back if this first one failed (then no member had it).
    bool first = sig == SIGTERM && !group_termed.exchange(true);
    rc = kill(-pid, sig);
    if (rc != 0 && first) group_termed.store(false);
  } else {
    int pidfd = child.pidfd();
    rc = pidfd >= 0 ? static_cast<int>(syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0))
                    : kill(pid, sig);
  }
  return rc == 0 ? 0 : errno;
}

// Counted before the delivery, taken back if it fails: the child may act on the signal and exit
// while this handler's thread waits for a CPU, and whoever reads the counters after that exit
// (the exit summary) must find the forward it caused.
int forward(int sig) {
  std::atomic<uint64_t>& forwarded = counters().forwarded[sig];
  forwarded.fetch_add(1);
  int result = deliver(sig);
  if (result != 0) forwarded.fetch_sub(1);
  return result;
}

void post_signal_notice(int sig, int action, pid_t sender, int result) {
  Notice notice{Notice::kSignal};
  notice.signal = sig;
  notice.action = action;
  notice.sender = sender;
  notice.result = result;
  post_notice(notice);
}

bool failed(int result) { return result != 0 && result != ESRCH && result != kNoChildYet; }

// JS hears of a signal when policy asked to, when policy must act (kNotifyOnly), or when the
// forward failed for a reason other than "no child yet / any more".
void tell_js(int sig, int action, const siginfo_t* info, int result) {
  if (notify[sig].load() || action == kNotifyOnly || failed(result)) post_signal_notice(sig, action, info->si_pid, result);
}

void forward_signal(int sig, siginfo_t* info, void* context) {
  int saved_errno = errno;
  if (is_fault_signal(sig) && !sent_by_someone_else(info)) {
    crash_like_before(sig, info, context);
    errno = saved_errno;
    return;
  }
  if (info->si_pid == own_pid && info->si_code <= 0) {  // our own SIGPIPE and friends
    errno = saved_errno;
    return;
  }
  if (is_stop_deadline(sig, info)) return;  // never returns when it is: sexton leaves
  Counters& stats = counters();
  stats.received[sig].fetch_add(1);
  arm_stop_deadline_on(sig);  // counted first: a deadline set meanwhile sees it either way
  int action = actions[sig].load();
  int result = 0;
  bool stop_left_to_flush = false;
  if (action == kDrop) {
    stats.dropped[sig].fetch_add(1);
  } else if (action > 0) {
    if (main_child().target() <= 0) {
      // Not stopped before the child has it: it may have exec'd while the spawning thread,
      // resumed from vfork, waits for a CPU to register it, and a sexton stopped now would hold
      // the signal until a SIGCONT (seen under load). Owed before the bit is set: whichever
      // flush forwards the signal then stops sexton, once.
      stop_left_to_flush = stop_self_after[sig].load();
      if (stop_left_to_flush) stop_owed.store(true);
      pending.fetch_or(uint64_t{1} << (sig - 1));
      result = kNoChildYet;
      // The child may have been registered meanwhile, after spawn flushed the pending bits.
      // Then it has the signal now, from this flush or from spawn's: JS must not hear "no child"
      // (a HUP sent on the child's first output, before spawn had stored its pid, was logged so).
      if (main_child().target() > 0) result = forward_pending_signals(sig);
    } else {
      result = forward(action);
    }
  }
  tell_js(sig, action, info, result);
  if (stop_self_after[sig].load() && !stop_left_to_flush) kill(own_pid, SIGSTOP);
  errno = saved_errno;
}

}  // namespace

void install_signal_handlers() {
  if (installed) return;
  installed = true;
  note_handlers_installed();
  own_pid = getpid();
  // Create the shared state now: the first caller must not be a signal handler (allocation).
  counters();
  main_child();
  struct sigaction action = {};
  action.sa_sigaction = forward_signal;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&action.sa_mask);  // one handler at a time: counters and notices stay ordered
  for (int sig = 1; sig < kMaxSignal && sig <= SIGRTMAX; sig++) {
    if (!is_catchable(sig)) continue;
    actions[sig].store(sig);  // forward as itself until policy says otherwise
    notify[sig].store(true);  // and tell JS, until policy says what it needs to hear
    sigaction(sig, &action, &previous[sig]);
  }
}

void set_signal_action(int signal, int action) {
  if (signal > 0 && signal < kMaxSignal) actions[signal].store(action);
}

void set_signal_notify(int signal, bool on) {
  if (signal > 0 && signal < kMaxSignal) notify[signal].store(on);
}

void set_forward_to_group(bool group) { to_group.store(group); }

int forward_pending_signals(int watched) {
  uint64_t bits = pending.exchange(0);
  int watched_result = 0;
  bool stop_self = false;
  for (int sig = 1; sig < kMaxSignal; sig++) {
    if (!(bits & (uint64_t{1} << (sig - 1)))) continue;
    int action = actions[sig].load();
    if (action <= 0) continue;
    int result = forward(action);
    stop_self = stop_self || stop_self_after[sig].load();
    if (sig == watched) {
      watched_result = result;  // the handler that asked tells JS itself
    } else if (failed(result) || (result == 0 && notify[sig].load())) {
      // JS hears of a failure it would not hear of otherwise, and of a delivery after the
      // handler told it "no child yet": a HUP sent on the child's first output, before spawn
      // had stored its pid, was logged as never forwarded while the child got it.
      post_signal_notice(sig, action, 0, result);
    }
  }
  if (stop_self && stop_owed.exchange(false)) kill(own_pid, SIGSTOP);  // owed by a handler before the child
  return watched_result;
}

int signal_main_child(int signal) { return forward(signal); }

bool group_got_term() { return group_termed.load(); }

uint64_t signals_received(int signal) {
  sigset_t held;
  bool pending_here = sigpending(&held) == 0 && sigismember(&held, signal) == 1;
  return counters().received[signal].load() + (pending_here ? 1 : 0);
}

void set_stop_self_after(int signal, bool on) {
  if (signal > 0 && signal < kMaxSignal) stop_self_after[signal].store(on);
}

}  // namespace sexton
