// SPDX-License-Identifier: Apache-2.0
// aclnnMaxUnpool2d and aclnnMaxUnpool2dBackward: the validation cascades of ops-nn's public
// documentation and op_api code (docs/max-unpool.md, numbered as there) and the plans.
#include <cinttypes>

#include "../core/core.h"
#include "../core/profile.h"
#include "../pooling/pool_checks.h"
#include "aclnnop/aclnn_max_unpool2d.h"
#include "aclnnop/aclnn_max_unpool2d_backward.h"
#include "unpool_dispatch.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnMaxUnpool2d";
const char *const kBwd = "aclnnMaxUnpool2dBackward";

// CANN's dtype lists, the same on every product poolgrad profiles (Ascend950, Ascend910B,
// Ascend910_93): the forward's data, the backward's data, both APIs' indices.
const aclDataType kForwardDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_UINT8,
                                      ACL_INT16, ACL_INT32,   ACL_INT64, ACL_DOUBLE};
const aclDataType kBackwardDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT8,  ACL_UINT8,
                                       ACL_INT16, ACL_INT32,   ACL_INT64, ACL_BOOL};
const char *const kForwardDtypeText = "FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or DOUBLE";
const char *const kBackwardDtypeText = "FLOAT, FLOAT16, INT8, UINT8, INT16, INT32, INT64 or BOOL";

template <size_t N>
aclnnStatus check_dtype(const char *api, const char *name, const aclTensor *t,
                        const aclDataType (&list)[N], const char *text) {
  for (aclDataType d : list)
    if (t->view.dtype == d) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must be %s, but got %s", api, name, text,
              dtype_name(t->view.dtype));
}

aclnnStatus check_index_dtype(const char *api, const aclTensor *indices) {
  if (indices->view.dtype == ACL_INT32 || indices->view.dtype == ACL_INT64) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s", api,
              dtype_name(indices->view.dtype));
}

// outputSize: two values, each > 0.
aclnnStatus check_output_size(const char *api, const aclIntArray *outputSize) {
  const SmallInts &os = outputSize->values;
  if (os.size() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must have length 2, but got length %zu",
                api, os.size());
  if (os[0] <= 0 || os[1] <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must be > 0, but got %s", api,
                dims_str(os).c_str());
  return ACLNN_SUCCESS;
}

// t's shape with H and W replaced (the rank of t: 3 or 4).
SmallInts with_plane(const aclTensor *t, int64_t h, int64_t w) {
  SmallInts d = t->view.dims;
  d[d.size() - 2] = h;
  d[d.size() - 1] = w;
  return d;
}

// The index datum over the (n, c, h, w) of the tensor the indices run over.
DatumText indices_datum(const Strided4 &grid, int rank, int64_t plane) {
  return index_datum("indices", {grid.n, grid.c, grid.h, grid.w}, false, rank == 4,
                     "must be in [0, outputSize[0]*outputSize[1]=%lld)", plane);
}

}  // namespace

extern "C" {

aclnnStatus aclnnMaxUnpool2dGetWorkspaceSize(const aclTensor *self, const aclTensor *indices,
                                             const aclIntArray *outputSize, aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  if ((st = check_out_pointers(api, workspaceSize, executor))) return st;
  // 1. Null arguments (161001).
  if ((st = check_not_null(
           api, {{"self", self}, {"indices", indices}, {"outputSize", outputSize}, {"out", out}})))
    return st;
  if ((st = check_element_bound(api, {{"self", self}, {"indices", indices}, {"out", out}})))
    return st;
  // 2. Dtypes: self in the list, out as self, indices INT32 or INT64.
  if ((st = check_dtype(api, "self", self, kForwardDtypes, kForwardDtypeText))) return st;
  if (out->view.dtype != self->view.dtype)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: out dtype must equal self dtype %s, but got %s", api,
                dtype_name(self->view.dtype), dtype_name(out->view.dtype));
  if ((st = check_index_dtype(api, indices))) return st;
  // 3. Shapes: self 3-D or 4-D (public formats; the dims are read as (N,) C, H, W whatever the
  //    format says, as CANN reads them), indices of self's shape.
  if ((st = check_formats(api, {{"self", self}}, {{"self", self}, {"indices", indices}})))
    return st;
  if ((st = check_same_shape(api, "indices", indices, self->view.dims, "the shape of self")))
    return st;
  // 4. Every dim but the first > 0 (an empty batch, or C = 0 of a 3-D self, is allowed).
  const Strided4 x = to_nchw(self->view, false);
  if ((self->view.rank() == 4 && x.c <= 0) || x.h <= 0 || x.w <= 0)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self must have sizes > 0 in every dim but the first, but got shape %s", api,
                dims_str(self->view.dims).c_str());
  // 5. outputSize: two values > 0 whose product is at least H*W.
  if ((st = check_output_size(api, outputSize))) return st;
  const int64_t oh = outputSize->values[0], ow = outputSize->values[1];
  if (oh > kMaxElements / ow || oh * ow < x.h * x.w)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: outputSize %" PRId64 "x%" PRId64 " must hold at least self's H*W=%" PRId64
                "x%" PRId64,
                api, oh, ow, x.h, x.w);
  // 6. out: self's N and C with H, W = outputSize (CANN's documented rule; its op_api leaves it
  //    to the copy into out).
  if ((st = check_formats(api, {{"out", out}}, {{"out", out}}))) return st;
  if ((st = check_same_shape(api, "out", out, with_plane(self, oh, ow),
                             "self with H, W = outputSize")))
    return st;
  if ((st = check_data(api, {{"self", self}, {"indices", indices}, {"out", out}}))) return st;
  st = check_storage(
      api,
      {{"self", self, Role::kRead}, {"indices", indices, Role::kRead}, {"out", out, Role::kWrite}});
  if (st) return st;
  Plan plan;
  plan.op = api;
  if (x.n * x.c > 0) {
    UnpoolParams p;
    p.dtype = p.out_dtype = self->view.dtype;
    p.index_dtype = indices->view.dtype;
    p.out_h = oh, p.out_w = ow;
    fix_threads(p, !view_is_non_overlapping(out->view));
    const Strided4 ix = to_nchw(indices->view, false), o = to_nchw(out->view, false);
    plan = make_plan(api, unpool_forward_kernel(p, self->view.device, x, ix, o), p,
                     {indices_datum(x, self->view.rank(), oh * ow)}, x, ix, o);
  }
  if (trace_info())
    plan.trace =
        describe("self", self) + " " + describe("indices", indices) + " " + describe("out", out) +
        format(" outputSize=[%" PRId64 ",%" PRId64 "] profile=%s", oh, ow, soc_name(current_soc()));
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                             aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMaxUnpool2dBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                     const aclTensor *self,
                                                     const aclTensor *indices,
                                                     const aclIntArray *outputSize, aclTensor *out,
                                                     uint64_t *workspaceSize,
                                                     aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  if ((st = check_out_pointers(api, workspaceSize, executor))) return st;
  // 1. Null arguments (161001).
  if ((st = check_not_null(api, {{"gradOutput", gradOutput},
                                 {"self", self},
                                 {"indices", indices},
                                 {"outputSize", outputSize},
                                 {"out", out}})))
    return st;
  st = check_element_bound(
      api, {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"out", out}});
  if (st) return st;
  // 2. Dtypes: gradOutput, self and out in the list, gradOutput castable to out, self as
  //    gradOutput, indices INT32 or INT64.
  for (const Named &t : {Named{"gradOutput", gradOutput}, Named{"self", self}, Named{"out", out}})
    if ((st = check_dtype(api, t.name, t.t, kBackwardDtypes, kBackwardDtypeText))) return st;
  if (!unpool_can_cast(gradOutput->view.dtype, out->view.dtype))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput dtype %s cannot be cast to out dtype %s",
                api, dtype_name(gradOutput->view.dtype), dtype_name(out->view.dtype));
  if (self->view.dtype != gradOutput->view.dtype)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: self dtype must equal gradOutput dtype %s, but got %s", api,
                dtype_name(gradOutput->view.dtype), dtype_name(self->view.dtype));
  if ((st = check_index_dtype(api, indices))) return st;
  // 3. Shapes: self 3-D or 4-D, gradOutput of self's rank with self's N and C, indices and out
  //    of self's shape, outputSize of length 2 equal to gradOutput's H and W.
  if ((st = check_formats(api, {{"self", self}}, {{"self", self}}))) return st;
  if (gradOutput->view.rank() != self->view.rank())
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradOutput rank must equal self rank %d, but got %d",
                api, self->view.rank(), gradOutput->view.rank());
  st = check_formats(api, {{"gradOutput", gradOutput}},
                     {{"gradOutput", gradOutput}, {"indices", indices}, {"out", out}});
  if (st) return st;
  const Strided4 x = to_nchw(self->view, false), gy = to_nchw(gradOutput->view, false);
  if (gy.n != x.n || gy.c != x.c)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput N and C must equal self's (%" PRId64 ", %" PRId64
                "), but got shape %s",
                api, x.n, x.c, dims_str(gradOutput->view.dims).c_str());
  if ((st = check_same_shape(api, "indices", indices, self->view.dims, "the shape of self")))
    return st;
  if ((st = check_same_shape(api, "out", out, self->view.dims, "the shape of self"))) return st;
  const SmallInts &os = outputSize->values;
  if (os.size() != 2)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must have length 2, but got length %zu",
                api, os.size());
  if (os[0] != gy.h || os[1] != gy.w)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: outputSize %s must equal gradOutput's H and W, but gradOutput has shape %s",
                api, dims_str(os).c_str(), dims_str(gradOutput->view.dims).c_str());
  // 4. An empty gradOutput with a non-empty self is refused; an empty self succeeds.
  const bool self_empty = x.n * x.c * x.h * x.w == 0;
  if (gy.n * gy.c * gy.h * gy.w == 0 && !self_empty)
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
  Plan plan;
  plan.op = api;
  if (!self_empty) {
    UnpoolParams p;
    p.dtype = gradOutput->view.dtype;
    p.out_dtype = out->view.dtype;
    p.index_dtype = indices->view.dtype;
    p.out_h = gy.h, p.out_w = gy.w;
    fix_threads(p, !view_is_non_overlapping(out->view));
    const Strided4 ix = to_nchw(indices->view, false), o = to_nchw(out->view, false);
    plan = make_plan(api, unpool_backward_kernel(p, gradOutput->view.device, gy, ix, o), p,
                     {indices_datum(o, self->view.rank(), gy.h * gy.w)}, gy, ix, o);
  }
  if (trace_info())
    plan.trace = describe("gradOutput", gradOutput) + " " + describe("self", self) + " " +
                 describe("indices", indices) + " " + describe("out", out) +
                 format(" profile=%s", soc_name(current_soc()));
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnMaxUnpool2dBackward(void *workspace, uint64_t workspaceSize,
                                     aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
