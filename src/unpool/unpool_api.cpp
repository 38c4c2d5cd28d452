// SPDX-License-Identifier: Apache-2.0
// aclnnMaxUnpool2d / 3d and their backwards: the validation cascades of ops-nn's public
// documentation and op_api code (docs/max-unpool.md, numbered as there) and the plans. The kernels
// see every call as (N, C, D, H, W) volumes, a 2-D call's of depth 1.
#include <cinttypes>

#include "../core/core.h"
#include "../core/profile.h"
#include "../pooling/pool_checks.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "aclnnop/aclnn_max_unpool3d.h"
#include "aclnnop/aclnn_max_unpool3d_backward.h"
#include "unpool_dispatch.h"

using namespace poolgrad;

namespace {

const char *const kFwd2 = "aclnnMaxUnpool2d";
const char *const kBwd2 = "aclnnMaxUnpool2dBackward";
const char *const kFwd3 = "aclnnMaxUnpool3d";
const char *const kBwd3 = "aclnnMaxUnpool3dBackward";

// CANN's dtype lists, the same on every product poolgrad profiles (Ascend950, Ascend910B,
// Ascend910_93): the forwards' and the 3-D backward's data, the 2-D backward's data.
const aclDataType kDataDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_UINT8,
                                   ACL_INT16, ACL_INT32,   ACL_INT64, ACL_DOUBLE};
const char *const kDataDtypeText = "FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or DOUBLE";
const aclDataType kBackward2dDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_UINT8,
                                         ACL_INT16, ACL_INT32,   ACL_INT64, ACL_BOOL};
const char *const kBackward2dDtypeText = "FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or BOOL";

template <size_t N>
aclnnStatus check_dtype(const char *api, const char *name, const aclTensor *t,
                        const aclDataType (&list)[N], const char *text) {
  for (aclDataType d : list)
    if (t->view.dtype == d) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must be %s, but got %s", api, name, text,
              dtype_name(t->view.dtype));
}

aclnnStatus check_index_dtype(const char *api, const aclTensor *indices, bool int32_too) {
  if (indices->view.dtype == ACL_INT64 || (int32_too && indices->view.dtype == ACL_INT32))
    return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be %s, but got %s", api,
              int32_too ? "INT32 or INT64" : "INT64", dtype_name(indices->view.dtype));
}

// The 3-D calls' outputs must be contiguous (CANN's step 2).
aclnnStatus check_contiguous(const char *api, const char *name, const aclTensor *t) {
  int64_t expect = 1;
  for (int i = t->view.rank() - 1; i >= 0; --i) {
    if (t->view.dims[i] != 1 && t->view.strides[i] != expect)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be contiguous, but got strides %s", api,
                  name, dims_str(t->view.strides).c_str());
    expect *= t->view.dims[i];
  }
  return ACLNN_SUCCESS;
}

// The rank (3-4 for 2-D, 4-5 for 3-D) and the public format of each tensor.
aclnnStatus check_rank(const char *api, int spatial, std::initializer_list<Named> all) {
  if (aclnnStatus st = check_public_formats(api, all)) return st;
  for (const Named &x : all) {
    const int r = x.t->view.rank();
    if (r != spatial + 1 && r != spatial + 2)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D or %d-D, but got %d-D shape %s",
                  api, x.name, spatial + 1, spatial + 2, r, dims_str(x.t->view.dims).c_str());
  }
  return ACLNN_SUCCESS;
}

// self's dims as a volume: (N, C, [D,] H, W), or without N (the lower rank: one batch of the
// first dim's planes; CANN's 3-D reads a 4-D self as (N, D, H, W), which has the same planes).
Strided5 volume(const aclTensor *t, int spatial) {
  return spatial == 3 ? to_ncdhw(t->view, false) : as_volume(to_nchw(t->view, false));
}

// Every dim but the first > 0 (an empty first dim is allowed).
aclnnStatus check_non_batch_dims(const char *api, const aclTensor *self) {
  for (int i = 1; i < self->view.rank(); ++i)
    if (self->view.dims[i] <= 0)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: self must have sizes > 0 in every dim but the first, but got shape %s", api,
                  dims_str(self->view.dims).c_str());
  return ACLNN_SUCCESS;
}

// outputSize (and, in 3-D, stride and padding): `spatial` values, outputSize's and stride's > 0;
// outputSize's product at least self's plane.
aclnnStatus check_sizes(const char *api, int spatial, const aclIntArray *outputSize,
                        const aclIntArray *stride, const aclIntArray *padding, const Strided5 &x) {
  struct {
    const char *name;
    const aclIntArray *a;
    bool positive;
  } const arrays[] = {
      {"outputSize", outputSize, true}, {"stride", stride, true}, {"padding", padding, false}};
  for (const auto &e : arrays) {
    if (!e.a) continue;  // stride and padding: 3-D only
    if (e.a->values.size() != static_cast<size_t>(spatial))
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must have length %d, but got length %zu", api,
                  e.name, spatial, e.a->values.size());
  }
  for (const auto &e : arrays)
    if (e.a && e.positive)
      for (int64_t v : e.a->values)
        if (v <= 0)
          return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be > 0, but got %s", api, e.name,
                      dims_str(e.a->values).c_str());
  int64_t plane = 1;
  for (int64_t v : outputSize->values) plane = v > kMaxElements / plane ? kMaxElements : plane * v;
  if (plane < x.d * x.h * x.w)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: outputSize %s must hold at least self's %s plane of %" PRId64 " elements", api,
                dims_str(outputSize->values).c_str(), spatial == 3 ? "D*H*W" : "H*W",
                x.d * x.h * x.w);
  return ACLNN_SUCCESS;
}

// t's shape with its last `spatial` dims replaced by outputSize.
SmallInts with_plane(const aclTensor *t, const aclIntArray *outputSize) {
  SmallInts d = t->view.dims;
  const size_t k = outputSize->values.size();
  for (size_t i = 0; i < k; ++i) d[d.size() - k + i] = outputSize->values[i];
  return d;
}

// The index datum over the (n, c, [d,] h, w) of the tensor the indices run over.
DatumText indices_datum(const Strided5 &g, int spatial, bool with_n, int64_t plane) {
  const char *rule = spatial == 3 ? "must be in [0, outputSize D*H*W=%lld)"
                                  : "must be in [0, outputSize[0]*outputSize[1]=%lld)";
  return spatial == 3
             ? index_datum("indices", {g.n, g.c, g.d, g.h, g.w}, false, with_n, rule, plane)
             : index_datum("indices", {g.n, g.c, g.h, g.w}, false, with_n, rule, plane);
}

// The plan of one call: the kernel of `row` over (a, idx, out), or nothing for an empty one.
template <class Choose>
aclnnStatus finish(const char *api, int spatial, bool empty, UnpoolParams p, const Strided5 &a,
                   const aclTensor *indices, aclTensor *out, const Strided5 &grid,
                   const Choose &choose, const std::string &trace, uint64_t *workspaceSize,
                   aclOpExecutor **executor) {
  Plan plan;
  plan.op = api;
  if (!empty) {
    fix_threads(p, !view_is_non_overlapping(out->view));
    const Strided5 ix = volume(indices, spatial), o = volume(out, spatial);
    const bool with_n = indices->view.rank() == spatial + 2;
    plan = make_plan(api, choose(p, indices->view.device, a, ix, o), p,
                     {indices_datum(grid, spatial, with_n, p.out_d * p.out_h * p.out_w)}, a, ix, o);
  }
  if (trace_info()) plan.trace = trace;
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

void set_plane(UnpoolParams &p, int spatial, const SmallInts &os) {
  p.out_d = spatial == 3 ? os[0] : 1;
  p.out_h = os[os.size() - 2];
  p.out_w = os[os.size() - 1];
}

// The forwards' cascade (2-D: stride and padding null).
aclnnStatus unpool_forward_call(const char *api, int spatial, const aclTensor *self,
                                const aclTensor *indices, const aclIntArray *outputSize,
                                const aclIntArray *stride, const aclIntArray *padding,
                                aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *out_name = spatial == 3 ? "outRef" : "out";
  aclnnStatus st;
  // 1. Null arguments (161001), then the element bound.
  if (spatial == 3)
    st = check_arguments(api, workspaceSize, executor,
                         {{"self", self},
                          {"indices", indices},
                          {"outputSize", outputSize},
                          {"stride", stride},
                          {"padding", padding},
                          {out_name, out}});
  else
    st = check_arguments(
        api, workspaceSize, executor,
        {{"self", self}, {"indices", indices}, {"outputSize", outputSize}, {out_name, out}});
  if (st) return st;
  // 2. (3-D) outRef contiguous.
  if (spatial == 3 && (st = check_contiguous(api, out_name, out))) return st;
  // 3. Dtypes: self in the list, out as self, indices INT32 or INT64.
  if ((st = check_dtype(api, "self", self, kDataDtypes, kDataDtypeText))) return st;
  if ((st = check_same_dtype(api, out_name, out, "self", self))) return st;
  if ((st = check_index_dtype(api, indices, true))) return st;
  // 4. Shapes: self of the rank (the dims read as (N,) C, (D,) H, W whatever the format says, as
  //    CANN reads them), indices of self's shape; every dim but the first > 0.
  if ((st = check_rank(api, spatial, {{"self", self}, {"indices", indices}}))) return st;
  if ((st = check_same_shape(api, "indices", indices, self->view.dims, "the shape of self")))
    return st;
  if ((st = check_non_batch_dims(api, self))) return st;
  // 5. outputSize (and stride, padding); 6. out: self's leading dims, outputSize's plane.
  const Strided5 x = volume(self, spatial);
  if ((st = check_sizes(api, spatial, outputSize, stride, padding, x))) return st;
  if ((st = check_rank(api, spatial, {{out_name, out}}))) return st;
  st = check_same_shape(api, out_name, out, with_plane(self, outputSize),
                        "self with its plane = outputSize");
  if (st) return st;
  if ((st = check_data(api, {{"self", self}, {"indices", indices}, {out_name, out}}))) return st;
  st = check_storage(api, {{"self", self, Role::kRead},
                           {"indices", indices, Role::kRead},
                           {out_name, out, Role::kWrite}});
  if (st) return st;
  UnpoolParams p;
  p.dtype = p.out_dtype = self->view.dtype;
  p.index_dtype = indices->view.dtype;
  set_plane(p, spatial, outputSize->values);
  const std::string trace =
      trace_info() ? describe("self", self) + " " + describe("indices", indices) + " " +
                         describe(out_name, out) + " outputSize=" + dims_str(outputSize->values) +
                         " profile=" + soc_name(current_soc())
                   : std::string();
  return finish(api, spatial, x.n * x.c == 0, p, x, indices, out, x, unpool_forward_kernel, trace,
                workspaceSize, executor);
}

// The backwards' cascade (2-D: stride and padding null).
aclnnStatus unpool_backward_call(const char *api, int spatial, const aclTensor *gradOutput,
                                 const aclTensor *self, const aclTensor *indices,
                                 const aclIntArray *outputSize, const aclIntArray *stride,
                                 const aclIntArray *padding, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
  aclnnStatus st;
  // 1. Null arguments (161001), then the element bound.
  if (spatial == 3)
    st = check_arguments(api, workspaceSize, executor,
                         {{"gradOutput", gradOutput},
                          {"self", self},
                          {"indices", indices},
                          {"outputSize", outputSize},
                          {"stride", stride},
                          {"padding", padding},
                          {"out", out}});
  else
    st = check_arguments(api, workspaceSize, executor,
                         {{"gradOutput", gradOutput},
                          {"self", self},
                          {"indices", indices},
                          {"outputSize", outputSize},
                          {"out", out}});
  if (st) return st;
  if (spatial == 3) {
    // 2. out contiguous; 3. dtypes: the list, self and out as gradOutput, indices INT64.
    if ((st = check_contiguous(api, "out", out))) return st;
    for (const Named &t : {Named{"gradOutput", gradOutput}, Named{"self", self}, Named{"out", out}})
      if ((st = check_dtype(api, t.name, t.t, kDataDtypes, kDataDtypeText))) return st;
    if ((st = check_same_dtype(api, "self", self, "gradOutput", gradOutput))) return st;
    if ((st = check_same_dtype(api, "out", out, "gradOutput", gradOutput))) return st;
    if ((st = check_index_dtype(api, indices, false))) return st;
  } else {
    // 2. Dtypes: the list, gradOutput castable to out, self as gradOutput, indices INT32/INT64.
    // poolgrad's DOUBLE extension (core/dtype.h) adds DOUBLE, which the 3-D backward lists.
    for (const Named &t : {Named{"gradOutput", gradOutput}, Named{"self", self}, Named{"out", out}})
      if (!(t.t->view.dtype == ACL_DOUBLE && thread_double_dtype()) &&
          (st = check_dtype(api, t.name, t.t, kBackward2dDtypes, kBackward2dDtypeText)))
        return st;
    if (!unpool_can_cast(gradOutput->view.dtype, out->view.dtype))
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput dtype %s cannot be cast to out dtype %s",
                  api, dtype_name(gradOutput->view.dtype), dtype_name(out->view.dtype));
    if ((st = check_same_dtype(api, "self", self, "gradOutput", gradOutput))) return st;
    if ((st = check_index_dtype(api, indices, true))) return st;
  }
  // Shapes: self of the rank, indices and out of self's shape, gradOutput of self's rank with
  // self's leading dims and outputSize's plane; the checks in CANN's order for each API.
  if ((st = check_rank(api, spatial, {{"self", self}}))) return st;
  const Strided5 x = volume(self, spatial), gy = volume(gradOutput, spatial);
  const auto rank_as_self = [&] {
    if (gradOutput->view.rank() == self->view.rank()) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput rank must equal self rank %d, but got %d",
                api, self->view.rank(), gradOutput->view.rank());
  };
  const auto leading_as_self = [&] {
    if (gy.n == x.n && gy.c == x.c) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput's leading dims must equal self's (%" PRId64 ", %" PRId64
                "), but got shape %s",
                api, x.n, x.c, dims_str(gradOutput->view.dims).c_str());
  };
  const auto shapes_as_self = [&] {
    aclnnStatus s2 = check_rank(api, spatial, {{"indices", indices}, {"out", out}});
    if (!s2) s2 = check_same_shape(api, "indices", indices, self->view.dims, "the shape of self");
    if (!s2) s2 = check_same_shape(api, "out", out, self->view.dims, "the shape of self");
    return s2;
  };
  const auto plane_as_output_size = [&] {
    if (gradOutput->view.dims == with_plane(self, outputSize)) return ACLNN_SUCCESS;
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: outputSize %s must equal gradOutput's plane, but gradOutput has shape %s", api,
                dims_str(outputSize->values).c_str(), dims_str(gradOutput->view.dims).c_str());
  };
  if (spatial == 2) {
    if ((st = rank_as_self()) || (st = check_rank(api, 2, {{"gradOutput", gradOutput}})) ||
        (st = leading_as_self()) || (st = shapes_as_self()))
      return st;
    if (outputSize->values.size() != 2)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must have length 2, but got length %zu",
                  api, outputSize->values.size());
    if ((st = plane_as_output_size())) return st;
  } else {
    if ((st = shapes_as_self()) || (st = check_non_batch_dims(api, self)) ||
        (st = check_sizes(api, 3, outputSize, stride, padding, x)) || (st = rank_as_self()) ||
        (st = check_rank(api, 3, {{"gradOutput", gradOutput}})) || (st = plane_as_output_size()) ||
        (st = leading_as_self()))
      return st;
  }
  // An empty gradOutput with a non-empty self is refused; an empty self succeeds.
  const bool self_empty = x.n * x.c * x.d * x.h * x.w == 0;
  if (gy.n * gy.c * gy.d * gy.h * gy.w == 0 && !self_empty)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput is empty (shape %s), so self must be empty too, but got shape %s",
                api, dims_str(gradOutput->view.dims).c_str(), dims_str(self->view.dims).c_str());
  if ((st = check_data(api, {{"gradOutput", gradOutput}, {"indices", indices}, {"out", out}})))
    return st;
  st = check_storage(api, {{"gradOutput", gradOutput, Role::kRead},
                           {"self", self, Role::kShape},
                           {"indices", indices, Role::kRead},
                           {"out", out, Role::kWrite}});
  if (st) return st;
  UnpoolParams p;
  p.dtype = gradOutput->view.dtype;
  p.out_dtype = out->view.dtype;
  p.index_dtype = indices->view.dtype;
  p.out_d = gy.d, p.out_h = gy.h, p.out_w = gy.w;
  const std::string trace =
      trace_info() ? describe("gradOutput", gradOutput) + " " + describe("self", self) + " " +
                         describe("indices", indices) + " " + describe("out", out) +
                         " profile=" + soc_name(current_soc())
                   : std::string();
  return finish(api, spatial, self_empty, p, gy, indices, out, volume(out, spatial),
                unpool_backward_kernel, trace, workspaceSize, executor);
}

}  // namespace

extern "C" {

aclnnStatus aclnnMaxUnpool2dGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                             const aclIntArray *outputSize, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
  return unpool_forward_call(kFwd2, 2, self, indices, outputSize, nullptr, nullptr, out,
                             workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream) {
  return run_executor(kFwd2, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxUnpool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                     const aclTensor *self,
                                                     const aclTensor *indices,
                                                     const aclIntArray *outputSize, aclTensor *out,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor) {
  return unpool_backward_call(kBwd2, 2, gradOutput, self, indices, outputSize, nullptr, nullptr,
                              out, workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool2dBackward(void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd2, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxUnpool3dGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                             const aclIntArray *outputSize,
                                             const aclIntArray *stride, const aclIntArray *padding,
                                             aclTensor *outRef, uint64_t *workspaceSize,
                                             aclOpExecutor **executor) {
  return unpool_forward_call(kFwd3, 3, self, indices, outputSize, stride, padding, outRef,
                             workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream) {
  return run_executor(kFwd3, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxUnpool3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    const aclIntArray *outputSize, const aclIntArray *stride, const aclIntArray *padding,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
  return unpool_backward_call(kBwd3, 3, gradOutput, self, indices, outputSize, stride, padding, out,
                              workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool3dBackward(void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd3, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
