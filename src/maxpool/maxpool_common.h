// SPDX-License-Identifier: Apache-2.0
// What the max-pool forward and backward kernels share: element addressing, window taps, index
// load/store (the description of a call's workspace, run_parts, is core/parts.h).
#pragma once

#include <cstring>
#include <new>

#include "../core/parts.h"
#include "../core/prefetch.h"
#include "../core/scatter.h"
#include "maxpool_kernels.h"

namespace poolgrad {
namespace maxpool_detail {

inline char *elem(const Strided4 &t, int64_t esz, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.base + (n * t.sn + c * t.sc + h * t.sh + w * t.sw) * esz;
}

inline void store_index(const Strided4 &t, aclDataType idt, int64_t n, int64_t c, int64_t h,
                        int64_t w, int64_t v) {
  poolgrad::store_index(elem(t, index_size(idt), n, c, h, w), idt, v);
}

// One output row's indices, from the int64 row computed, in the indices' dtype and stride (inline:
// rows can be a few elements long, and a call per row costs more than the stores).
inline void store_index_row(const Strided4 &t, aclDataType idt, int64_t n, int64_t c, int64_t h,
                            const int64_t *irow, int64_t count) {
  const int64_t sw = t.sw;  // a local: the stores could alias t, so t.sw was reloaded per element
  if (idt == ACL_INT32) {
    int32_t *const r = reinterpret_cast<int32_t *>(elem(t, 4, n, c, h, 0));
    if (sw == 1)
      for (int64_t o = 0; o < count; ++o) r[o] = static_cast<int32_t>(irow[o]);
    else
      for (int64_t o = 0; o < count; ++o) r[o * sw] = static_cast<int32_t>(irow[o]);
  } else {
    int64_t *const r = reinterpret_cast<int64_t *>(elem(t, 8, n, c, h, 0));
    if (sw == 1)
      std::memcpy(r, irow, static_cast<size_t>(count) * 8);
    else
      for (int64_t o = 0; o < count; ++o) r[o * sw] = irow[o];
  }
}

inline bool channels_last(const Strided4 &t) {
  return t.c > 1 && t.sc == 1;
}

// Gathers one (n, c) plane of a 3x3, stride 2, padding 1 backward with H = 2*ho and W = 2*wo
// (maxpool_gather3.cpp): gradients gy (ho*wo, p.dtype) and indices ix (ho*wo, p.index_dtype) in,
// the plane's h*w values in p.dtype out (a dense plane; streaming stores where nt); scratch:
// gather3_scratch_floats(p) floats. False where an index is not one of its window's taps (out is
// then garbage and the caller scatters the plane).
// next: the next plane's inputs, fetched in `steps` shares spread over the rows (an empty
// SpreadPrefetch fetches nothing).
struct PlanePrefetch {
  SpreadPrefetch g, ix;
  int64_t steps = 0;
  void step(int64_t k) const {
    g.step(k);
    ix.step(k);
  }
};
bool gather_k3s2_plane(const MaxPoolParams &p, const void *gy, const void *ix, void *out, bool nt,
                       float *scratch, const PlanePrefetch &next);
int64_t gather3_scratch_floats(const MaxPoolParams &p);

}  // namespace maxpool_detail
}  // namespace poolgrad
