// SPDX-License-Identifier: Apache-2.0
// The MaxUnpool tester: inputs, the two calls, and the naive reference of the rules (each plane
// zero-filled, then out[idx[i]] = self[i] in input order; the backward's out[i] =
// gradOutput[idx[i]] converted as PyTorch's CPU cast does), compared bit for bit.
#include "unpool_tester.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "poolgrad/poolgrad.h"
#include "test_util.h"

namespace pgtest {

namespace {

// An element's bits, whatever its dtype.
uint64_t get_bits(const HostTensor &t, int64_t i) {
  switch (elem_size(t.dtype())) {
    case 1:
      return static_cast<uint64_t>(t.get_int(i)) & 0xff;
    case 2:
      return t.get_bits16(i);
    case 4:
      return static_cast<uint32_t>(t.get_int(i));
    default:
      if (t.dtype() == ACL_DOUBLE) {
        const double d = t.get_double(i);
        uint64_t b;
        std::memcpy(&b, &d, 8);
        return b;
      }
      return static_cast<uint64_t>(t.get_int(i));
  }
}

void set_bits(HostTensor &t, int64_t i, uint64_t b) {
  switch (elem_size(t.dtype())) {
    case 1:
      t.set_int(i, static_cast<int64_t>(b & 0xff));
      break;
    case 2:
      t.set_bits16(i, static_cast<uint16_t>(b));
      break;
    case 4:
      t.set_int(i, static_cast<int32_t>(static_cast<uint32_t>(b)));
      break;
    default:
      if (t.dtype() == ACL_DOUBLE) {
        double d;
        std::memcpy(&d, &b, 8);
        t.set_double(i, d);
      } else {
        t.set_int(i, static_cast<int64_t>(b));
      }
  }
}

bool floating(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_DOUBLE;
}

// A value of dtype dt for the backward's casts: integers with negatives and values that wrap when
// narrowed, floats on a grid float16 holds or rounds.
void set_value(HostTensor &t, int64_t i, std::mt19937 &rng) {
  const aclDataType dt = t.dtype();
  if (dt == ACL_BOOL) {
    t.set_int(i, rng() % 2);
  } else if (floating(dt)) {
    t.set(i, static_cast<float>(static_cast<int>(rng() % 4001) - 2000) / 8.0f);
  } else {
    const int64_t v = static_cast<int64_t>(rng() % 200001) - 100000;
    if (dt == ACL_INT16)
      t.set_bits16(i, static_cast<uint16_t>(v));
    else
      t.set_int(i, dt == ACL_UINT8 ? (v & 0xff) : dt == ACL_INT8 ? static_cast<int8_t>(v) : v);
  }
}

// The reference cast of element i of `from` into element j of `to`.
void cast_into(const HostTensor &from, int64_t i, HostTensor &to, int64_t j) {
  if (from.dtype() == to.dtype()) return set_bits(to, j, get_bits(from, i));
  const bool f = floating(from.dtype());
  const float fv = f ? from.get(i) : 0.0f;
  const int64_t iv = f                           ? 0
                     : from.dtype() == ACL_INT16 ? static_cast<int16_t>(from.get_bits16(i))
                     : from.dtype() == ACL_UINT8 ? (from.get_int(i) & 0xff)
                                                 : from.get_int(i);
  switch (to.dtype()) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
      to.set(j, f ? fv : static_cast<float>(iv));
      break;
    case ACL_INT16:
      to.set_bits16(j, static_cast<uint16_t>(iv));
      break;
    case ACL_INT8:
      to.set_int(j, static_cast<int8_t>(iv));
      break;
    case ACL_UINT8:
      to.set_int(j, static_cast<uint8_t>(iv));
      break;
    case ACL_INT32:
      to.set_int(j, static_cast<int32_t>(iv));
      break;
    default:
      to.set_int(j, iv);
  }
}

// The shape of a tensor over plane (z, a, b) (z: the depth, 3-D only).
std::vector<int64_t> dims(const UnpoolCase &k, int64_t z, int64_t a, int64_t b) {
  std::vector<int64_t> d{k.n, k.c};
  if (k.volume) d.push_back(z);
  d.push_back(a);
  d.push_back(b);
  if (k.rank3) d.erase(d.begin());
  return d;
}

// out: an output of the 3-D APIs stays contiguous.
HostTensor make(const UnpoolCase &k, const std::vector<int64_t> &d, aclDataType dt,
                std::mt19937 &rng, bool out = false) {
  if (!k.strided || (out && k.volume)) return HostTensor(d, dt, ACL_FORMAT_ND);
  std::vector<int> perm(d.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(perm.size() - 1 - i);
  return make_strided(d, perm, static_cast<int64_t>(rng() % 3), 1, dt, ACL_FORMAT_ND);
}

// Plane-major indices: distinct positions of each output plane, or drawn with repeats.
void fill_indices(const UnpoolCase &k, HostTensor &idx, std::mt19937 &rng) {
  const int64_t planes = k.n * k.c, hw = k.d * k.h * k.w, ohw = k.od * k.oh * k.ow;
  std::vector<int64_t> pos(ohw);
  for (int64_t pl = 0; pl < planes; ++pl) {
    std::iota(pos.begin(), pos.end(), 0);
    std::shuffle(pos.begin(), pos.end(), rng);
    for (int64_t i = 0; i < hw; ++i)
      idx.set_int(pl * hw + i, k.indices == UnpoolIndices::Distinct
                                   ? pos[i]
                                   : static_cast<int64_t>(rng() % static_cast<uint64_t>(ohw)));
  }
}

}  // namespace

void run_unpool_case(const UnpoolCase &k, std::mt19937 &rng) {
  SCOPED_TRACE(testing::Message() << "volume=" << k.volume << " N=" << k.n << " C=" << k.c
                                  << " D=" << k.d << " H=" << k.h << " W=" << k.w << " out=" << k.od
                                  << "x" << k.oh << "x" << k.ow << " dt=" << k.dt
                                  << " idt=" << k.idt << " grad_out_dt=" << k.grad_out_dt
                                  << " rank3=" << k.rank3 << " strided=" << k.strided
                                  << " duplicates=" << (k.indices == UnpoolIndices::Duplicates)
                                  << " threads=" << k.threads);
  const int before = poolgradGetNumThreads();
  if (k.threads) poolgradSetNumThreads(k.threads);
  const int64_t planes = k.n * k.c, hw = k.d * k.h * k.w, ohw = k.od * k.oh * k.ow;
  IntArray os(k.volume ? std::vector<int64_t>{k.od, k.oh, k.ow} : std::vector<int64_t>{k.oh, k.ow});
  IntArray stride({2, 2, 2}), padding({0, 0, 0});  // 3-D: checked, not used
  HostTensor idx = make(k, dims(k, k.d, k.h, k.w), k.idt, rng);
  fill_indices(k, idx, rng);
  // Forward (DOUBLE is the forward's only; BOOL the backward's).
  if (k.dt != ACL_BOOL) {
    HostTensor x = make(k, dims(k, k.d, k.h, k.w), k.dt, rng),
               out = make(k, dims(k, k.od, k.oh, k.ow), k.dt, rng, true);
    for (int64_t i = 0; i < planes * hw; ++i) set_bits(x, i, (uint64_t(rng()) << 32) | rng());
    for (int64_t i = 0; i < planes * ohw; ++i) set_bits(out, i, 0x5a5a5a5a5a5a5a5aull);
    ASSERT_EQ(two_phase(
                  [&](uint64_t *w, aclOpExecutor **e) {
                    return k.volume ? aclnnMaxUnpool3dGetWorkspaceSize(x.t(), idx.t(), os, stride,
                                                                       padding, out.t(), w, e)
                                    : aclnnMaxUnpool2dGetWorkspaceSize(x.t(), idx.t(), os, out.t(),
                                                                       w, e);
                  },
                  k.volume ? aclnnMaxUnpool3d : aclnnMaxUnpool2d),
              ACLNN_SUCCESS)
        << last_msg();
    std::vector<uint64_t> want(planes * ohw, 0);
    for (int64_t pl = 0; pl < planes; ++pl)
      for (int64_t i = 0; i < hw; ++i)
        want[pl * ohw + idx.get_int(pl * hw + i)] = get_bits(x, pl * hw + i);
    for (int64_t i = 0; i < planes * ohw; ++i)
      ASSERT_EQ(get_bits(out, i), want[i]) << "out plane " << i / ohw << " pos " << i % ohw;
    EXPECT_TRUE(out.outside_view_untouched());
  }
  // Backward: out (self's shape) gathered from gradOutput at the indices, cast to out's dtype
  // (2-D; the 3-D backward takes INT64 indices, DOUBLE but not BOOL, and no cast).
  if (k.volume ? k.idt != ACL_INT64 || k.dt == ACL_BOOL : k.dt == ACL_DOUBLE) {
    poolgradSetNumThreads(before);
    return;
  }
  const aclDataType od = k.grad_out_dt == ACL_DT_UNDEFINED ? k.dt : k.grad_out_dt;
  HostTensor gy = make(k, dims(k, k.od, k.oh, k.ow), k.dt, rng),
             self = make(k, dims(k, k.d, k.h, k.w), k.dt, rng),
             gx = make(k, dims(k, k.d, k.h, k.w), od, rng, true),
             want = HostTensor(dims(k, k.d, k.h, k.w), od);
  for (int64_t i = 0; i < planes * ohw; ++i) set_value(gy, i, rng);
  ASSERT_EQ(two_phase(
                [&](uint64_t *w, aclOpExecutor **e) {
                  return k.volume
                             ? aclnnMaxUnpool3dBackwardGetWorkspaceSize(
                                   gy.t(), self.t(), idx.t(), os, stride, padding, gx.t(), w, e)
                             : aclnnMaxUnpool2dBackwardGetWorkspaceSize(gy.t(), self.t(), idx.t(),
                                                                        os, gx.t(), w, e);
                },
                k.volume ? aclnnMaxUnpool3dBackward : aclnnMaxUnpool2dBackward),
            ACLNN_SUCCESS)
      << last_msg();
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t i = 0; i < hw; ++i)
      cast_into(gy, pl * ohw + idx.get_int(pl * hw + i), want, pl * hw + i);
  for (int64_t i = 0; i < planes * hw; ++i)
    ASSERT_EQ(get_bits(gx, i), get_bits(want, i)) << "out plane " << i / hw << " pos " << i % hw;
  EXPECT_TRUE(gx.outside_view_untouched());
  poolgradSetNumThreads(before);
}

UnpoolCase random_unpool_case(std::mt19937 &rng, bool volume) {
  const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,   ACL_UINT8, ACL_INT16,
                             ACL_INT32, ACL_INT64,   ACL_DOUBLE, ACL_BOOL};
  UnpoolCase k;
  k.n = rng() % 6 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 2);
  k.c = 1 + static_cast<int64_t>(rng() % 3);
  k.h = 1 + static_cast<int64_t>(rng() % 7);
  k.w = 1 + static_cast<int64_t>(rng() % 7);
  k.oh = k.h + static_cast<int64_t>(rng() % 5);
  k.ow = k.w + static_cast<int64_t>(rng() % 5);
  if (rng() % 4 == 0) std::swap(k.oh, k.ow);  // only the product must hold H*W
  if (k.oh * k.ow < k.h * k.w) k.oh = k.h, k.ow = k.w;
  if (volume) {
    k.volume = true;
    k.d = 1 + static_cast<int64_t>(rng() % 4);
    k.od = k.d + static_cast<int64_t>(rng() % 3);
    k.h = std::min<int64_t>(k.h, 4), k.w = std::min<int64_t>(k.w, 4);
    k.oh = std::max(k.oh, k.h), k.ow = std::max(k.ow, k.w);
  }
  k.dt = dts[rng() % 9];
  k.idt = rng() % 2 ? ACL_INT32 : ACL_INT64;
  k.rank3 = rng() % 4 == 0;
  if (k.rank3) k.n = 1;
  k.strided = rng() % 3 == 0;
  k.indices = rng() % 3 == 0 ? UnpoolIndices::Duplicates : UnpoolIndices::Distinct;
  k.threads = 1 + static_cast<int>(rng() % 3);
  return k;
}

void UnpoolTester::test() const {
  std::mt19937 rng(seed_);
  run_unpool_case(k_, rng);
}

}  // namespace pgtest
