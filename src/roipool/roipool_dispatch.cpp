// SPDX-License-Identifier: Apache-2.0
// The RoI pooling dispatch tables. Naming: the path, then "/avx2" for rows that run AVX2 code.
#include "roipool_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kChannelBlocks, kChannelMajor, kFlatRuns, kStrided, kEmpty };

// clang-format off
const KernelRow<RoiForwardKernel> kForward[] = {
//  device         dtype      index      layout          isa            name                               kernel
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelBlocks, Isa::kAvx2,     "roi-forward-channel-blocks/avx2", {roi_forward_blocks_workspace, roi_forward_blocks}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelMajor,  Isa::kPortable, "roi-forward-channel-major",       {roi_forward_channel_major_workspace, roi_forward_channel_major}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelMajor,  Isa::kAvx2,     "roi-forward-channel-major/avx2",  {roi_forward_channel_major_workspace, roi_forward_channel_major}},
};

// Strided grids take one scalar loop (the row conversions there are strided, hence scalar too).
// An empty gradOutput zero-fills gradInputRef (the gradient of an empty sum).
const KernelRow<RoiBackwardKernel> kBackward[] = {
//  device         dtype      index      layout     isa            name                                      kernel
    {Device::kHost, kAnyDtype, ACL_INT32, kFlatRuns, Isa::kPortable, "roi-backward-batch-channel-blocks",      {roi_backward_workspace, roipool_backward}},
    {Device::kHost, kAnyDtype, ACL_INT32, kFlatRuns, Isa::kAvx2,     "roi-backward-batch-channel-blocks/avx2", {roi_backward_workspace, roipool_backward}},
    {Device::kHost, kAnyDtype, ACL_INT32, kStrided,  Isa::kPortable, "roi-backward-strided",                   {roi_backward_workspace, roipool_backward}},
    {Device::kHost, kAnyDtype, ACL_INT32, kEmpty,    Isa::kPortable, "zero-fill",                              {roi_zero_fill_workspace, roi_zero_fill}},
};
// clang-format on

}  // namespace

const KernelRow<RoiForwardKernel> &roi_forward_kernel(const RoiParams &p, Device device) {
  if (roi_forward_blocks_apply(p))
    return must_find(find_kernel(kForward, device, p.dtype, ACL_INT32,
                                 {kChannelBlocks, kChannelMajor}, best_isa()));
  return must_find(find_kernel(kForward, device, p.dtype, ACL_INT32, {kChannelMajor}, best_isa()));
}

const KernelRow<RoiBackwardKernel> &roi_backward_kernel(const RoiParams &p, Device device,
                                                        const Strided4 &grad_out,
                                                        const Strided4 &argmax) {
  const int layout = p.r == 0                                 ? kEmpty
                     : roi_backward_flat(p, grad_out, argmax) ? kFlatRuns
                                                              : kStrided;
  return must_find(find_kernel(kBackward, device, p.dtype, ACL_INT32, {layout}, best_isa()));
}

}  // namespace poolgrad
