#include "state.h"

namespace sexton {

Counters& counters() {
  static Counters* instance = new Counters();  // never destroyed, see state.h
  return *instance;
}


}  // namespace sexton
