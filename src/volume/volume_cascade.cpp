// SPDX-License-Identifier: Apache-2.0
#include "volume_cascade.h"

#include <cinttypes>
#include <climits>
#include <cstdio>

#include "../core/profile.h"
#include "../pooling/pool_window.h"
#include "volume_dispatch.h"
#include "volume_rules.h"

namespace poolgrad {

VolumeParams VolumeGeometry::params(aclDataType dt, aclDataType idt) const {
  VolumeParams p;
  p.n = n;
  p.c = c;
  for (int a = 0; a < 3; ++a) p.ax[a] = ax[a];
  p.dtype = dt;
  p.index_dtype = idt;
  return p;
}

void VolumeGeometry::set_out(int64_t od, int64_t oh, int64_t ow, const SmallInts &self_dims) {
  ax[0].out = od, ax[1].out = oh, ax[2].out = ow;
  out_dims = self_dims;
  const int first = rank == 5 ? 1 : 0, d = channels_last ? first : first + 1;
  out_dims[d] = od, out_dims[d + 1] = oh, out_dims[d + 2] = ow;
}

aclnnStatus check_volume_formats(const char *api, std::initializer_list<Named> same,
                                 std::initializer_list<Named> all,
                                 std::initializer_list<aclFormat> accepted,
                                 const char *accepted_text) {
  for (const Named &x : all)
    if (is_private_format(x.t->view.format))
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must be a public format, but got %s", api,
                  x.name, format_name(x.t->view.format));
  const Named &self = *same.begin();
  bool ok = accepted.size() == 0;
  for (aclFormat f : accepted) ok = ok || self.t->view.format == f;
  if (!ok)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must be %s on %s, but got %s", api,
                self.name, accepted_text, soc_name(current_soc()),
                format_name(self.t->view.format));
  for (const Named &x : same)
    if (x.t->view.format != self.t->view.format)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must equal %s format %s, but got %s", api,
                  x.name, self.name, format_name(self.t->view.format),
                  format_name(x.t->view.format));
  return ACLNN_SUCCESS;
}

aclnnStatus check_volume_index_dtype(const char *api, const char *name, const aclTensor *t) {
  const VolumeRules &r = volume_rules();
  if (!allowed(r.index, t->view.dtype))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must be %s on %s, but got %s", api, name,
                r.index_text, soc_name(current_soc()), dtype_name(t->view.dtype));
  return ACLNN_SUCCESS;
}

aclnnStatus check_volume_ranks(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all)
    if (x.t->view.rank() != 4 && x.t->view.rank() != 5)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be 4-D or 5-D, but got %d-D shape %s", api,
                  x.name, x.t->view.rank(), dims_str(x.t->view.dims).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus volume_input(const char *api, const aclTensor *self, bool channels_last,
                         VolumeGeometry *g, bool empty_ok) {
  g->channels_last = channels_last;
  g->rank = self->view.rank();
  const Strided5 s = to_ncdhw(self->view, channels_last);
  g->n = s.n, g->c = s.c;
  g->ax[0].in = s.d, g->ax[1].in = s.h, g->ax[2].in = s.w;
  if (empty_ok && self->view.numel() == 0) return ACLNN_SUCCESS;
  if (s.c < 1 || s.d < 1 || s.h < 1 || s.w < 1)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self C, D, H and W must be >= 1, but got C=%" PRId64 ", D=%" PRId64
                ", H=%" PRId64 ", W=%" PRId64 " (shape %s)",
                api, s.c, s.d, s.h, s.w, dims_str(self->view.dims).c_str());
  return ACLNN_SUCCESS;
}

namespace {

// One attribute array: `lengths` allowed (a length 0 takes `dflt`, a length 1 repeats its value);
// each value in [lo, kMaxAttr].
aclnnStatus attr3(const char *api, const char *name, const aclIntArray *arr, bool empty_ok,
                  const int64_t *dflt, int64_t lo, int64_t out[3]) {
  const SmallInts &v = arr->values;
  if (!(v.size() == 1 || v.size() == 3 || (empty_ok && v.empty())))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must have length %s, but got length %zu", api,
                name, empty_ok ? "0, 1 or 3" : "1 or 3", v.size());
  for (int a = 0; a < 3; ++a) out[a] = v.empty() ? dflt[a] : v[v.size() == 1 ? 0 : a];
  for (int a = 0; a < 3; ++a)
    if (out[a] < lo || out[a] > kMaxAttr)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s values must be in [%" PRId64 ", %" PRId64 "], but got %s", api, name, lo,
                  kMaxAttr, dims_str(v).c_str());
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus volume_windows(const char *api, const aclTensor *self, const aclIntArray *kernel,
                           const aclIntArray *stride, const aclIntArray *padding,
                           const aclIntArray *dilation, bool ceil, VolumeGeometry *g) {
  int64_t k[3], s[3], p[3], d[3];
  aclnnStatus st;
  if ((st = attr3(api, "kernelSize", kernel, false, nullptr, 1, k))) return st;
  if ((st = attr3(api, "stride", stride, true, k, 1, s))) return st;
  if ((st = attr3(api, "padding", padding, false, nullptr, 0, p))) return st;
  for (int a = 0; a < 3; ++a)
    if (p[a] > k[a] / 2)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: padding must be <= kernelSize/2 on every axis, but got padding=[%" PRId64
                  ",%" PRId64 ",%" PRId64 "] for kernelSize=[%" PRId64 ",%" PRId64 ",%" PRId64 "]",
                  api, p[0], p[1], p[2], k[0], k[1], k[2]);
  if ((st = attr3(api, "dilation", dilation, false, nullptr, 1, d))) return st;
  int64_t out[3];
  for (int a = 0; a < 3; ++a) {
    Axis &x = g->ax[a];
    x.k = k[a], x.s = s[a], x.p = p[a], x.d = d[a];
    out[a] = pool_out_size(x.in, x.k, x.s, x.p, x.d, ceil);
  }
  if (self->view.numel() > 0 && (out[0] <= 0 || out[1] <= 0 || out[2] <= 0))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: output size must be > 0, but got [%" PRId64 ",%" PRId64 ",%" PRId64
                "] for D, H, W = %" PRId64 ", %" PRId64 ", %" PRId64 " and %s ceilMode=%d",
                api, out[0], out[1], out[2], g->ax[0].in, g->ax[1].in, g->ax[2].in,
                windows_trace(*g).c_str(), ceil ? 1 : 0);
  g->set_out(out[0], out[1], out[2], self->view.dims);
  return ACLNN_SUCCESS;
}

aclnnStatus check_volume_index_range(const char *api, const VolumeGeometry &g, aclDataType idt,
                                     bool int32_always) {
  const int64_t dhw = g.ax[0].in * g.ax[1].in * g.ax[2].in;
  if ((int32_always || idt == ACL_INT32) && dhw > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: D*H*W must be <= %d (the range of INT32 indices%s), but got %" PRId64, api,
                INT32_MAX, int32_always ? " on this product" : "", dhw);
  return ACLNN_SUCCESS;
}

std::string windows_trace(const VolumeGeometry &g) {
  const Axis *a = g.ax;
  return format("kernelSize=[%" PRId64 ",%" PRId64 ",%" PRId64 "] stride=[%" PRId64 ",%" PRId64
                ",%" PRId64 "] padding=[%" PRId64 ",%" PRId64 ",%" PRId64 "] dilation=[%" PRId64
                ",%" PRId64 ",%" PRId64 "]",
                a[0].k, a[1].k, a[2].k, a[0].s, a[1].s, a[2].s, a[0].p, a[1].p, a[2].p, a[0].d,
                a[1].d, a[2].d);
}

namespace {

// The one datum phase 2 checks: an index outside the volume.
DatumText volume_index_datum(const VolumeGeometry &g) {
  return index_datum("indices", {g.n, g.c, g.ax[0].out, g.ax[1].out, g.ax[2].out}, g.channels_last,
                     g.rank == 5, "must be -1 or in [0, D*H*W=%lld)",
                     g.ax[0].in * g.ax[1].in * g.ax[2].in);
}

}  // namespace

aclnnStatus finish_volume_forward(const char *api, const VolumeGeometry &g, const aclTensor *self,
                                  const char *out_name, const aclTensor *out, const char *idx_name,
                                  const aclTensor *indices, const TraceText &trace_extra,
                                  uint64_t *workspace_size, aclOpExecutor **executor) {
  aclnnStatus st = check_data(api, {{"self", self}, {out_name, out}, {idx_name, indices}});
  if (st) return st;
  st = check_storage(api, {{"self", self, Role::kRead},
                           {out_name, out, Role::kWrite},
                           {idx_name, indices, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (!g.empty && g.n > 0) {
    VolumeParams p = g.params(self->view.dtype, indices->view.dtype);
    fix_threads(p, !view_is_non_overlapping(out->view) || !view_is_non_overlapping(indices->view));
    const Strided5 x = to_ncdhw(self->view, g.channels_last),
                   o = to_ncdhw(out->view, g.channels_last),
                   ix = to_ncdhw(indices->view, g.channels_last);
    plan = make_plan(api, volume_forward_kernel(p, self->view.device, x, o, ix), p, {}, x, o, ix);
  }
  if (trace_info())
    plan.trace = describe("self", self) + " " + describe(out_name, out) + " " +
                 describe(idx_name, indices) + " " + trace_extra();
  return make_executor(api, std::move(plan), workspace_size, executor);
}

aclnnStatus finish_volume_backward(const char *api, const VolumeGeometry &g,
                                   const aclTensor *grad_out, const aclTensor *self,
                                   const aclTensor *indices, const aclTensor *grad_in,
                                   const TraceText &trace_extra, uint64_t *workspace_size,
                                   aclOpExecutor **executor) {
  aclnnStatus st =
      check_data(api, {{"gradOutput", grad_out}, {"indices", indices}, {"gradInput", grad_in}});
  if (st) return st;
  st = check_storage(api, {{"gradOutput", grad_out, Role::kRead},
                           {"self", self, Role::kShape},
                           {"indices", indices, Role::kRead},
                           {"gradInput", grad_in, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (!g.empty && g.n > 0) {
    VolumeParams p = g.params(grad_out->view.dtype, indices->view.dtype);
    // A gradInput whose elements share storage is written on one thread, in volume order, so that
    // the result does not depend on the thread count.
    fix_threads(p, !view_is_non_overlapping(grad_in->view));
    const Strided5 gy = to_ncdhw(grad_out->view, g.channels_last),
                   ix = to_ncdhw(indices->view, g.channels_last),
                   gx = to_ncdhw(grad_in->view, g.channels_last);
    plan = make_plan(api, volume_backward_kernel(p, grad_out->view.device, gy, ix, gx), p,
                     {volume_index_datum(g)}, gy, ix, gx);
  }
  if (trace_info())
    plan.trace = describe("gradOutput", grad_out) + " " + describe("self", self) + " " +
                 describe("indices", indices) + " " + describe("gradInput", grad_in) + " " +
                 trace_extra();
  return make_executor(api, std::move(plan), workspace_size, executor);
}

}  // namespace poolgrad
