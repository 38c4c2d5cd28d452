// SPDX-License-Identifier: Apache-2.0
// The max-pool dispatch tables. Naming: the path, then "/avx2" or "/avx512" for rows that run
// AVX2 or AVX-512 code.
#include "maxpool_dispatch.h"

namespace poolgrad {

namespace {

enum Layout {
  kPlanes,
  kChannelsLast,
  kPlanesGather,
  kChannelsLastGather,
  kPlanesGather3,
  kMaskUnit,  // the Mask API's 1x1 windows
  kMaskTail,  // the Mask API's step after the forward
};

// The gather is AVX2 code only (the portable per-pixel gather measured slower than the scatter);
// 3x3 windows at stride 2 (the ResNet stem) take an AVX-512 gather of each plane.
// clang-format off
const KernelRow<MaxPoolForwardKernel> kForward[] = {
//  device         dtype      index      layout         isa            name                          kernel
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kPortable, "forward-planes",             {maxpool_forward_planes_workspace, maxpool_forward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,       Isa::kAvx2,     "forward-planes/avx2",        {maxpool_forward_planes_workspace, maxpool_forward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kPortable, "forward-channels-last",      {maxpool_forward_cl_workspace, maxpool_forward_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast, Isa::kAvx2,     "forward-channels-last/avx2", {maxpool_forward_cl_workspace, maxpool_forward_cl}},
    {Device::kHost, kAnyDtype, ACL_INT32, kMaskUnit,     Isa::kPortable, "mask-unit-window",           {maxpool_mask_workspace, maxpool_mask_unit}},
    {Device::kHost, kAnyDtype, ACL_INT32, kMaskTail,     Isa::kPortable, "mask-tail",                  {maxpool_mask_workspace, maxpool_mask_tail}},
};

const KernelRow<MaxPoolBackwardKernel> kBackward[] = {
//  device         dtype      index      layout              isa            name                                  kernel
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,            Isa::kPortable, "backward-planes",                    {maxpool_backward_planes_workspace, maxpool_backward_planes}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanes,            Isa::kAvx2,     "backward-planes/avx2",               {maxpool_backward_planes_workspace, maxpool_backward_planes}},
    {Device::kHost, kAnyDtype, ACL_INT32, kPlanesGather,      Isa::kAvx2,     "backward-planes-gather/avx2",        {maxpool_backward_planes_workspace, maxpool_backward_gather}},
    {Device::kHost, kAnyDtype, kAnyDtype, kPlanesGather3,     Isa::kAvx512,   "backward-planes-gather3/avx512",     {maxpool_backward_gather3_workspace, maxpool_backward_gather3}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast,      Isa::kPortable, "backward-channels-last",             {maxpool_backward_cl_workspace, maxpool_backward_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLast,      Isa::kAvx2,     "backward-channels-last/avx2",        {maxpool_backward_cl_workspace, maxpool_backward_cl}},
    {Device::kHost, kAnyDtype, kAnyDtype, kChannelsLastGather, Isa::kAvx2,    "backward-channels-last-gather/avx2", {maxpool_backward_cl_gather_workspace, maxpool_backward_cl_gather}},
};
// clang-format on

}  // namespace

const KernelRow<MaxPoolForwardKernel> &maxpool_forward_kernel(const MaxPoolParams &p, Device device,
                                                              const Strided4 &x,
                                                              const Strided4 &out,
                                                              const Strided4 &idx) {
  const int layout = maxpool_channels_last(x, out, idx) ? kChannelsLast : kPlanes;
  return must_find(find_kernel(kForward, device, p.dtype, p.index_dtype, {layout}, best_isa()));
}

const KernelRow<MaxPoolBackwardKernel> &maxpool_backward_kernel(const MaxPoolParams &p,
                                                                Device device, const Strided4 &gy,
                                                                const Strided4 &idx,
                                                                const Strided4 &gx) {
  if (p.unit_window)  // no stored indices: the per-row plane loop computes them
    return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype, {kPlanes}, best_isa()));
  if (maxpool_channels_last(gy, idx, gx)) {
    if (maxpool_cl_gather_applies(p))
      return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype,
                                   {kChannelsLastGather, kChannelsLast}, best_isa()));
    return must_find(
        find_kernel(kBackward, device, p.dtype, p.index_dtype, {kChannelsLast}, best_isa()));
  }
  if (maxpool_gather3_applies(p, gy, idx, gx))
    return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype,
                                 {kPlanesGather3, kPlanes}, best_isa()));
  if (maxpool_gather_applies(p, gy, idx))
    return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype,
                                 {kPlanesGather, kPlanes}, best_isa()));
  return must_find(find_kernel(kBackward, device, p.dtype, p.index_dtype, {kPlanes}, best_isa()));
}

const KernelRow<MaxPoolForwardKernel> &maxpool_mask_kernel(const MaxPoolParams &p, Device device,
                                                           bool unit_window) {
  return must_find(find_kernel(kForward, device, p.dtype, ACL_INT32,
                               {unit_window ? kMaskUnit : kMaskTail}, best_isa()));
}

}  // namespace poolgrad
