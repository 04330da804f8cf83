// A crowded node for the scan benchmark, run as PID 1 of a fresh PID namespace:
//
//   crowd PROCESSES ZOMBIES   forks PROCESSES children; ZOMBIES of them exit at once and are
//                             never waited for, the rest pause; prints "ready" when all exist
//
// The bench SIGKILLs the namespace when done, which takes every child with it.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: crowd PROCESSES ZOMBIES\n");
    return 2;
  }
  long processes = atol(argv[1]);
  long zombies = atol(argv[2]);
  // Children that would outlive us die with us (PR_SET_PDEATHSIG is not needed: as PID 1 our
  // death takes the namespace down).
  for (long i = 0; i < processes; i++) {
    pid_t pid = fork();
    if (pid < 0) {
      perror("crowd: fork");
      return 1;
    }
    if (pid == 0) {
      if (i < zombies) _exit(0);
      for (;;) pause();
    }
  }
  printf("ready\n");
  fflush(stdout);
  for (;;) pause();
}
