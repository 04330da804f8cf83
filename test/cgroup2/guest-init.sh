#!/bin/busybox sh
# /init of the cgroup v2 guest's initramfs (busybox only): loads the modules for virtio-pci and
# 9p, mounts the host's root read-only over 9p with tmpfs where programs write, mounts cgroup2
# alone (the kernel runs with cgroup_no_v1=all), then runs the second stage from the checkout.
# The kernel line carries sexton_repo=, sexton_stage= and sexton_budget= (seconds).
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
fail() {
  echo "cgroup2 guest: $*"
  echo o > /proc/sysrq-trigger
  sleep 60
}
for m in $(cat /modules/order); do
  insmod "/modules/$m.ko" || fail "insmod $m failed"
done
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    sexton_repo=*) repo=${arg#sexton_repo=} ;;
    sexton_stage=*) stage=${arg#sexton_stage=} ;;
  esac
done
opts=trans=virtio,version=9p2000.L,msize=512000,cache=loose
mount -t 9p -o "ro,$opts" hostroot /newroot || fail "cannot mount the host's root over 9p"
mount -t 9p -o "$opts" results /newroot/mnt || fail "cannot mount the results share"
# Held before tmpfs hides the host's /tmp, /root and /run: a fresh clone may live there.
mkdir -p /checkout && mount -o bind "/newroot$repo" /checkout || fail "cannot reach $repo"
for d in run tmp root var/tmp; do mount -t tmpfs -o mode=1777 tmpfs "/newroot/$d" || fail "tmpfs on /$d"; done
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /newroot/dev/shm
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup || fail "cannot mount cgroup2"
# The checkout is writable in the guest (vitest's cache, build outputs) through an overlay whose
# upper layer is on tmpfs: nothing reaches the host's copy.
mkdir -p /newroot/run/checkout/upper /newroot/run/checkout/work "/newroot$repo"
mount -t overlay -o "lowerdir=/checkout,upperdir=/newroot/run/checkout/upper,workdir=/newroot/run/checkout/work" \
  overlay "/newroot$repo" || fail "cannot overlay $repo"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
umount /proc /sys 2>/dev/null
exec switch_root /newroot /usr/bin/tini -s -- /bin/sh "$repo/$stage"
