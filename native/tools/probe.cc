// `sexton probe [--timeout S] [--kill-after S] -- CMD...`: an exec probe that leaves nothing
// behind, at the price of timeout(1). A runtime that gives up on a probe reaps its shell and
// leaves the children to the container's PID 1, still running (a hung curl, a setsid'd helper).
// This runs CMD as a subreaper in a process group of its own, so everything CMD starts stays
// below it, even what leaves the group or the session: on timeout the whole tree gets TERM, KILL
// after --kill-after (repeated: a process may fork meanwhile), every process is reaped, and the
// status is 124 as timeout(1)'s. One thread, signals taken with sigtimedwait.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../end_tree.h"
#include "errno_name.h"
#include "probe_options.h"
#include "text.h"

using namespace sexton;

namespace {

const int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP};
/** Why the tree is ended when no signal asked for it. */
constexpr int kTimeout = 0, kLeftovers = -1;

int fail(const Text& message, int code) { return say("sexton probe", message, code); }

double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// Whether /proc is this PID namespace's: another's would name other processes by our pids.
bool proc_shows_own_namespace() {
  char link[32];
  ssize_t n = readlink("/proc/self", link, sizeof link - 1);
  if (n <= 0) return false;
  link[n] = '\0';
  return atoi(link) == getpid();
}

// Where execve looks for CMD: the names along PATH, as a shell would try them.
[[noreturn]] void exec_command(char** command, int report_fd) {
  int failure = ENOENT;
  const char* name = command[0];
  if (strchr(name, '/') != nullptr) {
    execv(name, command);
    failure = errno;
  } else {
    const char* path = getenv("PATH");
    if (path == nullptr || *path == '\0') path = "/usr/local/bin:/usr/bin:/bin";
    // As execvp: EACCES on any candidate wins over ENOENT on the rest.
    for (const char* dir = path;; dir++) {
      const char* end = strchrnul(dir, ':');
      Text candidate;
      if (end == dir) candidate.add('.');
      candidate.add(dir, end - dir).add('/').add(name).add('\0');
      execv(candidate.data(), command);
      if (errno == EACCES) failure = EACCES;
      else if (errno != ENOENT && errno != ENOTDIR) { failure = errno; break; }
      if (*end == '\0') break;
      dir = end;
    }
  }
  ssize_t ignored = write(report_fd, &failure, sizeof failure);
  (void)ignored;
  _exit(127);
}

// In the child: a process group of its own (the terminal's foreground when we held it), the
// signal state of a fresh process, then CMD.
[[noreturn]] void start_child(char** command, bool give_terminal, int report_fd) {
  setpgid(0, 0);
  if (give_terminal) {
    signal(SIGTTOU, SIG_IGN);
    tcsetpgrp(STDIN_FILENO, getpid());
    signal(SIGTTOU, SIG_DFL);
  }
  for (int s : kStopSignals) signal(s, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  exec_command(command, report_fd);
}

class Probe {
 public:
  explicit Probe(const ProbeOptions& options) : options_(options), sees_tree_(proc_shows_own_namespace()) {}

  int run() {
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
      Text m;
      fail(m.add("cannot become a subreaper: what CMD daemonizes escapes to PID 1"), 0);
    }
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    for (int s : kStopSignals) sigaddset(&handled, s);
    sigprocmask(SIG_BLOCK, &handled, nullptr);
    if (!spawn()) return exit_code_;
    timeout_at_ = now() + options_.timeout;
    while (!done_) {
      double wake = stopping_ ? kill_at_ : timeout_at_;
      double wait = wake - now();
      if (wait <= 0) {
        on_time();
        continue;
      }
      timespec t{static_cast<time_t>(wait), static_cast<long>((wait - static_cast<time_t>(wait)) * 1e9)};
      int s = sigtimedwait(&handled, nullptr, &t);
      if (s == SIGCHLD) reap();
      else if (s > 0) stop(s);
    }
    return timed_out_ ? kProbeTimedOut : status_;
  }

 private:
  bool spawn() {
    Text message;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return cannot_start(errno);
    bool give_terminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    pid_t pid = fork();
    if (pid == 0) start_child(options_.command, give_terminal, report[1]);
    close(report[1]);
    if (pid < 0) {
      close(report[0]);
      return cannot_start(errno);
    }
    main_pid_ = pid;
    int exec_errno = 0;
    ssize_t n;
    do n = read(report[0], &exec_errno, sizeof exec_errno);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == sizeof exec_errno) {
      // The failed child is reaped below; its status is the one timeout(1) gives.
      status_ = exec_errno == ENOENT ? kProbeNotFound : kProbeCannotRun;
      has_status_ = true;
      message.add("cannot run ").add_quoted(options_.command[0]).add(": ");
      add_errno_name(message, exec_errno);
      fail(message, 0);
    }
    return true;
  }

  bool cannot_start(int error) {
    Text message;
    message.add("cannot start ").add_quoted(options_.command[0]).add(": fork failed (");
    add_errno_name(message, error);
    exit_code_ = fail(message.add(')'), kProbeCannotRun);
    return false;
  }

  void on_time() {
    if (!stopping_) return stop(kTimeout);
    signal_tree(SIGKILL);
    kill_at_ = now() + kKillRepeatSeconds;
  }

  // TERM to the group and to every process below, then KILL rounds after --kill-after. `why`:
  // the signal that asked us to stop, kTimeout, or kLeftovers (what CMD left running).
  void stop(int why) {
    if (why == kTimeout && !has_status_ && !timed_out_) {
      timed_out_ = true;
      Text message, command;
      for (char** arg = options_.command; *arg; arg++) command.add(arg == options_.command ? "" : " ").add(*arg);
      message.add_quoted(command.data(), command.size()).add(" did not finish within ").add(options_.timeout_text);
      fail(message.add(" s: terminating its process tree"), 0);
    }
    if (why > 0 && !has_status_) status_ = 128 + why, has_status_ = true;
    if (stopping_) return;
    stopping_ = true;
    signal_tree(SIGTERM);
    kill_at_ = now() + options_.kill_after;
  }

  void signal_tree(int signal) {
    if (main_pid_ > 0) kill(-main_pid_, signal);
    if (sees_tree_) signal_descendants(signal);
  }

  void reap() {
    int wstatus;
    pid_t pid;
    bool main_exited = false;
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
      if (pid != main_pid_) continue;
      main_exited = true;
      if (!has_status_) {
        status_ = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);
        has_status_ = true;
      }
    }
    bool none_left = pid < 0 && errno == ECHILD;
    if ((has_status_ || timed_out_) && none_left) done_ = true;
    else if (main_exited) stop(kLeftovers);  // what CMD left running must not outlive the probe
  }

  const ProbeOptions& options_;
  const bool sees_tree_;
  pid_t main_pid_ = 0;
  int status_ = 0;
  bool has_status_ = false;
  bool timed_out_ = false;
  bool stopping_ = false;
  bool done_ = false;
  int exit_code_ = 0;
  double timeout_at_ = 0;
  double kill_at_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  ProbeOptions options;
  Text error;
  if (!parse_probe_args(argc - 1, argv + 1, &options, &error)) {
    return fail(error.add("; try 'sexton probe --help'"), kProbeBadUsage);
  }
  if (options.help) {
    Text usage;
    usage.add(kProbeHelp).write_to(1);
    return 0;
  }
  return Probe(options).run();
}
