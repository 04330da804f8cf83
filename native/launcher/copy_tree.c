/*
 * `sexton copy-tree DIR`: copies the self-contained tree (bin/, lib/, sexton/) into DIR, for the
 * init container of examples/kubernetes/add-sexton.yaml, which runs the sexton-volume image: an
 * image FROM scratch, with no shell and no cp. Files keep their modes, symbolic links stay links
 * (dist/'s links to the native tools are relative). Run again over an earlier copy (a restarted
 * pod's init container), it writes every file anew.
 *
 * Only those three directories: run from the image itself, the tree is the container's root,
 * which also holds /proc, /dev, /etc and DIR itself.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copy_tree.h"

static const char *source_root;
static const char *target_root;
static const char *failed_at;
static int failed_errno;

static int fail(const char *path) {
  failed_at = path;
  failed_errno = errno;
  return 1;
}

static int copy_file(const char *from, const char *to, mode_t mode) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0) return fail(from);
  /* A link or file left by an earlier copy is replaced, never written through. */
  if (unlink(to) != 0 && errno != ENOENT) return close(in), fail(to);
  int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (out < 0) return close(in), fail(to);
  static char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(in, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return close(in), close(out), fail(from);
    if (got == 0) break;
    for (ssize_t put = 0; put < got;) {
      ssize_t n = write(out, buffer + put, (size_t)(got - put));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return close(in), close(out), fail(to);
      put += n;
    }
  }
  close(in);
  /* The mode after the write: the umask does not narrow it, and no one runs a half-written file. */
  if (fchmod(out, mode & 07777) != 0) return close(out), fail(to);
  if (close(out) != 0) return fail(to);
  return 0;
}

static int copy_link(const char *from, const char *to) {
  char target[PATH_MAX];
  ssize_t n = readlink(from, target, sizeof target - 1);
  if (n < 0) return fail(from);
  target[n] = '\0';
  if (unlink(to) != 0 && errno != ENOENT) return fail(to);
  return symlink(target, to) != 0 ? fail(to) : 0;
}

static int copy_entry(const char *path, const struct stat *st, int type, struct FTW *where) {
  (void)where;
  char to[PATH_MAX];
  /* The path below the tree's root; the root "/" leaves the whole path. */
  const char *below = strcmp(source_root, "/") == 0 ? path : path + strlen(source_root);
  if (snprintf(to, sizeof to, "%s%s", target_root, below) >= (int)sizeof to) {
    errno = ENAMETOOLONG;
    return fail(path);
  }
  switch (type) {
    case FTW_D:
      if (mkdir(to, 0700) != 0 && errno != EEXIST) return fail(to);
      /* Writable by its owner whatever the tree's mode, so the copy can fill it (and redo it). */
      return chmod(to, (st->st_mode & 07777) | 0700) != 0 ? fail(to) : 0;
    case FTW_F:
      return S_ISREG(st->st_mode) ? copy_file(path, to, st->st_mode) : 0;
    case FTW_SL:
    case FTW_SLN:
      return copy_link(path, to);
    default:
      errno = EACCES;
      return fail(path);
  }
}

int copy_tree(const char *tree, const char *target, const char **what, int *error) {
  static const char *const parts[] = {"/bin", "/lib", "/sexton"};
  source_root = tree;
  target_root = target;
  struct stat st;
  if (stat(target, &st) != 0) return *what = target, *error = errno, -1;
  if (!S_ISDIR(st.st_mode)) return *what = target, *error = ENOTDIR, -1;
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    char from[PATH_MAX];
    snprintf(from, sizeof from, "%s%s", strcmp(tree, "/") == 0 ? "" : tree, parts[i]);
    if (nftw(from, copy_entry, 16, FTW_PHYS) != 0) {
      *what = failed_at != NULL ? failed_at : from;
      *error = failed_at != NULL ? failed_errno : errno;
      return -1;
    }
  }
  return 0;
}
