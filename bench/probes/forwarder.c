// A minimal C init that forwards SIGUSR1 to its child in one of two ways, to tell the cost of
// sexton's design (a handler that forwards, on a thread asleep in poll) from its code:
//   forwarder --handler -- CMD...   a sigaction handler forwards; the process sleeps in poll
//   forwarder --sigwait -- CMD...   SIGUSR1 blocked, a sigtimedwait loop forwards (tini's way)
// It reaps whatever exits and leaves when its child does. bench/probes/signals.mjs runs it.
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;

static void forward(int sig) { kill(child, sig); }

int main(int argc, char **argv) {
  if (argc < 4 || strcmp(argv[2], "--") != 0) {
    fprintf(stderr, "usage: forwarder --handler|--sigwait -- CMD...\n");
    return 2;
  }
  int handler = strcmp(argv[1], "--handler") == 0;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigprocmask(SIG_BLOCK, &usr1, NULL);
  child = fork();
  if (child == 0) {
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    execvp(argv[3], argv + 3);
    _exit(127);
  }
  if (handler) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    sigaction(SIGUSR1, &action, NULL);
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
  }
  for (;;) {
    if (handler) {
      poll(NULL, 0, 1000);
    } else {
      struct timespec second = {1, 0};
      siginfo_t info;
      if (sigtimedwait(&usr1, &info, &second) == SIGUSR1) kill(child, SIGUSR1);
    }
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      if (pid == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
  }
}
