#include "probe_options.h"

#include <stdlib.h>
#include <string.h>

#include "flag.h"
#include "text.h"

namespace sexton {

const char kProbeHelp[] =
    "Usage: sexton probe [--timeout SECONDS] [--kill-after SECONDS] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND for an exec probe (Kubernetes livenessProbe/readinessProbe exec, podman/Docker\n"
    "HEALTHCHECK) so that nothing it starts outlives it: COMMAND runs in a process group of its own\n"
    "under this process as a subreaper, so even what it daemonizes or setsid's stays below it.\n"
    "After --timeout (default 10) every process of the tree gets TERM, and KILL after --kill-after\n"
    "more (default 1); all are reaped. When COMMAND ends in time, whatever it left running is\n"
    "terminated the same way. Set --timeout below the probe's timeoutSeconds: a runtime that gives up\n"
    "first kills this process and not its tree.\n"
    "\n"
    "Exit status: COMMAND's (128+N when killed by signal N); 124 when it timed out; 125 bad usage;\n"
    "126 COMMAND could not run; 127 COMMAND was not found.\n";

namespace {

bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Digits, optionally a point and more digits; from 0 to 86400, not 0. The trimmed text is kept
// in a static buffer for messages, as JavaScript would print the number: no leading or trailing
// zeros.
bool seconds(const char* name, const char* text, double* value, const char** shown, Text* error) {
  static char kept[2][32];
  static int next = 0;
  const char* from = text ? text : "";
  const char* to = from + strlen(from);
  while (from < to && is_space(*from)) from++;
  while (to > from && is_space(to[-1])) to--;
  const char* at = from;
  while (at < to && *at >= '0' && *at <= '9') at++;
  bool digits = at > from;
  const char* point = at;
  if (digits && at < to && *at == '.') {
    at++;
    while (at < to && *at >= '0' && *at <= '9') at++;
    digits = at > point + 1;
  }
  double number = digits && at == to ? strtod(from, nullptr) : 0;
  if (!digits || at != to || number <= 0 || number > 86400) {
    error->add(name).add(" needs seconds from 0 to 86400 (not 0), e.g. 5 or 0.5, not ").add_quoted(text ? text : "");
    return false;
  }
  *value = number;
  // The whole part without leading zeros (86400 at most: it fits), the fraction without trailing.
  const char* whole = from;
  while (whole + 1 < point && *whole == '0') whole++;
  const char* end = to;
  if (point < to) {
    while (end > point + 1 && end[-1] == '0') end--;
    if (end == point + 1) end = point;
  }
  char* out = kept[next++ & 1];
  size_t length = static_cast<size_t>(end - whole) < sizeof kept[0] - 1 ? end - whole : sizeof kept[0] - 1;
  memcpy(out, whole, length);
  out[length] = '\0';
  *shown = out;
  return true;
}

}  // namespace

bool parse_probe_args(int argc, char** argv, ProbeOptions* options, Text* error) {
  const char* unused = nullptr;
  for (int i = 0; i < argc; i++) {
    Flag flag(argc, argv, &i);
    auto is = [&](const char* name) { return flag.is(name); };
    auto value = [&]() { return flag.value(); };
    if (is("--")) {
      if (i + 1 >= argc || argv[i + 1][0] == '\0') return error->add("no command after --"), false;
      options->command = argv + i + 1;
      return true;
    }
    if (is("-h") || is("--help")) {
      options->help = true;
      return true;
    }
    if (is("--timeout")) {
      if (!seconds("--timeout", value(), &options->timeout, &options->timeout_text, error)) return false;
    } else if (is("--kill-after")) {
      if (!seconds("--kill-after", value(), &options->kill_after, &unused, error)) return false;
    } else if (flag.word()[0] == '-') {
      return error->add("unknown option ").add_quoted(flag.word()), false;
    } else {
      options->command = argv + i;
      return true;
    }
  }
  return error->add("no command given"), false;
}

}  // namespace sexton
