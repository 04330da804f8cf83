// `sexton probe`'s command line: timeout(1)'s, which exec probes in the wild already use.
#pragma once

namespace sexton {

class Text;

/** Exit statuses, those of timeout(1). */
enum ProbeExit { kProbeTimedOut = 124, kProbeBadUsage = 125, kProbeCannotRun = 126, kProbeNotFound = 127 };

struct ProbeOptions {
  double timeout = 10;
  double kill_after = 1;
  /** The texts as given (trimmed), for messages: "0.5", not 0.500000. */
  const char* timeout_text = "10";
  char** command = nullptr;
  bool help = false;
};

extern const char kProbeHelp[];

/** false with the reason in `error` (bad usage). */
bool parse_probe_args(int argc, char** argv, ProbeOptions* options, Text* error);

}  // namespace sexton
