// The reaper thread: the only place sexton calls wait. A dedicated thread keeps reaping while
// the JS thread is busy, and blocking in waitid needs no SIGCHLD handler (Node runs threads
// that do not block SIGCHLD, so signalfd-based designs lose wake-ups).
#include "reaper.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "main_child.h"
#include "reaped_commands.h"
#include "signal_mask.h"
#include "state.h"
#include "stop_deadline.h"

namespace sexton {
namespace {

ReapListener* listener = nullptr;  // heap, never destroyed
std::atomic<bool> report_orphans{false};
// Orphan reports queued for JS (high 32 bits) and orphans reaped with no report of their own
// (low 32 bits), changed together: an orphan is counted unreported only while the queue is
// full, so one of the reports then queued takes the count (take_report). Two separate
// counters could lose it between the reaper's "full" and its count.
std::atomic<uint64_t> orphan_reports{0};
constexpr uint64_t kOneQueued = uint64_t{1} << 32;

void report_orphan(pid_t pid) {
  uint64_t now = orphan_reports.load();
  bool room;
  do {
    room = (now >> 32) < kOrphanReportsQueued;
  } while (!orphan_reports.compare_exchange_weak(now, room ? now + kOneQueued : now + 1));
  if (room) (*listener)(ReapEvent{ReapEvent::kOrphanReaped, pid});
}

ReapEvent main_exit_event(pid_t pid, int status) {
  ReapEvent event{ReapEvent::kMainExited, pid};
  if (WIFEXITED(status)) event.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) event.signal = WTERMSIG(status);
  return event;
}

// Naming an orphan costs a /proc open and read on this thread: ~12 µs, four times a waitpid
// (measured). In a storm the reaper thread gets a small share of the CPUs, and names read while
// a backlog waits let zombies pile up (naming half of a storm's orphans tripled its peak). So a
// wake-up after kQuietNs without one opens a burst window of kBurstWindowNs in which every
// orphan is named (a pod's workers killed at once); any other wake-up names only the zombie that
// woke it, however long its backlog: a reaper that keeps up finds one or two, one that fell
// behind in a storm reaps the rest at full speed. A token bucket (kNamingBurst, then one per
// kNsPerName) bounds naming over time. Those not named are counted as unnamed. One name a
// millisecond named ~520 of a 2000-orphan storm and left its peak at 1.5-3x tini's; one every
// 2 ms names ~300 and the peak is within noise of no naming at all (bench/RESULTS.md, Notes),
// while 500 a second stays above a steady churn of 200 orphans a second.
constexpr int64_t kNamingBurst = 64;
constexpr int64_t kNsPerName = 2000000;
constexpr int kNamedPerBusyWakeUp = 1;
constexpr int64_t kQuietNs = 10000000;
constexpr int64_t kBurstWindowNs = 20000000;

int64_t monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

class NamingBudget {
 public:
  // Called at each wake-up: sets how many orphans this one may name.
  void wake_up() {
    int64_t now = monotonic_ns();
    int64_t earned = (now - refilled_ns_) / kNsPerName;
    if (earned > 0) {
      tokens_ = tokens_ + earned >= kNamingBurst ? kNamingBurst : tokens_ + earned;
      refilled_ns_ = tokens_ == kNamingBurst ? now : refilled_ns_ + earned * kNsPerName;
    }
    if (now - last_done_ns_ >= kQuietNs) burst_until_ns_ = now + kBurstWindowNs;
    bool burst = now < burst_until_ns_;
    this_wake_up_ = burst || tokens_ < kNamedPerBusyWakeUp ? tokens_ : kNamedPerBusyWakeUp;
  }
  bool available() const { return this_wake_up_ > 0; }
  void spend() {
    tokens_--;
    this_wake_up_--;
  }
  void done() { last_done_ns_ = monotonic_ns(); }

 private:
  int64_t tokens_ = kNamingBurst;
  int64_t this_wake_up_ = 0;
  int64_t refilled_ns_ = monotonic_ns();
  int64_t last_done_ns_ = 0;
  int64_t burst_until_ns_ = 0;
};

NamingBudget* naming = nullptr;  // reaper thread only; heap, never destroyed

// The pid of a child that has exited, left unreaped; 0 when none has.
pid_t exited_child() {
  siginfo_t info = {};
  if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return 0;
  return info.si_pid;
}

// Reaps every child that has exited, starting with `first` (which waitid reported but left
// unreaped). SIGCHLDs and waitid wake-ups coalesce, so the main child is recognised here,
// inside the loop, whichever exit woke us. The mutex is held throughout: spawn registers the
// main child under it, so it is never reaped unknown.
void reap_zombies(pid_t first) {
  MainChild& child = main_child();
  Counters& stats = counters();
  MainChild::Lock lock(child);
  naming->wake_up();
  struct Done {
    ~Done() { naming->done(); }
  } done;
  for (pid_t next = first;; next = -1) {
    bool may_name = naming->available();
    // Naming needs the pid before the reap: ask which child exited, then reap that one.
    if (next < 0 && may_name) next = exited_child();
    if (next == 0) return;  // nothing else has exited
    // An orphan's name is only readable while it is a zombie: look before reaping.
    char name[kCommandSize];
    bool has_name = may_name && next > 0 && next != lock.pid() && read_command(next, name);
    if (has_name) naming->spend();
    int status = 0;
    pid_t pid = waitpid(next, &status, WNOHANG);
    if (pid <= 0) return;
    stats.reaped.fetch_add(1);
    if (pid != lock.pid()) {
      count_reaped_orphan(has_name ? name : nullptr);
      stats.orphans_reaped.fetch_add(1);
      if (report_orphans.load()) report_orphan(pid);
      continue;
    }
    lock.reaped();
    arm_stop_deadline_on_main_exit(status);  // before JS hears of it: JS may never run again
    ReapEvent event = main_exit_event(pid, status);
    siginfo_t probe = {};
    event.last_child = waitid(P_ALL, 0, &probe, WEXITED | WNOHANG | WNOWAIT) != 0 && errno == ECHILD;
    (*listener)(event);  // never blocks: it queues the event for JS
  }
}

// With no children waitid fails at once with ECHILD; sleep until the next spawn instead of
// spinning. Only sexton's own spawns can give it children again.
void wait_for_a_child(uint64_t seen_spawns) {
  MainChild::Lock lock(main_child());
  lock.wait_for_spawn_after(seen_spawns);
}

void* reaper_loop(void*) {
  block_forwarded_signals();  // they go to the notifier (signal_mask.h); waitid is not interrupted
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
      seen_spawns = MainChild::Lock(child).spawns();
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

void take_report(ReapEvent* event) {
  if (event->kind != ReapEvent::kOrphanReaped) return;
  uint64_t now = orphan_reports.load();
  while (!orphan_reports.compare_exchange_weak(now, (now & ~uint64_t{0xffffffff}) - kOneQueued)) {
  }
  event->unreported = static_cast<unsigned>(now & 0xffffffff);
}

int start_reaper(ReapListener on_event) {
  if (listener != nullptr) return 0;
  listener = new ReapListener(std::move(on_event));
  naming = new NamingBudget();
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
