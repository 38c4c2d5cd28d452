// SPDX-License-Identifier: Apache-2.0
// The RoI pooling dispatch tables. Naming: the path, then "/avx2" for rows that run AVX2 code.
#include "roipool_dispatch.h"

#include <cstdlib>

namespace poolgrad {

namespace {

enum Layout { kChannelBlocks, kChannelMajor, kFlatRuns, kStrided };

const KernelRow<RoiForwardKernel> kForward[] = {
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kChannelBlocks,
     Isa::kAvx2,
     "roi-forward-channel-blocks/avx2",
     {roi_forward_blocks_workspace, roi_forward_blocks}},
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kChannelMajor,
     Isa::kPortable,
     "roi-forward-channel-major",
     {roi_forward_channel_major_workspace, roi_forward_channel_major}},
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kChannelMajor,
     Isa::kAvx2,
     "roi-forward-channel-major/avx2",
     {roi_forward_channel_major_workspace, roi_forward_channel_major}},
};

const KernelRow<RoiBackwardKernel> kBackward[] = {
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kFlatRuns,
     Isa::kPortable,
     "roi-backward-batch-channel-blocks",
     {roi_backward_workspace, roipool_backward}},
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kFlatRuns,
     Isa::kAvx2,
     "roi-backward-batch-channel-blocks/avx2",
     {roi_backward_workspace, roipool_backward}},
    // Strided grids: one scalar loop (the row conversions there are strided, hence scalar too).
    {Device::kHost,
     kAnyDtype,
     ACL_INT32,
     kStrided,
     Isa::kPortable,
     "roi-backward-strided",
     {roi_backward_workspace, roipool_backward}},
};

template <class Row>
const Row &must(const Row *r) {
  if (!r) std::abort();  // every key has a portable row: unreachable
  return *r;
}

}  // namespace

const KernelRow<RoiForwardKernel> &roi_forward_kernel(const RoiParams &p, Device device) {
  if (roi_forward_blocks_apply(p))
    return must(find_kernel(kForward, device, p.dtype, ACL_INT32, {kChannelBlocks, kChannelMajor},
                            best_isa()));
  return must(find_kernel(kForward, device, p.dtype, ACL_INT32, {kChannelMajor}, best_isa()));
}

const KernelRow<RoiBackwardKernel> &roi_backward_kernel(const RoiParams &p, Device device,
                                                        const Strided4 &grad_out,
                                                        const Strided4 &argmax) {
  const int layout = roi_backward_flat(p, grad_out, argmax) ? kFlatRuns : kStrided;
  return must(find_kernel(kBackward, device, p.dtype, ACL_INT32, {layout}, best_isa()));
}

}  // namespace poolgrad
