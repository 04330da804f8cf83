// The reaper thread: the only place sexton calls wait. A dedicated thread keeps reaping while
// the JS thread is busy, and blocking in waitid needs no SIGCHLD handler (Node runs threads
// that do not block SIGCHLD, so signalfd-based designs lose wake-ups).
#include "reaper.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "reaped_commands.h"
#include "state.h"

namespace sexton {
namespace {

ReapListener* listener = nullptr;  // heap, never destroyed

ReapEvent main_exit_event(pid_t pid, int status) {
  ReapEvent event{ReapEvent::kMainExited, pid};
  if (WIFEXITED(status)) event.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) event.signal = WTERMSIG(status);
  return event;
}

// Reaps every child that has exited. SIGCHLDs and waitid wake-ups coalesce, so the main
// child is recognised here, inside the loop, whichever exit woke us. The mutex is held
// throughout: spawn registers the main child under it, so it is never reaped unknown.
void reap_zombies() {
  MainChild& child = main_child();
  Counters& stats = counters();
  std::lock_guard<std::mutex> lock(child.mutex);
  // Reading a name costs a /proc open: name only the first orphan of each wake-up and reap the
  // rest of a burst with one call each, so that naming never lets zombies pile up.
  bool name_next = true;
  for (;;) {
    int status = 0;
    pid_t pid;
    if (name_next) {
      // Look before reaping (WNOWAIT): an orphan's name is only readable while it is a zombie.
      siginfo_t info = {};
      if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
      pid = info.si_pid;
      if (pid != child.pid) {
        count_reaped_command(pid, true);
        name_next = false;
      }
      if (waitpid(pid, &status, WNOHANG) != pid) return;
    } else {
      pid = waitpid(-1, &status, WNOHANG);
      if (pid <= 0) return;
      if (pid != child.pid) count_reaped_command(pid, false);
    }
    stats.reaped.fetch_add(1);
    if (pid != child.pid) {
      stats.orphans_reaped.fetch_add(1);
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

void reaper_loop() {
  MainChild& child = main_child();
  uint64_t seen_spawns = 0;
  bool had_children = false;
  for (;;) {
    siginfo_t info = {};
    // WNOWAIT: only wait for an exit here; reap_zombies does the reaping under the mutex.
    int rc = waitid(P_ALL, 0, &info, WEXITED | WNOWAIT);
    if (rc == 0) {
      had_children = true;
      reap_zombies();
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

void start_reaper(ReapListener on_event) {
  if (listener != nullptr) return;
  listener = new ReapListener(std::move(on_event));
  std::thread(reaper_loop).detach();
}

}  // namespace sexton
