# SPDX-License-Identifier: Apache-2.0
# _torch_ops: poolgrad's operators registered in PyTorch's dispatcher from C++ (python/src/torch_ops.cpp,
# torch_autograd.cpp), built when the Python that builds the package can import torch, against that
# torch's headers and libraries. A C++ extension is tied to the torch it was built with (its ABI), as
# torchvision's is: the torch version goes into _torch_build.py, and poolgrad/ops.py refuses to load
# the library under another one. Without torch at build time the package has no torch ops
# (pip install --no-build-isolation . with torch installed builds them; docs/pytorch.md).
execute_process(
  COMMAND "${Python_EXECUTABLE}" -c
    "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__)); print(int(torch.compiled_with_cxx11_abi()))"
  OUTPUT_VARIABLE _torch_info OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _torch_rc)
if(NOT _torch_rc EQUAL 0)
  message(STATUS "poolgrad: torch is not importable by ${Python_EXECUTABLE}: no torch ops in this build")
  set(POOLGRAD_TORCH_VERSION "")
else()
  string(REPLACE "\n" ";" _torch_info "${_torch_info}")
  list(GET _torch_info 0 POOLGRAD_TORCH_VERSION)
  list(GET _torch_info 1 _torch_dir)
  list(GET _torch_info 2 _torch_abi)
  message(STATUS "poolgrad: torch ops built against torch ${POOLGRAD_TORCH_VERSION} (${_torch_dir})")
  add_library(_torch_ops MODULE python/src/torch_ops.cpp python/src/torch_autograd.cpp)
  target_include_directories(_torch_ops SYSTEM PRIVATE
    ${_torch_dir}/include ${_torch_dir}/include/torch/csrc/api/include)
  target_include_directories(_torch_ops PRIVATE python/src)
  target_compile_definitions(_torch_ops PRIVATE _GLIBCXX_USE_CXX11_ABI=${_torch_abi})
  target_compile_options(_torch_ops PRIVATE -Wall -Wextra)
  target_link_libraries(_torch_ops PRIVATE poolgrad ${_torch_dir}/lib/libc10.so ${_torch_dir}/lib/libtorch_cpu.so)
  # torch's headers need C++20; the rest of poolgrad stays C++17.
  set_target_properties(_torch_ops PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_VISIBILITY_PRESET hidden
    INSTALL_RPATH "$ORIGIN;$ORIGIN/../torch/lib")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/torch_build.py.in ${CMAKE_CURRENT_BINARY_DIR}/_torch_build.py @ONLY)
