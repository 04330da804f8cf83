#!/bin/sh
# The cgroup v2 guest's second stage, run from the checkout under tini as the guest's PID 1: gives
# the root cgroup's children every controller the tests use, runs the v2 tests and leaves their
# status in the results share (/mnt) for the host, then powers the guest off.
cd "$(dirname "$0")/../.."
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
# The console is a terminal, but nobody watches it live: plain lines, as in CI.
export CI=1 TERM=dumb
echo "+memory +pids +cpu +io" > /sys/fs/cgroup/cgroup.subtree_control
# A writable file system with a page cache (9p to the host, not tmpfs): a program copied there
# and read first inside a test's cgroup has its file pages charged to that cgroup, as an image's
# binaries are to their container's.
mkdir -p /mnt/scratch
export SEXTON_GUEST_FILES=/mnt/scratch
# TCG runs process tests ~7x slower than the host: the test helpers' waits scale by this.
export SEXTON_TEST_SLOWDOWN=8
echo "cgroup2 guest: up after $(cut -d' ' -f1 /proc/uptime) s; controllers: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
if [ -s /mnt/command ]; then
  sh /mnt/command
else
  node node_modules/vitest/vitest.mjs run --config test/cgroup2/vitest.config.mts
fi
echo $? > /mnt/status
sync
/bin/busybox poweroff -f
