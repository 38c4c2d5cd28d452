/* SPDX-License-Identifier: Apache-2.0 */
/* One accepted and one refused call, for the POOLGRAD_LOG tests. */
#include <stdio.h>

#include "aclnnop/aclnn_max_pool2d_with_indices.h"

int main(void) {
  float x[16] = {0}, out[4], bad_out[9];
  int64_t idx[4];
  int64_t xd[4] = {1, 1, 4, 4}, xs[4] = {16, 16, 4, 1}, od[4] = {1, 1, 2, 2}, os[4] = {4, 4, 2, 1};
  int64_t bd[4] = {1, 1, 3, 3}, bs[4] = {9, 9, 3, 1}, xn = 16, on = 4, bn = 9, two = 2, zero = 0,
          one = 1;
  aclTensor *tx = aclCreateTensor(xd, 4, ACL_FLOAT, xs, 0, ACL_FORMAT_NCHW, &xn, 1, x);
  aclTensor *to = aclCreateTensor(od, 4, ACL_FLOAT, os, 0, ACL_FORMAT_NCHW, &on, 1, out);
  aclTensor *ti = aclCreateTensor(od, 4, ACL_INT64, os, 0, ACL_FORMAT_NCHW, &on, 1, idx);
  aclTensor *tb = aclCreateTensor(bd, 4, ACL_FLOAT, bs, 0, ACL_FORMAT_NCHW, &bn, 1, bad_out);
  aclIntArray *k = aclCreateIntArray(&two, 1), *p = aclCreateIntArray(&zero, 1),
              *d = aclCreateIntArray(&one, 1), *s = aclCreateIntArray(NULL, 0);
  static unsigned char workspace[1 << 16];
  uint64_t ws;
  aclOpExecutor *ex;
  int ok =
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(tx, k, s, p, d, false, to, ti, &ws, &ex) == 0 &&
      ws <= sizeof workspace && aclnnMaxPool2dWithIndices(workspace, ws, ex, NULL) == 0;
  int refused =
      aclnnMaxPool2dWithIndicesGetWorkspaceSize(tx, k, s, p, d, false, tb, ti, &ws, &ex) == 161002;
  printf("probe: ok=%d refused=%d\n", ok, refused);
  aclDestroyTensor(tx);
  aclDestroyTensor(to);
  aclDestroyTensor(ti);
  aclDestroyTensor(tb);
  aclDestroyIntArray(k);
  aclDestroyIntArray(p);
  aclDestroyIntArray(d);
  aclDestroyIntArray(s);
  return ok && refused ? 0 : 1;
}
