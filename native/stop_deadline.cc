#include "stop_deadline.h"

#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "kill.h"
#include "log_sink.h"
#include "state.h"

namespace sexton {
namespace {

// Written once on the JS thread before `configured` is published; read by handlers after it.
StopDeadline* settings = nullptr;  // heap, never destroyed (state.h)
std::atomic<bool> configured{false};
// kIdle until the first stop signal or main child's exit; kAwaitingJs while the timer waits for
// JS to answer that exit; kArmed once the deadline runs.
enum State { kIdle, kAwaitingJs, kArmed };
std::atomic<int> state{kIdle};
// The status sexton leaves with at a deadline that follows the main child's exit; -1 before.
std::atomic<int> main_exit_code{-1};

void start_timer(long milliseconds) {
  itimerval timer = {};
  timer.it_value.tv_sec = milliseconds / 1000;
  timer.it_value.tv_usec = (milliseconds % 1000) * 1000;
  // A plain system call, safe in a handler (POSIX lists alarm(), its coarser form).
  setitimer(ITIMER_REAL, &timer, nullptr);
}

void arm() {
  int idle = kIdle;
  // The first stop signal counts; later ones change nothing. While JS is awaited after the main
  // child's exit, the deadline follows that wait.
  if (!state.compare_exchange_strong(idle, kArmed)) return;
  start_timer(settings->milliseconds);
}

[[noreturn]] void fire() {
  const StopDeadline& d = *settings;
  int code = main_exit_code.load();
  if (code >= 0) {  // the main child's exit armed it: leave as it did (0..255: the table's size)
    signal_every_process(SIGKILL);
    write_log(d.main_exit_line.data(), d.main_exit_line.size(), 2);
    _exit(static_cast<unsigned char>(d.main_exit_codes[code]));
  }
  // The kill first: a stderr nobody reads must not delay it (write_log never blocks anyway).
  if (d.kill_namespace) {
    signal_every_process(SIGKILL);
  } else {
    signal_main_child_tree_now(SIGKILL, d.child_group, d.walk_proc);
  }
  write_log(d.line.data(), d.line.size(), 2);
  _exit(d.exit_code);
}

}  // namespace

void set_stop_deadline(const StopDeadline& deadline) {
  if (configured.load()) return;  // the binding (addon.cc) keeps the signal within the counters
  settings = new StopDeadline(deadline);
  configured.store(true);
  if (counters().received[deadline.signal].load() > 0) arm();  // one came during start-up
}

void arm_stop_deadline_on(int signal) {
  if (configured.load() && signal == settings->signal) arm();
}

void arm_stop_deadline_on_main_exit(int status) {
  if (!configured.load() || !settings->kill_namespace || settings->main_exit_answer_ms <= 0) return;
  int idle = kIdle;
  // A stop signal that came first keeps its deadline and its exit status.
  if (!state.compare_exchange_strong(idle, kAwaitingJs)) return;
  main_exit_code.store(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
  start_timer(settings->main_exit_answer_ms);
}

void main_exit_answered() {
  int awaiting = kAwaitingJs;
  if (state.compare_exchange_strong(awaiting, kArmed)) start_timer(settings->milliseconds);
}

bool is_stop_deadline(int signal, const siginfo_t* info) {
  if (signal != SIGALRM || info->si_code != SI_KERNEL) return false;
  int awaiting = kAwaitingJs;
  if (state.compare_exchange_strong(awaiting, kArmed)) {
    // JS did not answer the main child's exit: what JS would send first, sent for it.
    signal_every_process(SIGTERM);
    const StopDeadline& d = *settings;
    write_log(d.main_exit_term_line.data(), d.main_exit_term_line.size(), 2);
    start_timer(d.milliseconds);
    return true;
  }
  if (state.load() != kArmed) return false;
  fire();
}

}  // namespace sexton
