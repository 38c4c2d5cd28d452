// SPDX-License-Identifier: Apache-2.0
// What a kernel sees of a tensor: a plain, handle-free view (no aclTensor), and the (N, C, H, W)
// element-strided form the kernels index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aclnn/aclnn_base.h"
#include "small_ints.h"

namespace poolgrad {

// Where a tensor's memory lives. The host is the only device today (aclrtMalloc gives host
// memory); the dispatch key and the runtime's copy checks carry it for a second device.
enum class Device : uint8_t { kHost = 0 };

// A plain, handle-free copy of what a kernel needs of a tensor: phase 1 takes one, so that an
// executor never depends on the caller's aclTensor after phase 1.
struct View {
  void *data = nullptr;  // storage base
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  Device device = Device::kHost;
  int64_t offset = 0;  // elements
  SmallInts dims;
  SmallInts strides;
  int64_t numel() const;
  int rank() const { return static_cast<int>(dims.size()); }
};

// A rank-3/4 view seen as (N, C, H, W) with element strides; rank 3 gets N = 1. With nhwc the
// view's dims are read as (N, H, W, C) / (H, W, C).
struct Strided4 {
  char *base = nullptr;  // storage base + view offset, in bytes
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t sn = 0, sc = 0, sh = 0, sw = 0;
  // True when each (n, c) plane is dense row-major (sw == 1, sh == w).
  bool plane_dense() const { return sw == 1 && (h == 1 || sh == w); }
};
// The address of the view's first element (storage base + offset), null for a view without data.
char *view_base(const View &v);
Strided4 to_nchw(const View &v, bool nhwc);

// A rank-4/5 view seen as (N, C, D, H, W) with element strides; rank 4 gets N = 1. With
// channels_last the view's dims are read as (N, D, H, W, C) / (D, H, W, C).
struct Strided5 {
  char *base = nullptr;
  int64_t n = 1, c = 1, d = 1, h = 1, w = 1;
  int64_t sn = 0, sc = 0, sd = 0, sh = 0, sw = 0;
};
Strided5 to_ncdhw(const View &v, bool channels_last);
// A 2-D (N, C, H, W) view as a volume of depth 1.
Strided5 as_volume(const Strided4 &t);

std::string dims_str(const SmallInts &d);
// True when no two elements of the view can share storage (a sufficient test).
bool view_is_non_overlapping(const View &v);

}  // namespace poolgrad
