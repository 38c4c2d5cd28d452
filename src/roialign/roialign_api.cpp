// SPDX-License-Identifier: Apache-2.0
// aclnnRoiAlignV2, aclnnRoiAlignV2Backward and aclnnRoiAlign (ONNX): the validation cascades of
// ops-cv's public documentation and op_api code, numbered as there (docs/roi-align.md), and the
// plans. CANN's documents list the V2 forward and the ONNX op as unsupported on Ascend950, but
// their op_api has no product check; poolgrad runs all three on every profile
// (docs/compatibility.md).
#include <cfloat>
#include <cinttypes>
#include <cstring>

#include "../core/core.h"
#include "../core/profile.h"
#include "../pooling/pool_checks.h"
#include "aclnnop/aclnn_roi_align.h"
#include "aclnnop/aclnn_roi_align_v2.h"
#include "aclnnop/aclnn_roi_align_v2_backward.h"
#include "roialign_dispatch.h"

using namespace poolgrad;

namespace {

const char *const kFwd = "aclnnRoiAlignV2";
const char *const kBwd = "aclnnRoiAlignV2Backward";
const char *const kOnnx = "aclnnRoiAlign";

// CANN's lists; DOUBLE too where this thread turned poolgrad's extension on (core/dtype.h).
aclnnStatus check_dtype_in(const char *api, const char *name, const aclTensor *t, bool half_too) {
  const aclDataType d = t->view.dtype;
  if (d == ACL_FLOAT || (half_too && d == ACL_FLOAT16)) return ACLNN_SUCCESS;
  if (d == ACL_DOUBLE && thread_double_dtype()) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dtype must be %s, but got %s", api, name,
              half_too ? "FLOAT or FLOAT16" : "FLOAT", dtype_name(d));
}

// Step 3: the maps NCHW, the boxes (and batch indices) ND, as given to aclCreateTensor.
aclnnStatus check_format(const char *api, const char *name, const aclTensor *t, aclFormat want) {
  if (t->view.format == want) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s format must be %s, but got %s", api, name,
              format_name(want), format_name(t->view.format));
}

aclnnStatus check_rank(const char *api, const char *name, const aclTensor *t, int rank) {
  if (t->view.rank() == rank) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s must be %d-D, but got %d-D shape %s", api, name,
              rank, t->view.rank(), dims_str(t->view.dims).c_str());
}

// 161002 unless a's dim `i` equals `want` (named `what`).
aclnnStatus check_dim(const char *api, const char *name, const aclTensor *t, int i, int64_t want,
                      const char *what) {
  if (t->view.dims[i] == want) return ACLNN_SUCCESS;
  return fail(ACLNN_ERR_PARAM_INVALID, "%s: %s dim %d must equal %s %" PRId64 ", but got shape %s",
              api, name, i, what, want, dims_str(t->view.dims).c_str());
}

// Step 5 of the V2 pair: samplingRatio >= 0, spatialScale > FLT_MIN (CANN's test; NaN passes it
// and then fails every box in phase 2).
aclnnStatus check_attrs_v2(const char *api, int64_t samplingRatio, float spatialScale) {
  if (samplingRatio < 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: samplingRatio must be >= 0, but got %" PRId64, api,
                samplingRatio);
  if (spatialScale <= FLT_MIN)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: spatialScale must be > 0, but got %g", api,
                static_cast<double>(spatialScale));
  return ACLNN_SUCCESS;
}

BoxView box_view(const aclTensor *boxes, const aclTensor *batch) {
  BoxView b;
  const View &v = boxes->view;
  b.base = view_base(v);
  b.s0 = v.strides[0];
  b.s1 = v.strides[1];
  if (batch) {
    b.batch = view_base(batch->view);  // INT32: checked in phase 1
    b.sb = batch->view.strides[0];
  }
  return b;
}

// The two data phase 2 checks, in the kernels' words (kAlignBatchDatum, kAlignBoxDatum).
DatumText batch_datum(const RoiAlignParams &p, bool onnx) {
  DatumText d;
  if (onnx) {
    d.name = "batchIndices";
    d.rank = d.printed = 1;
    d.grid[0] = p.k;
  } else {
    d = index_datum("boxes", {p.k, 5}, false, true, "", 0);
    d.real = true;
  }
  d.rule_fmt = onnx ? "must be in [0, N=%lld)" : "must be a batch index in [0, B=%lld)";
  d.rule_arg = p.b;
  return d;
}
DatumText box_datum(const RoiAlignParams &p, bool onnx) {
  DatumText d = index_datum(onnx ? "rois" : "boxes", {p.k, onnx ? 4 : 5}, false, true,
                            "must stay finite times spatialScale, the box's size included", 0);
  d.real = true;
  return d;
}

Plan plan_for(const char *api, const KernelRow<RoiAlignKernel> &row, const RoiAlignParams &p,
              bool onnx, const Strided4 &a, const BoxView &bx, const Strided4 &b) {
  return make_plan(api, row, p, {batch_datum(p, onnx), box_datum(p, onnx)}, a, bx, b);
}

std::string attrs_text(int64_t ph, int64_t pw, float scale, int64_t sampling) {
  return format(" pooled=[%" PRId64 ",%" PRId64 "] spatialScale=%g samplingRatio=%" PRId64
                " profile=%s",
                ph, pw, static_cast<double>(scale), sampling, soc_name(current_soc()));
}

// The forwards' shared tail: data, storage and the plan (nothing to run for an empty out).
aclnnStatus forward_plan(const char *api, const aclTensor *self, const aclTensor *boxes,
                         const aclTensor *batch, const char *out_name, aclTensor *out,
                         RoiAlignParams p, const std::string &trace, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
  const bool onnx = batch != nullptr;
  aclnnStatus st;
  if (onnx)
    st = check_data(api,
                    {{"self", self}, {"rois", boxes}, {"batchIndices", batch}, {out_name, out}});
  else
    st = check_data(api, {{"self", self}, {"boxes", boxes}, {out_name, out}});
  if (st) return st;
  if (onnx)
    st = check_storage(api, {{"self", self, Role::kRead},
                             {"rois", boxes, Role::kRead},
                             {"batchIndices", batch, Role::kRead},
                             {out_name, out, Role::kWrite}});
  else
    st = check_storage(api, {{"self", self, Role::kRead},
                             {"boxes", boxes, Role::kRead},
                             {out_name, out, Role::kWrite}});
  if (st) return st;
  const Strided4 x = to_nchw(self->view, false), y = to_nchw(out->view, false);
  p.b = x.n, p.c = x.c, p.h = x.h, p.w = x.w;
  p.k = y.n;
  p.dtype = self->view.dtype;
  Plan plan;
  plan.op = api;
  if (out->view.numel() > 0) {
    fix_threads(p, !view_is_non_overlapping(out->view));
    const BoxView bx = box_view(boxes, batch);
    plan =
        plan_for(api, roi_align_forward_kernel(p, self->view.device, x, bx, y), p, onnx, x, bx, y);
  }
  if (trace_info()) plan.trace = trace;
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

}  // namespace

extern "C" {

aclnnStatus aclnnRoiAlignV2GetWorkspaceSize(const aclTensor *self, const aclTensor *boxes,
                                            int64_t pooledHeight, int64_t pooledWidth,
                                            float spatialScale, int64_t samplingRatio, bool aligned,
                                            aclTensor *out, uint64_t *workspaceSize,
                                            aclOpExecutor **executor) {
  const char *api = kFwd;
  aclnnStatus st;
  // 1. Null tensors (161001), then the element bound.
  st = check_arguments(api, workspaceSize, executor,
                       {{"self", self}, {"boxes", boxes}, {"out", out}});
  if (st) return st;
  // 2. Dtypes: self FLOAT or FLOAT16, boxes and out as self.
  if ((st = check_dtype_in(api, "self", self, true))) return st;
  if ((st = check_same_dtype(api, "boxes", boxes, "self", self))) return st;
  if ((st = check_same_dtype(api, "out", out, "self", self))) return st;
  // 3. Formats.
  if ((st = check_format(api, "self", self, ACL_FORMAT_NCHW)) ||
      (st = check_format(api, "boxes", boxes, ACL_FORMAT_ND)) ||
      (st = check_format(api, "out", out, ACL_FORMAT_NCHW)))
    return st;
  // 4. Shapes: self (B, C, H, W) with B, H, W > 0; boxes (K, 5); out (K, C, pooled).
  if ((st = check_rank(api, "self", self, 4)) || (st = check_rank(api, "boxes", boxes, 2)) ||
      (st = check_rank(api, "out", out, 4)))
    return st;
  const SmallInts &sd = self->view.dims;
  if (sd[0] == 0 || sd[2] == 0 || sd[3] == 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: self must have B, H and W > 0, but got shape %s", api,
                dims_str(sd).c_str());
  if ((st = check_dim(api, "boxes", boxes, 1, 5, "the box length")) ||
      (st = check_dim(api, "out", out, 0, boxes->view.dims[0], "boxes dim 0")) ||
      (st = check_dim(api, "out", out, 1, sd[1], "self dim 1")) ||
      (st = check_dim(api, "out", out, 2, pooledHeight, "pooledHeight")) ||
      (st = check_dim(api, "out", out, 3, pooledWidth, "pooledWidth")))
    return st;
  // 5. Attributes.
  if ((st = check_attrs_v2(api, samplingRatio, spatialScale))) return st;
  RoiAlignParams p;
  p.ph = pooledHeight, p.pw = pooledWidth;
  p.scale = spatialScale;
  p.sampling = samplingRatio;
  p.aligned = aligned;
  const std::string trace =
      trace_info()
          ? describe("self", self) + " " + describe("boxes", boxes) + " " + describe("out", out) +
                attrs_text(pooledHeight, pooledWidth, spatialScale, samplingRatio) +
                (aligned ? " aligned" : "")
          : std::string();
  return forward_plan(api, self, boxes, nullptr, "out", out, p, trace, workspaceSize, executor);
}

aclnnStatus aclnnRoiAlignV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                            aclrtStream stream) {
  return run_executor(kFwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRoiAlignV2BackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *boxes, const aclIntArray *inputShape,
    int64_t pooledHeight, int64_t pooledWidth, float spatialScale, int64_t samplingRatio,
    bool aligned, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kBwd;
  aclnnStatus st;
  // 1. Null arguments (161001), then the element bound.
  st = check_arguments(api, workspaceSize, executor,
                       {{"gradOutput", gradOutput},
                        {"boxes", boxes},
                        {"inputShape", inputShape},
                        {"gradInput", gradInput}});
  if (st) return st;
  // 2. Dtypes: FLOAT for all three.
  if ((st = check_dtype_in(api, "gradOutput", gradOutput, false)) ||
      (st = check_same_dtype(api, "boxes", boxes, "gradOutput", gradOutput)) ||
      (st = check_same_dtype(api, "gradInput", gradInput, "gradOutput", gradOutput)))
    return st;
  // 3. Formats.
  if ((st = check_format(api, "gradOutput", gradOutput, ACL_FORMAT_NCHW)) ||
      (st = check_format(api, "boxes", boxes, ACL_FORMAT_ND)) ||
      (st = check_format(api, "gradInput", gradInput, ACL_FORMAT_NCHW)))
    return st;
  // 4. The inputs' shapes: gradOutput (K, C, pooled), boxes (K, 5), inputShape of 4 values.
  if ((st = check_rank(api, "gradOutput", gradOutput, 4)) ||
      (st = check_rank(api, "boxes", boxes, 2)) ||
      (st = check_dim(api, "boxes", boxes, 1, 5, "the box length")))
    return st;
  if (inputShape->values.size() != 4)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: inputShape must have 4 values, but got %zu", api,
                inputShape->values.size());
  if ((st = check_dim(api, "gradOutput", gradOutput, 0, boxes->view.dims[0], "boxes dim 0")) ||
      (st = check_dim(api, "gradOutput", gradOutput, 2, pooledHeight, "pooledHeight")) ||
      (st = check_dim(api, "gradOutput", gradOutput, 3, pooledWidth, "pooledWidth")))
    return st;
  // 5. gradInput: 4-D, gradOutput's C, inputShape's shape.
  if ((st = check_rank(api, "gradInput", gradInput, 4)) ||
      (st =
           check_dim(api, "gradInput", gradInput, 1, gradOutput->view.dims[1], "gradOutput dim 1")))
    return st;
  if (gradInput->view.dims != inputShape->values)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: gradInput shape %s must equal inputShape %s", api,
                dims_str(gradInput->view.dims).c_str(), dims_str(inputShape->values).c_str());
  // 6. Attributes.
  if ((st = check_attrs_v2(api, samplingRatio, spatialScale))) return st;
  if ((st = check_data(api,
                       {{"gradOutput", gradOutput}, {"boxes", boxes}, {"gradInput", gradInput}})))
    return st;
  st = check_storage(api, {{"gradOutput", gradOutput, Role::kRead},
                           {"boxes", boxes, Role::kRead},
                           {"gradInput", gradInput, Role::kWrite}});
  if (st) return st;
  const Strided4 gy = to_nchw(gradOutput->view, false), gx = to_nchw(gradInput->view, false);
  RoiAlignParams p;
  p.b = gx.n, p.c = gx.c, p.h = gx.h, p.w = gx.w;
  // An empty gradOutput or boxes: gradInput zero-filled (CANN's op_api), no box read.
  p.k = gradOutput->view.numel() == 0 ? 0 : gy.n;
  p.ph = pooledHeight, p.pw = pooledWidth;
  p.scale = spatialScale;
  p.sampling = samplingRatio;
  p.aligned = aligned;
  p.dtype = gradOutput->view.dtype;  // FLOAT (DOUBLE by the extension)
  Plan plan;
  plan.op = api;
  if (gradInput->view.numel() > 0) {
    fix_threads(p, !view_is_non_overlapping(gradInput->view));
    const BoxView bx = box_view(boxes, nullptr);
    plan = plan_for(api, roi_align_backward_kernel(p, gradInput->view.device, gy, bx, gx), p, false,
                    gy, bx, gx);
  }
  if (trace_info())
    plan.trace = describe("gradOutput", gradOutput) + " " + describe("boxes", boxes) + " " +
                 describe("gradInput", gradInput) +
                 attrs_text(pooledHeight, pooledWidth, spatialScale, samplingRatio) +
                 (aligned ? " aligned" : "");
  return make_executor(api, std::move(plan), workspaceSize, executor);
}

aclnnStatus aclnnRoiAlignV2Backward(void *workspace, uint64_t workspaceSize,
                                    aclOpExecutor *executor, aclrtStream stream) {
  return run_executor(kBwd, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnRoiAlignGetWorkspaceSize(const aclTensor *self, const aclTensor *rois,
                                          const aclTensor *batchIndices, const char *mode,
                                          int outputHeight, int outputWidth, int samplingRatio,
                                          float spatialScale, aclTensor *out,
                                          uint64_t *workspaceSize, aclOpExecutor **executor) {
  const char *api = kOnnx;
  aclnnStatus st;
  // 1. Null tensors (161001; a null mode is step 5's), then the element bound.
  st = check_arguments(
      api, workspaceSize, executor,
      {{"self", self}, {"rois", rois}, {"batchIndices", batchIndices}, {"out", out}});
  if (st) return st;
  // 2. Dtypes: self FLOAT or FLOAT16, batchIndices INT32, rois and out as self.
  if ((st = check_dtype_in(api, "self", self, true))) return st;
  if (batchIndices->view.dtype != ACL_INT32)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: batchIndices dtype must be INT32, but got %s", api,
                dtype_name(batchIndices->view.dtype));
  if ((st = check_same_dtype(api, "rois", rois, "self", self)) ||
      (st = check_same_dtype(api, "out", out, "self", self)))
    return st;
  // 3. Formats.
  if ((st = check_format(api, "self", self, ACL_FORMAT_NCHW)) ||
      (st = check_format(api, "rois", rois, ACL_FORMAT_ND)) ||
      (st = check_format(api, "batchIndices", batchIndices, ACL_FORMAT_ND)) ||
      (st = check_format(api, "out", out, ACL_FORMAT_NCHW)))
    return st;
  // 4. Shapes: self 4-D, rois (numRois, 4), batchIndices (numRois,), out (numRois, C, output).
  if ((st = check_rank(api, "self", self, 4)) || (st = check_rank(api, "rois", rois, 2)) ||
      (st = check_rank(api, "batchIndices", batchIndices, 1)) ||
      (st = check_rank(api, "out", out, 4)))
    return st;
  if ((st = check_dim(api, "rois", rois, 0, batchIndices->view.dims[0], "batchIndices dim 0")) ||
      (st = check_dim(api, "rois", rois, 1, 4, "the RoI length")) ||
      (st = check_dim(api, "out", out, 0, rois->view.dims[0], "rois dim 0")) ||
      (st = check_dim(api, "out", out, 1, self->view.dims[1], "self dim 1")) ||
      (st = check_dim(api, "out", out, 2, outputHeight, "outputHeight")) ||
      (st = check_dim(api, "out", out, 3, outputWidth, "outputWidth")))
    return st;
  // 5. Attributes: mode "avg" or "max", samplingRatio >= 0, spatialScale > 0.
  if (!mode)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: mode must be \"avg\" or \"max\", but got null", api);
  if (std::strcmp(mode, "avg") != 0 && std::strcmp(mode, "max") != 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: mode must be \"avg\" or \"max\", but got \"%.32s\"",
                api, mode);
  if (samplingRatio < 0)
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: samplingRatio must be >= 0, but got %d", api,
                samplingRatio);
  if (!(spatialScale > 0.0f))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s: spatialScale must be > 0, but got %g", api,
                static_cast<double>(spatialScale));
  RoiAlignParams p;
  p.ph = outputHeight, p.pw = outputWidth;
  p.scale = spatialScale;
  p.sampling = samplingRatio;
  p.max_mode = std::strcmp(mode, "max") == 0;
  const std::string trace =
      trace_info() ? describe("self", self) + " " + describe("rois", rois) + " " +
                         describe("batchIndices", batchIndices) + " " + describe("out", out) +
                         " mode=" + (p.max_mode ? "max" : "avg") +
                         attrs_text(outputHeight, outputWidth, spatialScale, samplingRatio)
                   : std::string();
  return forward_plan(api, self, rois, batchIndices, "out", out, p, trace, workspaceSize, executor);
}

aclnnStatus aclnnRoiAlign(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                          const aclrtStream stream) {
  return run_executor(kOnnx, workspace, workspaceSize, executor, stream);
}

}  // extern "C"
