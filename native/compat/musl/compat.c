// Compiled into the musl prebuilds only (scripts/prebuild.mjs). They link Debian's static
// libstdc++ and libgcc, which were built for glibc 2.36 and so reference a few glibc names that
// musl does not export. A missing one would make musl's dlopen fail ("symbol not found"); a
// missing weak one would silently switch libstdc++'s thread support off. Each is defined here,
// hidden, with what it means on musl. test/shipping/musl.test.ts checks that nothing else is missing.
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/auxv.h>

#define HIDDEN __attribute__((visibility("hidden")))

// libstdc++ asks whether this (weak) symbol exists to decide whether the program is threaded:
// every Node process is.
HIDDEN int __pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return pthread_key_create(key, destructor);
}

// "Not known to be single-threaded": libstdc++ then always uses atomic reference counts.
HIDDEN char __libc_single_threaded = 0;

// libgcc's arm64 atomics ask the kernel's hardware capabilities through glibc's internal name.
HIDDEN unsigned long __getauxval(unsigned long type) { return getauxval(type); }

// libgcc's unwinder finds an object's unwind tables with glibc 2.35's _dl_find_object. The
// layout is glibc's for x86_64 and aarch64 (no eh_dbase, no eh_count). Answered from
// dl_iterate_phdr, as native/compat/glibc_compat.c does for older glibc.
struct dl_find_object {
  unsigned long long dlfo_flags;
  void* dlfo_map_start;
  void* dlfo_map_end;
  void* dlfo_link_map;
  void* dlfo_eh_frame;
  unsigned long long reserved[7];
};

#include "../dl_find_object.h"
