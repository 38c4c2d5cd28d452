// SPDX-License-Identifier: Apache-2.0
// The one ISA choice. Phase 1 asks best_isa() once per call and the operator's dispatch table
// picks the kernel for it; the choice then travels in the kernel's parameters (every vector helper
// takes it), so no kernel tests the CPU itself and the trace names what ran.
#pragma once

#include <cstdint>

namespace poolgrad {

// Each level includes the ones below it. kAvx512: AVX-512 F, BW, DQ, VL and BF16 (AMD Zen 4,
// Intel Sapphire Rapids and later), on top of AVX2 and F16C.
enum class Isa : uint8_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2 };

// Whether code for AVX2 and F16C may run under the plan's ISA.
inline bool has_avx2(Isa isa) {
  return isa >= Isa::kAvx2;
}

// The best ISA the host has, capped by POOLGRAD_CPU_CAPABILITY (read once: "default" = portable,
// "avx2", "avx512") or poolgradSetCpuCapability.
Isa best_isa();
const char *isa_name(Isa isa);
// Caps best_isa(): "default", "avx2" or "avx512"; false for an unknown name (nothing changes).
bool set_isa_cap(const char *name);

}  // namespace poolgrad
