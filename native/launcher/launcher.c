/*
 * The `sexton` command of the self-contained tree (bin/sexton): a static program, so it runs in
 * an image with no shell and no C library. It does what the `#!/bin/sh` line of dist/sexton.js
 * does (scripts/bundle.mjs), then execs the tree's own node on the tree's sexton, same pid:
 *
 *   - NODE_OPTIONS, meant for the app, never reaches PID 1's node (Node reads it before any
 *     JavaScript runs): it moves into SEXTON_APP_NODE_OPTIONS, unless that is set already (then
 *     that wins), and sexton hands it back, unchanged, to the child (src/init/guards.ts).
 *   - node's argv[0] is this program's, so a link named tini or dumb-init runs as that tool.
 *
 *   - `sexton probe` and `sexton status` exec their native executables (dist/sexton-probe,
 *     dist/sexton-status, linked by the tree's `sexton code-cache`): an exec probe starts no node.
 *     As tini or dumb-init, those words are the command to run, as the sh line has it.
 *
 * `sexton copy-tree DIR` runs no node: it copies the tree into DIR (copy_tree.c), the one step
 * of the add-sexton init container, whose image (the tree, FROM scratch) has no cp.
 *
 * The tree is this program's directory's parent (/proc/self/exe), or TREE_HOME for a copy of this
 * program that is in no tree. Its node is linked to load its libraries from the tree (interpreter
 * TREE_HOME/lib/ld-linux…, rpath $ORIGIN/../lib): mounted at TREE_HOME it runs as it is. Anywhere
 * else, it runs through the tree's loader, named explicitly.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "copy_tree.h"

#ifndef TREE_HOME
#define TREE_HOME "/sexton"
#endif
#ifndef LOADER
#define LOADER "ld-linux-x86-64.so.2"
#endif

/* sexton's own exit codes for "could not start" and bad usage (src/config/exit-codes.ts). */
#define START_FAILURE 1
#define USAGE 2

static char tree[PATH_MAX];

static void fail(const char *what, const char *path) {
  /* One line, as the init's own start failures are. */
  fprintf(stderr, "sexton: %s %s (%s): the sexton tree is incomplete; mount or copy it again\n", what, path,
          strerror(errno));
  exit(START_FAILURE);
}

/* The tree's root: the directory above bin/, where this program is. */
static void find_tree(void) {
  ssize_t n = readlink("/proc/self/exe", tree, sizeof tree - 1);
  if (n <= 0) {
    /* No /proc yet (it is mounted by the runtime before the entrypoint, so rarely): the usual place. */
    snprintf(tree, sizeof tree, "%s", TREE_HOME);
    return;
  }
  tree[n] = '\0';
  for (int up = 0; up < 2; up++) {
    char *slash = strrchr(tree, '/');
    if (slash == NULL) fail("cannot tell where it is from", "/proc/self/exe");
    *slash = '\0';
  }
  if (tree[0] == '\0') snprintf(tree, sizeof tree, "/");
  /* A copy of this program outside a tree (/usr/local/bin/sexton, images/add-sexton) runs the tree at TREE_HOME. */
  char script[PATH_MAX + 32];
  snprintf(script, sizeof script, "%s/sexton/dist/sexton.js", strcmp(tree, "/") == 0 ? "" : tree);
  if (access(script, F_OK) != 0) snprintf(tree, sizeof tree, "%s", TREE_HOME);
}

static void move_node_options(void) {
  const char *options = getenv("NODE_OPTIONS");
  if (options == NULL) return;
  if (getenv("SEXTON_APP_NODE_OPTIONS") == NULL && setenv("SEXTON_APP_NODE_OPTIONS", options, 1) != 0)
    fail("cannot move NODE_OPTIONS aside:", "setenv");
  unsetenv("NODE_OPTIONS");
}

static char *joined(const char *rest) {
  size_t size = strlen(tree) + strlen(rest) + 1;
  char *path = malloc(size);
  if (path == NULL) fail("cannot allocate", "memory");
  snprintf(path, size, "%s%s", tree, rest);
  return path;
}

/* A path echoed in a message: one line, control bytes escaped, at most 80 bytes shown. */
static void put_quoted(const char *text) {
  fputc('\'', stderr);
  size_t i = 0;
  for (; text[i] != '\0' && i < 80; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c < 0x20 || c == 0x7f || c == '\\' || c == '\'') fprintf(stderr, "\\x%02x", c);
    else fputc(c, stderr);
  }
  fputc('\'', stderr);
  if (text[i] != '\0') fprintf(stderr, "…(%zu more bytes)", strlen(text + i));
}

static int copy_tree_command(int argc, char **argv) {
  if (argc != 3 || argv[2][0] != '/') {
    fprintf(stderr, "sexton: copy-tree takes one argument, an absolute directory: sexton copy-tree DIR\n");
    return USAGE;
  }
  const char *what = NULL;
  int error = 0;
  if (copy_tree(tree, argv[2], &what, &error) != 0) {
    fprintf(stderr, "sexton: copy-tree: ");
    put_quoted(what);
    fprintf(stderr, ": %s\n", strerror(error));
    return START_FAILURE;
  }
  return 0;
}

/* `sexton probe|status …`: exec the native tool when it is there; else node says what is missing. */
static void exec_native_tool(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "probe") != 0 && strcmp(argv[1], "status") != 0)) return;
  const char *base = argv[0] != NULL && strrchr(argv[0], '/') != NULL ? strrchr(argv[0], '/') + 1 : argv[0];
  if (base != NULL && (strcmp(base, "tini") == 0 || strcmp(base, "dumb-init") == 0)) return;
  char rest[32];
  snprintf(rest, sizeof rest, "/sexton/dist/sexton-%s", argv[1]);
  char *tool = joined(rest);
  if (access(tool, X_OK) != 0) return;
  argv[1] = tool;
  execv(tool, argv + 1);
}

int main(int argc, char **argv) {
  find_tree();
  if (argc > 1 && strcmp(argv[1], "copy-tree") == 0) return copy_tree_command(argc, argv);
  exec_native_tool(argc, argv);
  move_node_options();
  char *node = joined("/bin/node");
  char *script = joined("/sexton/dist/sexton.js");
  const char *name = argc > 0 && argv[0] != NULL ? argv[0] : "sexton";
  /* At most 5 words before the script, the script, the arguments, NULL. */
  char **args = calloc((size_t)argc + 8, sizeof *args);
  if (args == NULL) fail("cannot allocate", "memory");
  int at = 0;
  int at_home = strcmp(tree, TREE_HOME) == 0;
  char *program = node;
  if (!at_home) {
    program = joined("/lib/" LOADER);
    args[at++] = program;
    args[at++] = "--library-path";
    args[at++] = joined("/lib");
    args[at++] = "--argv0";
    args[at++] = (char *)name;
    args[at++] = node;
  } else {
    args[at++] = (char *)name;
  }
  args[at++] = script;
  for (int i = 1; i < argc; i++) args[at++] = argv[i];
  args[at] = NULL;
  execv(program, args);
  fail("cannot run", program);
  return START_FAILURE;
}
