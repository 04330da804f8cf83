// Keeps the addon loadable on glibc 2.28, the oldest glibc Node 22, 24 and 26 run on, when it is
// built on a newer glibc (Debian 12 has 2.36). libstdc++ and libgcc are linked statically, but
// they and our own code still reference glibc symbols, and the linker binds each reference to
// the newest version the build machine's libc defines:
//   - pthread_* got new versions (GLIBC_2.34) when libpthread was merged into libc, and
//     pthread_sigmask one in 2.32; so did dlsym when libdl was. The functions did not change:
//     bind to the base version.
//   - libstdc++ reads __libc_single_threaded (2.32), its random_device calls arc4random
//     (2.36), libgcc's unwinder calls _dl_find_object (2.35). We define local replacements.
// The definitions are hidden: every object of the addon (ours and the static libstdc++.a and
// libgcc_eh.a members) binds to them at link time, and nothing is exported. test/shipping/glibc.test.ts
// checks the result with objdump. With musl this file compiles to nothing; another glibc
// architecture needs its base version below.
#define _GNU_SOURCE
#include <stdint.h>  // defines __GLIBC__ when the C library is glibc

#if defined(__linux__) && defined(__GLIBC__)

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/random.h>

#if defined(__x86_64__)
#define BASE_VERSION "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define BASE_VERSION "GLIBC_2.17"
#else
#error "glibc_compat.c: add this architecture's base GLIBC_ version"
#endif

#define HIDDEN __attribute__((visibility("hidden")))

// `old_NAME` is an import of NAME@BASE_VERSION; NAME itself is our hidden forwarder. Before
// glibc 2.34 these base versions live in libpthread.so.0 and libdl.so.2, which every Node
// binary for such a glibc loads; the dynamic loader matches a version by name in any loaded
// object.
#define BASE(name) __asm__(".symver old_" #name ", " #name "@" BASE_VERSION)

BASE(pthread_create);
BASE(pthread_join);
BASE(pthread_detach);
BASE(pthread_once);
BASE(pthread_key_create);
BASE(pthread_key_delete);
BASE(pthread_getspecific);
BASE(pthread_setspecific);
BASE(pthread_sigmask);
BASE(pthread_attr_setstacksize);
BASE(dlsym);

int old_pthread_create(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int old_pthread_join(pthread_t, void**);
int old_pthread_detach(pthread_t);
int old_pthread_once(pthread_once_t*, void (*)(void));
int old_pthread_key_create(pthread_key_t*, void (*)(void*));
int old_pthread_key_delete(pthread_key_t);
void* old_pthread_getspecific(pthread_key_t);
int old_pthread_setspecific(pthread_key_t, const void*);
int old_pthread_sigmask(int, const sigset_t*, sigset_t*);
int old_pthread_attr_setstacksize(pthread_attr_t*, size_t);
void* old_dlsym(void*, const char*);

HIDDEN int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  return old_pthread_create(thread, attr, start, arg);
}
HIDDEN int pthread_join(pthread_t thread, void** result) { return old_pthread_join(thread, result); }
HIDDEN int pthread_detach(pthread_t thread) { return old_pthread_detach(thread); }
HIDDEN int pthread_once(pthread_once_t* once, void (*init)(void)) { return old_pthread_once(once, init); }
HIDDEN int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return old_pthread_key_create(key, destructor);
}
// libstdc++ tests this (weak) symbol to decide whether the program is threaded; with a
// definition present it always is, which is true for every Node process.
HIDDEN int __pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return old_pthread_key_create(key, destructor);
}
HIDDEN int pthread_key_delete(pthread_key_t key) { return old_pthread_key_delete(key); }
HIDDEN void* pthread_getspecific(pthread_key_t key) { return old_pthread_getspecific(key); }
// pthread.h marks the value as never read, which GCC then reports for passing it on.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
HIDDEN int pthread_setspecific(pthread_key_t key, const void* value) { return old_pthread_setspecific(key, value); }
#pragma GCC diagnostic pop
HIDDEN int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) { return old_pthread_sigmask(how, set, old); }
HIDDEN int pthread_attr_setstacksize(pthread_attr_t* attr, size_t size) { return old_pthread_attr_setstacksize(attr, size); }
HIDDEN void* dlsym(void* handle, const char* name) { return old_dlsym(handle, name); }

// "Not known to be single-threaded": libstdc++ then always uses atomic reference counts,
// which is what it did before glibc 2.32 offered this flag.
HIDDEN char __libc_single_threaded = 0;

// random_device's default source on glibc >= 2.36. getrandom (2.25) blocks only until the
// kernel's pool is initialised, as arc4random does.
HIDDEN uint32_t arc4random(void) {
  uint32_t value;
  char* at = (char*)&value;
  size_t left = sizeof value;
  while (left > 0) {
    ssize_t got = getrandom(at, left, 0);
    if (got < 0) continue;  // EINTR; no other error is possible for 4 bytes
    at += got;
    left -= (size_t)got;
  }
  return value;
}

// _dl_find_object (2.35), which libgcc's unwinder calls: see dl_find_object.h.
#ifdef DLFO_STRUCT_HAS_EH_DBASE  // the build machine's glibc has _dl_find_object
#if DLFO_STRUCT_HAS_EH_DBASE || DLFO_STRUCT_HAS_EH_COUNT
#error "glibc_compat.c: this architecture's dl_find_object needs more fields"
#endif

#include "dl_find_object.h"
#endif  // DLFO_STRUCT_HAS_EH_DBASE

#endif  // glibc
