// SPDX-License-Identifier: Apache-2.0
// aclnnMaxUnpool2d / aclnnMaxUnpool2dBackward: random cases against the naive reference (every
// dtype, INT32 / INT64 indices, 3-D and 4-D, strided views, empty batches, duplicates, the
// backward's casts, 1-3 threads), the documented call, the round trip with the max pool, indices
// outside the plane, and one test per validation rule (docs/max-unpool.md).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"
#include "unpool_tester.h"

using namespace pgtest;

namespace {

const char *kFwd = "aclnnMaxUnpool2d";
const char *kBwd = "aclnnMaxUnpool2dBackward";

aclnnStatus forward(HostTensor &x, HostTensor &idx, const IntArray &os, HostTensor &out) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st = aclnnMaxUnpool2dGetWorkspaceSize(x.t(), idx.t(), os, out.t(), &ws, &ex);
  return st ? st : aclnnMaxUnpool2d(workspace(ws), ws, ex, nullptr);
}

aclnnStatus backward(HostTensor &gy, HostTensor &self, HostTensor &idx, const IntArray &os,
                     HostTensor &out) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  aclnnStatus st =
      aclnnMaxUnpool2dBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(), os, out.t(), &ws, &ex);
  return st ? st : aclnnMaxUnpool2dBackward(workspace(ws), ws, ex, nullptr);
}

TEST(MaxUnpool2d, RandomAgainstNaiveReference) {
  // A SegNet decoder's unpooling (stride-2 windows: distinct positions), with repeats, every
  // dtype, a strided view and threads.
  UnpoolTester().batch(2).channels(3).input(4, 4).output(8, 8).test();
  UnpoolTester()
      .batch(2)
      .channels(3)
      .input(5, 3)
      .output(6, 7)
      .indices(UnpoolIndices::Duplicates)
      .threads(2)
      .test();
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_UINT8, ACL_INT16, ACL_INT32,
                         ACL_INT64, ACL_DOUBLE, ACL_BOOL})
    UnpoolTester()
        .batch(2)
        .channels(2)
        .input(3, 4)
        .output(5, 5)
        .dtype(dt)
        .index_dtype(ACL_INT32)
        .strided(true)
        .test();
  UnpoolTester().channels(4).input(3, 3).output(9, 1).rank3(true).test();  // only the product
  UnpoolTester().batch(0).channels(3).input(3, 3).output(4, 4).test();     // an empty batch
  if (HasFatalFailure()) return;
  std::mt19937 rng(41);
  for (int i = 0; i < 200; ++i) {
    UnpoolTester(random_unpool_case(rng)).seed(rng()).test();
    if (HasFatalFailure()) return;
  }
}

// The backward converts gradOutput to out's dtype where the cast rule allows it.
TEST(MaxUnpool2d, BackwardCastsToOutsDtype) {
  const aclDataType all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_UINT8,
                             ACL_INT16, ACL_INT32,   ACL_INT64, ACL_BOOL};
  const auto floating = [](aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16; };
  int cases = 0;
  for (aclDataType from : all)
    for (aclDataType to : all) {
      if ((floating(from) && !floating(to)) || (to == ACL_BOOL && from != ACL_BOOL)) continue;
      UnpoolTester()
          .batch(2)
          .channels(2)
          .input(3, 3)
          .output(4, 4)
          .dtype(from)
          .backward_out_dtype(to)
          .seed(static_cast<uint32_t>(++cases))
          .test();
      if (HasFatalFailure()) return;
    }
  // Refused: FLOAT and FLOAT16 to the 6 others (12), and the 5 integers to BOOL.
  EXPECT_EQ(cases, 8 * 8 - 12 - 5);
}

// Overlapping windows give repeated indices: the later input element wins, for any thread count.
TEST(MaxUnpool2d, DuplicatesTheLaterInputWins) {
  for (int threads : {1, 2, 3}) {
    poolgradSetNumThreads(threads);
    HostTensor x({3, 1, 2, 2}, ACL_FLOAT), idx({3, 1, 2, 2}, ACL_INT64),
        out({3, 1, 2, 2}, ACL_FLOAT);
    IntArray os({2, 2});
    for (int64_t i = 0; i < 12; ++i) {
      x.set(i, static_cast<float>(i + 1));
      idx.set_int(i, 0);  // every element of every plane at position 0
    }
    ASSERT_EQ(forward(x, idx, os, out), ACLNN_SUCCESS) << last_msg();
    for (int64_t pl = 0; pl < 3; ++pl) {
      EXPECT_EQ(out.get(pl * 4), static_cast<float>(pl * 4 + 4)) << threads;
      for (int64_t j = 1; j < 4; ++j) EXPECT_EQ(out.get(pl * 4 + j), 0.0f);
    }
  }
  poolgradSetNumThreads(0);
}

// The documented call: a 2x2 input placed into a 4x4 plane at its indices, zeros elsewhere.
TEST(MaxUnpool2d, DocumentedCall) {
  HostTensor x({1, 1, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND), idx({1, 1, 2, 2}, ACL_INT64, ACL_FORMAT_ND),
      out({1, 1, 4, 4}, ACL_FLOAT, ACL_FORMAT_ND);
  const float v[] = {5, -6, 7, 8};
  const int64_t at[] = {1, 6, 9, 15};
  for (int i = 0; i < 4; ++i) x.set(i, v[i]), idx.set_int(i, at[i]);
  for (int i = 0; i < 16; ++i) out.set(i, 99.0f);
  ASSERT_EQ(forward(x, idx, IntArray({4, 4}), out), ACLNN_SUCCESS) << last_msg();
  for (int i = 0; i < 16; ++i) {
    float want = 0.0f;
    for (int j = 0; j < 4; ++j)
      if (at[j] == i) want = v[j];
    EXPECT_EQ(out.get(i), want) << i;
  }
}

// MaxUnpool(MaxPool(x)) puts every maximum back at its place; the backward of the unpool on that
// output gives the pooled values back.
TEST(MaxUnpool2d, RoundTripWithMaxPool) {
  std::mt19937 rng(5);
  HostTensor x({2, 3, 8, 10}, ACL_FLOAT), y({2, 3, 4, 5}, ACL_FLOAT), idx({2, 3, 4, 5}, ACL_INT64),
      up({2, 3, 8, 10}, ACL_FLOAT), back({2, 3, 4, 5}, ACL_FLOAT);
  std::normal_distribution<float> nd;
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, nd(rng));
  IntArray k({2}), s({2}), p({0}), d({1}), os({8, 10});
  uint64_t ws;
  aclOpExecutor *ex;
  ASSERT_EQ(
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t(), k, s, p, d, false, y.t(), idx.t(), &ws, &ex),
      ACLNN_SUCCESS);
  ASSERT_EQ(aclnnMaxPool2dWithIndices(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
  ASSERT_EQ(forward(y, idx, os, up), ACLNN_SUCCESS) << last_msg();
  for (int64_t pl = 0; pl < 6; ++pl)
    for (int64_t i = 0; i < 80; ++i) {
      bool is_max = false;
      for (int64_t o = 0; o < 20; ++o) is_max |= idx.get_int(pl * 20 + o) == i;
      EXPECT_EQ(up.get(pl * 80 + i), is_max ? x.get(pl * 80 + i) : 0.0f) << pl << " " << i;
    }
  ASSERT_EQ(backward(up, y, idx, os, back), ACLNN_SUCCESS) << last_msg();
  for (int64_t i = 0; i < y.numel(); ++i) EXPECT_EQ(back.get(i), y.get(i)) << i;
}

// An index outside [0, outputSize plane): 161002 naming its position and value; nothing outside
// out written (the guards), whatever its dtype (no narrowing before the check).
TEST(MaxUnpool2d, IndicesOutsideThePlaneAreRefusedInPhase2) {
  for (aclDataType idt : {ACL_INT32, ACL_INT64})
    for (int64_t bad : {int64_t(-1), int64_t(20), int64_t(1) << 33}) {
      if (idt == ACL_INT32 && bad > INT32_MAX) continue;
      SCOPED_TRACE(testing::Message() << "idt=" << idt << " bad=" << bad);
      HostTensor x({2, 2, 2, 3}, ACL_FLOAT), idx({2, 2, 2, 3}, idt), out({2, 2, 4, 5}, ACL_FLOAT),
          gy({2, 2, 4, 5}, ACL_FLOAT), gx({2, 2, 2, 3}, ACL_FLOAT);
      for (int64_t i = 0; i < idx.numel(); ++i) idx.set_int(i, i % 6);
      idx.set_int(1 * 12 + 1 * 6 + 1 * 3 + 2, bad);  // n=1, c=1, h=1, w=2
      const std::string where = "indices[1,1,1,2]=" + std::to_string(bad) +
                                " must be in [0, outputSize[0]*outputSize[1]=20)";
      EXPECT_STATUS_MSG(forward(x, idx, IntArray({4, 5}), out), ACLNN_ERR_PARAM_INVALID, kFwd,
                        where);
      EXPECT_TRUE(out.guards_intact());
      EXPECT_STATUS_MSG(backward(gy, x, idx, IntArray({4, 5}), gx), ACLNN_ERR_PARAM_INVALID, kBwd,
                        where);
      EXPECT_TRUE(gx.guards_intact());
    }
  // A 3-D call names the position without n.
  HostTensor x({2, 2, 2}, ACL_FLOAT), idx({2, 2, 2}, ACL_INT64), out({2, 3, 3}, ACL_FLOAT);
  for (int64_t i = 0; i < idx.numel(); ++i) idx.set_int(i, i % 4);
  idx.set_int(5, 9);  // c=1, h=0, w=1
  EXPECT_STATUS_MSG(forward(x, idx, IntArray({3, 3}), out), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices[1,0,1]=9 must be in [0, outputSize[0]*outputSize[1]=9)");
}

TEST(MaxUnpool2d, ForwardValidationRules) {
  HostTensor x({2, 3, 2, 2}, ACL_FLOAT), idx({2, 3, 2, 2}, ACL_INT64), out({2, 3, 4, 4}, ACL_FLOAT);
  IntArray os({4, 4});
  uint64_t ws;
  aclOpExecutor *ex;
  auto p1 = [&](const aclTensor *a, const aclTensor *i, const aclIntArray *o, aclTensor *b) {
    return aclnnMaxUnpool2dGetWorkspaceSize(a, i, o, b, &ws, &ex);
  };
  // 1. Null arguments.
  EXPECT_STATUS_MSG(aclnnMaxUnpool2dGetWorkspaceSize(x.t(), idx.t(), os, out.t(), nullptr, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, kFwd, "workspaceSize");
  EXPECT_STATUS_MSG(p1(nullptr, idx.t(), os, out.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd, "self");
  EXPECT_STATUS_MSG(p1(x.t(), nullptr, os, out.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd, "indices");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), nullptr, out.t()), ACLNN_ERR_PARAM_NULLPTR, kFwd,
                    "outputSize");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), os, nullptr), ACLNN_ERR_PARAM_NULLPTR, kFwd, "out");
  // 2. Dtypes.
  HostTensor xb({2, 3, 2, 2}, ACL_BF16), outb({2, 3, 4, 4}, ACL_BF16),
      xbool({2, 3, 2, 2}, ACL_BOOL), outbool({2, 3, 4, 4}, ACL_BOOL),
      out16({2, 3, 4, 4}, ACL_FLOAT16), i16({2, 3, 2, 2}, ACL_INT16);
  EXPECT_STATUS_MSG(
      p1(xb.t(), idx.t(), os, outb.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
      "self dtype must be FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or DOUBLE, "
      "but got BF16");
  EXPECT_STATUS_MSG(p1(xbool.t(), idx.t(), os, outbool.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "but got BOOL");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), os, out16.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "out dtype must equal self dtype FLOAT, but got FLOAT16");
  EXPECT_STATUS_MSG(p1(x.t(), i16.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices dtype must be INT32 or INT64, but got INT16");
  // 3. Ranks and shapes.
  HostTensor x5({1, 2, 3, 2, 2}, ACL_FLOAT), i5({1, 2, 3, 2, 2}, ACL_INT64),
      i3({3, 2, 2}, ACL_INT64), iw({2, 3, 2, 3}, ACL_INT64);
  EXPECT_STATUS_MSG(p1(x5.t(), i5.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "self must be 3-D or 4-D, but got 5-D");
  EXPECT_STATUS_MSG(p1(x.t(), i3.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices shape must be [2,3,2,2]");
  EXPECT_STATUS_MSG(p1(x.t(), iw.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "indices shape must be [2,3,2,2]");
  HostTensor xp({2, 3, 2, 2}, ACL_FLOAT, ACL_FORMAT_NC1HWC0);
  EXPECT_STATUS_MSG(
      p1(xp.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
      "self format must be a public format (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, NCL), but got "
      "NC1HWC0");
  // 4. Every dim but the first > 0.
  HostTensor x0({2, 3, 0, 2}, ACL_FLOAT), i0({2, 3, 0, 2}, ACL_INT64), xc0({2, 0, 2, 2}, ACL_FLOAT),
      ic0({2, 0, 2, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(p1(x0.t(), i0.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "self must have sizes > 0 in every dim but the first");
  EXPECT_STATUS_MSG(p1(xc0.t(), ic0.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "self must have sizes > 0 in every dim but the first");
  // 5. outputSize.
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), IntArray({4}), out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "outputSize must have length 2, but got length 1");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), IntArray({4, 0}), out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "outputSize must be > 0, but got [4,0]");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), IntArray({1, 3}), out.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "outputSize [1,3] must hold at least self's H*W plane of 4 elements");
  // 6. out: self's N and C, H and W = outputSize.
  HostTensor outc({2, 2, 4, 4}, ACL_FLOAT), outh({2, 3, 4, 5}, ACL_FLOAT);
  EXPECT_STATUS_MSG(
      p1(x.t(), idx.t(), os, outc.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
      "out shape must be [2,3,4,4] (self with its plane = outputSize), but got [2,2,4,4]");
  EXPECT_STATUS_MSG(p1(x.t(), idx.t(), os, outh.t()), ACLNN_ERR_PARAM_INVALID, kFwd,
                    "out shape must be [2,3,4,4]");
  // A 3-D self with C = 0 and a 4-D empty batch succeed and write nothing.
  HostTensor e3({0, 2, 2}, ACL_FLOAT), ei3({0, 2, 2}, ACL_INT64), eo3({0, 4, 4}, ACL_FLOAT);
  EXPECT_EQ(forward(e3, ei3, os, eo3), ACLNN_SUCCESS) << last_msg();
}

TEST(MaxUnpool2d, BackwardValidationRules) {
  HostTensor gy({2, 3, 4, 4}, ACL_FLOAT), x({2, 3, 2, 2}, ACL_FLOAT), idx({2, 3, 2, 2}, ACL_INT64),
      out({2, 3, 2, 2}, ACL_FLOAT);
  IntArray os({4, 4});
  uint64_t ws;
  aclOpExecutor *ex;
  auto p1 = [&](const aclTensor *g, const aclTensor *s, const aclTensor *i, const aclIntArray *o,
                aclTensor *b) {
    return aclnnMaxUnpool2dBackwardGetWorkspaceSize(g, s, i, o, b, &ws, &ex);
  };
  // 1. Null arguments.
  EXPECT_STATUS_MSG(p1(nullptr, x.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "gradOutput");
  EXPECT_STATUS_MSG(p1(gy.t(), nullptr, idx.t(), os, out.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "self");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), nullptr, os, out.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "indices");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), nullptr, out.t()), ACLNN_ERR_PARAM_NULLPTR, kBwd,
                    "outputSize");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), os, nullptr), ACLNN_ERR_PARAM_NULLPTR, kBwd, "out");
  // 2. Dtypes: the lists (DOUBLE is the forward's only), the cast, self as gradOutput, indices.
  HostTensor gyd({2, 3, 4, 4}, ACL_DOUBLE), xd({2, 3, 2, 2}, ACL_DOUBLE),
      outd({2, 3, 2, 2}, ACL_DOUBLE), outi({2, 3, 2, 2}, ACL_INT32),
      outbool({2, 3, 2, 2}, ACL_BOOL), x16({2, 3, 2, 2}, ACL_FLOAT16), gyi({2, 3, 4, 4}, ACL_INT32),
      xi({2, 3, 2, 2}, ACL_INT32), if32({2, 3, 2, 2}, ACL_FLOAT);
  EXPECT_STATUS_MSG(p1(gyd.t(), xd.t(), idx.t(), os, outd.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dtype must be FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or "
                    "BOOL, but got DOUBLE");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), os, outi.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dtype FLOAT cannot be cast to out dtype INT32");
  EXPECT_STATUS_MSG(p1(gyi.t(), xi.t(), idx.t(), os, outbool.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput dtype INT32 cannot be cast to out dtype BOOL");
  EXPECT_STATUS_MSG(p1(gy.t(), x16.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "self dtype must equal gradOutput dtype FLOAT, but got FLOAT16");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), if32.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "indices dtype must be INT32 or INT64, but got FLOAT");
  // 3. Shapes.
  HostTensor gy3({3, 4, 4}, ACL_FLOAT), gyc({2, 2, 4, 4}, ACL_FLOAT), i3({2, 3, 2, 3}, ACL_INT64),
      out3({2, 3, 2, 3}, ACL_FLOAT), x5({1, 2, 3, 2, 2}, ACL_FLOAT);
  EXPECT_STATUS_MSG(p1(gy.t(), x5.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "self must be 3-D or 4-D");
  EXPECT_STATUS_MSG(p1(gy3.t(), x.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput rank must equal self rank 4, but got 3");
  EXPECT_STATUS_MSG(p1(gyc.t(), x.t(), idx.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "gradOutput's leading dims must equal self's (2, 3)");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), i3.t(), os, out.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "indices shape must be [2,3,2,2]");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), os, out3.t()), ACLNN_ERR_PARAM_INVALID, kBwd,
                    "out shape must be [2,3,2,2]");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), IntArray({4, 4, 1}), out.t()),
                    ACLNN_ERR_PARAM_INVALID, kBwd,
                    "outputSize must have length 2, but got length 3");
  EXPECT_STATUS_MSG(p1(gy.t(), x.t(), idx.t(), IntArray({4, 5}), out.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "outputSize [4,5] must equal gradOutput's plane");
  // 4. An empty gradOutput needs an empty self; an empty self succeeds.
  HostTensor gy0({2, 3, 0, 4}, ACL_FLOAT);
  EXPECT_STATUS_MSG(p1(gy0.t(), x.t(), idx.t(), IntArray({0, 4}), out.t()), ACLNN_ERR_PARAM_INVALID,
                    kBwd, "gradOutput is empty (shape [2,3,0,4]), so self must be empty too");
  HostTensor gye({0, 3, 4, 4}, ACL_FLOAT), xe({0, 3, 2, 2}, ACL_FLOAT), ie({0, 3, 2, 2}, ACL_INT64),
      oe({0, 3, 2, 2}, ACL_FLOAT);
  EXPECT_EQ(backward(gye, xe, ie, os, oe), ACLNN_SUCCESS) << last_msg();
}

}  // namespace

namespace {

TEST(MaxUnpool3d, RandomAgainstNaiveReference) {
  // A video decoder's unpooling (D 4 -> 8, H, W 4 -> 8), repeats, every dtype, unbatched.
  UnpoolTester().volume(4, 8).batch(2).channels(2).input(4, 4).output(8, 8).test();
  UnpoolTester()
      .volume(3, 3)
      .batch(1)
      .channels(3)
      .input(3, 2)
      .output(4, 4)
      .indices(UnpoolIndices::Duplicates)
      .threads(2)
      .test();
  for (aclDataType dt :
       {ACL_FLOAT, ACL_FLOAT16, ACL_INT8, ACL_UINT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_DOUBLE})
    UnpoolTester()
        .volume(2, 3)
        .batch(2)
        .channels(2)
        .input(3, 2)
        .output(3, 3)
        .dtype(dt)
        .strided(true)
        .test();
  UnpoolTester().volume(2, 2).channels(2).input(2, 2).output(4, 1).rank3(true).test();
  UnpoolTester().volume(2, 2).batch(0).channels(2).input(2, 2).output(2, 2).test();
  if (HasFatalFailure()) return;
  std::mt19937 rng(43);
  for (int i = 0; i < 120; ++i) {
    UnpoolTester(random_unpool_case(rng, true)).seed(rng()).test();
    if (HasFatalFailure()) return;
  }
}

TEST(MaxUnpool3d, ValidationRules) {
  HostTensor x({2, 3, 2, 2, 2}, ACL_FLOAT), idx({2, 3, 2, 2, 2}, ACL_INT64),
      out({2, 3, 3, 3, 3}, ACL_FLOAT), gy({2, 3, 3, 3, 3}, ACL_FLOAT),
      gx({2, 3, 2, 2, 2}, ACL_FLOAT);
  IntArray os({3, 3, 3}), st({2, 2, 2}), pd({0, 0, 0});
  uint64_t ws;
  aclOpExecutor *ex;
  const char *f = "aclnnMaxUnpool3d", *b = "aclnnMaxUnpool3dBackward";
  auto fwd = [&](const aclTensor *a, const aclTensor *i, const aclIntArray *o, const aclIntArray *s,
                 const aclIntArray *p, aclTensor *r) {
    return aclnnMaxUnpool3dGetWorkspaceSize(a, i, o, s, p, r, &ws, &ex);
  };
  auto bwd = [&](const aclTensor *g, const aclTensor *a, const aclTensor *i, const aclIntArray *o,
                 aclTensor *r) {
    return aclnnMaxUnpool3dBackwardGetWorkspaceSize(g, a, i, o, st, pd, r, &ws, &ex);
  };
  EXPECT_EQ(fwd(x.t(), idx.t(), os, st, pd, out.t()), ACLNN_SUCCESS) << last_msg();
  EXPECT_EQ(bwd(gy.t(), x.t(), idx.t(), os, gx.t()), ACLNN_SUCCESS) << last_msg();
  // Null stride and padding (3-D only).
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, nullptr, pd, out.t()), ACLNN_ERR_PARAM_NULLPTR, f,
                    "stride");
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, st, nullptr, out.t()), ACLNN_ERR_PARAM_NULLPTR, f,
                    "padding");
  EXPECT_STATUS_MSG(aclnnMaxUnpool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), os, st,
                                                             nullptr, gx.t(), &ws, &ex),
                    ACLNN_ERR_PARAM_NULLPTR, b, "padding");
  // Outputs contiguous, checked before the dtypes.
  HostTensor outs = make_strided({2, 3, 3, 3, 3}, {4, 3, 2, 1, 0}, 0, 0, ACL_FLOAT, ACL_FORMAT_ND),
             gxs = make_strided({2, 3, 2, 2, 2}, {0, 1, 2, 4, 3}, 1, 0, ACL_INT32, ACL_FORMAT_ND);
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, st, pd, outs.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "outRef must be contiguous");
  EXPECT_STATUS_MSG(bwd(gy.t(), x.t(), idx.t(), os, gxs.t()), ACLNN_ERR_PARAM_INVALID, b,
                    "out must be contiguous");
  // Dtypes: the backward takes DOUBLE, not BOOL; out as gradOutput (no cast); indices INT64.
  HostTensor gyb({2, 3, 3, 3, 3}, ACL_BOOL), xb({2, 3, 2, 2, 2}, ACL_BOOL),
      gxb({2, 3, 2, 2, 2}, ACL_BOOL), gx16({2, 3, 2, 2, 2}, ACL_FLOAT16),
      i32({2, 3, 2, 2, 2}, ACL_INT32), out16({2, 3, 3, 3, 3}, ACL_FLOAT16);
  EXPECT_STATUS_MSG(bwd(gyb.t(), xb.t(), idx.t(), os, gxb.t()), ACLNN_ERR_PARAM_INVALID, b,
                    "gradOutput dtype must be FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or "
                    "DOUBLE, but got BOOL");
  EXPECT_STATUS_MSG(bwd(gy.t(), x.t(), idx.t(), os, gx16.t()), ACLNN_ERR_PARAM_INVALID, b,
                    "out dtype must equal gradOutput dtype FLOAT, but got FLOAT16");
  EXPECT_STATUS_MSG(bwd(gy.t(), x.t(), i32.t(), os, gx.t()), ACLNN_ERR_PARAM_INVALID, b,
                    "indices dtype must be INT64, but got INT32");
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, st, pd, out16.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "outRef dtype must equal self dtype FLOAT, but got FLOAT16");
  // Ranks 4 or 5; every non-batch dim > 0.
  HostTensor x3({3, 2, 2}, ACL_FLOAT), i3({3, 2, 2}, ACL_INT64), x0({2, 3, 0, 2, 2}, ACL_FLOAT),
      i0({2, 3, 0, 2, 2}, ACL_INT64);
  EXPECT_STATUS_MSG(fwd(x3.t(), i3.t(), os, st, pd, out.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "self must be 4-D or 5-D, but got 3-D");
  EXPECT_STATUS_MSG(fwd(x0.t(), i0.t(), os, st, pd, out.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "self must have sizes > 0 in every dim but the first");
  // outputSize, stride, padding: three values; outputSize and stride > 0; the plane large enough.
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), IntArray({3, 3}), st, pd, out.t()), ACLNN_ERR_PARAM_INVALID,
                    f, "outputSize must have length 3, but got length 2");
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, IntArray({2, 2}), pd, out.t()), ACLNN_ERR_PARAM_INVALID,
                    f, "stride must have length 3, but got length 2");
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, st, IntArray({0}), out.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "padding must have length 3, but got length 1");
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, IntArray({2, 0, 2}), pd, out.t()),
                    ACLNN_ERR_PARAM_INVALID, f, "stride must be > 0, but got [2,0,2]");
  EXPECT_EQ(fwd(x.t(), idx.t(), os, st, IntArray({-1, 5, 0}), out.t()), ACLNN_SUCCESS)
      << "padding takes no part: any values";
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), IntArray({1, 2, 3}), st, pd, out.t()),
                    ACLNN_ERR_PARAM_INVALID, f,
                    "outputSize [1,2,3] must hold at least self's D*H*W plane of 8 elements");
  // outRef: self's leading dims with outputSize's plane; gradOutput likewise.
  HostTensor outw({2, 3, 3, 3, 4}, ACL_FLOAT), gyw({2, 2, 3, 3, 3}, ACL_FLOAT);
  EXPECT_STATUS_MSG(fwd(x.t(), idx.t(), os, st, pd, outw.t()), ACLNN_ERR_PARAM_INVALID, f,
                    "outRef shape must be [2,3,3,3,3]");
  EXPECT_STATUS_MSG(bwd(gy.t(), x.t(), idx.t(), IntArray({3, 3, 4}), gx.t()),
                    ACLNN_ERR_PARAM_INVALID, b, "outputSize [3,3,4] must equal gradOutput's plane");
  EXPECT_STATUS_MSG(bwd(gyw.t(), x.t(), idx.t(), os, gx.t()), ACLNN_ERR_PARAM_INVALID, b,
                    "outputSize [3,3,3] must equal gradOutput's plane");
}

}  // namespace

namespace {

// The backward's AVX2 row (float32 / int32, dense rows, a gather past the caches: a gradient
// plane of 2900 x 2900, 33.6 MB in float32): its name, the same bits as the portable row, and an
// index outside the plane in the middle of a vector group named from the register's copy while
// the group's other lanes are gathered. A float16 gradient (16.8 MB) takes the portable row.
TEST(MaxUnpool2d, BackwardVectorRowAgreesAndNamesBadLanes) {
  std::mt19937 rng(9);
  const int64_t H = 2900, W = 2900, plane = H * W;
  for (aclDataType dt : {ACL_FLOAT, ACL_INT32, ACL_FLOAT16}) {
    HostTensor gy({1, 1, H, W}, dt);  // values where the indices point (only those are read)
    for (aclDataType idt : {ACL_INT32, ACL_INT64}) {
      SCOPED_TRACE(testing::Message() << "idt=" << idt << " dt=" << dt);
      HostTensor x({1, 1, 3, 20}, dt), idx({1, 1, 3, 20}, idt);
      for (int64_t i = 0; i < idx.numel(); ++i) {
        const int64_t v = static_cast<int64_t>(rng() % plane);
        idx.set_int(i, v);
        dt == ACL_INT32 ? gy.set_int(v, static_cast<int32_t>(rng())) : gy.set(v, float(v % 97));
      }
      std::vector<uint64_t> results[2];
      std::string names[2];
      const char *caps[] = {"avx2", "default"};
      for (int run = 0; run < 2; ++run) {
        ASSERT_EQ(poolgradSetCpuCapability(caps[run]), 0);
        HostTensor gx({1, 1, 3, 20}, dt);
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        ASSERT_EQ(aclnnMaxUnpool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), IntArray({H, W}),
                                                           gx.t(), &ws, &ex),
                  ACLNN_SUCCESS)
            << last_msg();
        names[run] = poolgradGetKernelName(ex);
        ASSERT_EQ(aclnnMaxUnpool2dBackward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
        for (int64_t i = 0; i < gx.numel(); ++i)
          results[run].push_back(static_cast<uint64_t>(
              elem_size(dt) == 2 ? gx.get_bits16(i) : static_cast<uint32_t>(gx.get_int(i))));
      }
#if defined(__x86_64__) || defined(__i386__)
      EXPECT_EQ(names[0], dt == ACL_FLOAT16 ? "gather-planes" : "gather-planes/avx2");
#endif
      EXPECT_EQ(names[1], "gather-planes");
      EXPECT_EQ(results[0], results[1]);
      // A bad index at w = 9 of row h = 1: inside the second vector group.
      idx.set_int(1 * 20 + 9, plane);
      for (const char *cap : caps) {
        ASSERT_EQ(poolgradSetCpuCapability(cap), 0);
        HostTensor gx({1, 1, 3, 20}, dt);
        EXPECT_STATUS_MSG(backward(gy, x, idx, IntArray({H, W}), gx), ACLNN_ERR_PARAM_INVALID, kBwd,
                          "indices[0,0,1,9]=8410000 must be in [0, "
                          "outputSize[0]*outputSize[1]=8410000)");
        EXPECT_TRUE(gx.guards_intact());
        for (int64_t w = 0; w < 20; ++w)  // the rest of the row is gathered
          if (w != 9) {
            const int64_t o = 1 * 20 + w;
            EXPECT_EQ(elem_size(dt) == 2 ? gx.get_bits16(o) : static_cast<uint32_t>(gx.get_int(o)),
                      results[1][o])
                << cap << " w=" << w;
          }
      }
      poolgradSetCpuCapability("avx512");
    }
  }
}

// Phase 1 of a backward call, `prepare(out, &ws, &ex)`, at every capability: the portable row.
template <class Prepare>
void expect_portable_row(const std::vector<int64_t> &out_shape, const Prepare &prepare) {
  for (const char *cap : {"avx512", "avx2", "default"}) {
    ASSERT_EQ(poolgradSetCpuCapability(cap), 0);
    HostTensor gx(out_shape, ACL_FLOAT, ACL_FORMAT_ND);
    uint64_t ws = 0;
    aclOpExecutor *ex = nullptr;
    ASSERT_EQ(prepare(gx, &ws, &ex), ACLNN_SUCCESS) << last_msg();
    EXPECT_STREQ(poolgradGetKernelName(ex), "gather-planes") << cap;
    aclDestroyAclOpExecutor(ex);
  }
  poolgradSetCpuCapability("avx512");
}

// A gather whose gradient, indices and output stay in cache takes the portable row at every
// capability (the scalar loop is faster there than AVX2's gather instructions).
TEST(MaxUnpool2d, BackwardInCacheTakesThePortableRow) {
  HostTensor gy({2, 3, 6, 20}, ACL_FLOAT), x({2, 3, 3, 20}, ACL_FLOAT),
      idx({2, 3, 3, 20}, ACL_INT32);
  for (int64_t i = 0; i < idx.numel(); ++i) idx.set_int(i, (i * 7) % 120);
  expect_portable_row({2, 3, 3, 20}, [&](HostTensor &gx, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMaxUnpool2dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), IntArray({6, 20}),
                                                    gx.t(), ws, ex);
  });
}

// A gather past the caches whose unpooled volume is twice as deep as the output (a pool that
// strode in depth: each row's indices in two depth slices) takes the portable row at every
// capability, the scalar loop being the faster there (docs/profiles.md).
TEST(MaxUnpool3d, BackwardStridedInDepthTakesThePortableRow) {
  HostTensor gy({1, 1, 4, 2048, 1024}, ACL_FLOAT, ACL_FORMAT_ND),  // 32 MB
      x({1, 1, 2, 3, 20}, ACL_FLOAT, ACL_FORMAT_ND),
      idx({1, 1, 2, 3, 20}, ACL_INT64, ACL_FORMAT_ND);
  for (int64_t i = 0; i < idx.numel(); ++i) idx.set_int(i, i * 4099);
  IntArray os({4, 2048, 1024}), stride({2, 2, 2}), padding({0, 0, 0});
  expect_portable_row({1, 1, 2, 3, 20}, [&](HostTensor &gx, uint64_t *ws, aclOpExecutor **ex) {
    return aclnnMaxUnpool3dBackwardGetWorkspaceSize(gy.t(), x.t(), idx.t(), os, stride, padding,
                                                    gx.t(), ws, ex);
  });
}

// The backward's runs: a depth slice whose index and output rows follow each other is one run,
// index rows with a gap after them are one run each (the AVX2 row, taken past the caches, here a
// 32 MB gradient volume as deep as the output, applies to both, the element stride being 1).
// Both give the naive gather's bits at every capability.
TEST(MaxUnpool3d, BackwardRowsWithGapsAgreeWithContiguousRows) {
  std::mt19937 rng(11);
  const std::vector<int64_t> big = {1, 1, 2, 4096, 1024}, small = {1, 1, 2, 3, 20};
  HostTensor gy(big, ACL_FLOAT, ACL_FORMAT_ND), x(small, ACL_FLOAT, ACL_FORMAT_ND);
  const int64_t plane = 2 * 4096 * 1024;
  IntArray os({2, 4096, 1024}), stride({1, 2, 2}), padding({0, 0, 0});
  for (aclDataType idt : {ACL_INT64}) {  // the 3-D backward's only index dtype
    HostTensor dense_idx(small, idt, ACL_FORMAT_ND),
        gap_idx = make_strided(small, {0, 1, 2, 3, 4}, 3, 2, idt, ACL_FORMAT_ND);
    for (int64_t i = 0; i < dense_idx.numel(); ++i) {
      const int64_t v = static_cast<int64_t>(rng() % plane);
      dense_idx.set_int(i, v);
      gap_idx.set_int(i, v);
      gy.set(v, float(v % 101) - 50.0f);  // (only where the indices point is read)
    }
    std::vector<float> want;
    for (const char *cap : {"default", "avx2"})
      for (bool gaps : {false, true}) {
        SCOPED_TRACE(testing::Message() << "idt=" << idt << " cap=" << cap << " gaps=" << gaps);
        ASSERT_EQ(poolgradSetCpuCapability(cap), 0);
        HostTensor gx(small, ACL_FLOAT, ACL_FORMAT_ND);  // out must be contiguous
        uint64_t ws = 0;
        aclOpExecutor *ex = nullptr;
        ASSERT_EQ(aclnnMaxUnpool3dBackwardGetWorkspaceSize(gy.t(), x.t(),
                                                           (gaps ? gap_idx : dense_idx).t(), os,
                                                           stride, padding, gx.t(), &ws, &ex),
                  ACLNN_SUCCESS)
            << last_msg();
#if defined(__x86_64__) || defined(__i386__)
        EXPECT_EQ(poolgradGetKernelName(ex),
                  std::string(cap == std::string("avx2") ? "gather-planes/avx2" : "gather-planes"));
#endif
        ASSERT_EQ(aclnnMaxUnpool3dBackward(workspace(ws), ws, ex, nullptr), ACLNN_SUCCESS);
        EXPECT_TRUE(gx.guards_intact());
        if (want.empty()) {
          want = gx.values();
          for (int64_t i = 0; i < gx.numel(); ++i)  // the naive gather
            ASSERT_EQ(want[i], gy.get(i / (3 * 20 * 2) * plane + dense_idx.get_int(i)));
        } else {
          EXPECT_EQ(gx.values(), want);
        }
      }
    poolgradSetCpuCapability("avx512");
  }
}

}  // namespace

namespace {

// Outputs larger than the caches (8 MB and more, 2- and 4-byte elements): the same values as the
// naive scatter, duplicates won by the later input, zeros elsewhere, a bad index reported, at 1
// and 3 threads, and nothing outside out.
TEST(MaxUnpool2d, LargeOutputsAtAnyThreadCount) {
  std::mt19937 rng(5);
  for (aclDataType dt : {ACL_FLOAT, ACL_FLOAT16, ACL_INT32})
    for (int threads : {1, 3}) {
      const int64_t es = dt == ACL_FLOAT16 ? 2 : 4, C = (int64_t(8) << 20) / (128 * 128 * es) + 3;
      SCOPED_TRACE(testing::Message() << "dt=" << dt << " threads=" << threads << " C=" << C);
      const int before = poolgradGetNumThreads();
      poolgradSetNumThreads(threads);
      HostTensor x({1, C, 32, 32}, dt), idx({1, C, 32, 32}, ACL_INT64), out({1, C, 128, 128}, dt);
      std::vector<int64_t> want(static_cast<size_t>(C * 128 * 128), 0);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t v = static_cast<int64_t>(rng() % 200) - 100, plane = i / (32 * 32);
        if (dt == ACL_INT32)
          x.set_int(i, v);
        else
          x.set(i, static_cast<float>(v));
        const int64_t at = static_cast<int64_t>(rng() % 2048);  // repeats within the plane
        idx.set_int(i, at);
        want[static_cast<size_t>(plane * 128 * 128 + at)] = v;  // the later input wins
      }
      ASSERT_EQ(forward(x, idx, IntArray({128, 128}), out), ACLNN_SUCCESS) << last_msg();
      for (int64_t i = 0; i < out.numel(); ++i) {
        const int64_t got = dt == ACL_INT32 ? out.get_int(i) : static_cast<int64_t>(out.get(i));
        ASSERT_EQ(got, want[static_cast<size_t>(i)]) << "at " << i;
      }
      EXPECT_TRUE(out.guards_intact());
      idx.set_int(7 * 32 * 32 + 5, 128 * 128);  // plane 7: one past its end
      EXPECT_STATUS_MSG(forward(x, idx, IntArray({128, 128}), out), ACLNN_ERR_PARAM_INVALID, kFwd,
                        "indices[0,7,0,5]=16384");
      EXPECT_TRUE(out.guards_intact());
      poolgradSetNumThreads(before);
    }
}

}  // namespace
