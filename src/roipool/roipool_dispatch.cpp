// SPDX-License-Identifier: Apache-2.0
// The RoI pooling dispatch tables, in order of preference (core/dispatch.h). Naming: the path,
// then "/avx2", "/neon" or "/sve" for rows that run AVX2, NEON or SVE code (the channel blocks:
// Highway code, roipool_blocks.cpp; the other NEON rows: row conversions). The channel blocks
// have no portable row: there the channel-major path runs.
#include "roipool_dispatch.h"

namespace poolgrad {

namespace {

enum Layout { kChannelBlocks, kChannelMajor, kFlatRuns, kStrided, kEmpty, kDouble };

bool blocks(const RoiParams &p, const Strided4 &, const Strided2 &, const Strided4 &,
            const Strided4 &) {
  return roi_forward_blocks_apply(p);
}
bool empty(const RoiParams &p, const Strided4 &, const Strided2 &, const Strided4 &,
           const Strided4 &) {
  return p.r == 0;
}
bool flat(const RoiParams &p, const Strided4 &gy, const Strided2 &, const Strided4 &am,
          const Strided4 &) {
  return roi_backward_flat(p, gy, am);
}

// DOUBLE rows come first: the others convert to float32 (kAnyDtype would take DOUBLE too).
// clang-format off
const KernelRow<RoiForwardKernel> kForward[] = {
//  device         dtype      index      layout          isa            name                               kernel: workspace, run, applies
    {Device::kHost, ACL_DOUBLE, ACL_INT32, kDouble,       Isa::kPortable, "roi-forward-double",              {roi_double_workspace, roi_forward_double}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelBlocks, Isa::kAvx2,     "roi-forward-channel-blocks/avx2", {roi_forward_blocks_workspace, roi_forward_blocks, blocks}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelBlocks, Isa::kSve,      "roi-forward-channel-blocks/sve",  {roi_forward_blocks_workspace, roi_forward_blocks, blocks}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelBlocks, Isa::kNeon,     "roi-forward-channel-blocks/neon", {roi_forward_blocks_workspace, roi_forward_blocks, blocks}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelMajor,  Isa::kAvx2,     "roi-forward-channel-major/avx2",  {roi_forward_channel_major_workspace, roi_forward_channel_major}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelMajor,  Isa::kNeon,     "roi-forward-channel-major/neon",  {roi_forward_channel_major_workspace, roi_forward_channel_major}},
    {Device::kHost, kAnyDtype, ACL_INT32, kChannelMajor,  Isa::kPortable, "roi-forward-channel-major",       {roi_forward_channel_major_workspace, roi_forward_channel_major}},
};

// An empty gradOutput (no RoI) zero-fills gradInputRef (the gradient of an empty sum). Strided
// grids take one scalar loop (the row conversions there are strided, hence scalar too).
const KernelRow<RoiBackwardKernel> kBackward[] = {
//  device         dtype      index      layout     isa            name                                      kernel: workspace, run, applies
    {Device::kHost, ACL_DOUBLE, ACL_INT32, kDouble,  Isa::kPortable, "roi-backward-double",                    {roi_double_workspace, roi_backward_double}},
    {Device::kHost, kAnyDtype, ACL_INT32, kEmpty,    Isa::kPortable, "zero-fill",                              {roi_zero_fill_workspace, roi_zero_fill, empty}},
    {Device::kHost, kAnyDtype, ACL_INT32, kFlatRuns, Isa::kAvx2,     "roi-backward-batch-channel-blocks/avx2", {roi_backward_workspace, roipool_backward, flat}},
    {Device::kHost, kAnyDtype, ACL_INT32, kFlatRuns, Isa::kNeon,     "roi-backward-batch-channel-blocks/neon", {roi_backward_workspace, roipool_backward, flat}},
    {Device::kHost, kAnyDtype, ACL_INT32, kFlatRuns, Isa::kPortable, "roi-backward-batch-channel-blocks",      {roi_backward_workspace, roipool_backward, flat}},
    {Device::kHost, kAnyDtype, ACL_INT32, kStrided,  Isa::kPortable, "roi-backward-strided",                   {roi_backward_workspace, roipool_backward}},
};
// clang-format on

}  // namespace

const KernelRow<RoiForwardKernel> &roi_forward_kernel(const RoiParams &p, Device device,
                                                      const Strided4 &x, const Strided2 &rois,
                                                      const Strided4 &y, const Strided4 &argmax) {
  return choose_kernel(kForward, device, best_isa(), p, x, rois, y, argmax);
}

const KernelRow<RoiBackwardKernel> &roi_backward_kernel(const RoiParams &p, Device device,
                                                        const Strided4 &grad_out,
                                                        const Strided2 &rois,
                                                        const Strided4 &argmax,
                                                        const Strided4 &grad_in) {
  return choose_kernel(kBackward, device, best_isa(), p, grad_out, rois, argmax, grad_in);
}

}  // namespace poolgrad
