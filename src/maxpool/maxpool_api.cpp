// aclnnMaxPool2dWithIndices and aclnnMaxPool2dWithIndicesBackward: the validation cascade of the
// spec (null pointers, dtypes, formats, shapes and attributes, empty batch) and the executors.
#include <cinttypes>
#include <climits>
#include <cstdio>

#include "../core/core.h"
#include "aclnnop/aclnn_max_pool2d_with_indices.h"
#include "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
#include "maxpool_dispatch.h"
#include "maxpool_rules.h"
#include "poolgrad/poolgrad.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnMaxPool2dWithIndices";
const char *const kBwd = "aclnnMaxPool2dWithIndicesBackward";

bool is_pool_dtype(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;
}

aclnnStatus check_formats(const char *api, std::initializer_list<Named> same_format,
                          std::initializer_list<Named> all) {
  for (const Named &x : all)
    if (is_private_format(x.t->view.format))
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s format must be a public format (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NC, "
                  "NCL), but got %s",
                  api, x.name, format_name(x.t->view.format));
  const Named &first = *same_format.begin();
  for (const Named &x : same_format)
    if (x.t->view.format != first.t->view.format)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must equal %s format %s, but got %s", api,
                  x.name, first.name, format_name(first.t->view.format),
                  format_name(x.t->view.format));
  for (const Named &x : all)
    if (x.t->view.rank() != 3 && x.t->view.rank() != 4)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be 3-D or 4-D, but got %d-D shape %s", api,
                  x.name, x.t->view.rank(), dims_str(x.t->view.dims).c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus check_same_shape(const char *api, const char *name, const aclTensor *t,
                             const std::vector<int64_t> &want, const char *what) {
  if (t->view.dims != want)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s shape must be %s (%s), but got %s", api, name,
                dims_str(want).c_str(), what, dims_str(t->view.dims).c_str());
  return ACLNN_SUCCESS;
}

// Shared shape work: self's (N, C, H, W), the attributes, the output shape in self's layout.
struct Geometry {
  bool nhwc = false;
  int64_t n = 1, c = 0, h = 0, w = 0, ho = 0, wo = 0;
  PoolAttrs a;
  std::vector<int64_t> out_dims;
  MaxPoolParams params(aclDataType dt, aclDataType idt) const {
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
};

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
  const int r = self->view.rank(), off = r == 4 ? 1 : 0;
  g->out_dims[g->nhwc ? off : off + 1] = g->ho;
  g->out_dims[g->nhwc ? off + 1 : off + 2] = g->wo;
  return ACLNN_SUCCESS;
}

// ---- the product profile's rules (spec/products.md) ----
aclnnStatus check_profile_dtypes(const char *api, const char *name, aclDataType dt,
                                 const MaxPoolRules &rules) {
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

}  // namespace

extern "C" {

aclnnStatus aclnnMaxPool2dWithIndicesGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *kernelSize, const aclIntArray *stride,
    const aclIntArray *padding, const aclIntArray *dilation, bool ceilMode, aclTensor *out,
    aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // 1-2: null pointers.
  if ((st = check_out_pointers(api, workspaceSize, executor))) return st;
  if ((st = check_not_null(api, {{"self", self},
                                 {"kernelSize", kernelSize},
                                 {"stride", stride},
                                 {"padding", padding},
                                 {"dilation", dilation},
                                 {"out", out},
                                 {"indices", indices}})))
    return st;
  if ((st = check_element_bound(api, {{"self", self}, {"out", out}, {"indices", indices}})))
    return st;
  // 3: dtypes.
  const MaxPoolRules &rules = maxpool_rules(false);
  const aclDataType dt = self->view.dtype;
  if (!is_pool_dtype(dt))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self dtype must be FLOAT, FLOAT16 or BF16, but got %s", api, dtype_name(dt));
  if ((st = check_profile_dtypes(api, "self", dt, rules))) return st;
  if (out->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: out dtype must equal self dtype %s, but got %s", api,
                dtype_name(dt), dtype_name(out->view.dtype));
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  if ((st = check_profile_index(api, indices->view.dtype, rules))) return st;
  // 4: formats and ranks.
  st = check_formats(api, {{"self", self}, {"out", out}},
                     {{"self", self}, {"out", out}, {"indices", indices}});
  if (st) return st;
  if ((st = check_profile_format(api, self->view.format, rules))) return st;
  // 5: shapes and attributes.
  Geometry g;
  if ((st = geometry(api, self, kernelSize, stride, padding, dilation, ceilMode, &g))) return st;
  if ((st = check_profile_dilation(api, g.a, rules))) return st;
  if ((st = check_same_shape(api, "out", out, g.out_dims, "the pooled shape of self"))) return st;
  if ((st = check_same_shape(api, "indices", indices, out->view.dims, "the shape of out")))
    return st;
  if (indices->view.dtype == ACL_INT32 && g.h * g.w > INT32_MAX)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: indices dtype INT32 requires H*W <= %d, but got H*W=%" PRId64 "; use INT64",
                api, INT32_MAX, g.h * g.w);
  if ((st = check_data(api, {{"self", self}, {"out", out}, {"indices", indices}}))) return st;
  st = check_storage(api, {{"self", self, Role::kRead},
                           {"out", out, Role::kWrite},
                           {"indices", indices, Role::kWrite}});
  if (st) return st;
  // 6: an empty batch is a no-op.
  Plan plan;
  if (g.n > 0) {
    MaxPoolParams p = g.params(dt, indices->view.dtype);
    const Strided4 x = to_nchw(self->view, g.nhwc), o = to_nchw(out->view, g.nhwc),
                   ix = to_nchw(indices->view, g.nhwc);
    p.serial = !view_is_non_overlapping(out->view) || !view_is_non_overlapping(indices->view);
    p.threads = p.serial ? 1 : num_threads();
    const auto &row = maxpool_forward_kernel(p, self->view.device, x, o, ix);
    p.isa = row.isa;
    plan.threads = p.threads;
    plan.kernel = std::string(row.name) + (p.serial ? "(serial)" : "");
    plan.workspace = row.kernel.workspace(p, x, o, ix);
    const auto run = row.kernel.run;
    plan.run = [p, x, o, ix, run](void *workspace) {
      run(p, x, o, ix, workspace);
      return ACLNN_SUCCESS;
    };
  }
  if (trace_info())
    plan.trace = describe("self", self) + " " + describe("out", out) + " " +
                 describe("indices", indices) + " " + attrs_trace(g.a);
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndices(void *workspace, uint64_t workspaceSize,
                                      aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *kernelSize, const aclIntArray *stride, const aclIntArray *padding,
    const aclIntArray *dilation, bool ceilMode, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  if ((st = check_out_pointers(api, workspaceSize, executor))) return st;
  if ((st = check_not_null(api, {{"gradOutput", gradOutput},
                                 {"self", self},
                                 {"indices", indices},
                                 {"kernelSize", kernelSize},
                                 {"stride", stride},
                                 {"padding", padding},
                                 {"dilation", dilation},
                                 {"gradInput", gradInput}})))
    return st;
  st = check_element_bound(
      api,
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  const MaxPoolRules &rules = maxpool_rules(true);
  const aclDataType dt = self->view.dtype;
  if (!is_pool_dtype(dt))
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self dtype must be FLOAT, FLOAT16 or BF16, but got %s", api, dtype_name(dt));
  if ((st = check_profile_dtypes(api, "self", dt, rules))) return st;
  if (gradOutput->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput dtype must equal self dtype %s, but got %s", api, dtype_name(dt),
                dtype_name(gradOutput->view.dtype));
  if (gradInput->view.dtype != dt)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradInput dtype must equal self dtype %s, but got %s",
                api, dtype_name(dt), dtype_name(gradInput->view.dtype));
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  if ((st = check_profile_index(api, indices->view.dtype, rules))) return st;
  st = check_formats(
      api, {{"self", self}, {"gradOutput", gradOutput}, {"gradInput", gradInput}},
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  if ((st = check_profile_format(api, self->view.format, rules))) return st;
  Geometry g;
  if ((st = geometry(api, self, kernelSize, stride, padding, dilation, ceilMode, &g))) return st;
  if ((st = check_profile_dilation(api, g.a, rules))) return st;
  if ((st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self")))
    return st;
  if ((st =
           check_same_shape(api, "gradOutput", gradOutput, g.out_dims, "the pooled shape of self")))
    return st;
  if ((st = check_same_shape(api, "indices", indices, gradOutput->view.dims,
                             "the shape of gradOutput")))
    return st;
  if ((st = check_data(
           api, {{"gradOutput", gradOutput}, {"indices", indices}, {"gradInput", gradInput}})))
    return st;
  st = check_storage(api, {{"gradOutput", gradOutput, Role::kRead},
                           {"self", self, Role::kShape},
                           {"indices", indices, Role::kRead},
                           {"gradInput", gradInput, Role::kWrite}});
  if (st) return st;
  Plan plan;
  if (g.n > 0) {
    MaxPoolParams p = g.params(dt, indices->view.dtype);
    const Strided4 gy = to_nchw(gradOutput->view, g.nhwc), ix = to_nchw(indices->view, g.nhwc),
                   gx = to_nchw(gradInput->view, g.nhwc);
    // A gradInput view whose elements share storage is written on one thread, in plane order,
    // so that the result does not depend on the thread count.
    p.serial = !view_is_non_overlapping(gradInput->view);
    p.threads = p.serial ? 1 : num_threads();
    const auto &row = maxpool_backward_kernel(p, gradOutput->view.device, gy, ix, gx);
    p.isa = row.isa;
    plan.threads = p.threads;
    plan.kernel = std::string(row.name) + (p.serial ? "(serial)" : "");
    plan.workspace = row.kernel.workspace(p, gy, ix, gx);
    const bool nhwc = g.nhwc;
    const int rank = gradOutput->view.rank();
    const auto run = row.kernel.run;
    plan.run = [p, gy, ix, gx, nhwc, rank, run](void *workspace) {
      const BadIndex bad = run(p, gy, ix, gx, workspace);
      if (bad.plane >= 0) {
        const int64_t n = bad.plane / p.c, c = bad.plane % p.c;
        char pos[96];
        const int at = rank == 4 ? std::snprintf(pos, sizeof pos, "%" PRId64 ",", n) : 0;
        if (nhwc)
          std::snprintf(pos + at, sizeof pos - at, "%" PRId64 ",%" PRId64 ",%" PRId64, bad.oh,
                        bad.ow, c);
        else
          std::snprintf(pos + at, sizeof pos - at, "%" PRId64 ",%" PRId64 ",%" PRId64, c, bad.oh,
                        bad.ow);
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: indices[%s]=%" PRId64 " must be -1 or in [0, H*W=%" PRId64 ")", kBwd, pos,
                    bad.value, p.h * p.w);
      }
      return ACLNN_SUCCESS;
    };
  }
  if (trace_info())
    plan.trace = describe("gradOutput", gradOutput) + " " + describe("self", self) + " " +
                 describe("indices", indices) + " " + describe("gradInput", gradInput) + " " +
                 attrs_trace(g.a);
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnMaxPool2dWithIndicesBackward(void *workspace, uint64_t workspaceSize,
                                              aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

int64_t poolgradPoolOutputSize(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
                               bool ceilMode) {
  if (in < 0 || in > kMaxAttr || k < 1 || k > kMaxAttr || s < 1 || s > kMaxAttr || p < 0 ||
      p > kMaxAttr || d < 1 || d > kMaxAttr)
    return -1;
  return pool_out_size(in, k, s, p, d, ceilMode);
}

}  // extern "C"
