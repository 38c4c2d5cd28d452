// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the volume operators under the default (Ascend950) profile, phase 1 and 2:
// aclnnMaxPool3dWithArgmax (FUZZ_BACKWARD=0) or its backward (1), or with FUZZ_ADAPTIVE=1
// aclnnAdaptiveMaxPool3d or its backward: dtypes, formats (NCDHW, NDHWC, ...), ranks, dims (huge
// ones as zero-stride views), strides, attributes, output sizes, and the indices' data.
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

#ifndef FUZZ_ADAPTIVE
#define FUZZ_ADAPTIVE 0
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  const aclDataType dt = fz::float_dtype(r);
  static const aclFormat kFmt[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC,
                                   ACL_FORMAT_ND,    ACL_FORMAT_NCHW,  ACL_FORMAT_FRACTAL_Z};
  const aclFormat fmt = kFmt[r.pick(6)];
  static const int kRank[] = {5, 5, 4, 3, 6};
  const int rank = kRank[r.pick(5)];
  const bool huge = r.pick(24) == 0;
  const int64_t n = r.small(0, 2), c = r.small(0, 3);
  int64_t in[3], out[3];
  for (int a = 0; a < 3; ++a) {
    in[a] = huge && r.pick(2) ? r.huge() : r.small(0, 9);
    out[a] = r.pick(16) == 0 ? r.small(-1, 0) : r.small(1, 6);
  }
  const bool cl = fmt == ACL_FORMAT_NDHWC;
  auto shape = [&](const int64_t s[3]) {
    std::vector<int64_t> v =
        cl ? std::vector<int64_t>{s[0], s[1], s[2], c} : std::vector<int64_t>{c, s[0], s[1], s[2]};
    if (rank >= 5) v.insert(v.begin(), n);
    if (rank == 6) v.insert(v.begin(), 1);
    if (rank == 3) v.erase(v.begin());
    return v;
  };
  std::vector<int64_t> k = fz::int_array(r), s = fz::int_array(r), p = fz::int_array(r),
                       d = fz::int_array(r);
  const bool ceil = r.pick(2);
  if (!FUZZ_ADAPTIVE && r.pick(2)) {  // often a valid window, so that phase 2 runs
    k = {r.small(1, 3)}, s = {r.small(1, 2)}, p = {0}, d = {r.small(1, 2)};
  }
  if (!FUZZ_ADAPTIVE)  // the output the attributes give, when they are plain enough to compute
    for (int a = 0; a < 3; ++a)
      if (k.size() == 1 && s.size() == 1 && p.size() == 1 && d.size() == 1 && k[0] > 0 &&
          s[0] > 0 && p[0] >= 0 && d[0] > 0 && k[0] < 64 && s[0] < 64 && p[0] < 64 && d[0] < 64 &&
          in[a] >= 0 && in[a] < 64)
        out[a] = poolgradPoolOutputSize(in[a], k[0], s[0], p[0], d[0], ceil);
  auto x = fz::make(r, shape(in), dt, fmt);
  const int64_t dhw = huge ? INT64_MAX : in[0] * in[1] * in[2];
  static const aclDataType kIdx[] = {ACL_INT64, ACL_INT32, ACL_INT32, ACL_FLOAT};
  const aclDataType idt = kIdx[r.pick(4)];
  std::vector<int64_t> os(out, out + 3);
  if (r.pick(16) == 0) os.resize(r.pick(3));
  aclIntArray *osa = aclCreateIntArray(os.data(), os.size());
  aclIntArray *ka = aclCreateIntArray(k.data(), k.size()),
              *sa = aclCreateIntArray(s.data(), s.size()),
              *pa = aclCreateIntArray(p.data(), p.size()),
              *da = aclCreateIntArray(d.data(), d.size());
  if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, shape(out), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(out), idt, fmt);
    auto gx = fz::make(r, shape(in), dt, fmt);
    gy->fill_floats(r);
    idx->fill_indices(r, dhw);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return FUZZ_ADAPTIVE ? aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(gy->t, x->t, idx->t,
                                                                                gx->t, ws, ex)
                               : aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(
                                     gy->t, x->t, idx->t, ka, sa, pa, da, ceil, gx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return FUZZ_ADAPTIVE ? aclnnAdaptiveMaxPool3dBackward(wsp, ws, ex, nullptr)
                               : aclnnMaxPool3dWithArgmaxBackward(wsp, ws, ex, nullptr);
        });
  } else {
    x->fill_floats(r);
    auto o = fz::make(r, shape(out), r.pick(8) ? dt : fz::float_dtype(r), fmt);
    auto idx = fz::make(r, shape(out), idt, fmt);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return FUZZ_ADAPTIVE
                     ? aclnnAdaptiveMaxPool3dGetWorkspaceSize(x->t, osa, o->t, idx->t, ws, ex)
                     : aclnnMaxPool3dWithArgmaxGetWorkspaceSize(x->t, ka, sa, pa, da, ceil, o->t,
                                                                idx->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return FUZZ_ADAPTIVE ? aclnnAdaptiveMaxPool3d(wsp, ws, ex, nullptr)
                               : aclnnMaxPool3dWithArgmax(wsp, ws, ex, nullptr);
        });
  }
  for (aclIntArray *a : {osa, ka, sa, pa, da}) aclDestroyIntArray(a);
  return 0;
}
