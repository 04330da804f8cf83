#include "stop_deadline.h"

#include <sys/time.h>
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
std::atomic<bool> armed{false};

void arm() {
  if (armed.exchange(true)) return;  // the first stop signal counts; later ones change nothing
  itimerval timer = {};
  timer.it_value.tv_sec = settings->milliseconds / 1000;
  timer.it_value.tv_usec = (settings->milliseconds % 1000) * 1000;
  // A plain system call, safe in a handler (POSIX lists alarm(), its coarser form).
  setitimer(ITIMER_REAL, &timer, nullptr);
}

[[noreturn]] void fire() {
  const StopDeadline& d = *settings;
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
  if (configured.load() || deadline.signal <= 0 || deadline.signal >= kMaxSignal) return;
  settings = new StopDeadline(deadline);
  configured.store(true);
  if (counters().received[deadline.signal].load() > 0) arm();  // one came during start-up
}

void arm_stop_deadline_on(int signal) {
  if (configured.load() && signal == settings->signal) arm();
}

bool is_stop_deadline(int signal, const siginfo_t* info) {
  if (signal != SIGALRM || info->si_code != SI_KERNEL || !armed.load()) return false;
  fire();
}

}  // namespace sexton
