#include "process_role.h"

#include <sys/prctl.h>

namespace sexton {

bool become_subreaper() { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0; }

bool is_subreaper() {
  int flag = 0;
  return prctl(PR_GET_CHILD_SUBREAPER, &flag, 0, 0, 0) == 0 && flag != 0;
}

bool set_parent_death_signal(int signal) { return prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0) == 0; }

bool set_thread_name(const char* name) {
  return prctl(PR_SET_NAME, reinterpret_cast<unsigned long>(name), 0, 0, 0) == 0;  // NOLINT(runtime/int)
}

}  // namespace sexton
