// A minimal C init that forwards SIGUSR1 to its child in one of two ways, to tell the cost of
// sexton's design (a handler that forwards, on a thread asleep in poll) from its code:
//   forwarder --handler -- CMD...   a sigaction handler forwards; the process sleeps in poll
//   forwarder --sigwait -- CMD...   SIGUSR1 blocked, a sigtimedwait loop forwards (tini's way)
// and, to tell sexton's design from its size, the handler design shaped like sexton:
//   forwarder --handler --threads N --touch MIB -- CMD...
// N more threads that block every signal and sleep, MIB MiB of memory written once, and the
// handler on a thread of its own (the main thread blocks SIGUSR1 and reaps), as in sexton where
// Node's threads block it and the notifier thread takes it.
// It reaps whatever exits and leaves when its child does. bench/probes/signals.mjs runs it.
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;

static void forward(int sig) { kill(child, sig); }

static void *sleep_forever(void *handles) {
  if (handles) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  }
  for (;;) poll(NULL, 0, -1);
  return NULL;
}

static int reap_until_child_exits(void) {
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
}

int main(int argc, char **argv) {
  int handler = 0, threads = -1, touch_mib = 0, i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--handler") == 0) handler = 1;
    else if (strcmp(argv[i], "--sigwait") == 0) handler = 0;
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
    else if (strcmp(argv[i], "--touch") == 0 && i + 1 < argc) touch_mib = atoi(argv[++i]);
    else break;
  }
  if (i + 1 >= argc || strcmp(argv[i], "--") != 0) {
    fprintf(stderr, "usage: forwarder --handler|--sigwait [--threads N --touch MIB] -- CMD...\n");
    return 2;
  }
  char **command = argv + i + 1;
  sigset_t usr1, all;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &usr1, NULL);
  if (touch_mib > 0) {
    char *memory = malloc((size_t)touch_mib << 20);
    if (memory == NULL) return 2;
    memset(memory, 1, (size_t)touch_mib << 20);
  }
  child = fork();
  if (child == 0) {
    sigprocmask(SIG_UNBLOCK, &usr1, NULL);
    execvp(command[0], command);
    _exit(127);
  }
  if (handler) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    sigaction(SIGUSR1, &action, NULL);
  }
  if (threads >= 0 && handler) {
    pthread_t thread;
    pthread_sigmask(SIG_BLOCK, &all, NULL);  // what threads made now inherit
    for (int n = 0; n < threads; n++) pthread_create(&thread, NULL, sleep_forever, NULL);
    pthread_create(&thread, NULL, sleep_forever, (void *)1);
    return reap_until_child_exits();
  }
  if (handler) sigprocmask(SIG_UNBLOCK, &usr1, NULL);
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
