// SPDX-License-Identifier: Apache-2.0
// aclnnMaxPool2dWithIndices / aclnnMaxPool2dWithIndicesBackward: output-size table, the
// validation cascade (one test per rule), CANN's own cases, random configurations against the
// naive reference, PyTorch golden files, phase-2 index checks with guard bytes.
#include <algorithm>
#include <climits>
#include <random>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "golden_reader.h"
#include "maxpool_ref.h"
#include "maxpool_tester.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnMaxPool2dWithIndices";
const char *kBwd = "aclnnMaxPool2dWithIndicesBackward";

// ---- output size ------------------------------------------------------------------------------
struct SizeCase {
  int64_t in, k, s, p, d;
  bool ceil;
  int64_t want;
};

TEST(MaxPoolOutputSize, Table) {
  const SizeCase cases[] = {
      {4, 2, 2, 0, 1, false, 2},    {4, 2, 2, 0, 1, true, 2},   // spec examples
      {3, 2, 2, 0, 1, false, 1},    {3, 2, 2, 0, 1, true, 2},   // ceil adds a partial window
      {5, 2, 2, 1, 1, true, 3},                                 // window at 4 starts inside: kept
      {4, 2, 2, 1, 1, true, 3},     {4, 2, 2, 1, 1, false, 3},  //
      {112, 3, 2, 1, 1, false, 56}, {71, 3, 2, 0, 1, true, 35},
      {1, 1, 1, 0, 1, false, 1},    {1, 1, 5, 0, 1, true, 1},   // size-1 input
      {1, 3, 1, 1, 1, false, 1},    {2, 3, 1, 1, 2, false, 0},  // padding/dilation
      {3, 5, 1, 0, 1, false, -1},   {3, 5, 1, 0, 1, true, -1},  // window larger than input
      {3, 4, 2, 0, 1, true, 1},     {3, 4, 2, 0, 1, false, 0},
      {10, 3, 3, 1, 1, true, 4},    {4, 2, 3, 1, 1, true, 2},  // drop rule applies
      {6, 2, 4, 1, 1, true, 2},     {64, 3, 1, 1, 2, false, 62},
  };
  for (const SizeCase &c : cases) {
    // The reference counts windows; the table gives the formula's value (<= 0 means no output).
    const int64_t ref = ref_out_size(c.in, c.k, c.s, c.p, c.d, c.ceil);
    EXPECT_EQ(ref, std::max<int64_t>(c.want, 0))
        << "in=" << c.in << " k=" << c.k << " s=" << c.s << " p=" << c.p << " d=" << c.d
        << " ceil=" << c.ceil;
    // And the library agrees: an out tensor of the right shape is accepted, others rejected.
    if (c.want <= 0 || c.p > c.k / 2) continue;
    HostTensor x({1, 1, c.in, c.in}, ACL_FLOAT);
    HostTensor out({1, 1, c.want, c.want}, ACL_FLOAT), idx({1, 1, c.want, c.want}, ACL_INT64);
    HostTensor bad_out({1, 1, c.want + 1, c.want}, ACL_FLOAT);
    IntArray k({c.k}), s({c.s}), p({c.p}), d({c.d});
    uint64_t ws;
    aclOpExecutor *ex = nullptr;
    EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, c.ceil, out.t(), idx.t(),
                                                        &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    aclDestroyAclOpExecutor(ex);
    EXPECT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, c.ceil, bad_out.t(),
                                                        idx.t(), &ws, &ex),
              ACLNN_ERR_PARAM_INVALID);
    last_msg();
  }
}

// The shape rule on its own, through the public helper: integers in, the size or -1 (arguments out
// of range) out.
TEST(MaxPoolOutputSize, StatusTable) {
  const int64_t big = int64_t(1) << 31;  // one past the attribute limit
  const struct {
    int64_t in, k, s, p, d;
    bool ceil;
    int64_t want;
  } cases[] = {
      {4, 2, 2, 0, 1, false, 2},    {4, 2, 2, 0, 1, true, 2},     {3, 2, 2, 0, 1, true, 2},
      {-1, 2, 2, 0, 1, false, -1},  {4, 0, 2, 0, 1, false, -1},   {4, 2, 0, 0, 1, false, -1},
      {4, 2, 2, -1, 1, false, -1},  {4, 2, 2, 0, 0, false, -1},   {4, big, 1, 0, 1, false, -1},
      {4, 2, big, 0, 1, false, -1}, {4, 2, 2, big, 1, false, -1}, {4, 2, 2, 0, big, false, -1},
      {big, 2, 2, 0, 1, false, -1}, {0, 1, 1, 0, 1, false, 0},    {3, 5, 1, 0, 1, false, -1},
  };
  for (const auto &c : cases)
    EXPECT_EQ(poolgradPoolOutputSize(c.in, c.k, c.s, c.p, c.d, c.ceil), c.want)
        << "in=" << c.in << " k=" << c.k << " s=" << c.s << " p=" << c.p << " d=" << c.d
        << " ceil=" << c.ceil;
}

// ---- a fixture with valid arguments, to break one rule at a time ----------------------------
struct BwdArgs {
  HostTensor gy{{2, 3, 2, 2}, ACL_FLOAT}, self{{2, 3, 4, 4}, ACL_FLOAT},
      idx{{2, 3, 2, 2}, ACL_INT64}, gx{{2, 3, 4, 4}, ACL_FLOAT};
  IntArray k{{2, 2}}, s{{2, 2}}, p{{0, 0}}, d{{1, 1}};
  bool ceil = false;
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const aclTensor *gy_t() { return gy.t(); }
  aclnnStatus call(const aclTensor *gyt, const aclTensor *selft, const aclTensor *idxt,
                   const aclIntArray *kk, const aclIntArray *ss, const aclIntArray *pp,
                   const aclIntArray *dd, aclTensor *gxt) {
    aclnnStatus st = aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gyt, selft, idxt, kk, ss, pp,
                                                                       dd, ceil, gxt, &ws, &ex);
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
    return st;
  }
  aclnnStatus call() { return call(gy.t(), self.t(), idx.t(), k, s, p, d, gx.t()); }
};

TEST(MaxPoolBackwardContract, ValidBaseline) {
  BwdArgs a;
  EXPECT_EQ(a.call(), ACLNN_SUCCESS) << last_msg();
  EXPECT_GT(a.ws, 0u);  // the kernel's scratch: the caller allocates it
}

TEST(MaxPoolBackwardContract, NullPointers) {
  BwdArgs a;
  aclOpExecutor *ex;
  uint64_t ws;
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s,
                                                        a.p, a.d, false, a.gx.t(), nullptr, &ex),
      ACLNN_ERR_PARAM_NULLPTR, kBwd, "workspaceSize");
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s,
                                                        a.p, a.d, false, a.gx.t(), &ws, nullptr),
      ACLNN_ERR_PARAM_NULLPTR, kBwd, "executor");
  EXPECT_STATUS_MSG(a.call(nullptr, a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradOutput");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), nullptr, a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "self");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), nullptr, a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "indices");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), nullptr, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "kernelSize");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, nullptr, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "stride");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, nullptr, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "padding");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, nullptr, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "dilation");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradInput");
}

TEST(MaxPoolBackwardContract, NullBeatsInvalid) {
  // The cascade checks null pointers before dtypes.
  BwdArgs a;
  HostTensor bad_self({2, 3, 4, 4}, ACL_INT32);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), bad_self.t(), a.idx.t(), nullptr, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "kernelSize");
}

TEST(MaxPoolBackwardContract, Dtypes) {
  BwdArgs a;
  HostTensor self_i32({2, 3, 4, 4}, ACL_INT32), self_f64({2, 3, 4, 4}, ACL_DOUBLE);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), self_i32.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "self dtype");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), self_f64.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "DOUBLE");
  HostTensor gy16({2, 3, 2, 2}, ACL_FLOAT16);
  EXPECT_STATUS_MSG(a.call(gy16.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradOutput dtype");
  HostTensor gx_i32({2, 3, 4, 4}, ACL_INT32);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, gx_i32.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput dtype");
  HostTensor idx_f({2, 3, 2, 2}, ACL_FLOAT), idx_i16({2, 3, 2, 2}, ACL_INT16);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), idx_f.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices dtype");
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), idx_i16.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices dtype");
}

TEST(MaxPoolBackwardContract, FormatsAndRanks) {
  BwdArgs a;
  HostTensor self_nhwc({2, 3, 4, 4}, ACL_FLOAT, ACL_FORMAT_NHWC);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), self_nhwc.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "format");
  HostTensor gx_nd({2, 3, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, gx_nd.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput format");
  for (aclFormat f : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FRACTAL_Z_3D,
                      ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_NDC1HWC0}) {
    HostTensor gy({2, 3, 2, 2}, ACL_FLOAT, f), self({2, 3, 4, 4}, ACL_FLOAT, f),
        gx({2, 3, 4, 4}, ACL_FLOAT, f);
    EXPECT_STATUS_MSG(a.call(gy.t(), self.t(), a.idx.t(), a.k, a.s, a.p, a.d, gx.t()),
                      ACLNN_ERR_PARAM_INVALID, kBwd, "public format");
  }
  HostTensor gy2({3, 2}, ACL_FLOAT), self2({3, 4}, ACL_FLOAT), gx2({3, 4}, ACL_FLOAT),
      idx2({3, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(a.call(gy2.t(), self2.t(), idx2.t(), a.k, a.s, a.p, a.d, gx2.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "3-D or 4-D");
  HostTensor gy5({1, 2, 3, 2, 2}, ACL_FLOAT), self5({1, 2, 3, 4, 4}, ACL_FLOAT),
      gx5({1, 2, 3, 4, 4}, ACL_FLOAT), idx5({1, 2, 3, 2, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(a.call(gy5.t(), self5.t(), idx5.t(), a.k, a.s, a.p, a.d, gx5.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "3-D or 4-D");
  // indices of another rank
  HostTensor idx5b({1, 2, 3, 2, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), idx5b.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices must be 3-D or 4-D");
}

TEST(MaxPoolBackwardContract, Attributes) {
  BwdArgs a;
  auto with = [&](std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p,
                  std::vector<int64_t> d) {
    IntArray kk(k), ss(s), pp(p), dd(d);
    return a.call(a.gy.t(), a.self.t(), a.idx.t(), kk, ss, pp, dd, a.gx.t());
  };
  EXPECT_STATUS_MSG(with({}, {2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "kernelSize must have length");
  EXPECT_STATUS_MSG(with({2, 2, 2}, {2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd, "kernelSize");
  EXPECT_STATUS_MSG(with({0, 1}, {2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd, "kernelSize[0]");
  EXPECT_STATUS_MSG(with({2, -1}, {2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd, "kernelSize[1]");
  EXPECT_STATUS_MSG(with({2}, {0, 1}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd, "stride[0]");
  EXPECT_STATUS_MSG(with({2}, {2, 2, 2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "stride must have length");
  EXPECT_STATUS_MSG(with({2}, {2}, {2, 0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "padding[0]=2 must be <= kernelSize/2=1");
  EXPECT_STATUS_MSG(with({2}, {2}, {-1}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd, "padding[0]");
  EXPECT_STATUS_MSG(with({2}, {2}, {}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "padding must have length");
  EXPECT_STATUS_MSG(with({2}, {2}, {0}, {}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "dilation must have length");
  EXPECT_STATUS_MSG(with({2}, {2}, {0}, {0}), ACLNN_ERR_PARAM_INVALID, kBwd, "dilation[0]");
  EXPECT_STATUS_MSG(with({int64_t(1) << 40}, {2}, {0}, {1}), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "kernelSize[0]");
  // Length-1 arrays apply to both axes; stride {} means the kernel.
  EXPECT_EQ(with({2}, {}, {0}, {1}), ACLNN_SUCCESS) << last_msg();
  EXPECT_EQ(with({2}, {2}, {1}, {1}), ACLNN_ERR_PARAM_INVALID);  // gradOutput would be 3x3
  last_msg();
  // Dilation > 1 is accepted (Ascend 950 rule): k=2, d=2 on 4x4 with stride 2 gives 2x1? no: 1x1.
  HostTensor gy1({2, 3, 1, 1}, ACL_FLOAT), idx1({2, 3, 1, 1}, ACL_INT64);
  IntArray k2({2}), s2({2}), p0({0}), d3({3});
  EXPECT_EQ(a.call(gy1.t(), a.self.t(), idx1.t(), k2, s2, p0, d3, a.gx.t()), ACLNN_SUCCESS)
      << last_msg();
}

TEST(MaxPoolBackwardContract, Shapes) {
  BwdArgs a;
  HostTensor self_c0({2, 0, 4, 4}, ACL_FLOAT), gx_c0({2, 0, 4, 4}, ACL_FLOAT),
      gy_c0({2, 0, 2, 2}, ACL_FLOAT), idx_c0({2, 0, 2, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(a.call(gy_c0.t(), self_c0.t(), idx_c0.t(), a.k, a.s, a.p, a.d, gx_c0.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "C, H and W must be > 0");
  HostTensor self_h0({2, 3, 0, 4}, ACL_FLOAT), gx_h0({2, 3, 0, 4}, ACL_FLOAT);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), self_h0.t(), a.idx.t(), a.k, a.s, a.p, a.d, gx_h0.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "H=0");
  HostTensor gx_bad({2, 3, 4, 5}, ACL_FLOAT);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, gx_bad.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradInput shape must be [2,3,4,4]");
  HostTensor gy_bad({2, 3, 2, 3}, ACL_FLOAT);
  EXPECT_STATUS_MSG(a.call(gy_bad.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "gradOutput shape must be [2,3,2,2]");
  HostTensor idx_bad({2, 3, 2, 1}, ACL_INT64);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), idx_bad.t(), a.k, a.s, a.p, a.d, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "indices shape must be [2,3,2,2]");
  // Output size <= 0: kernel larger than the input.
  IntArray k5({5}), s1({1}), p0({0}), d1({1});
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), k5, s1, p0, d1, a.gx.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "output size must be > 0");
  // A tensor with elements but no data.
  int64_t dims[] = {2, 3, 4, 4}, st[] = {48, 16, 4, 1}, sd[] = {96};
  aclTensor *nodata = aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, sd, 1, nullptr);
  ASSERT_NE(nodata, nullptr);
  EXPECT_STATUS_MSG(a.call(a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, nodata),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "gradInput must have data");
  // self's data is never read: a null self address is fine.
  aclTensor *self_nodata =
      aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, sd, 1, nullptr);
  EXPECT_EQ(a.call(a.gy.t(), self_nodata, a.idx.t(), a.k, a.s, a.p, a.d, a.gx.t()), ACLNN_SUCCESS)
      << last_msg();
  aclDestroyTensor(nodata);
  aclDestroyTensor(self_nodata);
}

TEST(MaxPoolBackwardContract, EmptyBatch) {
  BwdArgs a;
  HostTensor gy({0, 3, 2, 2}, ACL_FLOAT), self({0, 3, 4, 4}, ACL_FLOAT),
      idx({0, 3, 2, 2}, ACL_INT64), gx({0, 3, 4, 4}, ACL_FLOAT);
  uint64_t ws = 123;
  aclOpExecutor *ex = nullptr;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), a.k, a.s,
                                                              a.p, a.d, false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_SUCCESS);
}

TEST(MaxPoolBackwardContract, Phase2Misuse) {
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(nullptr, 0, nullptr, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "executor");
  BwdArgs a;
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
                a.gy.t(), a.self.t(), a.idx.t(), a.k, a.s, a.p, a.d, false, a.gx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(nullptr, 16, ex, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kBwd, "workspace");
  // The executor was consumed by the failed call: running it again is detected.
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "not a live executor");
  // An executor of another API.
  HostTensor x({1, 1, 4, 4}, ACL_FLOAT), out({1, 1, 2, 2}, ACL_FLOAT), idx({1, 1, 2, 2}, ACL_INT64);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), a.k, a.s, a.p, a.d, false, out.t(),
                                                      idx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, kBwd, "made by aclnnMaxPool2dWithIndices");
}

TEST(MaxPoolForwardContract, Rules) {
  HostTensor x({2, 3, 4, 4}, ACL_FLOAT), out({2, 3, 2, 2}, ACL_FLOAT), idx({2, 3, 2, 2}, ACL_INT32);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  auto call = [&](const aclTensor *xt, const aclIntArray *kk, const aclIntArray *ss,
                  const aclIntArray *pp, const aclIntArray *dd, aclTensor *ot, aclTensor *it) {
    aclnnStatus st =
        aclnnMaxPool2dWithIndicesGetWorkspaceSize(xt, kk, ss, pp, dd, false, ot, it, &ws, &ex);
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
    return st;
  };
  EXPECT_EQ(call(x.t(), k, s, p, d, out.t(), idx.t()), ACLNN_SUCCESS) << last_msg();
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                              idx.t(), nullptr, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "workspaceSize");
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(),
                                                              idx.t(), &ws, nullptr),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "executor");
  EXPECT_STATUS_MSG(call(nullptr, k, s, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "self");
  EXPECT_STATUS_MSG(call(x.t(), nullptr, s, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "kernelSize");
  EXPECT_STATUS_MSG(call(x.t(), k, nullptr, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "stride");
  EXPECT_STATUS_MSG(call(x.t(), k, s, nullptr, d, out.t(), idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "padding");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, nullptr, out.t(), idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "dilation");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, nullptr, idx.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "out");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, out.t(), nullptr), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "indices");
  HostTensor xi({2, 3, 4, 4}, ACL_INT32), o16({2, 3, 2, 2}, ACL_FLOAT16),
      iu8({2, 3, 2, 2}, ACL_UINT8);
  EXPECT_STATUS_MSG(call(xi.t(), k, s, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "self dtype");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, o16.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "out dtype");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, out.t(), iu8.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices dtype");
  HostTensor onhwc({2, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NHWC),
      xz({2, 3, 4, 4}, ACL_FLOAT, ACL_FORMAT_FRACTAL_Z);
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, onhwc.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "out format");
  EXPECT_STATUS_MSG(call(xz.t(), k, s, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "public format");
  HostTensor x2({4, 4}, ACL_FLOAT);
  EXPECT_STATUS_MSG(call(x2.t(), k, s, p, d, out.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "3-D or 4-D");
  IntArray p2({2});
  EXPECT_STATUS_MSG(call(x.t(), k, s, p2, d, out.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "padding[0]=2");
  HostTensor obad({2, 3, 3, 2}, ACL_FLOAT), ibad({2, 3, 2, 3}, ACL_INT32);
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, obad.t(), idx.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "out shape");
  EXPECT_STATUS_MSG(call(x.t(), k, s, p, d, out.t(), ibad.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices shape");
  HostTensor x0({0, 3, 4, 4}, ACL_FLOAT), o0({0, 3, 2, 2}, ACL_FLOAT), i0({0, 3, 2, 2}, ACL_INT32);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x0.t(), k, s, p, d, false, o0.t(), i0.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  EXPECT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
}

TEST(MaxPoolForwardContract, Int32IndicesNeedSmallPlanes) {
  // H*W = 2^31 exceeds INT32_MAX; the view needs no storage of that size because the call fails
  // in phase 1 before any data is touched (a one-element storage with zero strides).
  int64_t dims[] = {1, 1, 65536, 32768}, st[] = {0, 0, 0, 0}, sd[] = {1};
  float one = 0;
  aclTensor *x = aclCreateTensor(dims, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, sd, 1, &one);
  int64_t od[] = {1, 1, 32768, 16384};
  aclTensor *o = aclCreateTensor(od, 4, ACL_FLOAT, st, 0, ACL_FORMAT_NCHW, sd, 1, &one);
  int32_t i32 = 0;
  aclTensor *ix = aclCreateTensor(od, 4, ACL_INT32, st, 0, ACL_FORMAT_NCHW, sd, 1, &i32);
  ASSERT_TRUE(x && o && ix);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  EXPECT_STATUS_MSG(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x, k, s, p, d, false, o, ix, &ws, &ex),
      ACLNN_ERR_PARAM_INVALID, kFwd, "INT32 requires H*W");
  aclDestroyTensor(x);
  aclDestroyTensor(o);
  aclDestroyTensor(ix);
}

// CANN's unit-test cases for the backward (cann-cases.md), default (Ascend 950) profile.
TEST(MaxPoolBackwardContract, CannCases) {
  BwdArgs a;
  // a CHW (rank 3) tensor in NCL format
  HostTensor gy({3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NCL), self({3, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCL),
      idx({3, 2, 2}, ACL_INT64), gx({3, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCL);
  EXPECT_EQ(a.call(gy.t(), self.t(), idx.t(), a.k, a.s, a.p, a.d, gx.t()), ACLNN_SUCCESS)
      << last_msg();
  // kernelSize {2}, stride {1}, ceilMode true
  HostTensor gy3({2, 3, 3, 3}, ACL_FLOAT), idx3({2, 3, 3, 3}, ACL_INT32);
  IntArray k2({2}), s1({1}), p0({0}), d1({1});
  a.ceil = true;
  EXPECT_EQ(a.call(gy3.t(), a.self.t(), idx3.t(), k2, s1, p0, d1, a.gx.t()), ACLNN_SUCCESS)
      << last_msg();
  a.ceil = false;
  // FLOAT data, INT32 indices, NCHW
  HostTensor idx32({2, 3, 2, 2}, ACL_INT32);
  EXPECT_EQ(a.call(a.gy.t(), a.self.t(), idx32.t(), a.k, a.s, a.p, a.d, a.gx.t()), ACLNN_SUCCESS);
  // FLOAT16 / BF16 accepted on the 950 profile
  for (aclDataType dt : {ACL_FLOAT16, ACL_BF16}) {
    HostTensor g({2, 3, 2, 2}, dt), sf({2, 3, 4, 4}, dt), x({2, 3, 4, 4}, dt);
    EXPECT_EQ(a.call(g.t(), sf.t(), a.idx.t(), a.k, a.s, a.p, a.d, x.t()), ACLNN_SUCCESS)
        << last_msg();
  }
}

// ---- numerics ---------------------------------------------------------------------------------
TEST(MaxPoolNumerics, FluentTesterCases) {
  // Hand-picked cases through the tester: ceil mode with padding and threads, dilation with
  // channels-last bf16, a rank-3 float16 input with random indices, a strided view.
  MaxPoolTester()
      .batch(2)
      .channels(3)
      .input(7, 9)
      .kernel(3)
      .stride(2)
      .padding(1)
      .ceil(true)
      .threads(3)
      .test();
  MaxPoolTester()
      .batch(2)
      .channels(20)
      .input(11, 10)
      .kernel(3, 2)
      .dilation(2, 1)
      .nhwc(true)
      .dtype(ACL_BF16)
      .test();
  MaxPoolTester()
      .rank3(true)
      .channels(4)
      .input(9, 9)
      .kernel(2)
      .dtype(ACL_FLOAT16)
      .index_dtype(ACL_INT32)
      .indices(Indices::Random)
      .test();
  MaxPoolTester()
      .batch(3)
      .channels(2)
      .input(12, 13)
      .kernel(2)
      .stride(1)
      .layout(Layout::Random)
      .seed(7)
      .threads(2)
      .test();
}

TEST(MaxPoolNumerics, RandomAgainstNaiveReference) {
  std::mt19937 rng(20261202);
  for (int i = 0; i < 400; ++i) {
    MaxPoolTester(random_cfg(rng))
        .indices(i % 4 == 3 ? Indices::Random : Indices::Forward)
        .seed(rng())
        .test();
    if (HasFatalFailure()) return;
  }
}

// 2x2 windows at stride 2 on planes of 16 or more output columns take the write-only gather
// (backward-planes-gather in the trace; the maxpool_gather_trace test checks that it is taken):
// odd and even H and W, ceil mode's half windows, all dtypes, the forward's indices, random ones,
// and the forward's with one index per plane moved elsewhere (the plane falls back to the scatter).
TEST(MaxPoolNumerics, GatherPathAgainstNaiveReference) {
  std::mt19937 rng(20261203);
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  int cases = 0;
  for (int64_t h : {1, 2, 3, 8, 9})
    for (int64_t w : {32, 33, 47, 70})
      for (bool ceil : {false, true})
        for (Indices from : {Indices::Forward, Indices::Random, Indices::Moved}) {
          Cfg c;
          c.n = 2;
          c.c = 3;
          c.h = h;
          c.w = w;
          c.k = {2};
          c.s = {2};
          c.ceil = ceil;
          c.idt = ACL_INT32;
          c.dt = dts[cases % 3];
          c.rank3 = cases % 5 == 4;
          if (c.rank3) c.n = 1;
          run_case(c, rng, from);
          if (HasFatalFailure()) return;
          ++cases;
        }
  EXPECT_EQ(cases, 120);
}

// 3x3 windows at stride 2 with padding 1 on planes of exactly twice the output's size take the
// AVX-512 gather where the CPU has it (Dispatch.MaxPoolGather3AgainstScatter checks that it is
// taken, and the special values): one to 33 windows a row (a 16-window step, its tail, both),
// one to 7 rows, all dtypes, both index dtypes, the forward's indices (ties, NaN and -inf inputs),
// random ones and one moved per plane (the plane falls back to the scatter), at 1 and 2 threads;
// ceil mode's extra window and odd sizes take the scatter.
TEST(MaxPoolNumerics, Gather3PathAgainstNaiveReference) {
  std::mt19937 rng(20261205);
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  int cases = 0;
  for (int64_t h : {2, 4, 14})
    for (int64_t w : {2, 10, 32, 34, 66, 67})
      for (Indices from : {Indices::Forward, Indices::Random, Indices::Moved}) {
        Cfg c;
        c.n = 2;
        c.c = 3;
        c.h = h;
        c.w = w;
        c.k = {3};
        c.s = {2};
        c.p = {1};
        c.ceil = cases % 7 == 6;
        c.idt = cases % 2 ? ACL_INT64 : ACL_INT32;
        c.dt = dts[cases % 3];
        c.rank3 = cases % 5 == 4;
        if (c.rank3) c.n = 1;
        MaxPoolTester(c).indices(from).threads(1 + cases % 2).seed(rng()).test();
        if (HasFatalFailure()) return;
        ++cases;
      }
  EXPECT_EQ(cases, 54);
}

// Channels-last views whose positions have at most two owner windows along each axis, with
// channels a multiple of 8, take the channels-last gather (backward-channels-last-gather in the
// trace; Dispatch.MaxPoolBackwardPaths checks that it is taken and equals the portable scatter):
// 2x2 and 3x3 windows at stride 2 with and without padding, 2-wide dilated windows at stride 1,
// 4x4 at stride 2, ceil mode, both index dtypes, all dtypes, NHWC views and channels-last NCHW
// memory, one image split into channel blocks, and the three index modes (the forward's, random
// ones, one moved per plane: the item falls back to the scatter).
TEST(MaxPoolNumerics, ChannelsLastGatherAgainstNaiveReference) {
  std::mt19937 rng(20261205);
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  struct Window {
    int64_t k, s, p, d;
  };
  const Window windows[] = {{2, 2, 0, 1}, {3, 2, 0, 1}, {3, 2, 1, 1}, {2, 1, 1, 2}, {4, 2, 2, 1}};
  int cases = 0;
  for (const Window &wd : windows)
    for (int64_t ch : {8, 24, 64})
      for (bool ceil : {false, true})
        for (Indices from : {Indices::Forward, Indices::Random, Indices::Moved}) {
          Cfg c;
          c.n = ch == 64 ? 1 : 2;  // one image of 64 channels: split into channel blocks
          c.c = ch;
          c.h = 7 + cases % 4;
          c.w = 9 + cases % 5;
          c.k = {wd.k};
          c.s = {wd.s};
          c.p = {wd.p};
          c.d = {wd.d};
          c.ceil = ceil;
          c.idt = cases % 2 ? ACL_INT64 : ACL_INT32;
          c.dt = dts[cases % 3];
          c.nhwc = cases % 4 != 3;
          c.layout = c.nhwc ? Layout::Contiguous : Layout::OtherOrder;
          run_case(c, rng, from);
          if (HasFatalFailure()) return;
          ++cases;
        }
  EXPECT_EQ(cases, 90);
}

// The gather's phase-2 index check: a bad index makes the plane fall back to the scatter, which
// reports the first bad position; nothing is written outside gradInput.
TEST(MaxPoolNumerics, GatherPathBadIndex) {
  HostTensor gy({1, 2, 4, 16}, ACL_FLOAT), x({1, 2, 8, 32}, ACL_FLOAT),
      idx({1, 2, 4, 16}, ACL_INT32), gx({1, 2, 8, 32}, ACL_FLOAT);
  for (int64_t pl = 0; pl < 2; ++pl)
    for (int64_t o = 0; o < 64; ++o) idx.set_int(pl * 64 + o, (o / 16) * 64 + (o % 16) * 2);
  idx.set_int(64 + 17, 256);  // plane 1, (1, 1): one past the plane
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndicesBackward",
                    "indices[0,1,1,1]=256");
  EXPECT_TRUE(gx.guards_intact());
}

// A plane of 1024+ outputs is scattered in eighths (the next plane is prefetched between them):
// a bad index in a later eighth is still reported at its own position, the first in flat order,
// and every valid gradient around it is added.
TEST(MaxPoolNumerics, SplitPlaneScatterReportsFirstBadIndex) {
  HostTensor gy({1, 2, 64, 64}, ACL_FLOAT), x({1, 2, 66, 66}, ACL_FLOAT),
      idx({1, 2, 64, 64}, ACL_INT64), gx({1, 2, 66, 66}, ACL_FLOAT);
  for (int64_t pl = 0; pl < 2; ++pl)
    for (int64_t o = 0; o < 4096; ++o) {
      gy.set(pl * 4096 + o, 1.0f);
      idx.set_int(pl * 4096 + o, (o / 64) * 66 + o % 64);  // each window's top-left tap
    }
  idx.set_int(3000, 66 * 66);  // plane 0, (46, 56): one past the plane, in the 6th eighth
  idx.set_int(4096 + 10, -5);  // plane 1, (0, 10): later in flat order
  IntArray k({3}), s({1}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                    ACLNN_ERR_PARAM_INVALID, "aclnnMaxPool2dWithIndicesBackward",
                    "indices[0,0,46,56]=4356");
  EXPECT_EQ(gx.get(0), 1.0f);
  EXPECT_EQ(gx.get(45 * 66 + 56), 1.0f);
  EXPECT_EQ(gx.get(46 * 66 + 56), 0.0f);  // its window's index was the bad one
  EXPECT_EQ(gx.get(63 * 66 + 63), 1.0f);  // the last eighth
  EXPECT_EQ(gx.get(65 * 66 + 65), 0.0f);  // no window's index
  EXPECT_EQ(gx.get(4356 + 10), 0.0f);     // plane 1, (0, 10)
  EXPECT_EQ(gx.get(4356 + 11), 1.0f);
  EXPECT_TRUE(gx.guards_intact());
}

// The two-phase aclnnMaxPool2dWithIndices call (no ceil mode).
void run_forward(HostTensor &x, HostTensor &out, HostTensor &idx, const IntArray &k,
                 const IntArray &s, const IntArray &p, const IntArray &d) {
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS)
      << last_msg();
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
}

TEST(MaxPoolNumerics, NoInputElementInWindowGivesMinusInfAndMinusOne) {
  // H=W=2, kernel 2, dilation 3, padding 1, stride 1: the one window's taps are -1 and 2.
  HostTensor x({1, 1, 2, 2}, ACL_FLOAT), out({1, 1, 1, 1}, ACL_FLOAT), idx({1, 1, 1, 1}, ACL_INT64);
  for (int i = 0; i < 4; ++i) x.set(i, 1.0f + i);
  IntArray k({2}), s({1}), p({1}), d({3});
  run_forward(x, out, idx, k, s, p, d);
  if (HasFatalFailure()) return;
  EXPECT_EQ(out.get(0), -INFINITY);
  EXPECT_EQ(idx.get_int(0), -1);
  // The backward skips the -1.
  HostTensor gy({1, 1, 1, 1}, ACL_FLOAT), gx({1, 1, 2, 2}, ACL_FLOAT);
  gy.set(0, 5.0f);
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_SUCCESS);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(gx.get(i), 0.0f);
}

TEST(MaxPoolNumerics, TiesFirstWinsNaNLastWins) {
  HostTensor x({1, 1, 2, 3}, ACL_FLOAT), out({1, 1, 1, 1}, ACL_FLOAT), idx({1, 1, 1, 1}, ACL_INT32);
  const float vals[] = {1, 3, 3, NAN, 2, NAN};
  for (int i = 0; i < 6; ++i) x.set(i, vals[i]);
  IntArray k({2, 3}), s({1}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(out.get(0)));
  EXPECT_EQ(idx.get_int(0), 5);
  x.set(3, 0.0f);
  x.set(5, 0.0f);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(out.get(0), 3.0f);
  EXPECT_EQ(idx.get_int(0), 1);
}

// Runs aclnnMaxPool2dWithIndices on x (values xd, C planes of H x W) with a's square attributes
// (dilation 1, floor mode) into out and idx, and the naive reference into rout and ridx.
void forward_and_reference(HostTensor &x, HostTensor &out, HostTensor &idx,
                           const std::vector<float> &xd, int64_t C, int64_t H, int64_t W,
                           const PoolRef &a, int64_t ho, int64_t wo, std::vector<float> *rout,
                           std::vector<int64_t> *ridx) {
  IntArray k({a.kh}), s({a.sh}), p({a.ph}), d({1});
  run_forward(x, out, idx, k, s, p, d);
  if (testing::Test::HasFatalFailure()) return;
  ref_forward(xd, C, H, W, a, ho, wo, rout, ridx);
}

// forward_and_reference on `planes` planes, then every value and index compared with the
// reference's and the guard bytes around out and idx checked.
void check_forward(HostTensor &x, HostTensor &out, HostTensor &idx, const std::vector<float> &xd,
                   int64_t planes, int64_t H, int64_t W, const PoolRef &a, int64_t ho, int64_t wo) {
  std::vector<float> rout;
  std::vector<int64_t> ridx;
  forward_and_reference(x, out, idx, xd, planes, H, W, a, ho, wo, &rout, &ridx);
  if (testing::Test::HasFatalFailure()) return;
  for (int64_t i = 0; i < planes * ho * wo; ++i) {
    ASSERT_EQ(out.get(i), rout[i]) << "pos " << i;
    ASSERT_EQ(idx.get_int(i), ridx[i]) << "pos " << i;
  }
  EXPECT_TRUE(out.guards_intact());
  EXPECT_TRUE(idx.guards_intact());
}

// The forwards leave the NaN test out of their window scans where the input holds no NaN: the
// plane forward per plane, the channels-last forward per window row. One NaN anywhere (the plane
// split's 16-column steps, a row's last block at W = 37, a plane narrower than 16 columns, the
// scalar rest of a plane's last row, either column phase, a border column, any channel) must
// switch it back on. Values are small integers: ties everywhere.
TEST(MaxPoolNumerics, ForwardOneNaNAnywhere) {
  const int64_t H = 9;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-3, 3);
  // 16: rows of whole 16-column blocks; 37: a 5-column rest after them; 14, 11, 3: planes
  // narrower than one block (the rest is the whole row).
  for (const int64_t W : {37, 16, 14, 11, 3})
    for (const bool cl : {false, true})
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16})
        for (int64_t stride : {1, 2}) {
          const int64_t C = cl ? 8 : 1;
          const PoolRef a{3, 3, stride, stride, 1, 1, 1, 1, false};
          const int64_t ho = ref_out_size(H, 3, stride, 1, 1, false);
          const int64_t wo = ref_out_size(W, 3, stride, 1, 1, false);
          // Channels-last: channel stride 1 in x, out and indices (the channels-last kernels).
          auto make = [&](int64_t h, int64_t w, aclDataType t) {
            return cl ? HostTensor({1, C, h, w}, {h * w * C, 1, w * C, C}, 0, C * h * w, t,
                                   ACL_FORMAT_NCHW)
                      : HostTensor({1, C, h, w}, t);
          };
          for (int64_t at = -1; at < H * W; ++at) {  // pixel `at`, channel at % C; -1: no NaN
            SCOPED_TRACE(testing::Message() << "W=" << W << " cl=" << cl << " dt=" << dt
                                            << " stride=" << stride << " nan at " << at);
            HostTensor x = make(H, W, dt), out = make(ho, wo, dt), idx = make(ho, wo, ACL_INT64);
            std::vector<float> xd(C * H * W);
            for (int64_t i = 0; i < C * H * W; ++i) {
              xd[i] = at >= 0 && i == at % C * H * W + at ? std::nanf("") : float(small(rng));
              x.set(i, xd[i]);
            }
            std::vector<float> rout;
            std::vector<int64_t> ridx;
            forward_and_reference(x, out, idx, xd, C, H, W, a, ho, wo, &rout, &ridx);
            if (HasFatalFailure()) return;
            for (int64_t o = 0; o < C * ho * wo; ++o) {
              ASSERT_EQ(std::isnan(out.get(o)), std::isnan(rout[o])) << "pos " << o;
              if (!std::isnan(rout[o])) {
                ASSERT_EQ(out.get(o), rout[o]) << "pos " << o;
              }
              ASSERT_EQ(idx.get_int(o), ridx[o]) << "pos " << o;
            }
          }
        }
}

// Channels-last float32 outputs of 8 MB or more are streamed out a position at a time (C values,
// then their indices, from a position's scratch): 64 channels with INT64 indices (whole cache
// lines a position) and 24 with INT32 (positions sharing lines), ties everywhere.
TEST(MaxPoolNumerics, ChannelsLastStreamedPositions) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> small(-20, 20);
  struct Case {
    int64_t n, c, hw;
    aclDataType idt;
  };
  for (const Case &k : {Case{2, 64, 150, ACL_INT64}, Case{2, 24, 300, ACL_INT32}}) {
    SCOPED_TRACE(testing::Message() << "C=" << k.c);
    const PoolRef a{3, 3, 2, 2, 1, 1, 1, 1, false};
    const int64_t o = ref_out_size(k.hw, 3, 2, 1, 1, false);
    auto make = [&](int64_t h, aclDataType t) {
      return HostTensor({k.n, k.c, h, h}, {h * h * k.c, 1, h * k.c, k.c}, 0, k.n * k.c * h * h, t,
                        ACL_FORMAT_NCHW);
    };
    HostTensor x = make(k.hw, ACL_FLOAT), out = make(o, ACL_FLOAT), idx = make(o, k.idt);
    ASSERT_GE(k.n * k.c * o * o * (4 + (k.idt == ACL_INT64 ? 8 : 4)), int64_t(8) << 20);
    std::vector<float> xd(k.n * k.c * k.hw * k.hw);
    for (size_t i = 0; i < xd.size(); ++i) {
      xd[i] = float(small(rng));
      x.set(int64_t(i), xd[i]);
    }
    check_forward(x, out, idx, xd, k.n * k.c, k.hw, k.hw, a, o, o);
    if (HasFatalFailure()) return;
  }
}

// NCHW outputs of 8 MB or more whose planes are whole cache lines are streamed out a plane at a
// time (float32 planes, and the float16 / bfloat16 key planes as 16-bit bits), with INT64 and
// INT32 indices; 3x3 windows at stride 2 with padding, ties everywhere.
TEST(MaxPoolNumerics, ForwardStreamedPlanes) {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> small(-20, 20);
  const int64_t N = 4, C = 256, H = 64;
  const PoolRef a{3, 3, 2, 2, 1, 1, 1, 1, false};
  const int64_t o = ref_out_size(H, 3, 2, 1, 1, false);
  std::vector<float> xd(N * C * H * H);
  for (float &v : xd) v = float(small(rng));
  const std::pair<aclDataType, aclDataType> cases[] = {
      {ACL_FLOAT, ACL_INT64}, {ACL_FLOAT, ACL_INT32}, {ACL_BF16, ACL_INT64}};
  for (const auto &[dt, idt] : cases) {
    SCOPED_TRACE(testing::Message() << "dtype " << dt << " index " << idt);
    HostTensor x({N, C, H, H}, dt), out({N, C, o, o}, dt), idx({N, C, o, o}, idt);
    ASSERT_GE(N * C * o * o * (elem_size(dt) + elem_size(idt)), int64_t(8) << 20);
    for (size_t i = 0; i < xd.size(); ++i) x.set(int64_t(i), xd[i]);
    check_forward(x, out, idx, xd, N * C, H, H, a, o, o);
    if (HasFatalFailure()) return;
  }
}

// 16-bit planes are scanned as order-preserving int16 keys (forward_keys.h), where -0.0 and +0.0
// share a key. Values checked bit for bit (the float compare of the reference calls -0.0 and +0.0
// equal): special values (infinities, the largest finite, subnormals) in every order, alone, with
// signed zeros (a plane holding -0.0 is scanned as float32 so that a -0.0 that wins comes back as
// -0.0) or with NaNs of both signs, several a window (a plane holding a NaN is scanned as float32:
// the last NaN wins); float16 and bfloat16, strides 1 and 2, widths with and without a rest.
TEST(MaxPoolNumerics, Forward16BitSpecialValuesBitExact) {
  std::mt19937 rng(11);
  const int64_t H = 7;
  for (aclDataType dt : {ACL_BF16, ACL_FLOAT16})
    for (const int mix : {0, 1, 2})  // 0: numbers, 1: and signed zeros, 2: and NaNs
      // 48: whole 32- and 16-column steps; 57 and 21: a 16-column step, then a rest; 37: a rest
      // after 32; 16 and 9: one step or only a rest.
      for (const int64_t W : {48, 57, 37, 21, 16, 9})
        for (const int64_t stride : {1, 2}) {
          SCOPED_TRACE(testing::Message()
                       << "dt=" << dt << " mix=" << mix << " W=" << W << " stride=" << stride);
          const float big = dt == ACL_BF16 ? 3.3895314e38f : 65504.0f;
          const float tiny = dt == ACL_BF16 ? 9.18355e-41f : 5.9604645e-08f;  // smallest subnormal
          const float inf = std::numeric_limits<float>::infinity();
          std::vector<float> pool = {-inf, -big, -1.5f, -tiny, tiny, 1.5f, big, inf};
          const bool zeros = mix == 1;
          if (zeros) pool.insert(pool.end(), {-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 0.0f});
          if (mix == 2) pool.insert(pool.end(), {std::nanf(""), -std::nanf(""), std::nanf("")});
          std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
          const PoolRef a{3, 3, stride, stride, 1, 1, 1, 1, false};
          const int64_t C = 2;
          const int64_t ho = ref_out_size(H, 3, stride, 1, 1, false);
          const int64_t wo = ref_out_size(W, 3, stride, 1, 1, false);
          HostTensor x({1, C, H, W}, dt), out({1, C, ho, wo}, dt), idx({1, C, ho, wo}, ACL_INT64);
          std::vector<float> xd(C * H * W);
          for (int64_t i = 0; i < C * H * W; ++i) {
            // Plane 1 holds only zeros where zeros: ties everywhere.
            xd[i] = zeros && i >= H * W ? (i % 3 ? 0.0f : -0.0f) : pool[pick(rng)];
            x.set(i, xd[i]);
          }
          std::vector<float> rout;
          std::vector<int64_t> ridx;
          forward_and_reference(x, out, idx, xd, C, H, W, a, ho, wo, &rout, &ridx);
          if (HasFatalFailure()) return;
          for (int64_t o = 0; o < C * ho * wo; ++o) {
            ASSERT_EQ(idx.get_int(o), ridx[o]) << "pos " << o;
            ASSERT_EQ(std::isnan(out.get(o)), std::isnan(rout[o])) << "pos " << o;
            if (std::isnan(rout[o])) continue;
            ASSERT_EQ(out.get(o), rout[o]) << "pos " << o;
            ASSERT_EQ(std::signbit(out.get(o)), std::signbit(rout[o])) << "pos " << o;
          }
        }
}

// A NaN that wins a window comes back as that NaN made quiet: its sign and payload kept (the
// write-out rounds 16 values a step and takes the NaN-aware rounding only for steps holding a
// NaN). Signalling and quiet NaNs with payloads, one a window, in some of the 16-value steps.
TEST(MaxPoolNumerics, Forward16BitNaNsKeepSignAndPayload) {
  for (aclDataType dt : {ACL_BF16, ACL_FLOAT16}) {
    SCOPED_TRACE(testing::Message() << "dt=" << dt);
    const uint16_t quiet = dt == ACL_BF16 ? 0x0040 : 0x0200;
    const std::vector<uint16_t> nans = dt == ACL_BF16
                                           ? std::vector<uint16_t>{0x7f81, 0xff85, 0x7fc3, 0xffa0}
                                           : std::vector<uint16_t>{0x7c01, 0xfc85, 0x7e03, 0xfd00};
    const int64_t H = 4, W = 100, ho = 2, wo = 50;  // 2x2 windows at stride 2
    HostTensor x({1, 1, H, W}, dt), out({1, 1, ho, wo}, dt), idx({1, 1, ho, wo}, ACL_INT64);
    std::vector<uint16_t> want(ho * wo, 0);
    for (int64_t i = 0; i < H * W; ++i) x.set(i, static_cast<float>(i % 7) - 3.0f);
    for (int64_t o = 0; o < ho * wo; o += 3) {  // every third window, at one of its four taps
      const uint16_t b = nans[(o / 3) % nans.size()];
      const int64_t tap = o % 4, h = 2 * (o / wo) + tap / 2, w = 2 * (o % wo) + tap % 2;
      x.set_bits16(h * W + w, b);
      want[o] = b | quiet;
    }
    IntArray k({2}), s({2}), p({0}), d({1});
    run_forward(x, out, idx, k, s, p, d);
    if (HasFatalFailure()) return;
    for (int64_t o = 0; o < ho * wo; o += 3)
      EXPECT_EQ(out.get_bits16(o), want[o]) << "window " << o;
  }
}

// A window whose taps lie up to 2*W + 2 apart: with W past 32767 the relative indices no longer
// fit the key scan's 16 bits, and the float32 scan runs instead (the indices stay exact).
TEST(MaxPoolNumerics, Forward16BitWideRowsIndicesExact) {
  const int64_t H = 4, W = 33000;
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> small(-50, 50);
  for (aclDataType dt : {ACL_BF16, ACL_FLOAT16}) {
    const PoolRef a{3, 3, 2, 2, 0, 0, 1, 1, false};
    const int64_t ho = ref_out_size(H, 3, 2, 0, 1, false), wo = ref_out_size(W, 3, 2, 0, 1, false);
    HostTensor x({1, 1, H, W}, dt), out({1, 1, ho, wo}, dt), idx({1, 1, ho, wo}, ACL_INT64);
    std::vector<float> xd(H * W);
    for (int64_t i = 0; i < H * W; ++i) {
      xd[i] = float(small(rng));
      x.set(i, xd[i]);
    }
    std::vector<float> rout;
    std::vector<int64_t> ridx;
    forward_and_reference(x, out, idx, xd, 1, H, W, a, ho, wo, &rout, &ridx);
    if (HasFatalFailure()) return;
    for (int64_t o = 0; o < ho * wo; ++o) {
      ASSERT_EQ(idx.get_int(o), ridx[o]) << "pos " << o;
      ASSERT_EQ(out.get(o), rout[o]) << "pos " << o;
    }
  }
}

TEST(MaxPoolNumerics, WorkedExampleFromCannSample) {
  HostTensor x({1, 1, 4, 3}, ACL_FLOAT), out({1, 1, 2, 1}, ACL_FLOAT), idx({1, 1, 2, 1}, ACL_INT64);
  const float v[] = {0.0850f, -0.5147f, -0.0212f, -0.5654f, -0.3222f, 0.5847f,
                     1.7510f, 0.9954f,  0.1842f,  0.8392f,  0.4835f,  0.9213f};
  for (int i = 0; i < 12; ++i) x.set(i, v[i]);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, out.t(), idx.t(),
                                                      &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  EXPECT_EQ(idx.get_int(0), 0);
  EXPECT_EQ(idx.get_int(1), 6);
  HostTensor gy({1, 1, 2, 1}, ACL_FLOAT), gx({1, 1, 4, 3}, ACL_FLOAT);
  gy.set(0, 0.4757f);
  gy.set(1, 0.1726f);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_SUCCESS);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(gx.get(i), i == 0 ? 0.4757f : i == 6 ? 0.1726f : 0.0f) << i;
}

TEST(MaxPoolNumerics, BadIndexInPhase2) {
  for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
    for (int64_t badv : {int64_t(16), int64_t(-2), int64_t(1000000)}) {
      HostTensor gy({2, 2, 2, 2}, ACL_FLOAT), self({2, 2, 4, 4}, ACL_FLOAT), idx({2, 2, 2, 2}, idt);
      HostTensor gx = make_strided({2, 2, 4, 4}, {0, 1, 2, 3}, 1, 3, ACL_FLOAT, ACL_FORMAT_NCHW);
      for (int64_t i = 0; i < 16; ++i) {
        gy.set(i, 1.0f);
        idx.set_int(i, i % 16);
      }
      idx.set_int(13, badv);  // position (1, 1, 0, 1)
      idx.set_int(14, badv);
      IntArray k({2}), s({2}), p({0}), d({1});
      uint64_t ws;
      aclOpExecutor *ex;
      ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), k, s,
                                                                  p, d, false, gx.t(), &ws, &ex),
                ACLNN_SUCCESS);
      EXPECT_STATUS_MSG(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                        ACLNN_ERR_PARAM_INVALID, kBwd, "indices[1,1,0,1]=" + std::to_string(badv));
      EXPECT_TRUE(gx.outside_view_untouched());
    }
  }
}

TEST(MaxPoolNumerics, OverlappingGradInputViewIsDeterministic) {
  // A gradInput view with a zero stride on C: both channels share storage. The result is the
  // last plane's, whatever the thread count.
  HostTensor gy({1, 2, 1, 1}, ACL_FLOAT), self({1, 2, 2, 2}, ACL_FLOAT),
      idx({1, 2, 1, 1}, ACL_INT64);
  HostTensor gx({1, 2, 2, 2}, {8, 0, 2, 1}, 0, 4, ACL_FLOAT, ACL_FORMAT_NCHW);
  gy.set(0, 1.0f);
  gy.set(1, 2.0f);
  idx.set_int(0, 0);
  idx.set_int(1, 3);
  IntArray k({2}), s({2}), p({0}), d({1});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), k, s, p, d,
                                                              false, gx.t(), &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
            ACLNN_SUCCESS);
  EXPECT_EQ(gx.get(0), 0.0f);
  EXPECT_EQ(gx.get(3), 2.0f);
}

// The rounding of float32 sums to FLOAT16 / BF16 on the way out (vector and scalar paths), for
// any bit pattern: every pixel p < HW/2 receives gradOutput[2p] and gradOutput[2p + 1] (indices
// chosen by hand; an index outside its window is still scattered), so that gradInput[p] is
// round((0 + a) + b). A quarter of the pairs are random bit patterns (NaN, infinities, subnormals
// included); the others put b 7 to 12 binades below a (the sum lands on or near a rounding tie),
// both in the lowest binades (subnormal sums) or both in the top one (overflow to infinity).
// Planes of 63x65 pixels: the vector loops and their scalar tails both run, and a transposed
// gradInput view takes the strided scalar write-out.
TEST(MaxPoolNumerics, HalfPrecisionRoundingOfSums) {
  std::mt19937 rng(20261203);
  for (int run = 0; run < 4; ++run) {
    const aclDataType dt = run % 2 ? ACL_FLOAT16 : ACL_BF16;
    const bool transposed = run >= 2;  // gradInput with W outer: the strided (scalar) write-out
    const int64_t C = 3, H = 63, W = 65, hw = H * W;
    const int mant = dt == ACL_BF16 ? 7 : 10;  // mantissa bits
    const int ebias = dt == ACL_BF16 ? 127 : 15, emax = dt == ACL_BF16 ? 254 : 30;
    auto from_bits = [&](uint16_t b) { return dt == ACL_BF16 ? bf16_to_f32(b) : f16_to_f32(b); };
    auto to_bits = [&](float f) { return dt == ACL_BF16 ? f32_to_bf16(f) : f32_to_f16(f); };
    HostTensor gy({1, C, H, W}, dt), self({1, C, H, W}, dt), idx({1, C, H, W}, ACL_INT64);
    HostTensor gx = transposed ? make_strided({1, C, H, W}, {0, 1, 3, 2}, 0, 0, dt, ACL_FORMAT_NCHW)
                               : HostTensor({1, C, H, W}, dt);
    std::vector<float> a(C * hw), want(C * hw, 0.0f);
    for (int64_t i = 0; i < C * hw; ++i) {
      const int64_t pl = i / hw, o = i % hw;  // output o of plane pl goes to pixel o / 2
      const bool second = o % 2 == 1;         // b of the pair; a is at i - 1
      const uint32_t sign = rng() & 0x8000, frac = rng() & ((1u << mant) - 1);
      uint16_t bits = static_cast<uint16_t>(rng());  // kind 0: any pattern
      const int kind = static_cast<int>((o / 2) % 4);
      if (kind == 1 && second) {  // b 7 to 12 binades below a
        const uint16_t ab = to_bits(a[i - 1]);
        int e = (ab >> mant) & (dt == ACL_BF16 ? 0xFF : 0x1F);
        if (e == 0 || e > emax) e = ebias;  // a subnormal, infinite or NaN: pair with 1.0's binade
        e = std::max(1, e - 7 - static_cast<int>(rng() % 6));
        bits = static_cast<uint16_t>(sign | (e << mant) | frac);
      } else if (kind == 2) {  // both in the two lowest binades: subnormal or tiny sums
        bits = static_cast<uint16_t>(sign | ((rng() % 2) << mant) | frac);
      } else if (kind == 3) {  // both in the top binade, one sign: the sum overflows
        const uint32_t sg = second ? to_bits(a[i - 1]) & 0x8000 : sign;
        bits = static_cast<uint16_t>(sg | (emax << mant) | frac);
      }
      a[i] = from_bits(bits);
      gy.set(i, a[i]);
      a[i] = gy.get(i);  // what the tensor holds (a signalling NaN is stored quiet)
      idx.set_int(i, o / 2);
      want[pl * hw + o / 2] += a[i];  // (0 + a) + b in float32, in output order
    }
    IntArray k({3}), s({1}), p({1}), d({1});
    uint64_t ws;
    aclOpExecutor *ex;
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), k, s, p,
                                                                d, false, gx.t(), &ws, &ex),
              ACLNN_SUCCESS)
        << last_msg();
    ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
              ACLNN_SUCCESS)
        << last_msg();
    int64_t bad = 0, nans = 0, infs = 0, subnormal = 0;
    for (int64_t i = 0; i < C * hw; ++i) {
      const float got = gx.get(i), exp = from_bits(to_bits(want[i]));
      const bool same = std::isnan(exp) ? std::isnan(got) : std::memcmp(&got, &exp, 4) == 0;
      nans += std::isnan(exp);
      infs += std::isinf(exp);
      const uint16_t eb = to_bits(exp);
      subnormal += (eb & 0x7fff) != 0 && (eb >> mant & (dt == ACL_BF16 ? 0xFF : 0x1F)) == 0;
      if (!same && bad++ < 5)
        ADD_FAILURE() << "dtype " << dt << (transposed ? " (W outer)" : "") << " pixel " << i
                      << ": sum " << want[i] << " gave " << got << ", want " << exp;
    }
    EXPECT_EQ(bad, 0);
    // The cases that matter were drawn.
    EXPECT_GT(nans, 10);
    EXPECT_GT(infs, 10);
    EXPECT_GT(subnormal, 10);
    EXPECT_TRUE(gx.guards_intact());
  }
}

TEST(MaxPoolGolden, MatchesPyTorch) {
  auto cases = read_golden(POOLGRAD_GOLDEN_DIR "/maxpool.txt");
  ASSERT_GE(cases.size(), 10u);
  for (const GoldenCase &g : cases) {
    const std::string dts = g.s("dtype");
    const aclDataType dt = dts == "FLOAT" ? ACL_FLOAT : dts == "FLOAT16" ? ACL_FLOAT16 : ACL_BF16;
    SCOPED_TRACE("case N=" + g.s("N") + " H=" + g.s("H") + " W=" + g.s("W") + " k=" + g.s("kh") +
                 " s=" + g.s("sh") + " p=" + g.s("ph") + " d=" + g.s("dh") +
                 " ceil=" + g.s("ceil") + " " + dts);
    const int64_t n = g.i("N"), c = g.i("C"), h = g.i("H"), w = g.i("W");
    const auto &gout = g.arrays.at("out");
    const int64_t plane_out = static_cast<int64_t>(gout.size()) / (n * c);
    IntArray k({g.i("kh"), g.i("kw")}), s({g.i("sh"), g.i("sw")}), p({g.i("ph"), g.i("pw")}),
        d({g.i("dh"), g.i("dw")});
    const bool ceil = g.i("ceil") != 0;
    // Output dims from the library's phase 1: try the reference size.
    const PoolRef a{g.i("kh"), g.i("kw"), g.i("sh"), g.i("sw"), g.i("ph"),
                    g.i("pw"), g.i("dh"), g.i("dw"), ceil};
    const int64_t ho = ref_out_size(h, a.kh, a.sh, a.ph, a.dh, ceil),
                  wo = ref_out_size(w, a.kw, a.sw, a.pw, a.dw, ceil);
    ASSERT_EQ(ho * wo, plane_out);
    for (aclDataType idt : {ACL_INT64, ACL_INT32}) {
      HostTensor x({n, c, h, w}, dt), out({n, c, ho, wo}, dt), idx({n, c, ho, wo}, idt);
      for (int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<float>(g.arrays.at("x")[i]));
      uint64_t ws;
      aclOpExecutor *ex;
      ASSERT_EQ(aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, ceil, out.t(), idx.t(),
                                                          &ws, &ex),
                ACLNN_SUCCESS)
          << last_msg();
      ASSERT_EQ(aclnnMaxPool2dWithIndices(pgtest::workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
      for (int64_t i = 0; i < out.numel(); ++i) {
        ASSERT_EQ(out.get(i), static_cast<float>(gout[i])) << i;
        ASSERT_EQ(idx.get_int(i), static_cast<int64_t>(g.arrays.at("indices")[i])) << i;
      }
      HostTensor gy({n, c, ho, wo}, dt), gx({n, c, h, w}, dt);
      for (int64_t i = 0; i < gy.numel(); ++i)
        gy.set(i, static_cast<float>(g.arrays.at("gradOutput")[i]));
      ASSERT_EQ(aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), k, s, p,
                                                                  d, ceil, gx.t(), &ws, &ex),
                ACLNN_SUCCESS);
      ASSERT_EQ(aclnnMaxPool2dWithIndicesBackward(pgtest::workspace(ws), ws, ex, nullptr),
                ACLNN_SUCCESS);
      const auto &ggx = g.arrays.at("gradInput");
      for (int64_t i = 0; i < gx.numel(); ++i) {
        const float want = static_cast<float>(ggx[i]);
        if (dt == ACL_FLOAT) {
          ASSERT_EQ(gx.get(i), want) << i;
        } else {
          // PyTorch accumulates half/bfloat16 gradients in the storage type; poolgrad in float32.
          ASSERT_NEAR(gx.get(i), want, 2e-2 * (1 + std::fabs(want))) << i;
        }
      }
    }
  }
}

}  // namespace
