// SPDX-License-Identifier: Apache-2.0
// The max-pool dispatch tables, in order of preference (core/dispatch.h). Naming: the path, then
// "/avx2", "/avx512" or "/neon" for rows that run AVX2, AVX-512 or AArch64 NEON code (a NEON
// row: its row conversions and its Highway code's NEON target); "/sve": the forwards' Highway
// code compiled for SVE, NEON code elsewhere.
#include "maxpool_dispatch.h"

#include "../volume/volume_double.h"

namespace poolgrad {

namespace {

enum Layout {
  kDouble,  // DOUBLE, any layout (src/volume/volume_double.h)
  kPlanes,
  kChannelsLast,
  kPlanesGather,
  kChannelsLastGather,
  kPlanesGather3,
  kMaskUnit,  // the Mask API's 1x1 windows
  kMaskTail,  // the Mask API's step after the forward
};

// The "applies" column: the layouts and the special paths' conditions (maxpool_kernels.h).
bool fwd_cl(const MaxPoolParams &, const Strided4 &x, const Strided4 &out, const Strided4 &idx) {
  return maxpool_channels_last(x, out, idx);
}
bool bwd_cl(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx, const Strided4 &gx) {
  return !p.unit_window && maxpool_channels_last(gy, idx, gx);  // 1x1 Mask windows: planes
}
bool bwd_cl_gather(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                   const Strided4 &gx) {
  return bwd_cl(p, gy, idx, gx) && maxpool_cl_gather_applies(p);
}
bool bwd_gather3(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                 const Strided4 &gx) {
  return !p.unit_window && !bwd_cl(p, gy, idx, gx) && maxpool_gather3_applies(p, gy, idx, gx);
}
bool bwd_gather(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                const Strided4 &gx) {
  return !p.unit_window && !bwd_cl(p, gy, idx, gx) && maxpool_gather_applies(p, gy, idx);
}
bool mask_unit(const MaxPoolParams &p, const Strided4 &, const Strided4 &, const Strided4 &) {
  return p.a.kh == 1 && p.a.kw == 1;
}

// DOUBLE rows come first: the others convert to float32 (kAnyDtype would take DOUBLE too).
// The gather is AVX2 code only (the portable per-pixel gather measured slower than the scatter);
// 3x3 windows at stride 2 (the ResNet stem) take an AVX-512 gather of each plane.
// clang-format off
const KernelRow<MaxPoolForwardKernel> kForward[] = {
//  device         dtype      index      layout         isa            name                          kernel: workspace, run, applies
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kDouble,      Isa::kPortable, "forward-double",             {pool2d_double_workspace, maxpool2d_forward_double}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kAvx2,     "forward-channels-last/avx2", {maxpool_forward_cl_workspace, maxpool_forward_cl, fwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kSve,      "forward-channels-last/sve",  {maxpool_forward_cl_workspace, maxpool_forward_cl, fwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kNeon,     "forward-channels-last/neon", {maxpool_forward_cl_workspace, maxpool_forward_cl, fwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kPortable, "forward-channels-last",      {maxpool_forward_cl_workspace, maxpool_forward_cl, fwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kAvx2,     "forward-planes/avx2",        {maxpool_forward_planes_workspace, maxpool_forward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kSve,      "forward-planes/sve",         {maxpool_forward_planes_workspace, maxpool_forward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kNeon,     "forward-planes/neon",        {maxpool_forward_planes_workspace, maxpool_forward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kPortable, "forward-planes",             {maxpool_forward_planes_workspace, maxpool_forward_planes}},
};

const KernelRow<MaxPoolBackwardKernel> kBackward[] = {
//  device         dtype      index      layout              isa            name                                  kernel: workspace, run, applies
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kDouble,            Isa::kPortable, "backward-double",                    {pool2d_double_workspace, pool2d_backward_double}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLastGather, Isa::kAvx2,    "backward-channels-last-gather/avx2", {maxpool_backward_cl_gather_workspace, maxpool_backward_cl_gather, bwd_cl_gather}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast,      Isa::kAvx2,     "backward-channels-last/avx2",        {maxpool_backward_cl_workspace, maxpool_backward_cl, bwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast,      Isa::kNeon,     "backward-channels-last/neon",        {maxpool_backward_cl_workspace, maxpool_backward_cl, bwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast,      Isa::kPortable, "backward-channels-last",             {maxpool_backward_cl_workspace, maxpool_backward_cl, bwd_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanesGather3,     Isa::kAvx512,   "backward-planes-gather3/avx512",     {maxpool_backward_gather3_workspace, maxpool_backward_gather3, bwd_gather3}},
    {Device::kHost, kAnyDtype, ACL_INT32, kPlanesGather,      Isa::kAvx2,     "backward-planes-gather/avx2",        {maxpool_backward_planes_workspace, maxpool_backward_gather, bwd_gather}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,            Isa::kAvx2,     "backward-planes/avx2",               {maxpool_backward_planes_workspace, maxpool_backward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,            Isa::kNeon,     "backward-planes/neon",               {maxpool_backward_planes_workspace, maxpool_backward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,            Isa::kPortable, "backward-planes",                    {maxpool_backward_planes_workspace, maxpool_backward_planes}},
};

// The Mask API's own step: instead of the forward (1x1 windows) or after it (the buffer's tail).
const KernelRow<MaxPoolForwardKernel> kMaskSteps[] = {
//  device         dtype      index      layout     isa            name                kernel: workspace, run, applies
    {Device::kHost, kAnyDtype, ACL_INT32, kMaskUnit, Isa::kPortable, "mask-unit-window", {maxpool_mask_workspace, maxpool_mask_unit, mask_unit}},
    {Device::kHost, kAnyDtype, ACL_INT32, kMaskTail, Isa::kPortable, "mask-tail",        {maxpool_mask_workspace, maxpool_mask_tail}},
};
// clang-format on

}  // namespace

const KernelRow<MaxPoolForwardKernel> &maxpool_forward_kernel(const MaxPoolParams &p, Device device,
                                                              const Strided4 &x,
                                                              const Strided4 &out,
                                                              const Strided4 &idx) {
  return choose_kernel(kForward, device, best_isa(), p, x, out, idx);
}

const KernelRow<MaxPoolBackwardKernel> &maxpool_backward_kernel(const MaxPoolParams &p,
                                                                Device device, const Strided4 &gy,
                                                                const Strided4 &idx,
                                                                const Strided4 &gx) {
  return choose_kernel(kBackward, device, best_isa(), p, gy, idx, gx);
}

const KernelRow<MaxPoolForwardKernel> &maxpool_mask_kernel(const MaxPoolParams &p, Device device,
                                                           const Strided4 &x, const Strided4 &out,
                                                           const Strided4 &idx) {
  return choose_kernel(kMaskSteps, device, best_isa(), p, x, out, idx);
}

}  // namespace poolgrad
