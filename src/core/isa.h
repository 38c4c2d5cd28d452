// SPDX-License-Identifier: Apache-2.0
// The one ISA choice. Phase 1 asks best_isa() once per call and the operator's dispatch table
// picks the kernel for it; the choice then travels in the kernel's parameters (every vector helper
// takes it), so no kernel tests the CPU itself and the trace names what ran.
#pragma once

#include <cstdint>

namespace poolgrad {

// Two ladders, each level including the ones below it, both starting at kPortable (code built
// for the architecture's baseline). x86-64: kAvx2 (AVX2 and F16C), kAvx512 (AVX-512 F, BW, DQ,
// VL and BF16: AMD Zen 4, Intel Sapphire Rapids and later). AArch64: kNeon (Advanced SIMD with
// its float16 conversions, every ARMv8-A core: every Kunpeng), kSve (the Scalable Vector
// Extension: Neoverse V1/V2, A64FX, Kunpeng 930; qemu's default CPU).
enum class Isa : uint8_t { kPortable = 0, kAvx2 = 1, kAvx512 = 2, kNeon = 3, kSve = 4 };

// Whether code for AVX2 and F16C may run under the plan's ISA.
inline bool has_avx2(Isa isa) {
  return isa == Isa::kAvx2 || isa == Isa::kAvx512;
}
// Whether NEON code may run under the plan's ISA (AArch64's levels; built only there).
inline bool has_neon(Isa isa) {
  return isa == Isa::kNeon || isa == Isa::kSve;
}
// Whether SVE code may run under the plan's ISA.
inline bool has_sve(Isa isa) {
  return isa == Isa::kSve;
}
// Whether a row written for `row` may run where best_isa() is `best`: a portable row anywhere, a
// vector row on its own ladder at or below `best`.
bool isa_runs(Isa row, Isa best);

// The best ISA the host has, capped by POOLGRAD_CPU_CAPABILITY (read once) or
// poolgradSetCpuCapability.
Isa best_isa();
const char *isa_name(Isa isa);
// Caps best_isa() by a level name: "default" (portable), "avx2", "avx512", "neon", "sve". A name
// caps at its rung on either ladder, so one name means the same on both architectures: "avx2" or
// "neon" = the first vector level (AVX2 on x86-64, NEON on AArch64), "avx512" or "sve" = no cap.
// False for an unknown name (nothing changes).
bool set_isa_cap(const char *name);

}  // namespace poolgrad
