// Runs a command N times, one after the other, and says what each call cost: the CPU time
// (user + system) and the peak RSS the kernel accounted to it (wait4's rusage: the process and
// everything it exec'd, sh's exec into a native tool included), and how many calls failed.
//   exec-cost N EXPECTED_STATUS COMMAND [ARGS...]   → one line of JSON on stdout
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

static int compare(const void* a, const void* b) {
  long x = *(const long*)a, y = *(const long*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: exec-cost N EXPECTED_STATUS COMMAND [ARGS...]\n");
    return 2;
  }
  int n = atoi(argv[1]), expected = atoi(argv[2]), failed = 0;
  double cpu = 0;
  long* rss = calloc(n, sizeof *rss);
  for (int i = 0; i < n; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      freopen("/dev/null", "w", stdout);  // the answers themselves are not measured here
      execvp(argv[3], argv + 3);
      _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != expected) failed++;
    cpu += seconds(usage.ru_utime) + seconds(usage.ru_stime);
    rss[i] = usage.ru_maxrss;
  }
  qsort(rss, n, sizeof *rss, compare);
  printf("{\"calls\":%d,\"failed\":%d,\"cpuMsPerCall\":%.4f,\"medianRssKiB\":%ld,\"maxRssKiB\":%ld}\n", n, failed,
         cpu * 1000 / n, rss[n / 2], rss[n - 1]);
  return 0;
}
