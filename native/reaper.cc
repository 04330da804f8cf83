// The reaper thread: the only place sexton calls wait. A dedicated thread keeps reaping while
// the JS thread is busy, and blocking in waitid needs no SIGCHLD handler (Node runs threads
// that do not block SIGCHLD, so signalfd-based designs lose wake-ups).
#include "reaper.h"

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reaped_commands.h"
#include "state.h"

namespace sexton {
namespace {

ReapListener* listener = nullptr;  // heap, never destroyed
std::atomic<bool> report_orphans{false};

ReapEvent main_exit_event(pid_t pid, int status) {
  ReapEvent event{ReapEvent::kMainExited, pid};
  if (WIFEXITED(status)) event.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) event.signal = WTERMSIG(status);
  return event;
}

// Naming an orphan costs a /proc open on this thread: at most one a millisecond, so that in a
// storm naming never lets zombies pile up (the rest count as unnamed).
bool time_to_name() {
  static int64_t next_ns = 0;  // only the reaper thread touches it
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  int64_t ns = now.tv_sec * 1000000000LL + now.tv_nsec;
  if (ns < next_ns) return false;
  next_ns = ns + 1000000;
  return true;
}

// Reaps every child that has exited, starting with `first` (which waitid reported but left
// unreaped). SIGCHLDs and waitid wake-ups coalesce, so the main child is recognised here,
// inside the loop, whichever exit woke us. The mutex is held throughout: spawn registers the
// main child under it, so it is never reaped unknown.
void reap_zombies(pid_t first) {
  MainChild& child = main_child();
  Counters& stats = counters();
  std::lock_guard<std::mutex> lock(child.mutex);
  for (pid_t next = first > 0 ? first : -1;; next = -1) {
    int status = 0;
    // An orphan's name is only readable while it is a zombie: look before reaping.
    if (next > 0 && next != child.pid) count_reaped_command(next, time_to_name());
    pid_t pid = waitpid(next, &status, WNOHANG);
    if (pid <= 0) return;
    if (next < 0 && pid != child.pid) count_reaped_command(pid, false);
    stats.reaped.fetch_add(1);
    if (pid != child.pid) {
      stats.orphans_reaped.fetch_add(1);
      if (report_orphans.load()) (*listener)(ReapEvent{ReapEvent::kOrphanReaped, pid});
      continue;
    }
    child.pid = 0;
    // Forwarding ends with the main child: its pid and process group may be reused from now on.
    child.target_pid.store(0);
    ReapEvent event = main_exit_event(pid, status);
    siginfo_t probe = {};
    event.last_child = waitid(P_ALL, 0, &probe, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD;
    (*listener)(event);  // never blocks: it queues the event for JS
  }
}

// With no children waitid fails at once with ECHILD; sleep until the next spawn instead of
// spinning. Only sexton's own spawns can give it children again.
void wait_for_a_child(uint64_t seen_spawns) {
  MainChild& child = main_child();
  std::unique_lock<std::mutex> lock(child.mutex);
  child.spawned.wait(lock, [&] { return child.spawn_count != seen_spawns; });
}

void* reaper_loop(void*) {
  MainChild& child = main_child();
  uint64_t seen_spawns = 0;
  bool had_children = false;
  for (;;) {
    siginfo_t info = {};
    // WNOWAIT: only wait for an exit here; reap_zombies does the reaping under the mutex.
    int rc = waitid(P_ALL, 0, &info, WEXITED | WNOWAIT);
    if (rc == 0) {
      had_children = true;
      reap_zombies(info.si_pid);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != ECHILD) {
      usleep(10000);  // should not happen; never spin a core on it
      continue;
    }
    if (had_children) {
      had_children = false;
      (*listener)(ReapEvent{ReapEvent::kNoChildren});
    }
    {
      std::lock_guard<std::mutex> lock(child.mutex);
      seen_spawns = child.spawn_count;
    }
    // A child spawned between waitid's ECHILD and reading spawn_count is already counted,
    // so check for children once more before sleeping.
    rc = waitid(P_ALL, 0, &info, WEXITED | WNOWAIT | WNOHANG);
    if (rc == 0 || errno != ECHILD) continue;
    wait_for_a_child(seen_spawns);
  }
}

}  // namespace

void set_report_orphans(bool on) { report_orphans.store(on); }

void register_main_child(pid_t pid) {
  MainChild& child = main_child();
  child.pid = pid;
  // A pidfd lets signal handlers signal the child without racing pid reuse (no mutex there).
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  child.pidfd.store(pidfd);
  child.target_pid.store(pid);
  child.spawn_count++;
  child.spawned.notify_all();
}

int start_reaper(ReapListener on_event) {
  if (listener != nullptr) return 0;
  listener = new ReapListener(std::move(on_event));
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);  // waitid, a /proc read: no deep calls
  int rc = pthread_create(&thread, &attr, reaper_loop, nullptr);
  pthread_attr_destroy(&attr);
  if (rc != 0) return rc;
  pthread_detach(thread);
  return 0;
}

}  // namespace sexton
