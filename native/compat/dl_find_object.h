// libgcc's unwinder asks _dl_find_object (glibc 2.35) for the object holding a return address
// and has no other way to find unwind tables once it was built for a glibc that has it. Answered
// from dl_iterate_phdr, which is what the unwinder itself used before. Included by
// glibc_compat.c and musl/compat.c, each after its `struct dl_find_object` and HIDDEN.
#pragma once
#include <link.h>
#include <stdint.h>

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
