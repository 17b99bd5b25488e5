//===- Entry.h - the C interface of an emulated kernel library -*- C++ -*-===//
//
// The driver (runtime/emulate/Emulate.cpp) compiles a package's kernel.cu
// into a shared object through a small wrapper:
//
//   #define KGEN_EMULATE 1
//   #include "<package>/kernel.cu"
//   #include <kgen/emulate/Entry.h>
//   KGEN_EMU_ENTRIES(KGEN_EMU_ENTRY(k0) KGEN_EMU_ENTRY(k1) ...)
//
// and calls these functions through dlsym.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_ENTRY_H
#define KGEN_EMULATE_ENTRY_H

#include "kgen/emulate/Device.h"
#include "kgen/emulate/Sm90.h"

namespace kgen::emu {
struct EntryRow {
  const char *name;
  int (*launch)(void **args, dim3 grid, dim3 block, unsigned dynSmem);
};
} // namespace kgen::emu

#define KGEN_EMU_ENTRY(fn)                                                     \
  {#fn, [](void **args, dim3 g, dim3 b, unsigned s) {                          \
     return ::kgen::emu::launchKernel(#fn, &fn, args, g, b, s,                 \
                                      ::kgen::emu::dev().cluster);             \
   }},

#define KGEN_EMU_ENTRIES(rows)                                                 \
  static const ::kgen::emu::EntryRow kgen_emu_entries[] = {rows{nullptr,       \
                                                                nullptr}};     \
  extern "C" int kgen_emu_launch(const char *name, void **args,                \
                                 const unsigned *grid, const unsigned *block,  \
                                 unsigned dynSmem) {                           \
    ::kgen::emu::sm90::installHooks();                                         \
    for (const ::kgen::emu::EntryRow *r = kgen_emu_entries; r->name; ++r)      \
      if (std::strcmp(r->name, name) == 0)                                     \
        return r->launch(args, dim3{grid[0], grid[1], grid[2]},                \
                         dim3{block[0], block[1], block[2]}, dynSmem);         \
    std::fprintf(stderr, "kgen-emulate: error: no kernel %s\n", name);         \
    return 2;                                                                  \
  }                                                                            \
  extern "C" void kgen_emu_set_seed(unsigned long long seed) {                 \
    ::kgen::emu::dev().opts.seed = seed;                                       \
  }                                                                            \
  extern "C" void kgen_emu_add_buffer(const char *name, const void *p,         \
                                      unsigned long long bytes) {              \
    ::kgen::emu::dev().buffers.push_back(                                      \
        {name, static_cast<const char *>(p), size_t(bytes)});                  \
  }                                                                            \
  extern "C" void kgen_emu_clear_buffers() { ::kgen::emu::dev().buffers.clear(); } \
  /* The cluster dimensions of the next launches ({1, 1, 1}: none). */         \
  extern "C" void kgen_emu_set_cluster(const unsigned *c) {                    \
    ::kgen::emu::dev().cluster = dim3{c[0], c[1], c[2]};                       \
  }

#endif // KGEN_EMULATE_ENTRY_H
