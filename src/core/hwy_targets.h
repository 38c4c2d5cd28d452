// SPDX-License-Identifier: Apache-2.0
// The Highway targets every kernel written with Google Highway compiles for: AVX2 on x86-64 (the
// AVX-512 rows run it too: one width, one instruction sequence per lane), NEON and SVE (its
// vector length chosen by the CPU) on AArch64, and Highway's fallback for the portable rows
// (EMU128, or with GCC before 12.3, which Highway 1.0.3 finds broken for it, SCALAR). Highway's
// other x86 and Arm targets are left out: no row names them. Only Highway's headers are used:
// nothing to link.
//
// A kernel file: defines HWY_TARGET_INCLUDE (its own path from the source root), includes this
// header, then <hwy/foreach_target.h> and <hwy/highway.h>, writes its functions in
// namespace HWY_NAMESPACE, and in its `#if HWY_ONCE` part includes core/hwy_pick.h and returns
// POOLGRAD_HWY_PICK(isa, ...): the ISA table, not Highway's run-time dispatch, picks the target,
// so the row named in the trace is the code that ran.
#pragma once

// Highway fixes its target set when its first header is read: a header of it included before this
// one would compile the default set silently (the portable rows would then name code that is not
// there).
#ifdef HWY_TARGETS
#error "core/hwy_targets.h must be included before any Highway header"
#endif

#define HWY_COMPILE_ALL_ATTAINABLE
#define HWY_DISABLED_TARGETS \
  (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3 | HWY_AVX3_DL | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
