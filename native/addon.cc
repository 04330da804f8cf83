// The Node-API surface: converts arguments and results, nothing else. src/platform/native.ts types it.
#include <napi.h>
#include <signal.h>
#include <string.h>

#include <functional>

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
#include "tcp_sockets.h"
#include "terminal.h"

namespace sexton {
namespace {

// A Buffer passes its bytes unchanged (argv that is not UTF-8); a string is UTF-8.
std::string bytes(const Napi::Value& value) {
  if (!value.IsBuffer()) return value.As<Napi::String>();
  Napi::Buffer<char> buffer = value.As<Napi::Buffer<char>>();
  return std::string(buffer.Data(), buffer.Length());
}

std::vector<std::string> string_array(const Napi::Value& value) {
  std::vector<std::string> out;
  Napi::Array array = value.As<Napi::Array>();
  for (uint32_t i = 0; i < array.Length(); i++) out.push_back(bytes(array.Get(i)));
  return out;
}

Napi::Value Spawn(const Napi::CallbackInfo& info) {
  SpawnRequest request;
  request.argv = string_array(info[0]);
  request.candidates = string_array(info[1]);
  if (info[2].IsNumber()) request.oom_score_adj = std::to_string(info[2].As<Napi::Number>().Int32Value());
  if (info[3].IsNumber()) request.session = static_cast<SpawnRequest::Session>(info[3].As<Napi::Number>().Int32Value());
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
      if (e->kind == ReapEvent::kOrphanReaped) e->unreported = orphan_report_taken();
      Napi::Object out = to_js(env, *e);
      delete e;
      callback.Call({out});
    });
    if (status == napi_ok) return;
    if (copy->kind == ReapEvent::kOrphanReaped) orphan_report_taken();  // the queue is closing: sexton leaves
    delete copy;
  };
}

Napi::Value StartReaper(const Napi::CallbackInfo& info) {
  // Stays referenced: the event loop must never drain while sexton supervises. Unbounded, but
  // it carries at most two events per spawn, and kOrphanReportsQueued orphan reports.
  auto tsfn = Napi::ThreadSafeFunction::New(info.Env(), info[0].As<Napi::Function>(), "sexton-reaper", 0, 1);
  return Napi::Number::New(info.Env(), start_reaper(js_listener(tsfn)));
}

// Notices wait in a queue of this many while JS is busy; then the notifier thread waits, the
// pipe fills and handlers drop notices (counted natively, caught up by policy).
constexpr size_t kNoticeQueue = 64;

Napi::Value StartNotifier(const Napi::CallbackInfo& info) {
  auto tsfn = Napi::ThreadSafeFunction::New(info.Env(), info[0].As<Napi::Function>(), "sexton-notices", kNoticeQueue, 1);
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
  if (rc == 0) take_signals_off_main_thread();
  return Napi::Number::New(info.Env(), rc);
}

Napi::Value InstallSignalHandlers(const Napi::CallbackInfo& info) {
  install_signal_handlers();
  return info.Env().Undefined();
}

Napi::Value SetSignalNotify(const Napi::CallbackInfo& info) {
  set_signal_notify(info[0].As<Napi::Number>(), info[1].As<Napi::Boolean>());
  return info.Env().Undefined();
}

Napi::Value SetProcTrusted(const Napi::CallbackInfo& info) {
  set_proc_trusted(info[0].As<Napi::Boolean>());
  return info.Env().Undefined();
}

Napi::Value OpenLogSink(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), open_log_sink(info[0].As<Napi::Number>()));
}

Napi::Value WriteLog(const Napi::CallbackInfo& info) {
  std::string text = bytes(info[0]);
  int fd = info[1].IsNumber() ? info[1].As<Napi::Number>().Int32Value() : 2;
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
  set_stop_self_after(info[0].As<Napi::Number>(), info[1].As<Napi::Boolean>());
  return info.Env().Undefined();
}

Napi::Value SetReportOrphans(const Napi::CallbackInfo& info) {
  set_report_orphans(info[0].As<Napi::Boolean>());
  return info.Env().Undefined();
}

// The C library's words for an errno, which dumb-init prints (libuv's differ).
Napi::Value ErrorText(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), strerror(info[0].As<Napi::Number>().Int32Value()));
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

Napi::Value WatchOomEvents(const Napi::CallbackInfo& info) {
  std::string dir = info[0].As<Napi::String>();
  return Napi::Number::New(info.Env(), watch_oom_events(dir, info[1].As<Napi::Boolean>()));
}

Napi::Value SetSignalAction(const Napi::CallbackInfo& info) {
  set_signal_action(info[0].As<Napi::Number>(), info[1].As<Napi::Number>());
  return info.Env().Undefined();
}

Napi::Value SetForwardToGroup(const Napi::CallbackInfo& info) {
  set_forward_to_group(info[0].As<Napi::Boolean>());
  return info.Env().Undefined();
}

Napi::Value SignalMainChild(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), signal_main_child(info[0].As<Napi::Number>()));
}

Napi::Value SignalEveryProcess(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), signal_every_process(info[0].As<Napi::Number>()));
}

Napi::Value SignalProcess(const Napi::CallbackInfo& info) {
  int pid = info[0].As<Napi::Number>();
  int signal = info[1].As<Napi::Number>();
  auto start_time = static_cast<unsigned long long>(info[2].As<Napi::Number>().DoubleValue());
  return Napi::Number::New(info.Env(), signal_process(pid, signal, start_time));
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
  return out;
}

Napi::Value BecomeSubreaper(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), become_subreaper());
}

Napi::Value IsSubreaper(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), is_subreaper());
}

Napi::Value SetParentDeathSignal(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), set_parent_death_signal(info[0].As<Napi::Number>()));
}

Napi::Value SignalRange(const Napi::CallbackInfo& info) {
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("rtmin", SIGRTMIN);
  out.Set("rtmax", SIGRTMAX);
  return out;
}

Napi::Value ExecSelf(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), exec_self(string_array(info[0]), string_array(info[1])));
}

Napi::Value Exit(const Napi::CallbackInfo& info) { exit_now(info[0].As<Napi::Number>()); }

// {pid, uid, gid} of a connected Unix socket's peer, or the errno.
Napi::Value PeerCredentialsOf(const Napi::CallbackInfo& info) {
  PeerCredentials peer = peer_credentials(info[0].As<Napi::Number>());
  if (peer.error != 0) return Napi::Number::New(info.Env(), peer.error);
  Napi::Object out = Napi::Object::New(info.Env());
  out.Set("pid", static_cast<double>(peer.pid));
  out.Set("uid", static_cast<double>(peer.uid));
  out.Set("gid", static_cast<double>(peer.gid));
  return out;
}

// The TCP sockets of sexton's network namespace: {truncated, fields: Float64Array} with
// kTcpSocketFields numbers per socket, or the errno. limit: a whole number from 1 to
// kTcpSocketLimit, else EINVAL (the typed boundary checks it too).
constexpr int kTcpSocketFields = 5;
constexpr double kTcpSocketLimit = 1 << 20;

Napi::Value TcpSockets(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) return Napi::Number::New(env, EINVAL);
  double limit = info[0].As<Napi::Number>().DoubleValue();
  if (!(limit >= 1 && limit <= kTcpSocketLimit) || limit != static_cast<double>(static_cast<int64_t>(limit))) return Napi::Number::New(env, EINVAL);
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
  return Napi::Number::New(info.Env(), open_notify_socket(bytes(info[0])));
}

// [{pid, uid, length, truncated, descriptors, text: Buffer}], or the errno of a failed receive.
Napi::Value ReceiveNotifications(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int error = 0;
  std::vector<Datagram> datagrams = receive_notifications(info[0].As<Napi::Number>().Uint32Value(), &error);
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
Napi::Value SignalsReceived(const Napi::CallbackInfo& info) {
  int signal = info[0].As<Napi::Number>().Int32Value();
  if (signal <= 0 || signal >= kMaxSignal) return Napi::Number::New(info.Env(), 0);
  return Napi::Number::New(info.Env(), static_cast<double>(counters().received[signal].load()));
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
  exports.Set("shareOneMallocArena", Napi::Function::New(env, ShareOneMallocArena));
  exports.Set("watchOomEvents", Napi::Function::New(env, WatchOomEvents));
  exports.Set("setSignalAction", Napi::Function::New(env, SetSignalAction));
  exports.Set("setForwardToGroup", Napi::Function::New(env, SetForwardToGroup));
  exports.Set("signalMainChild", Napi::Function::New(env, SignalMainChild));
  exports.Set("signalEveryProcess", Napi::Function::New(env, SignalEveryProcess));
  exports.Set("signalProcess", Napi::Function::New(env, SignalProcess));
  exports.Set("stats", Napi::Function::New(env, Stats));
  exports.Set("becomeSubreaper", Napi::Function::New(env, BecomeSubreaper));
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
