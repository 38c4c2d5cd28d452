# SPDX-License-Identifier: Apache-2.0
# _torch_ops: poolgrad's operators registered in PyTorch's dispatcher from C++ (python/src/torch_*.cpp:
# torch_library.cpp the schemas, a file per family its kernels and autograd formulas), built when the Python that builds the package can import torch, against that
# torch's headers and libraries. A C++ extension is tied to the torch it was built with (its ABI), as
# torchvision's is: the torch version goes into _torch_build.py, and poolgrad/ops.py refuses to load
# the library under another one. Without torch at build time the package has no torch ops.
#
# Which torch: the one the building Python imports; failing that, the one of the environment being
# installed into, seen through Python's isolated mode (-I). pip's build isolation hides the
# environment's site-packages with a sitecustomize on PYTHONPATH, and -I ignores PYTHONPATH, so a
# plain `pip install .` in an environment that has torch builds against that torch (docs/pytorch.md).
set(_torch_probe
  "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__)); print(int(torch.compiled_with_cxx11_abi()))")
execute_process(COMMAND "${Python_EXECUTABLE}" -c "${_torch_probe}"
  OUTPUT_VARIABLE _torch_info OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _torch_rc)
if(NOT _torch_rc EQUAL 0)
  execute_process(COMMAND "${Python_EXECUTABLE}" -I -c "${_torch_probe}"
    OUTPUT_VARIABLE _torch_info OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _torch_rc)
endif()
if(NOT _torch_rc EQUAL 0)
  message(STATUS "poolgrad: torch is not importable by ${Python_EXECUTABLE}: no torch ops in this build")
  set(POOLGRAD_TORCH_VERSION "")
else()
  string(REPLACE "\n" ";" _torch_info "${_torch_info}")
  list(GET _torch_info 0 POOLGRAD_TORCH_VERSION)
  list(GET _torch_info 1 _torch_dir)
  list(GET _torch_info 2 _torch_abi)
  message(STATUS "poolgrad: torch ops built against torch ${POOLGRAD_TORCH_VERSION} (${_torch_dir})")
  # The ops' schemas come from the operator descriptors, their one copy: torch_schemas.inc, written
  # by cmake/descriptors.cmake.
  # Every python/src/torch_*.cpp (a new family's file needs no line here), torch_fast.cpp included.
  file(GLOB _torch_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/python/src/torch_*.cpp)
  add_library(_torch_ops MODULE ${_torch_sources})
  target_include_directories(_torch_ops SYSTEM PRIVATE
    ${_torch_dir}/include ${_torch_dir}/include/torch/csrc/api/include)
  target_include_directories(_torch_ops PRIVATE python/src ${CMAKE_CURRENT_BINARY_DIR})
  target_compile_definitions(_torch_ops PRIVATE _GLIBCXX_USE_CXX11_ABI=${_torch_abi})
  target_compile_options(_torch_ops PRIVATE -Wall -Wextra)
  # torch_fast.cpp is also a Python module: Python's headers and torch's Python bindings.
  target_include_directories(_torch_ops SYSTEM PRIVATE ${Python_INCLUDE_DIRS})
  target_link_libraries(_torch_ops PRIVATE poolgrad ${_torch_dir}/lib/libc10.so ${_torch_dir}/lib/libtorch_cpu.so
    ${_torch_dir}/lib/libtorch_python.so)
  # torch's headers need C++20; the rest of poolgrad stays C++17.
  set_target_properties(_torch_ops PROPERTIES PREFIX "" CXX_STANDARD 20 CXX_VISIBILITY_PRESET hidden
    INSTALL_RPATH "$ORIGIN;$ORIGIN/../torch/lib")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/torch_build.py.in ${CMAKE_CURRENT_BINARY_DIR}/_torch_build.py @ONLY)
