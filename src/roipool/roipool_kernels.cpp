#include "roipool_kernels.h"

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
template <class IO>
inline float roi_at(const Strided2 &r, int64_t i, int64_t j) {
  return IO::load(reinterpret_cast<const typename IO::storage *>(r.base) + i * r.s0 + j * r.s1);
}

// An already floored/ceiled bin edge clamped to [0, lim]; NaN clamps to 0.
inline int64_t clamp_edge(float v, int64_t lim) {
  if (!(v > 0.0f)) return 0;
  if (v >= static_cast<float>(lim)) return lim;
  return static_cast<int64_t>(v);
}

template <class IO>
void forward_items(const RoiParams &p, const Strided4 &x, const Strided2 &rois, const Strided4 &y,
                   const Strided4 &am, int64_t b0, int64_t e0) {
  using S = typename IO::storage;
  std::vector<int64_t> hs(p.ph), he(p.ph), ws(p.pw), we(p.pw);
  int64_t cur_r = -1;
  bool whole_empty = false;
  int64_t b = 0;
  for (int64_t item = b0; item < e0; ++item) {
    const int64_t r = item / p.c, c = item % p.c;
    if (r != cur_r) {
      cur_r = r;
      b = static_cast<int64_t>(std::trunc(roi_at<IO>(rois, r, 0)));
      const float x1 = roi_at<IO>(rois, r, 1), y1 = roi_at<IO>(rois, r, 2);
      const float x2 = roi_at<IO>(rois, r, 3), y2 = roi_at<IO>(rois, r, 4);
      const float xs = x1 * p.scale_w, ys = y1 * p.scale_h;
      const float xe = (x2 + 1.0f) * p.scale_w, ye = (y2 + 1.0f) * p.scale_h;
      whole_empty = (x2 - x1 + 1.0f) * p.scale_w <= 0.0f || (y2 - y1 + 1.0f) * p.scale_h <= 0.0f;
      const float bw = (xe - xs) / static_cast<float>(p.pw);
      const float bh = (ye - ys) / static_cast<float>(p.ph);
      for (int64_t i = 0; i < p.ph; ++i) {
        const float fi = static_cast<float>(i);
        hs[i] = clamp_edge(std::floor(fi * bh + ys), p.h);
        he[i] = clamp_edge(std::ceil((fi + 1.0f) * bh + ys), p.h);
      }
      for (int64_t j = 0; j < p.pw; ++j) {
        const float fj = static_cast<float>(j);
        ws[j] = clamp_edge(std::floor(fj * bw + xs), p.w);
        we[j] = clamp_edge(std::ceil((fj + 1.0f) * bw + xs), p.w);
      }
    }
    const S *plane = at<S>(x, b, c, 0, 0);
    for (int64_t i = 0; i < p.ph; ++i) {
      for (int64_t j = 0; j < p.pw; ++j) {
        float best = 0.0f;
        int64_t bi = -1;
        if (!whole_empty && he[i] > hs[i] && we[j] > ws[j]) {
          best = -std::numeric_limits<float>::infinity();
          for (int64_t hh = hs[i]; hh < he[i]; ++hh) {
            const S *row = plane + hh * x.sh;
            for (int64_t ww = ws[j]; ww < we[j]; ++ww) {
              const float v = IO::load(row + ww * x.sw);
              if (v > best) {
                best = v;
                bi = hh * p.w + ww;
              }
            }
          }
        }
        IO::store(at<S>(y, r, c, i, j), best);
        *at<int32_t>(am, r, c, i, j) = static_cast<int32_t>(bi);
      }
    }
  }
}

template <class IO>
void backward_planes(const RoiParams &p, const Strided4 &gy, const std::vector<int64_t> &order,
                     const std::vector<int64_t> &start, const Strided4 &am, const Strided4 &gx,
                     int64_t pb, int64_t pe, RoiDataError *err) {
  using S = typename IO::storage;
  const int64_t hw = p.h * p.w;
  std::vector<float> acc(static_cast<size_t>(hw));
  int64_t err_flat = -1;
  for (int64_t pl = pb; pl < pe; ++pl) {
    const int64_t b = pl / p.c, c = pl % p.c;
    for (float &v : acc) v = 0.0f;
    for (int64_t k = start[b]; k < start[b + 1]; ++k) {
      const int64_t r = order[k];
      for (int64_t i = 0; i < p.ph; ++i) {
        const int32_t *arow = at<int32_t>(am, r, c, i, 0);
        const S *grow = at<S>(gy, r, c, i, 0);
        for (int64_t j = 0; j < p.pw; ++j) {
          const int64_t a = arow[j * am.sw];
          if (static_cast<uint64_t>(a) < static_cast<uint64_t>(hw)) {
            acc[a] += IO::load(grow + j * gy.sw);
          } else if (a != -1) {
            const int64_t flat = ((r * p.c + c) * p.ph + i) * p.pw + j;
            if (err_flat < 0 || flat < err_flat) {
              err_flat = flat;
              err->kind = 2;
              err->roi = r;
              err->c = c;
              err->ph = i;
              err->pw = j;
              err->value = static_cast<double>(a);
            }
          }
        }
      }
    }
    for (int64_t hh = 0; hh < p.h; ++hh) {
      S *orow = at<S>(gx, b, c, hh, 0);
      const float *arow = acc.data() + hh * p.w;
      for (int64_t ww = 0; ww < p.w; ++ww) IO::store(orow + ww * gx.sw, arow[ww]);
    }
  }
}

}  // namespace

RoiDataError roi_check_batch(const RoiParams &p, const Strided2 &rois) {
  RoiDataError e;
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    for (int64_t r = 0; r < p.r; ++r) {
      const float v = roi_at<IO>(rois, r, 0);
      const float t = std::trunc(v);
      if (!(t >= 0.0f && t < static_cast<float>(p.n))) {
        e.kind = 1;
        e.roi = r;
        e.value = static_cast<double>(v);
        break;
      }
    }
    return 0;
  });
  return e;
}

void roipool_forward(const RoiParams &p, const Strided4 &x, const Strided2 &rois,
                     const Strided4 &y, const Strided4 &argmax, bool serial) {
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    parallel_for(
        p.r * p.c,
        [&](int64_t b, int64_t e) { forward_items<IO>(p, x, rois, y, argmax, b, e); },
        serial ? 1 : 0);
    return 0;
  });
}

RoiDataError roipool_backward(const RoiParams &p, const Strided4 &grad_out, const Strided2 &rois,
                              const Strided4 &argmax, const Strided4 &grad_in, bool serial) {
  // Bucket the ROIs by batch index (ascending r inside each bucket): every (b, c) plane then sums
  // its contributions in one fixed order, whatever the thread count.
  std::vector<int64_t> start(static_cast<size_t>(p.n) + 1, 0), order(static_cast<size_t>(p.r));
  std::vector<int64_t> batch(static_cast<size_t>(p.r));
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    for (int64_t r = 0; r < p.r; ++r)
      batch[r] = static_cast<int64_t>(std::trunc(roi_at<IO>(rois, r, 0)));
    return 0;
  });
  for (int64_t r = 0; r < p.r; ++r) ++start[batch[r] + 1];
  for (int64_t b = 0; b < p.n; ++b) start[b + 1] += start[b];
  {
    std::vector<int64_t> fill(start.begin(), start.end() - 1);
    for (int64_t r = 0; r < p.r; ++r) order[fill[batch[r]]++] = r;
  }
  std::vector<RoiDataError> errs;
  std::mutex m;
  dispatch_float(p.dtype, [&](auto io) {
    using IO = decltype(io);
    parallel_for(
        p.n * p.c,
        [&](int64_t b, int64_t e) {
          RoiDataError err;
          backward_planes<IO>(p, grad_out, order, start, argmax, grad_in, b, e, &err);
          if (err.kind) {
            std::lock_guard<std::mutex> lock(m);
            errs.push_back(err);
          }
        },
        serial ? 1 : 0);
    return 0;
  });
  RoiDataError first;
  auto key = [&](const RoiDataError &e) { return ((e.roi * p.c + e.c) * p.ph + e.ph) * p.pw + e.pw; };
  for (const RoiDataError &e : errs)
    if (!first.kind || key(e) < key(first)) first = e;
  return first;
}

void zero_fill(const Strided4 &t, aclDataType dtype) {
  const int64_t es = dtype_size(dtype);
  for (int64_t n = 0; n < t.n; ++n)
    for (int64_t c = 0; c < t.c; ++c)
      for (int64_t h = 0; h < t.h; ++h)
        for (int64_t w = 0; w < t.w; ++w) {
          char *p = t.base + (n * t.sn + c * t.sc + h * t.sh + w * t.sw) * es;
          for (int64_t i = 0; i < es; ++i) p[i] = 0;
        }
}

}  // namespace poolgrad
