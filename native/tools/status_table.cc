#include "status_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "text.h"

namespace sexton {

namespace {

constexpr int kTopCommands = 5;
constexpr int kMaxRows = 32;

// What JavaScript's toFixed(0) gives for a non-negative number: ties round up.
void add_whole(Text& out, Json value) {
  double x = value.number();
  double whole = floor(x);
  out.add_int(static_cast<long long>(x - whole >= 0.5 ? whole + 1 : whole));
}

// "NAME N NAME N" (or NAME×N) in the object's order, or "none".
void add_counts(Text& out, Json counts, const char* separator) {
  JsonItems items(counts);
  Json name, count;
  bool any = false;
  while (items.next(&name, &count)) {
    if (any) out.add(' ');
    name.add_to(out);
    count.add_to(out.add(separator));
    any = true;
  }
  if (!any) out.add("none");
}

// The most frequent commands first; equal counts keep the object's order (a stable sort).
void add_top_commands(Text& out, Json by_command) {
  Json names[kTopCommands], counts[kTopCommands];
  int n = 0;
  JsonItems items(by_command);
  Json name, count;
  while (items.next(&name, &count)) {
    int at = n < kTopCommands ? n++ : kTopCommands;
    while (at > 0 && counts[at - 1].number() < count.number()) {
      if (at < kTopCommands) names[at] = names[at - 1], counts[at] = counts[at - 1];
      at--;
    }
    if (at < kTopCommands) names[at] = name, counts[at] = count;
  }
  for (int i = 0; i < n; i++) {
    if (i > 0) out.add(", ");
    names[i].add_to(out);
    counts[i].add_to(out.add(' '));
  }
  if (n == 0) out.add("none");
}

void add_drain(Text& out, Json d) {
  out.add("quiet "), d["quietSeconds"].print_to(out), out.add("s, cap "), d["capSeconds"].print_to(out), out.add('s');
  if (d["watch"].equals("blind")) out.add(", host network: the cap decides");
  Text last;
  if (d["lastTrafficSeconds"].is_null()) last.add("no traffic after the stop signal");
  else last.add("last traffic at +"), d["lastTrafficSeconds"].print_to(last), last.add('s');
  if (d["waitedSeconds"].is_null()) return void(out.add("; waiting, ").add(last.data(), last.size()));
  Json late = d["afterForward"];
  out.add("; forwarded at +"), d["waitedSeconds"].print_to(out), out.add("s ("), d["endedBy"].print_to(out);
  out.add("), ").add(last.data(), last.size()).add("; after it: ");
  late["connections"].print_to(out), out.add(" connections, "), late["requests"].print_to(out);
  out.add(" requests, "), late["resets"].print_to(out), out.add(" resets");
}

void add_notifications(Text& out, Json n) {
  n["accepted"].print_to(out), out.add(" accepted");
  bool any = false;
  static const char* const kIgnored[] = {"malformed", "oversized", "foreign"};
  for (const char* kind : kIgnored) {
    if (n[kind].number() <= 0) continue;
    out.add(any ? ", " : ", ignored "), n[kind].print_to(out), out.add(' ').add(kind);
    any = true;
  }
  if (n["descriptors"].number() > 0) out.add("; "), n["descriptors"].print_to(out), out.add(" carried descriptors (closed)");
}

class Rows {
 public:
  Text& add(const char* label) {
    labels_[count_] = label;
    return values_[count_++];
  }
  void write(Text& out) {
    size_t width = 0;
    for (int i = 0; i < count_; i++) width = strlen(labels_[i]) > width ? strlen(labels_[i]) : width;
    for (int i = 0; i < count_; i++) {
      size_t start = out.size();
      out.add(labels_[i]).pad_to(start, width).add("  ").add(values_[i].data(), values_[i].size()).add('\n');
    }
  }

 private:
  const char* labels_[kMaxRows];
  Text values_[kMaxRows];
  int count_ = 0;
};

void add_child(Text& out, Json child) {
  out.add("pid "), child["pid"].print_to(out);
  if (child["state"].equals("running")) {
    out.add(" running: ");
  } else {
    out.add(" exited (");
    if (!child["signal"].is_null()) child["signal"].print_to(out);
    else out.add("code "), child["exitCode"].print_to(out);
    out.add("): ");
  }
  child["command"].print_to(out);
}

void add_rows(Rows& rows, Json s) {
  Json health = s["health"];
  Text& head = rows.add("sexton");
  s["version"].print_to(head), head.add(", pid "), s["pid"].print_to(head), head.add(" ("), s["role"].print_to(head);
  add_whole(head.add("), up "), s["uptimeSeconds"]), head.add(" s, "), s["phase"].print_to(head);
  add_child(rows.add("main child"), s["mainChild"]);
  Text& reaped = rows.add("reaped");
  s["reaped"].print_to(reaped), reaped.add(" ("), s["orphansReaped"].print_to(reaped), reaped.add(" orphans)");
  add_top_commands(rows.add("orphans by command"), s["orphansByCommand"]);
  Text& unnamed = rows.add("orphans unnamed");
  s["orphansUnnamed"].print_to(unnamed);
  if (s["orphansUnnamed"].number() > 0) unnamed.add(" (reaped in a storm faster than they could be named)");
  add_counts(rows.add("signals received"), s["signals"]["received"], " ");
  add_counts(rows.add("signals forwarded"), s["signals"]["forwarded"], " ");
  add_counts(rows.add("signals dropped"), s["signals"]["dropped"], " ");
  s["zombieCount"].print_to(rows.add("zombies"));
  s["tasks"].print_to(rows.add("threads"));
  if (s["oomKills"].is_null()) rows.add("OOM kills").add("unknown (memory cgroup not readable)");
  else s["oomKills"].print_to(rows.add("OOM kills"));
  s["logLinesDropped"].print_to(rows.add("log lines dropped"));
  if (!s["drain"].is_null()) add_drain(rows.add("drain"), s["drain"]);
  Text& ready = rows.add("ready");
  ready.add(health["ready"].is_true() ? "yes: " : "no: "), health["reason"].print_to(ready);
  ready.add(" (--ready-when "), health["readyWhen"].print_to(ready), ready.add(')');
  if (health["readyWhen"].equals("notify")) add_notifications(rows.add("sd_notify datagrams"), health["notifications"]);
  if (s["unkillableCount"].number() > 0) {
    Text& stuck = rows.add("could not kill");
    s["unkillableCount"].print_to(stuck), stuck.add(" (still alive after SIGKILL)");
  }
  Json pids = s["budget"]["pids"], outsiders = s["budget"]["outsiders"];
  Text& budget = rows.add("pids");
  if (pids.is_null()) {
    budget.add("unknown (no pids cgroup readable)");
  } else {
    pids["current"].print_to(budget), budget.add(" of ");
    if (pids["max"].is_null()) budget.add("no limit");
    else pids["max"].print_to(budget);
    budget.add(" (cgroup v"), pids["version"].print_to(budget), budget.add("; every task counts, zombies too)");
  }
  Text& others = rows.add("not the main child's");
  if (outsiders["count"].number() == 0) others.add("none");
  else outsiders["count"].print_to(others), others.add(" process(es) (exec sessions, probe leftovers): the stop sequence ends them too");
}

void add_details(Text& out, Json s) {
  JsonItems zombies(s["zombies"]);
  Json none, z;
  while (zombies.next(&none, &z)) {
    out.add("  held by pid "), z["pid"].print_to(out), out.add(" ("), z["command"].print_to(out), out.add("): ");
    z["zombies"].print_to(out), add_whole(out.add(", oldest "), z["oldestAgeSeconds"]), out.add(" s\n");
  }
  Json outsiders = s["budget"]["outsiders"];
  JsonItems shown(outsiders["shown"]);
  int shown_count = 0;
  while (shown.next(&none, &z)) {
    out.add("  ! pid "), z["pid"].print_to(out), out.add(" ("), z["command"].print_to(out), out.add("), up ");
    z["ageSeconds"].print_to(out), out.add(" s, outside the main child's tree\n");
    shown_count++;
  }
  double more = outsiders["count"].number() - shown_count;
  if (more > 0) out.add("  ! and ").add_int(static_cast<long long>(more)).add(" more\n");
  JsonItems unkillable(s["unkillable"]);
  while (unkillable.next(&none, &z)) {
    out.add("  could not kill pid "), z["pid"].print_to(out), out.add(" ("), z["command"].print_to(out);
    out.add("): state "), z["state"].print_to(out), out.add(", wchan ");
    if (z["wchan"].is_null()) out.add('?');
    else z["wchan"].print_to(out);
    out.add(", syscall ");
    if (z["syscall"].is_null()) out.add('?');
    else z["syscall"].print_to(out);
    if (z["killPending"].is_true()) out.add(", SIGKILL pending");
    Json mount = z["mount"];
    if (mount.is_object()) {
      out.add(", "), mount["via"].print_to(out), out.add(" on "), mount["fstype"].print_to(out), out.add(' ');
      mount["source"].print_to(out), out.add(" at "), mount["mountPoint"].print_to(out);
    }
    out.add('\n');
  }
}

}  // namespace

void format_status(Json snapshot, Text& out) {
  Rows rows;
  add_rows(rows, snapshot);
  rows.write(out);
  add_details(out, snapshot);
}

}  // namespace sexton
