// A signal sender written in C, to compare with the bench's (Node) sender: it starts the
// namespace, stamps CLOCK_MONOTONIC, sends SIGUSR1 to PID 1 and reads the stamp that the
// child's handler prints (bench/child.c), one signal at a time, 1-3 ms apart.
//
//   signal-sender [--count N] [--settle MS] [--spin US] [--skip N] -- unshare ... INIT ... child signals
//
// --spin US: after each kill, spin US microseconds before reading (the bench's Node sender
// keeps its CPU busy for tens of µs after process.kill: promises, timers, back to epoll).
// --skip N: leave out the first N signals of the block (warm-up).
// Prints one latency in ns per line; exits 1 on a lost signal (none back after 1 s).
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
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

static int in_fd;
static char buffer[4096];
static size_t held;

// The next line of the child's stdout, or NULL after timeout_ms.
static char *next_line(int timeout_ms) {
  static char line[256];
  for (;;) {
    char *end = memchr(buffer, '\n', held);
    if (end != NULL) {
      size_t n = (size_t)(end - buffer);
      if (n >= sizeof line) n = sizeof line - 1;
      memcpy(line, buffer, n);
      line[n] = '\0';
      held -= (size_t)(end - buffer) + 1;
      memmove(buffer, end + 1, held);
      return line;
    }
    struct pollfd fd = {in_fd, POLLIN, 0};
    if (poll(&fd, 1, timeout_ms) <= 0) return NULL;
    ssize_t got = read(in_fd, buffer + held, sizeof buffer - held);
    if (got <= 0) return NULL;
    held += (size_t)got;
  }
}

static pid_t pid1_of(pid_t unshare) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/task/%d/children", unshare, unshare);
  for (int tries = 0; tries < 5000; tries++) {
    FILE *f = fopen(path, "r");
    int pid = 0;
    if (f != NULL) {
      if (fscanf(f, "%d", &pid) != 1) pid = 0;
      fclose(f);
    }
    if (pid > 0) return pid;
    usleep(1000);
  }
  return -1;
}

int main(int argc, char **argv) {
  int count = 200, settle_ms = 100, spin_us = 0, skip = 0, at = 1;
  for (; at < argc && strcmp(argv[at], "--") != 0; at += 2) {
    if (at + 1 >= argc) return 2;
    int value = atoi(argv[at + 1]);
    if (strcmp(argv[at], "--count") == 0) count = value;
    else if (strcmp(argv[at], "--settle") == 0) settle_ms = value;
    else if (strcmp(argv[at], "--spin") == 0) spin_us = value;
    else if (strcmp(argv[at], "--skip") == 0) skip = value;
    else return 2;
  }
  if (at + 1 >= argc) return 2;
  int out[2];
  if (pipe(out) != 0) return 2;
  pid_t unshare = fork();
  if (unshare == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    execvp(argv[at + 1], argv + at + 1);
    _exit(127);
  }
  close(out[1]);
  in_fd = out[0];
  int rc = 0;
  pid_t pid1 = pid1_of(unshare);
  char *line = next_line(5000);
  if (pid1 < 0 || line == NULL || strcmp(line, "ready") != 0) {
    fprintf(stderr, "signal-sender: no ready from PID 1\n");
    rc = 1;
    goto done;
  }
  usleep((useconds_t)settle_ms * 1000);
  for (int i = 0; i < count; i++) {
    unsigned long long sent = monotonic_ns();
    kill(pid1, SIGUSR1);
    if (spin_us > 0) {
      while (monotonic_ns() - sent < (unsigned long long)spin_us * 1000) {
      }
    }
    line = next_line(1000);
    if (line == NULL) {
      fprintf(stderr, "signal-sender: signal %d lost\n", i);
      rc = 1;
      goto done;
    }
    if (i >= skip) printf("%llu\n", strtoull(line, NULL, 10) - sent);
    usleep((useconds_t)(1000 + (i % 3) * 1000));
  }
done:
  fflush(stdout);
  kill(unshare, SIGKILL);
  waitpid(unshare, NULL, 0);
  return rc;
}
