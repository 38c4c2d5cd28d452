#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the build tree into a scratch prefix laid out like CANN's toolkit, sources its
# set_env.sh, and builds and runs a CANN-style sample project against it; checks pkg-config too.
# Usage: run.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
cmake --install "$build" --prefix "$work/Ascend/ascend-toolkit/latest" >/dev/null
prefix="$work/Ascend/ascend-toolkit/latest"
for f in set_env.sh lib64/libascendcl.so lib64/libnnopbase.so lib64/libopapi.so lib64/libopapi_nn.so \
         lib64/libopapi_cv.so lib64/libopapi_math.so lib64/libaclnn_ops_infer.so \
         lib64/libaclnn_ops_train.so lib64/libaclnn_math.so lib64/libpoolgrad.so.0 \
         "$(uname -m)-linux/lib64/libascendcl.so" runtime/include/acl/acl.h \
         include/aclnnop/aclnn_roi_pooling_grad_with_arg_max.h include/aclnnop/aclnn_ops_nn.h \
         include/aclnnop/aclnn_ops_cv.h lib/pkgconfig/poolgrad.pc; do
  [ -e "$prefix/$f" ] || { echo "missing from the install: $f"; exit 1; }
done
(
  unset DDK_PATH NPU_HOST_LIB ASCEND_HOME_PATH
  # shellcheck disable=SC1091
  source "$prefix/set_env.sh"
  [ "$ASCEND_HOME_PATH" = "$(cd "$prefix" && pwd)" ] || { echo "ASCEND_HOME_PATH=$ASCEND_HOME_PATH"; exit 1; }
  cmake -S "$src/tests/cann_sample" -B "$work/sample" -DSAMPLE_DIR="$src/examples" >/dev/null
  cmake --build "$work/sample" >/dev/null
  out=$("$work/sample/test_aclnn_roi_pooling_grad_with_arg_max")
  echo "$out" | grep -q "gradInput\[0,0,1,0\] is: 4.000000" || { echo "$out"; exit 1; }
  echo "$out" | grep -q "sum of gradInput is: 128.000000" || { echo "$out"; exit 1; }
  out=$("$work/sample/test_aclnn_max_pool2d_with_indices_backward")
  echo "$out" | grep -q "result\[6\] is: 0.172600" || { echo "$out"; exit 1; }
  "$work/sample/test_aclnn_newnames" | grep -q "result\[0\] is: 0.475700"
  "$work/sample/test_aclnn_roi_pooling_with_arg_max" | grep -q "argmax\[3\] is: 27"
  if command -v pkg-config >/dev/null; then
    printf '#include "acl/acl.h"\nint main(void){return aclInit(0) == ACL_SUCCESS && aclFinalize() == ACL_SUCCESS ? 0 : 1;}\n' > "$work/pc.c"
    # shellcheck disable=SC2046
    cc "$work/pc.c" -o "$work/pc" $(pkg-config --cflags --libs poolgrad)
    "$work/pc"
    echo "pkg-config: poolgrad $(pkg-config --modversion poolgrad) links and runs"
  fi
  out=$(POOLGRAD_SOC=Ascend910B "$work/sample/test_aclnn_max_pool2d_with_mask")
  echo "$out" | grep -q "mask index\[5\] is: 23" || { echo "$out"; exit 1; }
  "$work/sample/test_aclnn_oldnames" | grep -q "result\[0\] is: 0.475700"
  echo "CANN-style sample project: built against set_env.sh and ran with the expected results"
)
# Without set_env.sh: a binary linked against lib64 with only an rpath finds the library.
(
  unset LD_LIBRARY_PATH
  c++ -std=c++17 -I"$prefix/include" -I"$src/examples" "$src/examples/max_pool2d_with_indices_backward.cpp" \
    -o "$work/rpath_only" -L"$prefix/lib64" -Wl,-rpath,"$prefix/lib64" -lascendcl -lopapi_math
  "$work/rpath_only" | grep -q "result\[6\] is: 0.172600" || { echo "rpath-only binary failed"; exit 1; }
  echo "rpath-only binary: starts and runs without set_env.sh"
)
