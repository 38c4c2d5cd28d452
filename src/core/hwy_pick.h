// SPDX-License-Identifier: Apache-2.0
// POOLGRAD_HWY_PICK(isa, FN): in a Highway kernel's `#if HWY_ONCE` part (core/hwy_targets.h),
// returns FN(N_AVX2) for a row with AVX2 (AVX-512 rows included), FN(N_SVE) for an SVE row,
// FN(N_NEON) for a NEON row, and FN of Highway's fallback target otherwise. FN is a macro of the
// target's namespace, so one pick can choose among several functions: #define SCAN(ns) (no_nan ?
// ns::ScanA : ns::ScanB).
#pragma once

#include "isa.h"

#if HWY_TARGETS & HWY_AVX2
#define POOLGRAD_HWY_IF_AVX2(isa, FN) \
  if (has_avx2(isa)) return FN(N_AVX2);
#else
#define POOLGRAD_HWY_IF_AVX2(isa, FN)
#endif
#if HWY_TARGETS & HWY_SVE
#define POOLGRAD_HWY_IF_SVE(isa, FN) \
  if (has_sve(isa)) return FN(N_SVE);
#else
#define POOLGRAD_HWY_IF_SVE(isa, FN)
#endif
#if HWY_TARGETS & HWY_NEON
#define POOLGRAD_HWY_IF_NEON(isa, FN) \
  if (has_neon(isa)) return FN(N_NEON);
#else
#define POOLGRAD_HWY_IF_NEON(isa, FN)
#endif
#if HWY_TARGETS & HWY_EMU128
#define POOLGRAD_HWY_FALLBACK(FN) FN(N_EMU128)
#else  // GCC before 12.3: Highway's fallback is its one-lane target
#define POOLGRAD_HWY_FALLBACK(FN) FN(N_SCALAR)
#endif

#define POOLGRAD_HWY_PICK(isa, FN)    \
  do {                                \
    POOLGRAD_HWY_IF_AVX2(isa, FN)     \
    POOLGRAD_HWY_IF_SVE(isa, FN)      \
    POOLGRAD_HWY_IF_NEON(isa, FN)     \
    (void)(isa);                      \
    return POOLGRAD_HWY_FALLBACK(FN); \
  } while (0)

// The chosen function as an expression, for a caller that calls it at once:
// POOLGRAD_HWY_FN(p.isa, BODY)(args...).
#define POOLGRAD_HWY_FN(isa, FN) ([&] { POOLGRAD_HWY_PICK(isa, FN); }())
