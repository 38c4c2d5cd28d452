// SPDX-License-Identifier: Apache-2.0
// Bitwise-identical results for thread counts 1, 2, 3 and 7, for all four operators, with heavy
// overlap (many outputs naming one input) and many ROIs hitting one pixel.
#include <random>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

std::vector<uint32_t> bits(const HostTensor &t) {
  std::vector<uint32_t> b(t.numel());
  for (int64_t i = 0; i < t.numel(); ++i) {
    float f = t.get(i);
    std::memcpy(&b[i], &f, 4);
  }
  return b;
}

class Determinism : public ::testing::TestWithParam<aclDataType> {
 protected:
  void TearDown() override { poolgradSetNumThreads(0); }
};

TEST_P(Determinism, AllFourOperatorsAcrossThreadCounts) {
  const aclDataType dt = GetParam();
  std::mt19937 rng(5);
  std::normal_distribution<float> nd;
  // Max pool: overlap-s1 style, values with many ties.
  HostTensor x({3, 8, 17, 19}, dt), gy({3, 8, 17, 19}, dt);
  for (int64_t i = 0; i < x.numel(); ++i) {
    x.set(i, static_cast<float>(rng() % 3));
    gy.set(i, nd(rng));
  }
  IntArray k({3}), s({1}), p({1}), d({1});
  // RoI: 300 ROIs over one 4x4 corner.
  const int64_t R = 300;
  const aclDataType rdt = dt == ACL_BF16 ? ACL_FLOAT : dt;
  HostTensor fx({2, 8, 12, 12}, rdt), rois({R, 5}, rdt, ACL_FORMAT_ND),
      rgy({R, 8, 3, 3}, rdt, ACL_FORMAT_ND);
  for (int64_t i = 0; i < fx.numel(); ++i) fx.set(i, static_cast<float>(rng() % 4));
  for (int64_t r = 0; r < R; ++r) {
    const float row[5] = {static_cast<float>(r % 2), 0, 0, static_cast<float>(rng() % 4),
                          static_cast<float>(rng() % 4)};
    for (int j = 0; j < 5; ++j) rois.set(r * 5 + j, row[j]);
  }
  for (int64_t i = 0; i < rgy.numel(); ++i) rgy.set(i, nd(rng));
  std::vector<std::vector<uint32_t>> first;
  for (int threads : {1, 2, 3, 7}) {
    poolgradSetNumThreads(threads);
    ASSERT_EQ(poolgradGetNumThreads(), threads);
    HostTensor out({3, 8, 17, 19}, dt), idx({3, 8, 17, 19}, ACL_INT64), gx({3, 8, 17, 19}, dt);
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                                false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
              ACLNN_SUCCESS);
    HostTensor y({R, 8, 3, 3}, rdt, ACL_FORMAT_ND), am({R, 8, 3, 3}, ACL_INT32, ACL_FORMAT_ND),
        rgx({2, 8, 12, 12}, rdt, ACL_FORMAT_ND);
    HostTensor fxnd({2, 8, 12, 12}, rdt, ACL_FORMAT_ND);
    for (int64_t i = 0; i < fx.numel(); ++i) fxnd.set(i, fx.get(i));
    ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(fxnd.t(), rois.t(), 3, 3, 1, 1, y.t(),
                                                        am.t(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_EQ(aclnnRoiPoolingWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(rgy.t(), rgx.t(), rois.t(), am.t(), 3,
                                                            3, 1.0, &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnRoiPoolingGradWithArgMax(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
    std::vector<std::vector<uint32_t>> now = {bits(out), bits(gx), bits(y), bits(rgx)};
    std::vector<uint32_t> ids(idx.numel()), ams(am.numel());
    for (int64_t i = 0; i < idx.numel(); ++i) ids[i] = static_cast<uint32_t>(idx.get_int(i));
    for (int64_t i = 0; i < am.numel(); ++i) ams[i] = static_cast<uint32_t>(am.get_int(i));
    now.push_back(ids);
    now.push_back(ams);
    if (first.empty()) {
      first = now;
    } else {
      for (size_t j = 0; j < now.size(); ++j)
        EXPECT_EQ(now[j], first[j]) << "output " << j << " threads " << threads;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, Determinism, ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16));

}  // namespace
