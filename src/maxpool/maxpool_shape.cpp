// SPDX-License-Identifier: Apache-2.0
#include "maxpool_shape.h"

#include <cinttypes>

#include "../core/core.h"

namespace poolgrad {

static aclnnStatus read_pair(const char *api, const char *name, const SmallInts &v,
                             bool allow_empty, int64_t dflt_h, int64_t dflt_w, int64_t *h,
                             int64_t *w) {
  if (v.size() == 0 && allow_empty) {
    *h = dflt_h;
    *w = dflt_w;
    return ACLNN_SUCCESS;
  }
  if (v.size() != 1 && v.size() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must have length %s, but got length %zu (%s)", api,
                name, allow_empty ? "0, 1 or 2" : "1 or 2", v.size(), dims_str(v).c_str());
  *h = v[0];
  *w = v.size() == 2 ? v[1] : v[0];
  return ACLNN_SUCCESS;
}

aclnnStatus parse_pool_attrs(const char *api, const SmallInts &kernel, const SmallInts &stride,
                             const SmallInts &padding, const SmallInts &dilation, bool ceil,
                             PoolAttrs *a) {
  aclnnStatus st;
  if ((st = read_pair(api, "kernelSize", kernel, false, 0, 0, &a->kh, &a->kw))) return st;
  for (size_t i = 0; i < kernel.size(); ++i)
    if (kernel[i] <= 0 || kernel[i] > kMaxAttr)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: kernelSize[%zu] must be in [1, %" PRId64 "], but got %" PRId64, api, i,
                  kMaxAttr, kernel[i]);
  if ((st = read_pair(api, "stride", stride, true, a->kh, a->kw, &a->sh, &a->sw))) return st;
  for (size_t i = 0; i < stride.size(); ++i)
    if (stride[i] <= 0 || stride[i] > kMaxAttr)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: stride[%zu] must be in [1, %" PRId64 "], but got %" PRId64, api, i, kMaxAttr,
                  stride[i]);
  if ((st = read_pair(api, "padding", padding, false, 0, 0, &a->ph, &a->pw))) return st;
  const int64_t ks[2] = {a->kh, a->kw};
  for (size_t i = 0; i < padding.size(); ++i) {
    const int64_t k = ks[padding.size() == 2 ? i : 0];
    const int64_t k_other = ks[padding.size() == 2 ? i : 1];
    if (padding[i] < 0)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: padding[%zu] must be >= 0, but got %" PRId64, api,
                  i, padding[i]);
    // A length-1 padding applies to both axes, so it must satisfy both kernels' rules.
    const int64_t lim = (padding.size() == 1 && k_other < k) ? k_other / 2 : k / 2;
    const int64_t lim_k = (padding.size() == 1 && k_other < k) ? k_other : k;
    if (padding[i] > lim)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: padding[%zu]=%" PRId64 " must be <= kernelSize/2=%" PRId64
                  " (kernelSize %" PRId64 ")",
                  api, i, padding[i], lim, lim_k);
  }
  if ((st = read_pair(api, "dilation", dilation, false, 1, 1, &a->dh, &a->dw))) return st;
  for (size_t i = 0; i < dilation.size(); ++i)
    if (dilation[i] <= 0 || dilation[i] > kMaxAttr)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: dilation[%zu] must be in [1, %" PRId64 "], but got %" PRId64, api, i,
                  kMaxAttr, dilation[i]);
  a->ceil = ceil;
  return ACLNN_SUCCESS;
}

}  // namespace poolgrad
