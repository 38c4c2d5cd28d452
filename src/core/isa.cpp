// SPDX-License-Identifier: Apache-2.0
#include "isa.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace poolgrad {

namespace {

Isa host_isa() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return Isa::kPortable;
  const bool f16c = (c >> 29) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
  if (!f16c || !osxsave || !avx) return Isa::kPortable;
  unsigned xlo, xhi;
  __asm__("xgetbv" : "=a"(xlo), "=d"(xhi) : "c"(0));
  if ((xlo & 6) != 6) return Isa::kPortable;  // the OS saves the YMM state
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return Isa::kPortable;
  if (!((b >> 5) & 1)) return Isa::kPortable;
  // AVX-512: F (bit 16), DQ (17), BW (30), VL (31), BF16 (leaf 7.1 EAX bit 5), and the OS saving
  // the opmask and ZMM state (XCR0 bits 5-7).
  const bool avx512 =
      (b >> 16 & 1) && (b >> 17 & 1) && (b >> 30 & 1) && (b >> 31 & 1) && (xlo & 0xe0) == 0xe0;
  if (!avx512 || !__get_cpuid_count(7, 1, &a, &b, &c, &d)) return Isa::kAvx2;
  return (a >> 5) & 1 ? Isa::kAvx512 : Isa::kAvx2;
#elif defined(__aarch64__) && defined(__linux__)
  // The kernel's word on the CPU's features (HWCAP_ASIMD: Advanced SIMD, with the float16
  // conversions FCVTL / FCVTN, part of every ARMv8-A core; HWCAP_SVE: the kernel also saves the
  // SVE state).
  const unsigned long caps = getauxval(AT_HWCAP);
  if (!(caps & HWCAP_ASIMD)) return Isa::kPortable;
  return (caps & HWCAP_SVE) ? Isa::kSve : Isa::kNeon;
#else
  return Isa::kPortable;
#endif
}

// A level's rung on its ladder: 0 portable, 1 the first vector level, 2 the next.
int rung(Isa isa) {
  return isa == Isa::kPortable ? 0 : isa == Isa::kAvx512 || isa == Isa::kSve ? 2 : 1;
}

// The cap as a rung, from a name; false for an unknown name.
bool parse(const char *name, int *rung_out) {
  if (std::strcmp(name, "default") == 0)
    *rung_out = 0;
  else if (std::strcmp(name, "avx2") == 0 || std::strcmp(name, "neon") == 0)
    *rung_out = 1;
  else if (std::strcmp(name, "avx512") == 0 || std::strcmp(name, "sve") == 0)
    *rung_out = 2;
  else
    return false;
  return true;
}

// The cap: POOLGRAD_CPU_CAPABILITY (like PyTorch's ATEN_CPU_CAPABILITY), else none.
std::atomic<int> g_cap{[] {
  const char *v = std::getenv("POOLGRAD_CPU_CAPABILITY");
  int cap = 2;
  if (v && *v) parse(v, &cap);
  return cap;
}()};

// The host's ladder's level at a rung no higher than its best.
Isa at_rung(Isa host, int cap) {
  if (rung(host) <= cap) return host;
  if (cap <= 0) return Isa::kPortable;
  // cap 1 below the second level
  return host == Isa::kAvx512 ? Isa::kAvx2 : host == Isa::kSve ? Isa::kNeon : host;
}

}  // namespace

bool isa_runs(Isa row, Isa best) {
  if (row == Isa::kPortable) return true;
  const bool arm_row = has_neon(row), arm_best = has_neon(best);
  return best != Isa::kPortable && arm_row == arm_best && rung(row) <= rung(best);
}

Isa best_isa() {
  static const Isa host = host_isa();
  return at_rung(host, g_cap.load(std::memory_order_relaxed));
}

const char *isa_name(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kNeon:
      return "neon";
    case Isa::kSve:
      return "sve";
    default:
      return "portable";
  }
}

bool set_isa_cap(const char *name) {
  int cap;
  if (!name || !parse(name, &cap)) return false;
  g_cap.store(cap);
  return true;
}

}  // namespace poolgrad
