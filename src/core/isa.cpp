// SPDX-License-Identifier: Apache-2.0
#include "isa.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
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
#else
  return Isa::kPortable;
#endif
}

bool parse(const char *name, Isa *out) {
  if (std::strcmp(name, "default") == 0)
    *out = Isa::kPortable;
  else if (std::strcmp(name, "avx2") == 0)
    *out = Isa::kAvx2;
  else if (std::strcmp(name, "avx512") == 0)
    *out = Isa::kAvx512;
  else
    return false;
  return true;
}

// The cap: POOLGRAD_CPU_CAPABILITY (like PyTorch's ATEN_CPU_CAPABILITY), else no cap.
std::atomic<int> g_cap{[] {
  const char *v = std::getenv("POOLGRAD_CPU_CAPABILITY");
  Isa cap = Isa::kAvx512;
  if (v && *v) parse(v, &cap);
  return static_cast<int>(cap);
}()};

}  // namespace

Isa best_isa() {
  static const Isa host = host_isa();
  const Isa cap = static_cast<Isa>(g_cap.load(std::memory_order_relaxed));
  return cap < host ? cap : host;
}

const char *isa_name(Isa isa) {
  return isa == Isa::kAvx512 ? "avx512" : isa == Isa::kAvx2 ? "avx2" : "portable";
}

bool set_isa_cap(const char *name) {
  Isa cap;
  if (!name || !parse(name, &cap)) return false;
  g_cap.store(static_cast<int>(cap));
  return true;
}

}  // namespace poolgrad
