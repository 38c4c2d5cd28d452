// A caller that changes rois while phase 2 runs (a data race on its side, so this file is left
// out of the ThreadSanitizer run, which would report the race the test makes on purpose). Before
// the fix, phase 2 checked rois[r, 0] and then read it again to bucket the ROIs by batch, so a
// value changed in between indexed poolgrad's own arrays out of bounds (ASan:
// heap-buffer-overflow). Each value is now read once into the workspace: whatever the other
// thread does, every call ends with 0 or 161002 and nothing outside the outputs is written.
#include <atomic>
#include <thread>

#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"
#include "test_util.h"

using namespace pgtest;

namespace {

TEST(Race, RoisChangedDuringPhase2) {
  const int64_t R = 64;
  HostTensor x({2, 8, 16, 16}, ACL_FLOAT, ACL_FORMAT_ND), rois({R, 5}, ACL_FLOAT, ACL_FORMAT_ND),
      y({R, 8, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND), am({R, 8, 3, 3}, ACL_INT32, ACL_FORMAT_ND),
      gy({R, 8, 3, 3}, ACL_FLOAT, ACL_FORMAT_ND), gx({2, 8, 16, 16}, ACL_FLOAT, ACL_FORMAT_ND);
  for (int64_t r = 0; r < R; ++r) {
    const float v[5] = {static_cast<float>(r % 2), 1, 1, 12, 12};
    for (int j = 0; j < 5; ++j) rois.set(r * 5 + j, v[j]);
  }
  for (int64_t i = 0; i < am.numel(); ++i) am.set_int(i, i % 256);
  std::atomic<bool> stop{false};
  std::thread flipper([&] {
    const float vals[] = {0.0f, 1.0f, 1e9f, -5.0f, 1.0f, 0.0f};
    for (unsigned i = 0; !stop.load(std::memory_order_relaxed); ++i)
      rois.set((i % R) * 5, vals[i % 6]);  // unsynchronised on purpose
  });
  int ok = 0, refused = 0;
  for (int iter = 0; iter < 300; ++iter) {
    uint64_t ws;
    aclOpExecutor *ex;
    aclnnStatus st;
    if (iter % 2 == 0) {
      ASSERT_EQ(aclnnRoiPoolingWithArgMaxGetWorkspaceSize(x.t(), rois.t(), 3, 3, 1.0f, 1.0f, y.t(),
                                                          am.t(), &ws, &ex),
                ACLNN_SUCCESS)
          << last_msg();
      st = aclnnRoiPoolingWithArgMax(workspace(ws), ws, ex, nullptr);
      for (int64_t i = 0; i < am.numel(); ++i) am.set_int(i, i % 256);
    } else {
      ASSERT_EQ(aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(gy.t(), gx.t(), rois.t(), am.t(), 3,
                                                              3, 1.0, &ws, &ex),
                ACLNN_SUCCESS)
          << last_msg();
      st = aclnnRoiPoolingGradWithArgMax(workspace(ws), ws, ex, nullptr);
    }
    ASSERT_TRUE(st == ACLNN_SUCCESS || st == ACLNN_ERR_PARAM_INVALID) << st;
    (st == ACLNN_SUCCESS ? ok : refused) += 1;
    last_msg();
  }
  stop = true;
  flipper.join();
  EXPECT_EQ(ok + refused, 300);
  for (const HostTensor *t : {&x, &rois, &y, &am, &gy, &gx}) {
    EXPECT_TRUE(t->guards_intact());
    EXPECT_TRUE(t->outside_view_untouched());
  }
}

}  // namespace
