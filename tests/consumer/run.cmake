# SPDX-License-Identifier: Apache-2.0
# Installs the build tree into a scratch prefix, configures and builds tests/consumer against it,
# runs the samples and checks their printed results.
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BIN} --prefix ${WORK}/prefix
                RESULT_VARIABLE r OUTPUT_QUIET)
if(r)
  message(FATAL_ERROR "install failed: ${r}")
endif()
foreach(f include/acl/acl.h include/aclnn/acl_meta.h include/aclnn/aclnn_base.h
          include/aclnnop/aclnn_roi_pooling_grad_with_arg_max.h
          include/aclnnop/aclnn_max_pool2d_with_indices_backward.h
          lib/libpoolgrad.so lib/cmake/poolgrad/poolgradConfig.cmake)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "missing from the install: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/consumer -B ${WORK}/build
                        -DCMAKE_PREFIX_PATH=${WORK}/prefix -DEXAMPLES=${SRC}/examples
                RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(r)
  message(FATAL_ERROR "configure failed: ${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK}/build RESULT_VARIABLE r
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(r)
  message(FATAL_ERROR "build failed: ${out}")
endif()
execute_process(COMMAND ${WORK}/build/roi_pooling_grad_with_arg_max RESULT_VARIABLE r OUTPUT_VARIABLE out)
if(r OR NOT out MATCHES "gradInput\\[0,0,1,0\\] is: 4\\.000000" OR NOT out MATCHES "sum of gradInput is: 128\\.000000")
  message(FATAL_ERROR "roi sample: status ${r}, output:\n${out}")
endif()
execute_process(COMMAND ${WORK}/build/max_pool2d_with_indices_backward RESULT_VARIABLE r OUTPUT_VARIABLE out)
if(r OR NOT out MATCHES "result\\[0\\] is: 0\\.475700" OR NOT out MATCHES "result\\[6\\] is: 0\\.172600")
  message(FATAL_ERROR "max-pool sample: status ${r}, output:\n${out}")
endif()
message(STATUS "installed package consumed: both samples printed the expected gradients")
