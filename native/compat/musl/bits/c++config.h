// Lets Debian's libstdc++ headers, which were configured for glibc, compile against musl's
// headers (scripts/prebuild.mjs puts this directory first on the include path for the musl
// prebuilds only; docs/prebuilds.md tells why there is no musl libstdc++ to use instead).
#ifndef SEXTON_MUSL_CXXCONFIG_H
#define SEXTON_MUSL_CXXCONFIG_H

// os_defines.h asks whether pthreads live in libc and pthread_self works without libpthread:
// true of every musl.
#define __GLIBC_PREREQ(major, minor) 1
// c++locale.h names the C locale handle by glibc's internal name.
#define __locale_t locale_t

#include_next <bits/c++config.h>

// pthread functions that glibc has and musl has not: the headers then use the portable ones.
#undef _GLIBCXX_USE_PTHREAD_COND_CLOCKWAIT
#undef _GLIBCXX_USE_PTHREAD_MUTEX_CLOCKLOCK
#undef _GLIBCXX_USE_PTHREAD_RWLOCK_CLOCKLOCK

#endif
