// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: aclnnMaxUnpool2d / 3d (FUZZ_BACKWARD=0) or their backwards (1); FUZZ_3D picks
// the 3-D APIs. Phase 1 and 2: dtypes (the integer ones and BOOL too), formats, ranks, dims (huge
// ones as zero-stride views), strides, outputSize / stride / padding arrays, and the indices' data
// (valid positions, repeats, -1, values past the plane and the int32 range).
#include <cstdlib>

#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "fuzz_common.h"
#include "poolgrad/poolgrad.h"

namespace {

aclDataType data_dtype(fz::Reader &r) {
  static const aclDataType k[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,   ACL_UINT8, ACL_INT16,
                                  ACL_INT32, ACL_INT64,   ACL_DOUBLE, ACL_BOOL,  ACL_BF16};
  return k[r.pick(10)];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz::Reader r{data, size};
  poolgradSetNumThreads(1 + r.pick(3));
  const int spatial = FUZZ_3D ? 3 : 2;
  const aclDataType dt = data_dtype(r);
  const aclFormat fmt = fz::format(r);
  const int rank = spatial + 1 + r.pick(2) - (r.pick(16) == 0 ? 2 : 0);  // sometimes a wrong one
  const bool huge = r.pick(24) == 0;
  std::vector<int64_t> in(spatial), plane(spatial);
  int64_t out_plane = 1;  // the indices' bound (huge dims: no bound, the values stay small)
  for (int a = 0; a < spatial; ++a) {
    in[a] = huge && a == 0 ? r.huge() : r.small(0, 6);
    plane[a] = r.pick(16) == 0 ? r.small(-1, 0) : in[a] + r.small(0, 3);
    if (!huge) out_plane *= plane[a] > 0 ? plane[a] : 1;
  }
  const int64_t n = r.small(0, 2), c = r.small(0, 3);
  auto shape = [&](const std::vector<int64_t> &sp) {
    std::vector<int64_t> v{n, c};
    v.insert(v.end(), sp.begin(), sp.end());
    while (static_cast<int>(v.size()) > rank && !v.empty()) v.erase(v.begin());
    return v;
  };
  static const aclDataType kIdx[] = {ACL_INT64, ACL_INT64, ACL_INT32, ACL_FLOAT};
  const aclDataType idt = kIdx[r.pick(4)];
  std::vector<int64_t> os = plane, st(spatial, 1 + r.pick(2)), pd(spatial, 0);
  if (r.pick(16) == 0) os.push_back(2);
  if (r.pick(16) == 0) st[0] = r.small(-1, 0);
  if (r.pick(16) == 0) pd.pop_back();
  aclIntArray *osa = aclCreateIntArray(os.data(), os.size()),
              *sta = aclCreateIntArray(st.data(), st.size()),
              *pda = aclCreateIntArray(pd.data(), pd.size());
  const int64_t bound = huge ? INT64_MAX : out_plane;
  auto x = fz::make(r, shape(in), dt, fmt);
  auto idx = fz::make(r, shape(in), idt, fmt);
  idx->fill_indices(r, bound);
  if (FUZZ_BACKWARD) {
    auto gy = fz::make(r, shape(plane), r.pick(8) ? dt : data_dtype(r), fmt);
    auto gx = fz::make(r, shape(in), r.pick(4) ? dt : data_dtype(r), fmt);
    gy->fill_floats(r);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return FUZZ_3D ? aclnnMaxUnpool3dBackwardGetWorkspaceSize(gy->t, x->t, idx->t, osa, sta,
                                                                    pda, gx->t, ws, ex)
                         : aclnnMaxUnpool2dBackwardGetWorkspaceSize(gy->t, x->t, idx->t, osa, gx->t,
                                                                    ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return FUZZ_3D ? aclnnMaxUnpool3dBackward(wsp, ws, ex, nullptr)
                         : aclnnMaxUnpool2dBackward(wsp, ws, ex, nullptr);
        });
  } else {
    x->fill_floats(r);
    auto out = fz::make(r, shape(plane), r.pick(8) ? dt : data_dtype(r), fmt);
    fz::run(
        [&](uint64_t *ws, aclOpExecutor **ex) {
          return FUZZ_3D
                     ? aclnnMaxUnpool3dGetWorkspaceSize(x->t, idx->t, osa, sta, pda, out->t, ws, ex)
                     : aclnnMaxUnpool2dGetWorkspaceSize(x->t, idx->t, osa, out->t, ws, ex);
        },
        [&](void *wsp, uint64_t ws, aclOpExecutor *ex) {
          return FUZZ_3D ? aclnnMaxUnpool3d(wsp, ws, ex, nullptr)
                         : aclnnMaxUnpool2d(wsp, ws, ex, nullptr);
        });
  }
  aclDestroyIntArray(osa);
  aclDestroyIntArray(sta);
  aclDestroyIntArray(pda);
  return 0;
}
