#include "errno_name.h"

#include <errno.h>

#include "text.h"

namespace sexton {

namespace {

struct Name {
  int error;
  const char* name;
};

// The errors a spawn, a connect or a read can end with.
const Name kNames[] = {
    {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"}, {EINTR, "EINTR"}, {EIO, "EIO"},
    {ENXIO, "ENXIO"}, {E2BIG, "E2BIG"}, {ENOEXEC, "ENOEXEC"}, {EBADF, "EBADF"}, {ECHILD, "ECHILD"},
    {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"},
    {EEXIST, "EEXIST"}, {ENODEV, "ENODEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"}, {EINVAL, "EINVAL"},
    {ENFILE, "ENFILE"}, {EMFILE, "EMFILE"}, {ETXTBSY, "ETXTBSY"}, {ENOSPC, "ENOSPC"}, {EROFS, "EROFS"},
    {EPIPE, "EPIPE"}, {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"}, {ELOOP, "ELOOP"},
    {ENOTSOCK, "ENOTSOCK"}, {EPROTOTYPE, "EPROTOTYPE"}, {EAFNOSUPPORT, "EAFNOSUPPORT"},
    {EADDRINUSE, "EADDRINUSE"}, {EADDRNOTAVAIL, "EADDRNOTAVAIL"}, {ENETDOWN, "ENETDOWN"},
    {ECONNABORTED, "ECONNABORTED"}, {ECONNRESET, "ECONNRESET"}, {ENOBUFS, "ENOBUFS"},
    {ENOTCONN, "ENOTCONN"}, {ETIMEDOUT, "ETIMEDOUT"}, {ECONNREFUSED, "ECONNREFUSED"},
    {EHOSTUNREACH, "EHOSTUNREACH"}, {EINPROGRESS, "EINPROGRESS"}, {ELIBBAD, "ELIBBAD"},
};

}  // namespace

void add_errno_name(Text& out, int error) {
  for (const Name& n : kNames) {
    if (n.error == error) return void(out.add(n.name));
  }
  out.add("errno ").add_int(error);
}

}  // namespace sexton
