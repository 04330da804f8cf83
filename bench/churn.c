// The soak's workload (bench/measure/soak.mjs), run under each init as its main child:
//
//   churn ORPHANS_PER_SECOND   makes orphans at that rate, without end: each round forks a
//                              middle process that forks the orphan and exits, so the orphan is
//                              re-parented to PID 1 and PID 1 reaps it. Counts the SIGUSR1s the
//                              init forwards and prints "orphans N usr1 M" every 10 s.
//
// Prints "ready" once its SIGUSR1 handler is in place. The bench SIGKILLs the namespace when done.
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1;

static void count(int sig) {
  (void)sig;
  usr1++;
}

static void add_ns(struct timespec *at, long ns) {
  at->tv_nsec += ns;
  while (at->tv_nsec >= 1000000000L) {
    at->tv_nsec -= 1000000000L;
    at->tv_sec++;
  }
}

int main(int argc, char **argv) {
  double rate = argc > 1 ? atof(argv[1]) : 0;
  if (argc != 2 || rate <= 0) {
    fprintf(stderr, "usage: churn ORPHANS_PER_SECOND\n");
    return 2;
  }
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = count;
  action.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &action, NULL);
  printf("ready\n");
  fflush(stdout);

  long period_ns = (long)(1e9 / rate);
  struct timespec next, report;
  clock_gettime(CLOCK_MONOTONIC, &next);
  report = next;
  report.tv_sec += 10;
  unsigned long long orphans = 0;
  for (;;) {
    pid_t middle = fork();
    if (middle == 0) {
      if (fork() == 0) _exit(0);
      _exit(0);
    }
    if (middle > 0) {
      while (waitpid(middle, NULL, 0) < 0 && errno == EINTR) {
        // a forwarded SIGUSR1: wait again
      }
      orphans++;
    }
    add_ns(&next, period_ns);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    // Fallen more than a second behind (a busy machine): start the schedule again from now
    // rather than fork in a burst to catch up.
    if (now.tv_sec > next.tv_sec + 1) next = now;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0) {
      // EINTR: sleep on to the same instant
    }
    if (next.tv_sec > report.tv_sec || (next.tv_sec == report.tv_sec && next.tv_nsec >= report.tv_nsec)) {
      printf("orphans %llu usr1 %ld\n", orphans, (long)usr1);
      fflush(stdout);
      report.tv_sec += 10;
    }
  }
}
