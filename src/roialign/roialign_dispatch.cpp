// SPDX-License-Identifier: Apache-2.0
// The RoIAlign tables (core/dispatch.h). Every path keeps torchvision's float expressions and
// order: the forward's vector rows compute eight channels at a time with the same per-lane
// arithmetic (no FMA): AVX2 by gathers, NEON and SVE from a channels-last tile
// (roialign_tiled.cpp), so every row gives the same bits.
#include "roialign_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kNchw };

// DOUBLE (poolgrad's extension) has rows of its own before the others: they compute in float.
// clang-format off
const KernelRow<RoiAlignKernel> kForward[] = {
//  device         dtype      index      layout  isa            name                   kernel: workspace, run, applies
    {Device::kHost, kAnyDtype, kAnyDtype, kNchw,  Isa::kPortable, "roi-align-zero-fill", {roi_align_backward_workspace, roi_align_zero_fill, roi_align_map_empty}},
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kNchw, Isa::kPortable, "roi-align-bins-double", {roi_align_forward_double_workspace, roi_align_forward_double}},
    {Device::kHost, ACL_FLOAT, kAnyDtype, kNchw,  Isa::kAvx2,     "roi-align-bins/avx2", {roi_align_forward_workspace, roi_align_forward, roi_align_gather_vector}},
    {Device::kHost, ACL_FLOAT, kAnyDtype, kNchw,  Isa::kSve,      "roi-align-bins/sve",  {roi_align_forward_workspace, roi_align_forward}},
    {Device::kHost, ACL_FLOAT, kAnyDtype, kNchw,  Isa::kNeon,     "roi-align-bins/neon", {roi_align_forward_workspace, roi_align_forward}},
    {Device::kHost, kAnyDtype, kAnyDtype, kNchw,  Isa::kPortable, "roi-align-bins",      {roi_align_forward_workspace, roi_align_forward}},
};
const KernelRow<RoiAlignKernel> kBackward[] = {
//  device         dtype      index      layout  isa            name                   kernel: workspace, run
    {Device::kHost, ACL_DOUBLE, kAnyDtype, kNchw, Isa::kPortable, "roi-align-channels-double", {roi_align_backward_double_workspace, roi_align_backward_double}},
    {Device::kHost, kAnyDtype, kAnyDtype, kNchw,  Isa::kPortable, "roi-align-channels",  {roi_align_backward_workspace, roi_align_backward}},
};
// clang-format on

}  // namespace

const KernelRow<RoiAlignKernel> &roi_align_forward_kernel(const RoiAlignParams &p, Device device,
                                                          const Strided4 &x, const BoxView &boxes,
                                                          const Strided4 &y) {
  return choose_kernel(kForward, device, best_isa(), p, x, boxes, y);
}

const KernelRow<RoiAlignKernel> &roi_align_backward_kernel(const RoiAlignParams &p, Device device,
                                                           const Strided4 &grad_out,
                                                           const BoxView &boxes,
                                                           const Strided4 &grad_in) {
  return choose_kernel(kBackward, device, best_isa(), p, grad_out, boxes, grad_in);
}

}  // namespace poolgrad
