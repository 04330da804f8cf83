// The pod sandbox's process for the CRI tier (no registry here to pull the kubelet's pause
// image from), with the same behaviour: it holds the pod's namespaces, ends on TERM or INT, and
// reaps whatever is re-parented to it when it is the pod's shared PID 1.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void leave(int signo) { _exit(signo == SIGTERM || signo == SIGINT ? 0 : 2); }

static void reap(int signo) {
  (void)signo;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction on_end = {.sa_handler = leave};
  struct sigaction on_child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP | SA_RESTART};
  if (sigaction(SIGINT, &on_end, NULL) < 0 || sigaction(SIGTERM, &on_end, NULL) < 0 ||
      sigaction(SIGCHLD, &on_child, NULL) < 0)
    return 1;
  for (;;) pause();
}
