// The one ISA choice. Phase 1 asks best_isa() once per call and the operator's dispatch table
// picks the kernel for it; the choice then travels in the kernel's parameters (every vector helper
// takes it), so no kernel tests the CPU itself and the trace names what ran.
#pragma once

#include <cstdint>

namespace poolgrad {

enum class Isa : uint8_t { kPortable = 0, kAvx2 = 1 };

// The best ISA the host has, capped by POOLGRAD_CPU_CAPABILITY (read once: "default" = portable,
// "avx2") or poolgradSetCpuCapability.
Isa best_isa();
const char *isa_name(Isa isa);
// Caps best_isa(): "default" or "avx2"; false for an unknown name (nothing changes).
bool set_isa_cap(const char *name);

}  // namespace poolgrad
