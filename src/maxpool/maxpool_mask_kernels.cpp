// SPDX-License-Identifier: Apache-2.0
// The Mask API's own phase-2 steps (docs/mask.md): the mask is CANN's A2/A3 layout, an INT8
// buffer of [N, C, kH*kW, mask_row_bytes(Hout, Wout)] bytes; `idx` is the int32 view over its
// first bytes (the forward's indices in (n, c, oh, ow) order for windows other than 1x1).
#include <cstring>

#include "maxpool_common.h"

namespace poolgrad {

namespace {

int64_t mask_bytes(const MaxPoolParams &p) {
  return p.n * p.c * p.a.kh * p.a.kw * mask_row_bytes(p.ho, p.wo);
}

}  // namespace

int64_t maxpool_mask_workspace(const MaxPoolParams &, const Strided4 &, const Strided4 &,
                               const Strided4 &) {
  return 0;
}

// 1x1 windows leave no room for int32 indices: the output is the window's one element (padding
// is 0, as it must be <= kernel/2), copied as it is; the mask one set bit per output (the maximum
// is at kernel position 0), least significant first, in each plane's first row; the rest 0.
FirstError maxpool_mask_unit(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                             const Strided4 &idx, void *) {
  const int64_t es = dtype_size(p.dtype);
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t c = 0; c < p.c; ++c)
      for (int64_t oh = 0; oh < p.ho; ++oh)
        for (int64_t ow = 0; ow < p.wo; ++ow)
          std::memcpy(maxpool_detail::elem(out, es, n, c, oh, ow),
                      maxpool_detail::elem(x, es, n, c, oh * p.a.sh, ow * p.a.sw),
                      static_cast<size_t>(es));
  unsigned char *const mask = reinterpret_cast<unsigned char *>(idx.base);
  std::memset(mask, 0, static_cast<size_t>(mask_bytes(p)));
  const int64_t row = mask_row_bytes(p.ho, p.wo), outputs = p.ho * p.wo;
  for (int64_t pl = 0; pl < p.n * p.c; ++pl)
    for (int64_t t = 0; t < outputs; ++t)
      mask[pl * row + t / 8] |= static_cast<unsigned char>(1u << (t % 8));
  return {};
}

// After the forward wrote its int32 indices: the rest of the buffer zero, as CANN's forward.
FirstError maxpool_mask_tail(const MaxPoolParams &p, const Strided4 &, const Strided4 &,
                             const Strided4 &idx, void *) {
  const int64_t written = p.n * p.c * p.ho * p.wo * 4;
  std::memset(idx.base + written, 0, static_cast<size_t>(mask_bytes(p) - written));
  return {};
}

}  // namespace poolgrad
