/* `sexton copy-tree DIR` (copy_tree.c): the tree's bin/, lib/ and sexton/ into DIR. */
#ifndef SEXTON_LAUNCHER_COPY_TREE_H
#define SEXTON_LAUNCHER_COPY_TREE_H

/* 0, or -1 with the path that failed in *what and its errno in *error. */
int copy_tree(const char *tree, const char *target, const char **what, int *error);

#endif
