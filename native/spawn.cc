// Fork and exec the main child. After fork in a threaded process only async-signal-safe calls
// are allowed, so everything the child needs is built before fork.
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "main_child.h"
#include "signals.h"
#include "state.h"
#include "terminal.h"

extern char** environ;

namespace sexton {
namespace {

// Node ignores SIGPIPE and SIGXFSZ and SIG_IGN survives exec; our handlers must not run in
// the child either. Reset everything to the defaults a shell would give a program.
void reset_signal_dispositions() {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < kMaxSignal; sig++) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
}

// Node marks fds 0-2 close-on-exec and may leave them non-blocking: without this the
// child starts with no stdio at all, or with reads failing with EAGAIN.
void make_stdio_inheritable() {
  for (int fd = 0; fd <= 2; fd++) {
    int fd_flags = fcntl(fd, F_GETFD);
    if (fd_flags >= 0) fcntl(fd, F_SETFD, fd_flags & ~FD_CLOEXEC);
    int fl_flags = fcntl(fd, F_GETFL);
    if (fl_flags >= 0 && (fl_flags & O_NONBLOCK)) fcntl(fd, F_SETFL, fl_flags & ~O_NONBLOCK);
  }
}

// Own process group, so that -g and job control address the child's tree and not sexton.
void become_group_leader(bool give_terminal) {
  setpgid(0, 0);
  if (!give_terminal) return;
  // tcsetpgrp from a background group raises SIGTTOU unless it is blocked.
  sigset_t ttou;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, nullptr);
  tcsetpgrp(STDIN_FILENO, getpid());
}

// Raising one's own oom_score_adj needs no privilege; the child's descendants inherit it.
void set_oom_score_adj(const std::string& value) {
  if (value.empty()) return;
  int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t ignored = write(fd, value.data(), value.size());
  (void)ignored;
  close(fd);
}

[[noreturn]] void exec_child(const SpawnRequest& request, char* const* argv, bool give_terminal, int report_fd) {
  reset_signal_dispositions();
  set_oom_score_adj(request.oom_score_adj);
  // dumb-init's modes: a session of its own (setsid), or sexton's own group (--single-child).
  if (request.session == SpawnRequest::kNewSession) take_new_session();
  else if (request.session == SpawnRequest::kOwnGroup) become_group_leader(give_terminal);
  make_stdio_inheritable();
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);

  // Like execvp: EACCES on any candidate wins over ENOENT on the rest.
  int failure = ENOENT;
  for (const std::string& path : request.candidates) {
    execve(path.c_str(), argv, environ);
    if (errno == EACCES) failure = EACCES;
    else if (errno != ENOENT && errno != ENOTDIR) { failure = errno; break; }
  }
  ssize_t ignored = write(report_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

}  // namespace

SpawnResult spawn(const SpawnRequest& request) {
  SpawnResult result;
  std::vector<char*> argv;
  for (const std::string& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  // Hand the terminal over only when sexton holds it: a backgrounded sexton must not steal it
  // from the shell. (Inside a PID namespace a foreground group led from outside reads as 0.)
  bool give_terminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();

  // Exec failure travels back through a close-on-exec pipe: EOF means exec succeeded.
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    result.fork_errno = errno;
    return result;
  }

  // Block every signal across fork so no handler of ours runs in the child before it resets.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);

  MainChild& child = main_child();
  {
    MainChild::Lock lock(child);
    // vfork: no copy of Node's page tables (0.4 ms at every start). The child only makes
    // system calls on data built above, with every signal blocked, until it execs.
    pid_t pid = vfork();
    if (pid == 0) exec_child(request, argv.data(), give_terminal, report[1]);
    if (pid < 0) {
      result.fork_errno = errno;
    } else {
      lock.registered(pid);
      result.pid = pid;
    }
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  close(report[1]);
  if (result.pid > 0) forward_pending_signals();  // signals that came before there was a child

  if (result.pid > 0) {
    int exec_errno = 0;
    ssize_t n;
    do n = read(report[0], &exec_errno, sizeof exec_errno);
    while (n < 0 && errno == EINTR);
    if (n == sizeof exec_errno) result.exec_errno = exec_errno;
  }
  close(report[0]);
  return result;
}

}  // namespace sexton
