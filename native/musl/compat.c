// Compiled into the musl prebuilds only (scripts/prebuild.mjs). They link Debian's static
// libstdc++ and libgcc, which were built for glibc 2.36 and so reference a few glibc names that
// musl does not export. A missing one would make musl's dlopen fail ("symbol not found"); a
// missing weak one would silently switch libstdc++'s thread support off. Each is defined here,
// hidden, with what it means on musl. test/musl.test.ts checks that nothing else is missing.
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
// dl_iterate_phdr, as native/glibc_compat.c does for older glibc.
struct dl_find_object {
  unsigned long long dlfo_flags;
  void* dlfo_map_start;
  void* dlfo_map_end;
  void* dlfo_link_map;
  void* dlfo_eh_frame;
  unsigned long long reserved[7];
};

struct lookup {
  uintptr_t address;
  struct dl_find_object* result;
};

static int find_object(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct lookup* lookup = data;
  uintptr_t start = UINTPTR_MAX, end = 0;
  void* eh_frame = NULL;
  int contains = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* segment = &info->dlpi_phdr[i];
    uintptr_t from = info->dlpi_addr + segment->p_vaddr;
    if (segment->p_type == PT_GNU_EH_FRAME) eh_frame = (void*)from;
    if (segment->p_type != PT_LOAD) continue;
    uintptr_t to = from + segment->p_memsz;
    if (from < start) start = from;
    if (to > end) end = to;
    if (lookup->address >= from && lookup->address < to) contains = 1;
  }
  if (!contains) return 0;
  lookup->result->dlfo_flags = 0;
  lookup->result->dlfo_map_start = (void*)start;
  lookup->result->dlfo_map_end = (void*)end;
  lookup->result->dlfo_link_map = NULL;  // libgcc does not read it
  lookup->result->dlfo_eh_frame = eh_frame;
  return 1;
}

HIDDEN int _dl_find_object(void* address, struct dl_find_object* result) {
  struct lookup lookup = {(uintptr_t)address, result};
  return dl_iterate_phdr(find_object, &lookup) == 1 ? 0 : -1;
}
