#include "maxpool_kernels.h"

#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "../core/dtype_io.h"

namespace poolgrad {

namespace {

template <class T>
inline T *at(const Strided4 &t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return reinterpret_cast<T *>(t.base) + n * t.sn + c * t.sc + h * t.sh + w * t.sw;
}

// First and one-past-last tap m of a window starting at `start` (taps start + m*d) inside [0, in).
inline void tap_range(int64_t start, int64_t k, int64_t d, int64_t in, int64_t *m0, int64_t *m1) {
  int64_t lo = start < 0 ? (-start + d - 1) / d : 0;
  int64_t hi = in - start <= 0 ? 0 : (in - start + d - 1) / d;
  *m0 = lo;
  *m1 = hi < k ? hi : k;
}

template <class IO, class I>
void forward_planes(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                    const Strided4 &idx, int64_t pb, int64_t pe) {
  using S = typename IO::storage;
  const PoolAttrs &a = p.a;
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    const S *xp = at<S>(x, n, c, 0, 0);
    for (int64_t oh = 0; oh < p.ho; ++oh) {
      const int64_t hs = oh * a.sh - a.ph;
      int64_t m0, m1;
      tap_range(hs, a.kh, a.dh, p.h, &m0, &m1);
      for (int64_t ow = 0; ow < p.wo; ++ow) {
        const int64_t ws = ow * a.sw - a.pw;
        int64_t q0, q1;
        tap_range(ws, a.kw, a.dw, p.w, &q0, &q1);
        float best = -std::numeric_limits<float>::infinity();
        int64_t bi = -1;
        for (int64_t m = m0; m < m1; ++m) {
          const int64_t ih = hs + m * a.dh;
          const S *row = xp + ih * x.sh;
          for (int64_t q = q0; q < q1; ++q) {
            const int64_t iw = ws + q * a.dw;
            const float v = IO::load(row + iw * x.sw);
            if (bi < 0 || v > best || std::isnan(v)) {
              best = v;
              bi = ih * p.w + iw;
            }
          }
        }
        IO::store(at<S>(out, n, c, oh, ow), best);
        *at<I>(idx, n, c, oh, ow) = static_cast<I>(bi);
      }
    }
  }
}

template <class IO, class I>
void backward_planes(const MaxPoolParams &p, const Strided4 &gy, const Strided4 &idx,
                     const Strided4 &gx, int64_t pb, int64_t pe, BadIndex *bad) {
  using S = typename IO::storage;
  const int64_t hw = p.h * p.w;
  // float32 accumulation: straight into a dense float gradInput plane, else into a scratch plane
  // that is rounded once into the output.
  constexpr bool is_f32 = sizeof(S) == 4;
  const bool direct = is_f32 && gx.plane_dense();
  std::vector<float> scratch(direct ? 0 : static_cast<size_t>(hw));
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t n = pl / p.c, c = pl % p.c;
    float *acc = direct ? reinterpret_cast<float *>(at<S>(gx, n, c, 0, 0)) : scratch.data();
    for (int64_t i = 0; i < hw; ++i) acc[i] = 0.0f;
    const S *g = at<S>(gy, n, c, 0, 0);
    const I *ix = at<I>(idx, n, c, 0, 0);
    for (int64_t oh = 0; oh < p.ho; ++oh) {
      const S *grow = g + oh * gy.sh;
      const I *irow = ix + oh * idx.sh;
      for (int64_t ow = 0; ow < p.wo; ++ow) {
        const int64_t k = static_cast<int64_t>(irow[ow * idx.sw]);
        if (static_cast<uint64_t>(k) < static_cast<uint64_t>(hw)) {
          acc[k] += IO::load(grow + ow * gy.sw);
        } else if (k != -1 && bad->plane < 0) {
          bad->plane = pl;
          bad->oh = oh;
          bad->ow = ow;
          bad->value = k;
        }
      }
    }
    if (!direct) {
      for (int64_t h = 0; h < p.h; ++h) {
        S *orow = at<S>(gx, n, c, h, 0);
        const float *arow = acc + h * p.w;
        for (int64_t w = 0; w < p.w; ++w) IO::store(orow + w * gx.sw, arow[w]);
      }
    }
  }
}

}  // namespace

void maxpool_forward(const MaxPoolParams &p, const Strided4 &x, const Strided4 &out,
                     const Strided4 &indices, bool serial) {
  const int64_t planes = p.n * p.c;
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    parallel_for(planes, [&](int64_t b, int64_t e) {
      if (p.index_dtype == ACL_INT32)
        forward_planes<IO, int32_t>(p, x, out, indices, b, e);
      else
        forward_planes<IO, int64_t>(p, x, out, indices, b, e);
    }, serial ? 1 : 0);
    return 0;
  });
}

BadIndex maxpool_backward(const MaxPoolParams &p, const Strided4 &grad_out,
                          const Strided4 &indices, const Strided4 &grad_in, bool serial) {
  const int64_t planes = p.n * p.c;
  const int threads = serial ? 1 : num_threads();
  // Each chunk reports its first bad index; the first overall is the one of the lowest plane.
  std::vector<BadIndex> per_chunk;
  std::mutex m;
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    parallel_for(
        planes,
        [&](int64_t b, int64_t e) {
          BadIndex bad;
          if (p.index_dtype == ACL_INT32)
            backward_planes<IO, int32_t>(p, grad_out, indices, grad_in, b, e, &bad);
          else
            backward_planes<IO, int64_t>(p, grad_out, indices, grad_in, b, e, &bad);
          if (bad.plane >= 0) {
            std::lock_guard<std::mutex> lock(m);
            per_chunk.push_back(bad);
          }
        },
        threads);
    return 0;
  });
  BadIndex first;
  for (const BadIndex &b : per_chunk)
    if (first.plane < 0 || b.plane < first.plane) first = b;
  return first;
}

}  // namespace poolgrad
