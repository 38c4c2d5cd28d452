// SPDX-License-Identifier: Apache-2.0
// Tensor views as the kernels see them: (N, C, H, W) with element strides.
#include "view.h"

#include <algorithm>
#include <utility>

#include "dtype.h"

namespace poolgrad {

int64_t View::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return 0;  // a negative dim describes nothing (operators refuse it)
    n *= d;               // dims were checked at creation: the product fits int64
  }
  return n;
}

char *view_base(const View &v) {
  return static_cast<char *>(v.data) + (v.data ? v.offset * dtype_size(v.dtype) : 0);
}

Strided4 to_nchw(const View &v, bool nhwc) {
  Strided4 t;
  t.base = view_base(v);
  const int r = v.rank();
  const int off = r == 4 ? 1 : 0;  // position of the first non-batch dim
  if (r == 4) {
    t.n = v.dims[0];
    t.sn = v.strides[0];
  }
  int ic = nhwc ? off + 2 : off, ih = nhwc ? off : off + 1, iw = nhwc ? off + 1 : off + 2;
  t.c = v.dims[ic];
  t.sc = v.strides[ic];
  t.h = v.dims[ih];
  t.sh = v.strides[ih];
  t.w = v.dims[iw];
  t.sw = v.strides[iw];
  return t;
}

Strided5 to_ncdhw(const View &v, bool channels_last) {
  Strided5 t;
  t.base = view_base(v);
  const int off = v.rank() == 5 ? 1 : 0;  // position of the first non-batch dim
  if (off) {
    t.n = v.dims[0];
    t.sn = v.strides[0];
  }
  const int ic = channels_last ? off + 3 : off, id = channels_last ? off : off + 1;
  t.c = v.dims[ic];
  t.sc = v.strides[ic];
  t.d = v.dims[id];
  t.sd = v.strides[id];
  t.h = v.dims[id + 1];
  t.sh = v.strides[id + 1];
  t.w = v.dims[id + 2];
  t.sw = v.strides[id + 2];
  return t;
}

Strided5 as_volume(const Strided4 &t) {
  Strided5 v;
  v.base = t.base;
  v.n = t.n, v.c = t.c, v.h = t.h, v.w = t.w;
  v.sn = t.sn, v.sc = t.sc, v.sh = t.sh, v.sw = t.sw;
  return v;
}

std::string dims_str(const SmallInts &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

bool view_is_non_overlapping(const View &v) {
  // (|stride|, size) of the dims of size > 1, on the stack: a view has at most 64 dims
  // (aclCreateTensor's limit), and phase 1 makes no heap allocation here.
  std::pair<int64_t, int64_t> ds[64];
  size_t n = 0;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    if (v.dims[i] <= 0) return true;
    if (v.dims[i] > 1 && n < 64)
      ds[n++] = {v.strides[i] < 0 ? -v.strides[i] : v.strides[i], v.dims[i]};
  }
  std::sort(ds, ds + n);
  int64_t extent = 0;  // max offset reachable by the dims seen so far
  for (size_t i = 0; i < n; ++i) {
    if (ds[i].first <= extent) return false;
    extent += ds[i].first * (ds[i].second - 1);
  }
  return true;
}

}  // namespace poolgrad
