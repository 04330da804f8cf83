#include "proc_stat.h"

#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

namespace sexton {

unsigned long long stat_field(int pid, int n) {
  char path[32] = "/proc/";
  size_t at = 6;
  char digits[12];
  int length = 0;
  for (int rest = pid; rest > 0 && length < 11; rest /= 10) {
    digits[length++] = static_cast<char>('0' + rest % 10);
  }
  while (length > 0) path[at++] = digits[--length];
  for (const char* c = "/stat"; *c; c++) path[at++] = *c;
  path[at] = '\0';
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[1024];
  ssize_t got = read(fd, buffer, sizeof buffer - 1);
  close(fd);
  if (got <= 0) return 0;
  buffer[got] = '\0';
  const char* field = strrchr(buffer, ')');
  for (int i = 2; i < n && field != nullptr; i++) field = strchr(field + 1, ' ');
  if (field == nullptr) return 0;
  unsigned long long value = 0;
  for (const char* c = field + 1; *c >= '0' && *c <= '9'; c++) value = value * 10 + static_cast<unsigned>(*c - '0');
  return value;
}

}  // namespace sexton
