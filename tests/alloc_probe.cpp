// SPDX-License-Identifier: Apache-2.0
// Heap allocations of a C call, phase 1 + phase 2, in the steady state (the third call; the first
// ones set up the thread pool and caches): at most 5 for every family (issue 38). It counts with
// a replacement operator new, so it is its own program.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax.h"
#include "aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
#include "aclnnop/aclnn_roi_pooling_grad_with_arg_max.h"
#include "aclnnop/aclnn_roi_pooling_with_arg_max.h"

namespace {
std::atomic<long> g_news{0};
}

void *operator new(size_t n) {
  ++g_news;
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
  std::free(p);
}
void operator delete(void *p, size_t) noexcept {
  std::free(p);
}

namespace {

struct Buf {
  std::vector<int64_t> dims;
  std::vector<char> bytes;
  aclTensor *t = nullptr;
  Buf(std::vector<int64_t> d, aclDataType dt, aclFormat f, size_t es) : dims(std::move(d)) {
    int64_t n = 1;
    for (int64_t x : dims) n *= x;
    bytes.assign(static_cast<size_t>(n) * es, 0);
    std::vector<int64_t> st(dims.size(), 1);
    for (size_t i = dims.size() - 1; i > 0; --i) st[i - 1] = st[i] * dims[i];
    t = aclCreateTensor(dims.data(), dims.size(), dt, st.data(), 0, f, &n, 1, bytes.data());
  }
  ~Buf() { aclDestroyTensor(t); }
};

std::vector<char> g_ws(64 << 20);

// The allocations of phase 1 and phase 2 of one call.
template <class P1, class P2>
long count(P1 phase1, P2 phase2) {
  uint64_t ws = 0;
  aclOpExecutor *ex = nullptr;
  const long before = g_news;
  if (phase1(&ws, &ex) != ACLNN_SUCCESS || phase2(g_ws.data(), ws, ex, nullptr) != ACLNN_SUCCESS) {
    std::printf("call failed: %s\n", aclGetRecentErrMsg());
    std::exit(2);
  }
  return g_news - before;
}

int check(const char *name, long n) {
  std::printf("%s: %ld allocations\n", name, n);
  return n <= 5 ? 0 : 1;
}

}  // namespace

int main() {
  int64_t two = 2, zero = 0, one = 1;
  aclIntArray *k = aclCreateIntArray(&two, 1), *s = aclCreateIntArray(&two, 1),
              *p = aclCreateIntArray(&zero, 1), *d = aclCreateIntArray(&one, 1);
  Buf x({2, 16, 32, 32}, ACL_FLOAT, ACL_FORMAT_NCHW, 4),
      y({2, 16, 16, 16}, ACL_FLOAT, ACL_FORMAT_NCHW, 4),
      i({2, 16, 16, 16}, ACL_INT64, ACL_FORMAT_NCHW, 8),
      gx({2, 16, 32, 32}, ACL_FLOAT, ACL_FORMAT_NCHW, 4);
  Buf v({1, 4, 8, 8, 8}, ACL_FLOAT, ACL_FORMAT_NCDHW, 4),
      vy({1, 4, 4, 4, 4}, ACL_FLOAT, ACL_FORMAT_NCDHW, 4),
      vi({1, 4, 4, 4, 4}, ACL_INT32, ACL_FORMAT_NCDHW, 4),
      vgx({1, 4, 8, 8, 8}, ACL_FLOAT, ACL_FORMAT_NCDHW, 4);
  Buf rx({2, 16, 32, 32}, ACL_FLOAT, ACL_FORMAT_ND, 4), rois({3, 5}, ACL_FLOAT, ACL_FORMAT_ND, 4),
      ry({3, 16, 2, 2}, ACL_FLOAT, ACL_FORMAT_ND, 4),
      ra({3, 16, 2, 2}, ACL_INT32, ACL_FORMAT_ND, 4);
  int bad = 0;
  long n[6] = {};
  for (int it = 0; it < 3; ++it) {
    n[0] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesGetWorkspaceSize(x.t, k, s, p, d, false, y.t, i.t, w, e);
        },
        aclnnMaxPool2dWithIndices);
    n[1] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(y.t, x.t, i.t, k, s, p, d, false,
                                                                   gx.t, w, e);
        },
        aclnnMaxPool2dWithIndicesBackward);
    n[2] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool3dWithArgmaxGetWorkspaceSize(v.t, k, s, p, d, false, vy.t, vi.t, w, e);
        },
        aclnnMaxPool3dWithArgmax);
    n[3] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(vy.t, v.t, vi.t, k, s, p, d,
                                                                  false, vgx.t, w, e);
        },
        aclnnMaxPool3dWithArgmaxBackward);
    n[4] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiPoolingWithArgMaxGetWorkspaceSize(rx.t, rois.t, 2, 2, 1.0f, 1.0f, ry.t,
                                                           ra.t, w, e);
        },
        aclnnRoiPoolingWithArgMax);
    n[5] = count(
        [&](uint64_t *w, aclOpExecutor **e) {
          return aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize(ry.t, rx.t, rois.t, ra.t, 2, 2, 1.0,
                                                               w, e);
        },
        aclnnRoiPoolingGradWithArgMax);
  }
  bad += check("max-pool 2-D forward", n[0]);
  bad += check("max-pool 2-D backward", n[1]);
  bad += check("3-D max pool forward", n[2]);
  bad += check("3-D max pool backward", n[3]);
  bad += check("RoI forward", n[4]);
  bad += check("RoI backward", n[5]);
  aclDestroyIntArray(k);
  aclDestroyIntArray(s);
  aclDestroyIntArray(p);
  aclDestroyIntArray(d);
  return bad;
}
