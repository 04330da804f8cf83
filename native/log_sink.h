#pragma once
// Where sexton's log lines go: stderr, written so that a reader who stopped reading can never
// block sexton. O_NONBLOCK is never set on the inherited descriptor: the child shares that
// open file description, and its own writes would start failing with EAGAIN.
#include <stddef.h>

namespace sexton {

// Chooses how to write to `fd` (1 or 2: each has a sink of its own) without blocking: a socket is sent to with MSG_DONTWAIT; a pipe
// or terminal is opened again through /proc/self/fd (a description of sexton's own, made
// non-blocking); a regular file is written as it is. Returns the mode's name for the logs.
const char* open_log_sink(int fd);

// Writes `length` bytes without blocking: the count written, or -errno (-EAGAIN: no room now).
long write_log(const char* data, size_t length, int fd = 2);

}  // namespace sexton
