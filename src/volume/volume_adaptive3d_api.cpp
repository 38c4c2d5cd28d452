// SPDX-License-Identifier: Apache-2.0
// aclnnAdaptiveMaxPool3d and aclnnAdaptiveMaxPool3dBackward: the validation cascades of ops-nn's
// public documentation and op_api checks (docs/max-pool-3d.md) and the plans. The windows are
// adaptive bins; the kernels are the volume kernels the 3-D max pool runs.
#include <cinttypes>

#include "../pooling/pool_checks.h"
#include "aclnnop/aclnn_adaptive_max_pool3d.h"
#include "aclnnop/aclnn_adaptive_max_pool3d_backward.h"
#include "volume_cascade.h"
#include "volume_rules.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnAdaptiveMaxPool3d";
const char *const kBwd = "aclnnAdaptiveMaxPool3dBackward";

// outputSize as [Dout, Hout, Wout]: length 3, or on profiles that take them length 1 (one size
// for all three) or 0 (self's sizes); every size >= 1.
aclnnStatus output_size(const char *api, const aclIntArray *size, const VolumeGeometry &g,
                        int64_t out[3]) {
  const SmallInts &v = size->values;
  const bool short_ok = volume_rules().adaptive_short_size;
  if (!(v.size() == 3 || (short_ok && v.size() <= 1)))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize must have length %s on %s, but got %zu",
                api, short_ok ? "0, 1 or 3" : "3", soc_name(current_soc()), v.size());
  for (int a = 0; a < 3; ++a) out[a] = v.empty() ? g.ax[a].in : v[v.size() == 1 ? 0 : a];
  for (int a = 0; a < 3; ++a)
    if (out[a] < 1)
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: outputSize values must be >= 1, but got %s", api,
                  dims_str(v).c_str());
  return ACLNN_SUCCESS;
}

void make_adaptive(VolumeGeometry *g) {
  for (Axis &a : g->ax) a.adaptive = true;
}

std::string trace_extra(const VolumeGeometry &g) {
  return format("outputSize=[%" PRId64 ",%" PRId64 ",%" PRId64 "] profile=%s", g.ax[0].out,
                g.ax[1].out, g.ax[2].out, soc_name(current_soc()));
}

}  // namespace

extern "C" {

aclnnStatus aclnnAdaptiveMaxPool3dGetWorkspaceSize(const aclTensor *self,
                                                   const aclIntArray *outputSize,
                                                   aclTensor *outputOut, aclTensor *indicesOut,
                                                   uint64_t *workspaceSize,
                                                   aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // Step 1: null pointers, the element bound.
  st = check_arguments(api, workspaceSize, executor,
                       {{"self", self},
                        {"outputSize", outputSize},
                        {"outputOut", outputOut},
                        {"indicesOut", indicesOut}});
  if (st) return st;
  st = check_volume_ranks(api,
                          {{"self", self}, {"outputOut", outputOut}, {"indicesOut", indicesOut}});
  if (st) return st;
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if ((st = check_pool_dtype(api, "outputOut", outputOut))) return st;
  if ((st = check_volume_index_dtype(api, "indicesOut", indicesOut))) return st;
  if (volume_rules().adaptive_nd)
    st = check_volume_formats(
        api, {{"self", self}, {"outputOut", outputOut}},
        {{"self", self}, {"outputOut", outputOut}, {"indicesOut", indicesOut}},
        {ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW, ACL_FORMAT_ND}, "NCDHW, NCHW or ND");
  else
    st =
        check_volume_formats(api, {{"self", self}, {"outputOut", outputOut}},
                             {{"self", self}, {"outputOut", outputOut}, {"indicesOut", indicesOut}},
                             {ACL_FORMAT_NCDHW, ACL_FORMAT_NCHW}, "NCDHW or NCHW");
  if (st) return st;
  VolumeGeometry g;
  if ((st = volume_input(api, self, false, &g))) return st;
  int64_t os[3];
  if ((st = output_size(api, outputSize, g, os))) return st;
  g.set_out(os[0], os[1], os[2], self->view.dims);
  make_adaptive(&g);
  st = check_same_shape(api, "outputOut", outputOut, g.out_dims, "self with D, H, W = outputSize");
  if (st) return st;
  st = check_same_shape(api, "indicesOut", indicesOut, g.out_dims, "the shape of outputOut");
  if (st) return st;
  if ((st = check_dtype_as_self(api, "outputOut", outputOut, self))) return st;
  st = check_volume_index_range(api, g, indicesOut->view.dtype, volume_rules().int32_volume);
  if (st) return st;
  return finish_volume_forward(
      api, g, self, "outputOut", outputOut, "indicesOut", indicesOut,
      [&] { return trace_extra(g); }, workspaceSize, executor);
}

aclnnStatus aclnnAdaptiveMaxPool3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAdaptiveMaxPool3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  // Step 1: null pointers, the element bound.
  st = check_arguments(
      api, workspaceSize, executor,
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  if ((st = check_dtype_as_self(api, "gradOutput", gradOutput, self))) return st;
  if ((st = check_dtype_as_self(api, "gradInput", gradInput, self))) return st;
  if ((st = check_pool_dtype(api, "self", self))) return st;
  if (indices->view.dtype != ACL_INT32 && indices->view.dtype != ACL_INT64)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: indices dtype must be INT32 or INT64, but got %s",
                api, dtype_name(indices->view.dtype));
  st = check_volume_ranks(
      api,
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}});
  if (st) return st;
  for (const Named &t :
       {Named{"gradOutput", gradOutput}, Named{"indices", indices}, Named{"gradInput", gradInput}})
    if (t.t->view.rank() != self->view.rank())
      return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s rank must equal self rank %d, but got %d", api,
                  t.name, self->view.rank(), t.t->view.rank());
  if ((st = check_same_shape(api, "indices", indices, gradOutput->view.dims,
                             "the shape of gradOutput")))
    return st;
  if ((st = check_same_shape(api, "gradInput", gradInput, self->view.dims, "the shape of self")))
    return st;
  st = check_volume_formats(
      api,
      {{"self", self}, {"gradOutput", gradOutput}, {"indices", indices}, {"gradInput", gradInput}},
      {{"gradOutput", gradOutput}, {"self", self}, {"indices", indices}, {"gradInput", gradInput}},
      {}, "");
  if (st) return st;
  if ((st = check_volume_index_dtype(api, "indices", indices))) return st;
  VolumeGeometry g;
  if ((st = volume_input(api, self, false, &g))) return st;
  const Strided5 go = to_ncdhw(gradOutput->view, false);
  if (go.d < 1 || go.h < 1 || go.w < 1)
    return fail(ACLNN_ERR_PARAM_INVALID,
                "%s: gradOutput Dout, Hout and Wout must be >= 1, but got shape %s", api,
                dims_str(gradOutput->view.dims).c_str());
  g.set_out(go.d, go.h, go.w, self->view.dims);
  make_adaptive(&g);
  if ((st = check_same_shape(api, "gradOutput", gradOutput, g.out_dims,
                             "self with its D, H, W pooled")))
    return st;
  st = check_volume_index_range(api, g, indices->view.dtype, volume_rules().int32_volume);
  if (st) return st;
  return finish_volume_backward(
      api, g, gradOutput, self, indices, gradInput, [&] { return trace_extra(g); }, workspaceSize,
      executor);
}

aclnnStatus aclnnAdaptiveMaxPool3dBackward(void *workspace, uint64_t workspaceSize,
                                           aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
