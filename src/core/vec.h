// SPDX-License-Identifier: Apache-2.0
// Vector code written once with GCC vector extensions and compiled twice: inlined into an AVX2
// wrapper and into a portable one (POOLGRAD_FOR_ISA); the plan's ISA (p.isa) picks the wrapper.
// The kernels that use it: the max-pool 2-D forward and the volume forward.
#pragma once

#include <cstdint>
#include <cstring>

#include "isa.h"

namespace poolgrad {

typedef float f8 __attribute__((vector_size(32)));
typedef int32_t i8 __attribute__((vector_size(32)));
typedef uint32_t u8 __attribute__((vector_size(32)));

#define LOADF8(dst, ptr) std::memcpy(&(dst), (ptr), sizeof(f8))
#define POOLGRAD_BODY __attribute__((always_inline)) inline
#if defined(__x86_64__) || defined(__i386__)
#define POOLGRAD_FOR_ISA(name, params, args)                     \
  __attribute__((target("avx2,f16c"))) void name##_avx2 params { \
    name##_body args;                                            \
  }                                                              \
  void name##_portable params {                                  \
    name##_body args;                                            \
  }                                                              \
  void name params {                                             \
    if (has_avx2(p.isa))                                         \
      name##_avx2 args;                                          \
    else                                                         \
      name##_portable args;                                      \
  }
#else
#define POOLGRAD_FOR_ISA(name, params, args) \
  void name params {                         \
    name##_body args;                        \
  }
#endif

}  // namespace poolgrad
