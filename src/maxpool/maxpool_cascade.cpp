// SPDX-License-Identifier: Apache-2.0
#include "maxpool_cascade.h"

#include <cinttypes>
#include <cstdio>

#include "maxpool_dispatch.h"

namespace poolgrad {

MaxPoolParams Geometry::params(aclDataType dt, aclDataType idt) const {
  MaxPoolParams p;
  p.n = n;
  p.c = c;
  p.h = h;
  p.w = w;
  p.ho = ho;
  p.wo = wo;
  p.a = a;
  p.dtype = dt;
  p.index_dtype = idt;
  return p;
}

aclnnStatus geometry(const char *api, const aclTensor *self, const aclIntArray *kernel,
                     const aclIntArray *stride, const aclIntArray *padding,
                     const aclIntArray *dilation, bool ceil, Geometry *g) {
  aclnnStatus st = parse_pool_attrs(api, kernel->values, stride->values, padding->values,
                                    dilation->values, ceil, &g->a);
  if (st) return st;
  g->nhwc = self->view.format == ACL_FORMAT_NHWC;
  Strided4 s = to_nchw(self->view, g->nhwc);
  g->n = s.n;
  g->c = s.c;
  g->h = s.h;
  g->w = s.w;
  if (g->c <= 0 || g->h <= 0 || g->w <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self C, H and W must be > 0, but got C=%" PRId64 ", H=%" PRId64 ", W=%" PRId64
                " (shape %s)",
                api, g->c, g->h, g->w, dims_str(self->view.dims).c_str());
  g->ho = pool_out_size(g->h, g->a.kh, g->a.sh, g->a.ph, g->a.dh, ceil);
  g->wo = pool_out_size(g->w, g->a.kw, g->a.sw, g->a.pw, g->a.dw, ceil);
  if (g->ho <= 0 || g->wo <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: output size must be > 0, but got Hout=%" PRId64 ", Wout=%" PRId64
                " for H=%" PRId64 ", W=%" PRId64 ", kernelSize=[%" PRId64 ",%" PRId64
                "], stride=[%" PRId64 ",%" PRId64 "], padding=[%" PRId64 ",%" PRId64
                "], dilation=[%" PRId64 ",%" PRId64 "], ceilMode=%d",
                api, g->ho, g->wo, g->h, g->w, g->a.kh, g->a.kw, g->a.sh, g->a.sw, g->a.ph, g->a.pw,
                g->a.dh, g->a.dw, ceil ? 1 : 0);
  g->out_dims = self->view.dims;
  g->rank = self->view.rank();
  const int r = self->view.rank(), off = r == 4 ? 1 : 0;
  g->out_dims[g->nhwc ? off : off + 1] = g->ho;
  g->out_dims[g->nhwc ? off + 1 : off + 2] = g->wo;
  return ACLNN_SUCCESS;
}

// ---- the product profile's rules (spec/products.md) ----
aclnnStatus check_profile_dtypes(const char *api, const char *name, aclDataType dt,
                                 const MaxPoolRules &rules) {
  // poolgrad's DOUBLE extension is beyond every product's list (core/dtype.h).
  if (dt == ACL_DOUBLE && thread_double_dtype()) return ACLNN_SUCCESS;
  if (!allowed(rules.data, dt))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype %s is not supported on %s (%s)", api, name,
                dtype_name(dt), soc_name(current_soc()), rules.data_text);
  return ACLNN_SUCCESS;
}
aclnnStatus check_profile_index(const char *api, aclDataType dt, const MaxPoolRules &rules) {
  if (!allowed(rules.index, dt))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype %s is not supported on %s (%s)", api,
                dtype_name(dt), soc_name(current_soc()), rules.index_text);
  return ACLNN_SUCCESS;
}
aclnnStatus check_profile_format(const char *api, aclFormat f, const MaxPoolRules &rules) {
  if (!rules.nhwc && f == ACL_FORMAT_NHWC)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: format NHWC is not supported on %s", api,
                soc_name(current_soc()));
  return ACLNN_SUCCESS;
}
aclnnStatus check_profile_dilation(const char *api, const PoolAttrs &a, const MaxPoolRules &rules) {
  if (!rules.any_dilation && (a.dh != 1 || a.dw != 1))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: dilation must be 1 on both axes on %s, but got [%" PRId64 ",%" PRId64 "]", api,
                soc_name(current_soc()), a.dh, a.dw);
  return ACLNN_SUCCESS;
}

std::string attrs_trace(const PoolAttrs &a) {
  return format(
      "kernelSize=[%" PRId64 ",%" PRId64 "] stride=[%" PRId64 ",%" PRId64 "] padding=[%" PRId64
      ",%" PRId64 "] dilation=[%" PRId64 ",%" PRId64 "] ceil=%d profile=%s",
      a.kh, a.kw, a.sh, a.sw, a.ph, a.pw, a.dh, a.dw, a.ceil ? 1 : 0, soc_name(current_soc()));
}

namespace {

// The one datum the backwards check in phase 2: an index outside the plane.
DatumText plane_index_datum(const Geometry &g) {
  return index_datum("indices", {g.n, g.c, g.ho, g.wo}, g.nhwc, g.rank == 4,
                     "must be -1 or in [0, H*W=%lld)", g.h * g.w);
}

}  // namespace

aclnnStatus finish_forward(const ForwardArgs &f, const TraceText &trace_extra,
                           uint64_t *workspace_size, aclOpExecutor **executor) {
  const char *api = f.api;
  const Geometry &g = *f.g;
  aclnnStatus st =
      check_data(api, {{"self", f.self}, {f.out_name, f.out}, {f.idx_name, f.indices}});
  if (st) return st;
  st = check_storage(api, {{"self", f.self, Role::kRead},
                           {f.out_name, f.out, Role::kWrite},
                           {f.idx_name, f.indices, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (g.n > 0) {
    MaxPoolParams p = g.params(f.self->view.dtype, f.idt);
    fix_threads(p,
                !view_is_non_overlapping(f.out->view) || !view_is_non_overlapping(f.indices->view));
    const Device device = f.self->view.device;
    const Strided4 x = to_nchw(f.self->view, g.nhwc), o = to_nchw(f.out->view, g.nhwc);
    if (f.mask && unit_window(g)) {  // the Mask API's 1x1 windows: its own step instead
      plan = make_plan(api, maxpool_mask_kernel(p, device, x, o, f.ix), p, {}, x, o, f.ix);
    } else {
      plan = make_plan(api, f.choose(p, device, x, o, f.ix), p, {}, x, o, f.ix);
      if (f.mask) add_step(plan, maxpool_mask_kernel(p, device, x, o, f.ix), p, x, o, f.ix);
    }
  }
  if (trace_info())
    plan.trace = describe("self", f.self) + " " + describe(f.out_name, f.out) + " " +
                 describe(f.idx_name, f.indices) + " " + trace_extra();
  return make_executor(api, std::move(plan), workspace_size, executor);
}

aclnnStatus finish_backward(const BackwardArgs &b, const TraceText &trace_extra,
                            uint64_t *workspace_size, aclOpExecutor **executor) {
  const char *api = b.api;
  const Geometry &g = *b.g;
  aclnnStatus st = check_data(
      api, {{"gradOutput", b.grad_out}, {"indices", b.indices}, {"gradInput", b.grad_in}});
  if (st) return st;
  st = check_storage(api, {{"gradOutput", b.grad_out, Role::kRead},
                           {"self", b.self, Role::kShape},
                           {"indices", b.indices, Role::kRead},
                           {"gradInput", b.grad_in, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (g.n > 0) {
    MaxPoolParams p = g.params(b.grad_out->view.dtype, b.idt);
    p.unit_window = b.mask && unit_window(g);
    // A gradInput view whose elements share storage is written on one thread, in plane order,
    // so that the result does not depend on the thread count.
    fix_threads(p, !view_is_non_overlapping(b.grad_in->view));
    const Strided4 gy = to_nchw(b.grad_out->view, g.nhwc), gx = to_nchw(b.grad_in->view, g.nhwc);
    plan = make_plan(api, maxpool_backward_kernel(p, b.grad_out->view.device, gy, b.ix, gx), p,
                     {plane_index_datum(g)}, gy, b.ix, gx);
  }
  if (trace_info())
    plan.trace = describe("gradOutput", b.grad_out) + " " + describe("self", b.self) + " " +
                 describe("indices", b.indices) + " " + describe("gradInput", b.grad_in) + " " +
                 trace_extra();
  return make_executor(api, std::move(plan), workspace_size, executor);
}

bool unit_window(const Geometry &g) {
  return g.a.kh == 1 && g.a.kw == 1;
}

}  // namespace poolgrad
