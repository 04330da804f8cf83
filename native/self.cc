#include "self.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

namespace sexton {

int exec_self(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<char*> args, vars;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  for (const std::string& e : env) vars.push_back(const_cast<char*>(e.c_str()));
  args.push_back(nullptr);
  vars.push_back(nullptr);
  // Node marked stdio close-on-exec at startup; the next sexton needs it as much as this one.
  for (int fd = 0; fd <= 2; fd++) {
    int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  execve(args[0], args.data(), vars.data());
  return errno;
}

// _exit, not exit: static destructors racing the reaper thread deadlocked process.exit().
void exit_now(int code) { _exit(code); }

}  // namespace sexton
