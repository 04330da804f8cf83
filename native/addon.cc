// The Node-API surface: checks and converts arguments and results, nothing else; what each call
// does lives in the file that owns it. src/platform/native.ts types it, and its NATIVE_FUNCTIONS
// list is these exports (test/unit/platform/native.test.ts holds the two to one set).
#include <napi.h>
#include <signal.h>
#include <string.h>

#include <errno.h>

#include <climits>
#include <functional>

#include "arguments.h"
#include "kill.h"
#include "log_sink.h"
#include "memory.h"
#include "notifier.h"
#include "notify_socket.h"
#include "peer_credentials.h"
#include "process_role.h"
#include "reaped_commands.h"
#include "reaper.h"
#include "self.h"
#include "signals.h"
#include "spawn.h"
#include "state.h"
#include "stop_deadline.h"
#include "tcp_sockets.h"
#include "terminal.h"

namespace sexton {
namespace {

Napi::Value Spawn(const Napi::CallbackInfo& info) {
  Args args(info, "spawn(argv: (string|Buffer)[], candidates: (string|Buffer)[], oomScoreAdj?: number, session?: 0|1|2)");
  SpawnRequest request;
  request.argv = args.byte_array(0);
  request.candidates = args.byte_array(1);
  if (args.given(2)) request.oom_score_adj = std::to_string(args.int32(2, -1000, 1000));
  if (args.given(3)) request.session = static_cast<SpawnRequest::Session>(args.int32(3, SpawnRequest::kOwnGroup, SpawnRequest::kSameGroup));
  if (args.ok() && (request.argv.empty() || request.candidates.empty())) {
    Napi::TypeError::New(info.Env(), "sexton addon: spawn: argv and candidates must not be empty").ThrowAsJavaScriptException();
    return args.failed();
  }
  if (!args.ok()) return args.failed();
  SpawnResult result = spawn(request);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("pid", result.pid);
  out.Set("execErrno", result.exec_errno);
  out.Set("forkErrno", result.fork_errno);
  return out;
}

Napi::Object to_js(Napi::Env env, const ReapEvent& e) {
  Napi::Object out = Napi::Object::New(env);
  static const char* kinds[] = {"main-exited", "no-children", "orphan-reaped"};
  out.Set("kind", kinds[e.kind]);
  out.Set("pid", e.pid);
  out.Set("exitCode", e.exit_code);
  out.Set("signal", e.signal);
  out.Set("lastChild", e.last_child);
  if (e.kind == ReapEvent::kOrphanReaped) out.Set("unreported", e.unreported);
  return out;
}

Napi::Object to_js(Napi::Env env, const Notice& n) {
  static const char* kinds[] = {"", "signal", "oom", "lost", "wake", "notify"};
  Napi::Object out = Napi::Object::New(env);
  out.Set("kind", kinds[n.kind]);
  out.Set("signal", n.signal);
  out.Set("action", n.action);
  out.Set("sender", n.sender);
  out.Set("errno", n.result);
  return out;
}

// Hands the reaper's events to a JS callback without ever blocking the reaper thread.
ReapListener js_listener(Napi::ThreadSafeFunction tsfn) {
  return [tsfn](const ReapEvent& event) mutable {
    auto* copy = new ReapEvent(event);
    napi_status status = tsfn.NonBlockingCall(copy, [](Napi::Env env, Napi::Function callback, ReapEvent* e) {
      take_report(e);
      Napi::Object out = to_js(env, *e);
      delete e;
      callback.Call({out});
    });
    if (status == napi_ok) return;
    take_report(copy);  // the queue is closing: sexton leaves
    delete copy;
  };
}

Napi::Value StartReaper(const Napi::CallbackInfo& info) {
  Args args(info, "startReaper(onEvent: function)");
  Napi::Function on_event = args.function(0);
  if (!args.ok()) return args.failed();
  // Stays referenced: the event loop must never drain while sexton supervises. Unbounded, but
  // it carries at most two events per spawn, and kOrphanReportsQueued orphan reports.
  auto tsfn = Napi::ThreadSafeFunction::New(info.Env(), on_event, "sexton-reaper", 0, 1);
  return Napi::Number::New(info.Env(), start_reaper(js_listener(tsfn)));
}

// Notices wait in a queue of this many while JS is busy; then the notifier thread waits, the
// pipe fills and handlers drop notices (counted natively, caught up by policy).
constexpr size_t kNoticeQueue = 64;

Napi::Value StartNotifier(const Napi::CallbackInfo& info) {
  Args args(info, "startNotifier(onNotice: function)");
  Napi::Function on_notice = args.function(0);
  if (!args.ok()) return args.failed();
  auto tsfn = Napi::ThreadSafeFunction::New(info.Env(), on_notice, "sexton-notices", kNoticeQueue, 1);
  tsfn.Unref(info.Env());
  int rc = start_notifier([tsfn](const Notice& notice) mutable {
    auto* copy = new Notice(notice);
    napi_status status = tsfn.BlockingCall(copy, [](Napi::Env env, Napi::Function callback, Notice* n) {
      Napi::Object out = to_js(env, *n);
      delete n;
      callback.Call({out});
    });
    if (status != napi_ok) delete copy;
  });
  return Napi::Number::New(info.Env(), rc);
}

Napi::Value InstallSignalHandlers(const Napi::CallbackInfo& info) {
  install_signal_handlers();
  return info.Env().Undefined();
}

Napi::Value SetSignalNotify(const Napi::CallbackInfo& info) {
  Args args(info, "setSignalNotify(signal: number, on: boolean)");
  int signal = args.int32(0, 1, kMaxSignal - 1);
  bool on = args.boolean(1);
  if (!args.ok()) return args.failed();
  set_signal_notify(signal, on);
  return info.Env().Undefined();
}

Napi::Value SetProcTrusted(const Napi::CallbackInfo& info) {
  Args args(info, "setProcTrusted(trusted: boolean)");
  bool trusted = args.boolean(0);
  if (!args.ok()) return args.failed();
  set_proc_trusted(trusted);
  return info.Env().Undefined();
}

Napi::Value OpenLogSink(const Napi::CallbackInfo& info) {
  Args args(info, "openLogSink(fd: number)");
  int fd = args.int32(0, 0, INT_MAX);
  if (!args.ok()) return args.failed();
  return Napi::String::New(info.Env(), open_log_sink(fd));
}

Napi::Value WriteLog(const Napi::CallbackInfo& info) {
  Args args(info, "writeLog(text: string|Buffer, fd?: number)");
  std::string text = args.bytes(0);
  int fd = args.given(1) ? args.int32(1, 0, INT_MAX) : 2;
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), static_cast<double>(write_log(text.data(), text.size(), fd)));
}

// --- for the tini and dumb-init personalities (src/personalities) ---

Napi::Value DetachControllingTerminal(const Napi::CallbackInfo& info) {
  bool signals_self = false;
  int rc = detach_controlling_terminal(&signals_self);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("errno", rc);
  out.Set("signalsSelf", signals_self);
  return out;
}

Napi::Value SetStopSelfAfter(const Napi::CallbackInfo& info) {
  Args args(info, "setStopSelfAfter(signal: number, on: boolean)");
  int signal = args.int32(0, 1, kMaxSignal - 1);
  bool on = args.boolean(1);
  if (!args.ok()) return args.failed();
  set_stop_self_after(signal, on);
  return info.Env().Undefined();
}

Napi::Value SetReportOrphans(const Napi::CallbackInfo& info) {
  Args args(info, "setReportOrphans(on: boolean)");
  bool on = args.boolean(0);
  if (!args.ok()) return args.failed();
  set_report_orphans(on);
  return info.Env().Undefined();
}

// The C library's words for an errno, which dumb-init prints (libuv's differ).
Napi::Value ErrorText(const Napi::CallbackInfo& info) {
  Args args(info, "errorText(errno: number)");
  int errnum = args.int32(0, 0, 4095);
  if (!args.ok()) return args.failed();
  return Napi::String::New(info.Env(), strerror(errnum));
}

Napi::Value ReleaseFilePages(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(release_file_pages()));
}

Napi::Value TrimMallocHeap(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), trim_malloc_heap());
}

Napi::Value ShareOneMallocArena(const Napi::CallbackInfo& info) {
  share_one_malloc_arena();
  return info.Env().Undefined();
}

Napi::Value CompactJsHeap(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), compact_js_heap());
}

Napi::Value PutIsolateInBackground(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), put_isolate_in_background());
}

Napi::Value WatchOomEvents(const Napi::CallbackInfo& info) {
  Args args(info, "watchOomEvents(dir: string, v2: boolean)");
  std::string dir = args.bytes(0);
  bool v2 = args.boolean(1);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), watch_oom_events(dir, v2));
}

Napi::Value SetSignalAction(const Napi::CallbackInfo& info) {
  Args args(info, "setSignalAction(signal: number, action: number)");
  int signal = args.int32(0, 1, kMaxSignal - 1);
  int action = args.int32(1, -1, kMaxSignal - 1);
  if (!args.ok()) return args.failed();
  set_signal_action(signal, action);
  return info.Env().Undefined();
}

Napi::Value SetForwardToGroup(const Napi::CallbackInfo& info) {
  Args args(info, "setForwardToGroup(group: boolean)");
  bool group = args.boolean(0);
  if (!args.ok()) return args.failed();
  set_forward_to_group(group);
  return info.Env().Undefined();
}

Napi::Value SetStopDeadline(const Napi::CallbackInfo& info) {
  Args args(info, "setStopDeadline(signal: number, milliseconds: number, exitCode: number, line: string, killNamespace: boolean, childGroup: boolean, walkProc: boolean, mainExitAnswerMs: number, mainExitTermLine: string, mainExitLine: string, mainExitCodes: Uint8Array)");
  // The values are checked at the typed boundary (src/platform/load-native.ts); these ranges are
  // kept as the C invariants they guard: the signal indexes the counters (state.h), setitimer arms
  // only with at least 1 ms, an exit status is a byte, the main exit codes are indexed by one.
  StopDeadline deadline;
  deadline.signal = args.int32(0, 1, kMaxSignal - 1);
  deadline.milliseconds = args.int32(1, 1, INT_MAX);
  deadline.exit_code = args.int32(2, 0, 255);
  deadline.line = args.bytes(3);
  deadline.kill_namespace = args.boolean(4);
  deadline.child_group = args.boolean(5);
  deadline.walk_proc = args.boolean(6);
  deadline.main_exit_answer_ms = args.int32(7, 0, INT_MAX);
  deadline.main_exit_term_line = args.bytes(8);
  deadline.main_exit_line = args.bytes(9);
  deadline.main_exit_codes = args.bytes(10);
  if (!args.ok()) return args.failed();
  if (deadline.main_exit_codes.size() != kMainExitCodes) {
    Napi::TypeError::New(info.Env(), "setStopDeadline: mainExitCodes must be 256 bytes").ThrowAsJavaScriptException();
    return info.Env().Undefined();
  }
  set_stop_deadline(deadline);
  return info.Env().Undefined();
}

Napi::Value MainExitAnswered(const Napi::CallbackInfo& info) {
  main_exit_answered();
  return info.Env().Undefined();
}

Napi::Value SignalMainChild(const Napi::CallbackInfo& info) {
  Args args(info, "signalMainChild(signal: number)");
  int signal = args.int32(0, 0, kMaxSignal - 1);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), signal_main_child(signal));
}

Napi::Value SignalEveryProcess(const Napi::CallbackInfo& info) {
  Args args(info, "signalEveryProcess(signal: number)");
  int signal = args.int32(0, 0, kMaxSignal - 1);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), signal_every_process(signal));
}

Napi::Value SignalProcess(const Napi::CallbackInfo& info) {
  Args args(info, "signalProcess(pid: number, signal: number, startTime: number)");
  int pid = args.int32(0, 1, INT_MAX);
  int signal = args.int32(1, 0, kMaxSignal - 1);
  double start_time = args.number(2);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), signal_process(pid, signal, static_cast<unsigned long long>(start_time)));
}

Napi::Array counter_array(Napi::Env env, const std::atomic<uint64_t>* values) {
  Napi::Array out = Napi::Array::New(env, kMaxSignal);
  for (int i = 0; i < kMaxSignal; i++) out.Set(i, static_cast<double>(values[i].load()));
  return out;
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Counters& c = counters();
  Napi::Object out = Napi::Object::New(env);
  out.Set("reaped", static_cast<double>(c.reaped.load()));
  out.Set("orphansReaped", static_cast<double>(c.orphans_reaped.load()));
  out.Set("received", counter_array(env, c.received));
  out.Set("forwarded", counter_array(env, c.forwarded));
  out.Set("dropped", counter_array(env, c.dropped));
  Napi::Object by_command = Napi::Object::New(env);
  for (const CommandCount& entry : reaped_commands()) by_command.Set(entry.command, static_cast<double>(entry.count));
  out.Set("orphansByCommand", by_command);
  out.Set("orphansUnnamed", static_cast<double>(unnamed_orphans()));
  out.Set("groupGotTerm", Napi::Boolean::New(env, group_got_term()));
  return out;
}

Napi::Value BecomeSubreaper(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), become_subreaper());
}

Napi::Value IsSubreaper(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), is_subreaper());
}

Napi::Value SetParentDeathSignal(const Napi::CallbackInfo& info) {
  Args args(info, "setParentDeathSignal(signal: number)");
  int signal = args.int32(0, 0, kMaxSignal - 1);
  if (!args.ok()) return args.failed();
  return Napi::Boolean::New(info.Env(), set_parent_death_signal(signal));
}

Napi::Value SetThreadName(const Napi::CallbackInfo& info) {
  Args args(info, "setThreadName(name: string)");
  std::string name = args.bytes(0);
  if (!args.ok()) return args.failed();
  return Napi::Boolean::New(info.Env(), set_thread_name(name.c_str()));
}

Napi::Value SignalRange(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("rtmin", SIGRTMIN);
  out.Set("rtmax", SIGRTMAX);
  return out;
}

Napi::Value ExecSelf(const Napi::CallbackInfo& info) {
  Args args(info, "execSelf(argv: (string|Buffer)[], env: (string|Buffer)[])");
  std::vector<std::string> argv = args.byte_array(0);
  std::vector<std::string> env = args.byte_array(1);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), argv.empty() ? EINVAL : exec_self(argv, env));
}

Napi::Value Exit(const Napi::CallbackInfo& info) {
  Args args(info, "exit(code: number)");
  int code = args.int32(0, 0, 255);
  if (!args.ok()) return args.failed();
  exit_now(code);
}

// {pid, uid, gid} of a connected Unix socket's peer, or the errno.
Napi::Value PeerCredentialsOf(const Napi::CallbackInfo& info) {
  Args args(info, "peerCredentials(fd: number)");
  int fd = args.int32(0, 0, INT_MAX);
  if (!args.ok()) return args.failed();
  PeerCredentials peer = peer_credentials(fd);
  if (peer.error != 0) return Napi::Number::New(info.Env(), peer.error);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("pid", static_cast<double>(peer.pid));
  out.Set("uid", static_cast<double>(peer.uid));
  out.Set("gid", static_cast<double>(peer.gid));
  return out;
}

// The TCP sockets of sexton's network namespace: {truncated, fields: Float64Array} with
// kTcpSocketFields numbers per socket, or the errno of the dump.
constexpr int kTcpSocketFields = 5;
constexpr int32_t kTcpSocketLimit = 1 << 20;

Napi::Value TcpSockets(const Napi::CallbackInfo& info) {
  Args args(info, "tcpSockets(limit: 1..1048576)");
  int32_t limit = args.int32(0, 1, kTcpSocketLimit);
  if (!args.ok()) return args.failed();
  Napi::Env env = info.Env();
  std::vector<TcpSocket> sockets;
  bool truncated = false;
  int rc = tcp_sockets(static_cast<size_t>(limit), &sockets, &truncated);
  if (rc != 0) return Napi::Number::New(env, rc);
  Napi::Float64Array fields = Napi::Float64Array::New(env, sockets.size() * kTcpSocketFields);
  for (size_t i = 0; i < sockets.size(); i++) {
    double* row = fields.Data() + i * kTcpSocketFields;
    row[0] = sockets[i].state;
    row[1] = sockets[i].local_port;
    row[2] = static_cast<double>(sockets[i].cookie);
    row[3] = static_cast<double>(sockets[i].bytes_received);
    row[4] = sockets[i].queued;
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("truncated", truncated);
  out.Set("fields", fields);
  return out;
}

Napi::Value OpenNotifySocket(const Napi::CallbackInfo& info) {
  Args args(info, "openNotifySocket(address: string)");
  std::string address = args.bytes(0);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), open_notify_socket(address));
}

// [{pid, uid, length, truncated, descriptors, text: Buffer}], or the errno of a failed receive.
Napi::Value ReceiveNotifications(const Napi::CallbackInfo& info) {
  Args args(info, "receiveNotifications(max: 1..1024)");
  int max = args.int32(0, 1, 1024);
  if (!args.ok()) return args.failed();
  Napi::Env env = info.Env();
  int error = 0;
  std::vector<Datagram> datagrams = receive_notifications(static_cast<size_t>(max), &error);
  if (datagrams.empty() && error != 0) return Napi::Number::New(env, error);
  Napi::Array out = Napi::Array::New(env, datagrams.size());
  for (size_t i = 0; i < datagrams.size(); i++) {
    const Datagram& d = datagrams[i];
    Napi::Object item = Napi::Object::New(env);
    item.Set("pid", static_cast<double>(d.pid));
    item.Set("uid", static_cast<double>(d.uid));
    item.Set("length", static_cast<double>(d.length));
    item.Set("truncated", d.truncated);
    item.Set("descriptors", d.descriptors);
    item.Set("text", Napi::Buffer<char>::Copy(env, d.text.data(), d.text.size()));
    out.Set(static_cast<uint32_t>(i), item);
  }
  return out;
}

// How many times `signal` has arrived: the one counter a health probe reads, without stats()'s arrays.
// One the kernel holds for sexton that no thread has taken yet counts too: the JS thread blocks the
// forwarded signals, and on a busy machine it answered /readyz 200 after a TERM had arrived,
// before the thread the handler runs on was scheduled.
Napi::Value SignalsReceived(const Napi::CallbackInfo& info) {
  Args args(info, "signalsReceived(signal: 1..64)");
  int signal = args.int32(0, 1, kMaxSignal - 1);
  if (!args.ok()) return args.failed();
  return Napi::Number::New(info.Env(), static_cast<double>(signals_received(signal)));
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("spawn", Napi::Function::New(env, Spawn));
  exports.Set("startReaper", Napi::Function::New(env, StartReaper));
  exports.Set("startNotifier", Napi::Function::New(env, StartNotifier));
  exports.Set("installSignalHandlers", Napi::Function::New(env, InstallSignalHandlers));
  exports.Set("setSignalNotify", Napi::Function::New(env, SetSignalNotify));
  exports.Set("setProcTrusted", Napi::Function::New(env, SetProcTrusted));
  exports.Set("openLogSink", Napi::Function::New(env, OpenLogSink));
  exports.Set("writeLog", Napi::Function::New(env, WriteLog));
  exports.Set("releaseFilePages", Napi::Function::New(env, ReleaseFilePages));
  exports.Set("trimMallocHeap", Napi::Function::New(env, TrimMallocHeap));
  exports.Set("compactJsHeap", Napi::Function::New(env, CompactJsHeap));
  exports.Set("putIsolateInBackground", Napi::Function::New(env, PutIsolateInBackground));
  exports.Set("shareOneMallocArena", Napi::Function::New(env, ShareOneMallocArena));
  exports.Set("watchOomEvents", Napi::Function::New(env, WatchOomEvents));
  exports.Set("setSignalAction", Napi::Function::New(env, SetSignalAction));
  exports.Set("setForwardToGroup", Napi::Function::New(env, SetForwardToGroup));
  exports.Set("setStopDeadline", Napi::Function::New(env, SetStopDeadline));
  exports.Set("mainExitAnswered", Napi::Function::New(env, MainExitAnswered));
  exports.Set("signalMainChild", Napi::Function::New(env, SignalMainChild));
  exports.Set("signalEveryProcess", Napi::Function::New(env, SignalEveryProcess));
  exports.Set("signalProcess", Napi::Function::New(env, SignalProcess));
  exports.Set("stats", Napi::Function::New(env, Stats));
  exports.Set("becomeSubreaper", Napi::Function::New(env, BecomeSubreaper));
  exports.Set("setThreadName", Napi::Function::New(env, SetThreadName));
  exports.Set("isSubreaper", Napi::Function::New(env, IsSubreaper));
  exports.Set("setParentDeathSignal", Napi::Function::New(env, SetParentDeathSignal));
  exports.Set("signalRange", Napi::Function::New(env, SignalRange));
  exports.Set("execSelf", Napi::Function::New(env, ExecSelf));
  exports.Set("exit", Napi::Function::New(env, Exit));
  exports.Set("peerCredentials", Napi::Function::New(env, PeerCredentialsOf));
  exports.Set("detachControllingTerminal", Napi::Function::New(env, DetachControllingTerminal));
  exports.Set("setStopSelfAfter", Napi::Function::New(env, SetStopSelfAfter));
  exports.Set("setReportOrphans", Napi::Function::New(env, SetReportOrphans));
  exports.Set("tcpSockets", Napi::Function::New(env, TcpSockets));
  exports.Set("errorText", Napi::Function::New(env, ErrorText));
  exports.Set("openNotifySocket", Napi::Function::New(env, OpenNotifySocket));
  exports.Set("receiveNotifications", Napi::Function::New(env, ReceiveNotifications));
  exports.Set("signalsReceived", Napi::Function::New(env, SignalsReceived));
  return exports;
}

}  // namespace sexton

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return sexton::Init(env, exports); }

NODE_API_MODULE(sexton, InitAddon)
