/* SPDX-License-Identifier: Apache-2.0 */
/* poolgrad's own (non-CANN) controls. */
#ifndef POOLGRAD_POOLGRAD_H_
#define POOLGRAD_POOLGRAD_H_

#include "../acl/acl_base.h"
#include "../aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sets the number of threads the kernels use (n >= 1); n <= 0 restores the default
 * (POOLGRAD_NUM_THREADS, else all cores). Results are bitwise identical for any count. */
ACL_FUNC_VISIBILITY void poolgradSetNumThreads(int n);
/** The number of threads the kernels use (for calls from this thread: see below). */
ACL_FUNC_VISIBILITY int poolgradGetNumThreads(void);
/** Sets the number of threads for calls made from the calling thread only (n >= 1, capped as
 * above); n <= 0 returns this thread to the process-wide count. A framework that owns the thread
 * count (PyTorch's torch.get_num_threads()) sets it around its own calls without changing what
 * other threads get. */
ACL_FUNC_VISIBILITY void poolgradSetThreadNumThreads(int n);
/** poolgrad's DOUBLE extension, for calls made from the calling thread (nonzero: on, 0: off, the
 * default). When on, the max-pool family (aclnnMaxPool2dWithIndices[Backward],
 * aclnnMaxPool3dWithArgmax[Backward], aclnnAdaptiveMaxPool2d[Backward],
 * aclnnAdaptiveMaxPool3d[Backward]), aclnnRoiPoolingWithArgMax, aclnnRoiPoolingGradWithArgMax,
 * aclnnRoiAlignV2[Backward], aclnnRoiAlign and aclnnMaxUnpool2dBackward also take DOUBLE data on
 * every product that runs them, beyond CANN's dtype lists, computed in double (compared and
 * summed, never narrowed; RoI pooling's bins from CANN's float32 geometry, RoIAlign as
 * torchvision's float64 kernel with spatialScale, a float, as given).
 * PyTorch's layer turns it on around its own calls, for float64 tensors (gradcheck); CANN code
 * never needs it. */
ACL_FUNC_VISIBILITY void poolgradSetThreadDoubleDtype(int enable);
/** Max-pool output size along one axis (the formula aclnnMaxPool2dWithIndices uses): kernel k,
 * stride s, padding p, dilation d, ceil mode. Returns a value <= 0 when no window fits, and
 * -1 for arguments out of range (in < 0, k/s/d < 1, p < 0, or any value above 2^31 - 1). */
ACL_FUNC_VISIBILITY int64_t poolgradPoolOutputSize(int64_t in, int64_t k, int64_t s, int64_t p,
                                                   int64_t d, bool ceilMode);
/** The name of the kernel a live executor will run (chosen in phase 1 from the dispatch table:
 * the path, "/avx2" or "/avx512" for AVX2 or AVX-512 code, "(serial)" for an output that overlaps
 * itself), or NULL for a handle that is not a live executor. The same name POOLGRAD_LOG=info
 * prints. The string lives as long as the executor. */
ACL_FUNC_VISIBILITY const char *poolgradGetKernelName(const aclOpExecutor *executor);
/** Caps the instruction set the kernels may use, as POOLGRAD_CPU_CAPABILITY does: "default"
 * (portable code only), "avx2" or "neon" (the first vector level: AVX2 on x86-64, NEON on
 * AArch64) or "avx512" or "sve" (the second: AVX-512 F, BW, DQ, VL and BF16, or SVE; no cap).
 * Applies to later phase-1 calls. Returns 0, or -1 for an unknown name (nothing changes). */
ACL_FUNC_VISIBILITY int poolgradSetCpuCapability(const char *capability);
/** poolgrad's version string. */
ACL_FUNC_VISIBILITY const char *poolgradVersion(void);

#ifdef __cplusplus
}
#endif

#endif
