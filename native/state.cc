#include "state.h"

namespace sexton {

Counters& counters() {
  static Counters* instance = new Counters();  // never destroyed, see state.h
  return *instance;
}

MainChild& main_child() {
  static MainChild* instance = new MainChild();
  return *instance;
}

}  // namespace sexton
