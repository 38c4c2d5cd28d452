// SPDX-License-Identifier: Apache-2.0
// The RoIAlign tables (core/dispatch.h). One portable row a direction: the kernels keep
// torchvision's float expressions and order, which a vector path must keep too.
#include "roialign_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kNchw };

// clang-format off
const KernelRow<RoiAlignKernel> kForward[] = {
//  device         dtype      index      layout  isa            name                   kernel: workspace, run, applies
    {Device::kHost, kAnyDtype, kAnyDtype, kNchw,  Isa::kPortable, "roi-align-zero-fill", {roi_align_backward_workspace, roi_align_zero_fill, roi_align_map_empty}},
    {Device::kHost, kAnyDtype, kAnyDtype, kNchw,  Isa::kPortable, "roi-align-bins",      {roi_align_forward_workspace, roi_align_forward}},
};
const KernelRow<RoiAlignKernel> kBackward[] = {
//  device         dtype      index      layout  isa            name                   kernel: workspace, run
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
