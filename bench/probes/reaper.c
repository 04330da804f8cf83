// A minimal init for bench/probes/reaper.mjs: sexton's reaping scheme (a thread blocked in
// waitid(WNOWAIT) that drains with waitpid(WNOHANG)) without Node around it.
//   reaper [--comm] -- command...
// --comm also opens and reads /proc/PID/comm of each zombie before reaping it, as sexton's
// reaper does to count reaped commands by name; --comm-first only for the first zombie of each
// wake-up, leaving a backlog unnamed (a possible fix).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t main_child;
static int read_comm;  // 0 never, 1 every zombie, 2 the first of each wake-up

static void look_at(pid_t zombie) {
  char path[32], name[16];
  snprintf(path, sizeof path, "/proc/%d/comm", zombie);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t ignored = read(fd, name, sizeof name - 1);
  (void)ignored;
  close(fd);
}

static void *reap_forever(void *unused) {
  (void)unused;
  for (;;) {
    siginfo_t info;
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) _exit(1);
    for (int n = 0;; n++) {
      memset(&info, 0, sizeof info);
      if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) break;
      if (read_comm == 1 || (read_comm == 2 && n == 0)) look_at(info.si_pid);
      if (waitpid(info.si_pid, NULL, WNOHANG) == main_child) _exit(0);
    }
  }
}

int main(int argc, char **argv) {
  int at = 1;
  if (at < argc && strcmp(argv[at], "--comm") == 0) read_comm = 1, at++;
  else if (at < argc && strcmp(argv[at], "--comm-first") == 0) read_comm = 2, at++;
  if (at < argc && strcmp(argv[at], "--") == 0) at++;
  main_child = fork();
  if (main_child == 0) {
    execvp(argv[at], argv + at);
    _exit(127);
  }
  pthread_t thread;
  pthread_create(&thread, NULL, reap_forever, NULL);
  for (;;) pause();
}
