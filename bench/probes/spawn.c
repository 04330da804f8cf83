// How long a fork+exec spawn takes from a process with Node's footprint (~40 MiB touched),
// fork() against vfork(), until the child has exec'd (a CLOEXEC pipe reports it, as in sexton).
//   cc -O2 -o /tmp/spawn bench/probes/spawn.c && /tmp/spawn [MiB] [runs]
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// Spawns /bin/true and returns the ms until its exec succeeded (the pipe's write end closed).
static double spawn_ms(int use_vfork) {
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) exit(1);
  double started = now_ms();
  pid_t pid = use_vfork ? vfork() : fork();
  if (pid == 0) {
    execl("/bin/true", "true", (char *)NULL);
    _exit(127);
  }
  close(report[1]);
  char byte;
  while (read(report[0], &byte, 1) > 0) {}
  double ms = now_ms() - started;
  close(report[0]);
  waitpid(pid, NULL, 0);
  return ms;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  size_t bytes = (size_t)(argc > 1 ? atol(argv[1]) : 40) << 20;
  int runs = argc > 2 ? atoi(argv[2]) : 51;
  volatile char *memory = malloc(bytes);  // volatile: the compiler must not drop the writes
  for (size_t at = 0; memory && at < bytes; at += 4096) memory[at] = 1;
  double forked[runs], vforked[runs];
  for (int i = 0; i < runs; i++) {
    forked[i] = spawn_ms(0);
    vforked[i] = spawn_ms(1);
  }
  qsort(forked, runs, sizeof forked[0], by_value);
  qsort(vforked, runs, sizeof vforked[0], by_value);
  printf("spawn until exec, %zu MiB touched (median of %d): fork %.3f ms, vfork %.3f ms\n", bytes >> 20, runs, forked[runs / 2], vforked[runs / 2]);
  return 0;
}
