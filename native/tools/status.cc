// `sexton status [--json] [--ready] [--socket ADDRESS] [--pid N] [--max-zombies N]`: asks the
// running sexton over its status socket (connect, check who answers, read one JSON answer),
// prints, and exits by the table in src/config/exit-codes.ts, chosen for probes: Docker's
// HEALTHCHECK reserves 2. At the price of `nc -U`: no Node starts for an exec probe.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "errno_name.h"
#include "flag.h"
#include "json.h"
#include "status_table.h"
#include "text.h"

using namespace sexton;

namespace {

enum StatusExit { kOk = 0, kTooManyZombies = 1, kNotReady = 1, kNoAnswer = 3, kRefused = 4, kUsage = 64 };

const char kHelp[] =
    "Usage: sexton status [--json] [--ready] [--socket ADDRESS] [--pid N] [--max-zombies N]\n"
    "\n"
    "Asks the sexton running as PID 1 of this PID namespace (the container) what it has reaped,\n"
    "forwarded and seen, over its status socket: by default an abstract socket named after the PID\n"
    "namespace, so it needs no file; --socket names another (a path, or @NAME for an abstract one).\n"
    "Only PID 1's answer is trusted, or that of the pid given with --pid N.\n"
    "\n"
    "--ready is the exec form of GET /readyz: one line, and exit 0 when sexton is ready (the app\n"
    "runs, has said READY=1 under --ready-when notify, and no stop signal has come), 1 when not.\n"
    "\n"
    "Exit status: 0 answered (--ready: and ready); 1 more zombies than --max-zombies N (for a liveness\n"
    "probe), or --ready and not ready; 3 nobody\n"
    "answered (no sexton, or its status socket is off); 4 the answer was not trusted, or sexton\n"
    "refused us (only root and sexton's own uid may ask); 64 bad usage.\n";

/** How long the answer may keep us waiting, between any two reads. */
constexpr int kTimeoutMs = 2000;
/** A snapshot is a few kB; one that is not is not what we asked. */
constexpr size_t kMaxAnswer = 16 << 20;

int fail(const Text& message, int code) { return say("sexton status", message, code); }

struct Options {
  bool json = false;
  bool ready = false;
  const char* socket = nullptr;
  bool from_env = false;
  unsigned long long pid = 1;
  bool limit_zombies = false;
  unsigned long long max_zombies = 0;
};

// A whole number of at least `min`, saturated (a pid or a count beyond any real one).
bool whole_number(const char* name, const char* text, unsigned long long min, unsigned long long* out, Text& error) {
  const char* t = text ? text : "";
  unsigned long long value = 0;
  bool digits = *t != '\0';
  for (const char* c = t; *c; c++) {
    if (*c < '0' || *c > '9') digits = false;
    else value = value > 1ULL << 60 ? value : value * 10 + (*c - '0');
  }
  if (digits && value >= min) return *out = value, true;
  error.add(name).add(" needs a whole number");
  if (min > 0) error.add(" from ").add_int(static_cast<long long>(min));
  error.add(", not ").add_quoted(t);
  return false;
}

// 0 to go on, -1 when --help was printed, or the exit code of bad usage (with its line said).
int parse(int argc, char** argv, Options& o) {
  const char* env = getenv("SEXTON_STATUS_SOCKET");
  if (env != nullptr && *env != '\0') o.socket = env, o.from_env = true;
  for (int i = 0; i < argc; i++) {
    Flag flag(argc, argv, &i);
    auto is = [&](const char* name) { return flag.is(name); };
    auto value = [&]() { return flag.value(); };
    Text error;
    if (is("--json")) o.json = true;
    else if (is("--ready")) o.ready = true;
    else if (is("--socket")) o.socket = value(), o.from_env = false;
    else if (is("--pid")) {
      if (!whole_number("--pid", value(), 1, &o.pid, error)) return fail(error, kUsage);
    } else if (is("--max-zombies")) {
      if (!whole_number("--max-zombies", value(), 0, &o.max_zombies, error)) return fail(error, kUsage);
      o.limit_zombies = true;
    } else if (is("-h") || is("--help")) {
      Text help;
      help.add(kHelp).write_to(1);
      return -1;
    } else {
      return fail(error.add("unknown option ").add_quoted(flag.word()).add("; try 'sexton status --help'"), kUsage);
    }
  }
  return 0;
}

// @sexton-status.<inode of our PID namespace>: each container's sexton has its own.
void default_address(Text& out) {
  struct stat ns;
  out.add("@sexton-status.");
  if (stat("/proc/self/ns/pid", &ns) == 0) out.add_int(static_cast<long long>(ns.st_ino));
  else out.add("unknown");  // no /proc: every sexton here shares the name, and the peer check tells them apart
}

/** Why the answer could not be had: an errno's name or a sentence; `code` says which exit. */
struct Failure {
  Text why;
  int code = kNoAnswer;
};

// Whether the process at the other end is the sexton we mean to ask; fills `why` when not.
bool trusted(int fd, unsigned long long expected, Text& why) {
  ucred peer;
  socklen_t length = sizeof peer;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
    why.add("cannot tell who answers (SO_PEERCRED failed, errno ").add_int(errno).add(')');
    return false;
  }
  uid_t own = getuid();
  if (peer.uid != 0 && peer.uid != own) {
    why.add("it runs as uid ").add_int(peer.uid).add(", neither root nor uid ").add_int(own);
    return false;
  }
  if (static_cast<unsigned long long>(peer.pid) == expected) return true;
  if (peer.pid == 0) return why.add("it is a process of another PID namespace (another container)"), false;
  why.add("it is pid ").add_int(peer.pid).add(" here, not ");
  if (expected == 1) why.add("PID 1; pass --pid ").add_int(peer.pid).add(" to ask it anyway");
  else why.add("pid ").add_int(static_cast<long long>(expected));
  return false;
}

// '@name' is an abstract socket (Linux): a leading NUL, and no file. Its name is as long as the
// address the server bound: Node 20's libuv binds the whole sockaddr_un (the name padded with
// NULs), later ones the name alone. Both are tried, padded first.
bool connect_to(int fd, const char* address, Failure& failure) {
  sockaddr_un where{};
  where.sun_family = AF_UNIX;
  size_t length = strlen(address);
  bool abstract = address[0] == '@';
  if (length >= sizeof where.sun_path) return add_errno_name(failure.why, ENAMETOOLONG), false;
  memcpy(where.sun_path, address, length);
  if (abstract) where.sun_path[0] = '\0';
  const socklen_t exact = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + length + (abstract ? 0 : 1));
  const socklen_t sizes[] = {abstract ? static_cast<socklen_t>(sizeof where) : exact, exact};
  int error = 0;
  for (socklen_t size : sizes) {
    if (connect(fd, reinterpret_cast<sockaddr*>(&where), size) == 0) return true;
    error = errno;
    if (error != ECONNREFUSED) break;
  }
  add_errno_name(failure.why, error);
  return false;
}

bool read_answer(int fd, Text& answer, Failure& failure) {
  char buffer[16384];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    int ready = poll(&p, 1, kTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return failure.why.add("no answer within ").add_int(kTimeoutMs).add(" ms"), false;
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return add_errno_name(failure.why, errno), false;
    if (n == 0) return true;
    if (answer.size() + n > kMaxAnswer) return failure.why.add("the answer was not JSON"), false;
    answer.add(buffer, static_cast<size_t>(n));
  }
}

bool ask(const char* address, unsigned long long expected, Text& answer, Failure& failure) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return add_errno_name(failure.why, errno), false;
  bool ok = connect_to(fd, address, failure);
  if (ok) {
    Text distrust;
    if (!trusted(fd, expected, distrust)) {
      failure.why.add("the process answering on ").add(address).add(" is not trusted: ").add(distrust.data(), distrust.size());
      failure.code = kRefused;
      ok = false;
    }
  }
  ok = ok && read_answer(fd, answer, failure);
  close(fd);
  return ok;
}

// A /proc file's NUL-separated fields, into `out`; false when unreadable.
bool read_fields(const char* path, Text& out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) out.add(buffer, static_cast<size_t>(n));
  close(fd);
  out.add('\0');
  return n == 0;
}

// Whether `arg` names a sexton: sexton or sexton.js, with or without a directory.
bool names_sexton(const char* arg) {
  const char* base = strrchr(arg, '/');
  base = base ? base + 1 : arg;
  return strcmp(base, "sexton") == 0 || strcmp(base, "sexton.js") == 0;
}

// Why PID 1 has no status socket, when it is a sexton told so; nullptr otherwise.
const char* status_off_in_pid1() {
  Text cmdline, environ;
  if (!read_fields("/proc/1/cmdline", cmdline)) return nullptr;
  bool sexton = false, off = false;
  const char* end = cmdline.data() + cmdline.size() - 1;
  for (const char* arg = cmdline.data(); arg < end && strcmp(arg, "--") != 0; arg += strlen(arg) + 1) {
    sexton = sexton || names_sexton(arg);
    const char* next = arg + strlen(arg) + 1;
    off = off || strcmp(arg, "--status-socket=none") == 0 || (strcmp(arg, "--status-socket") == 0 && next < end && strcmp(next, "none") == 0);
  }
  if (!sexton) return nullptr;
  if (off) return "PID 1 is a sexton started with --status-socket none: its status socket is off";
  // The environment of PID 1 is readable by root and its own uid only.
  if (!read_fields("/proc/1/environ", environ)) return nullptr;
  const char* vars_end = environ.data() + environ.size() - 1;
  for (const char* var = environ.data(); var < vars_end; var += strlen(var) + 1) {
    if (strcmp(var, "SEXTON_STATUS_SOCKET=none") == 0) return "PID 1 is a sexton started with SEXTON_STATUS_SOCKET=none: its status socket is off";
  }
  return nullptr;
}

int print(const Options& o, Json snapshot) {
  Text out;
  if (o.ready) {
    // A sexton from before --health has no health in its answer: it cannot say, so not ready.
    Json health = snapshot["health"];
    bool ready = health.is_object() && health["ready"].is_true();
    if (o.json && health.is_object()) health.add_to(out);
    else if (o.json) out.add("{\"ready\":false,\"reason\":\"this sexton does not report readiness\"}");
    else if (health.is_object()) out.add(ready ? "ready: " : "not ready: "), health["reason"].print_to(out);
    else out.add("not ready: this sexton does not report readiness");
    out.add('\n').write_to(1);
    return ready ? kOk : kNotReady;
  }
  if (o.json) snapshot.add_to(out), out.add('\n');
  else format_status(snapshot, out);
  out.write_to(1);
  Json zombies = snapshot["zombieCount"];
  if (o.limit_zombies && zombies.number() > static_cast<double>(o.max_zombies)) {
    Text message;
    zombies.print_to(message), message.add(" zombies, more than --max-zombies ").add_int(static_cast<long long>(o.max_zombies));
    return fail(message, kTooManyZombies);
  }
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  int parsed = parse(argc - 1, argv + 1, o);
  if (parsed != 0) return parsed < 0 ? kOk : parsed;
  Text message;
  if (o.socket != nullptr && strcmp(o.socket, "none") == 0) {
    message.add("the status socket is off here (").add(o.from_env ? "SEXTON_STATUS_SOCKET=none" : "--socket none").add(')');
    return fail(message, kNoAnswer);
  }
  Text address, answer;
  if (o.socket != nullptr) address.add(o.socket);
  else default_address(address);
  address.add('\0');
  Failure failure;
  Json snapshot;
  if (ask(address.data(), o.pid, answer, failure)) {
    snapshot = parse_json(answer.data(), answer.size());
    if (!snapshot.is_object()) failure.why.add("the answer was not JSON");
  }
  if (snapshot.is_object() && !snapshot["refused"].missing()) {
    message.add("sexton refused to answer: "), snapshot["refused"].print_to(message);
    return fail(message, kRefused);
  }
  if (!snapshot.is_object()) {
    if (failure.code == kRefused) return fail(failure.why, kRefused);
    const char* off = o.socket == nullptr ? status_off_in_pid1() : nullptr;
    if (off != nullptr) return fail(message.add(off), kNoAnswer);
    message.add("no sexton is answering (").add(address.data()).add(": ").add(failure.why.data(), failure.why.size()).add(')');
    return fail(message, kNoAnswer);
  }
  return print(o, snapshot);
}
