// The child the bench runs under each init, compiled with cc when the bench starts.
//
//   child signals         stamps CLOCK_MONOTONIC in its SIGUSR1 handler and prints the stamp (ns);
//                         SIGTERM keeps its default action: a cooperative child
//   child storm-signals   the same, with a background process that makes orphans without pause
//   child stubborn        ignores SIGTERM
//   child stamp-exit [MiB] touches MiB of memory, prints a stamp and calls _exit at once
//                         (bench/probes/teardown.mjs: how long the kernel takes to tear it down)
//   child burst N         makes N orphans that wait in one process group (SIGKILL to the group
//                         ends them all: bench/measure/burst.mjs), prints "ready" and sleeps
//
// Each mode prints "ready" once its handlers are in place: signals sent before that are racy.
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

static void say(const char *text) {
  ssize_t ignored = write(1, text, strlen(text));
  (void)ignored;
}

// Runs when the forwarded signal arrives: only async-signal-safe calls (clock_gettime, write).
static void stamp(int sig) {
  (void)sig;
  unsigned long long ns = monotonic_ns();
  char text[32];
  int at = sizeof text;
  text[--at] = '\n';
  do {
    text[--at] = (char)('0' + ns % 10);
    ns /= 10;
  } while (ns != 0);
  ssize_t ignored = write(1, text + at, sizeof text - at);
  (void)ignored;
}

// Each round forks a middle process that forks the orphan and exits at once: the orphan is
// re-parented to PID 1, and PID 1 must reap it. SIGUSR1 is ignored here because dumb-init
// forwards signals to the whole process group.
static void make_orphans_forever(void) {
  signal(SIGUSR1, SIG_IGN);
  for (;;) {
    pid_t middle = fork();
    if (middle == 0) {
      if (fork() == 0) _exit(0);
      _exit(0);
    }
    if (middle > 0) waitpid(middle, NULL, 0);
    else usleep(1000);  // EAGAIN: the pid limit; let the init catch up
  }
}

// N orphans of PID 1 in the process group of `leader` (a child of ours that only waits): each
// is forked by a middle process that exits at once. Both set the group, so it is set before
// the middle exits, whichever runs first.
static void make_waiting_orphans(int count) {
  pid_t leader = fork();
  if (leader == 0) {
    setpgid(0, 0);
    for (;;) pause();
  }
  setpgid(leader, leader);
  for (int i = 0; i < count; i++) {
    pid_t middle = fork();
    if (middle == 0) {
      pid_t orphan = fork();
      if (orphan == 0) {
        setpgid(0, leader);
        for (;;) pause();
      }
      if (orphan > 0) setpgid(orphan, leader);
      _exit(orphan > 0 ? 0 : 1);
    }
    int status = 1;
    if (middle < 0 || waitpid(middle, &status, 0) != middle || status != 0) {
      say("burst: fork failed\n");
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "stamp-exit") == 0) {
    size_t bytes = (size_t)(argc > 2 ? atol(argv[2]) : 0) << 20;
    volatile char *memory = malloc(bytes);  // volatile: the compiler must not drop the writes
    for (size_t at = 0; memory && at < bytes; at += 4096) memory[at] = 1;
    stamp(0);
    _exit(0);
  }
  if (strcmp(mode, "burst") == 0) {
    make_waiting_orphans(argc > 2 ? atoi(argv[2]) : 2000);
    say("ready\n");
    for (;;) pause();
  }
  if (strcmp(mode, "storm-signals") == 0) {
    if (fork() == 0) make_orphans_forever();
    mode = "signals";
  }
  if (strcmp(mode, "signals") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = stamp;
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);
  } else if (strcmp(mode, "stubborn") == 0) {
    signal(SIGTERM, SIG_IGN);
  } else {
    say("usage: child signals|storm-signals|stubborn|stamp-exit [MiB]|burst N\n");
    return 2;
  }
  say("ready\n");
  for (;;) pause();
}
