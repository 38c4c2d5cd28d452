// SPDX-License-Identifier: Apache-2.0
// The eager fast path of poolgrad.torch's pooling functions: the same dispatcher call as
// torch.ops.poolgrad.<op>(...), entered from Python without the op's boxed binding (which parses
// every argument against the schema into a stack of IValues: about a microsecond, a quarter of a
// small call). The dispatcher still runs every key (autograd, Python dispatch modes, fake
// tensors), so only the argument parsing differs; poolgrad/torch.py takes this path only for a
// plain torch.Tensor outside torch.compile and without a torch function mode, and otherwise calls
// the op. The library that registers the ops is also this Python module (PyInit__torch_ops).
#include <Python.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/library.h>

#include <tuple>

namespace {

using at::IntArrayRef;
using at::Tensor;

using PoolSig = std::tuple<Tensor, Tensor>(const Tensor &, IntArrayRef, IntArrayRef, IntArrayRef,
                                           IntArrayRef, bool);
using AdaptiveSig = std::tuple<Tensor, Tensor>(const Tensor &, IntArrayRef);

// The op's handle, looked up once per op (a static per instantiation: Name is the op).
template <class Sig, const char *Name>
const c10::TypedOperatorHandle<Sig> &handle() {
  static const auto h = c10::Dispatcher::singleton().findSchemaOrThrow(Name, "").typed<Sig>();
  return h;
}

// An integer (an int or anything with __index__, but not a bool).
bool is_int(PyObject *o) {
  return PyIndex_Check(o) && !PyBool_Check(o);
}

// An int[] argument as the schema takes it: an int (broadcast by the op) or a list or tuple of
// ints. False (with a Python TypeError set) for anything else.
bool int_list(PyObject *o, c10::SmallVector<int64_t, 3> &out) {
  if (is_int(o)) {
    out.push_back(PyLong_AsLongLong(o));
    return !PyErr_Occurred();
  }
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    PyErr_Format(PyExc_TypeError, "expected an int or a sequence of ints, but got %R", o);
    return false;
  }
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject **items = PySequence_Fast_ITEMS(o);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!is_int(items[i])) {
      PyErr_Format(PyExc_TypeError, "expected an int or a sequence of ints, but got %R", o);
      return false;
    }
    out.push_back(PyLong_AsLongLong(items[i]));
    if (PyErr_Occurred()) return false;
  }
  return true;
}

// Runs f with the GIL released, translating a C++ error as the op's binding does.
template <class F>
PyObject *call(F &&f) {
  try {
    std::tuple<Tensor, Tensor> r;
    {
      PyThreadState *state = PyEval_SaveThread();
      try {
        r = f();
      } catch (...) {
        PyEval_RestoreThread(state);
        throw;
      }
      PyEval_RestoreThread(state);
    }
    PyObject *a = THPVariable_Wrap(std::move(std::get<0>(r)));
    PyObject *b = a ? THPVariable_Wrap(std::move(std::get<1>(r))) : nullptr;
    if (!b) {
      Py_XDECREF(a);
      return nullptr;
    }
    PyObject *t = PyTuple_New(2);
    if (!t) {
      Py_DECREF(a);
      Py_DECREF(b);
      return nullptr;
    }
    PyTuple_SET_ITEM(t, 0, a);  // steals the references
    PyTuple_SET_ITEM(t, 1, b);
    return t;
  } catch (const c10::ValueError &e) {
    PyErr_SetString(PyExc_ValueError, e.what_without_backtrace());
  } catch (const c10::TypeError &e) {
    PyErr_SetString(PyExc_TypeError, e.what_without_backtrace());
  } catch (const c10::Error &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
  } catch (const std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

bool tensor_arg(PyObject *o, const char *fn) {
  if (THPVariable_Check(o)) return true;
  PyErr_Format(PyExc_TypeError, "%s: expected a Tensor, but got %R", fn, o);
  return false;
}

// pool(name, x, kernel_size, stride, padding, dilation, ceil_mode)
template <const char *Name>
PyObject *pool(PyObject *, PyObject *const *args, Py_ssize_t n) {
  c10::SmallVector<int64_t, 3> k, s, p, d;
  if (n != 6) {
    PyErr_Format(PyExc_TypeError, "%s takes 6 arguments (%zd given)", Name, n);
    return nullptr;
  }
  if (!tensor_arg(args[0], Name)) return nullptr;
  if (!int_list(args[1], k) || (args[2] != Py_None && !int_list(args[2], s)) ||
      !int_list(args[3], p) || !int_list(args[4], d))
    return nullptr;
  const int ceil = PyObject_IsTrue(args[5]);
  if (ceil < 0) return nullptr;
  const Tensor &x = THPVariable_Unpack(args[0]);
  return call([&] { return handle<PoolSig, Name>().call(x, k, s, p, d, ceil != 0); });
}

// adaptive(name, x, output_size)
template <const char *Name>
PyObject *adaptive(PyObject *, PyObject *const *args, Py_ssize_t n) {
  c10::SmallVector<int64_t, 3> size;
  if (n != 2) {
    PyErr_Format(PyExc_TypeError, "%s takes 2 arguments (%zd given)", Name, n);
    return nullptr;
  }
  if (!tensor_arg(args[0], Name) || !int_list(args[1], size)) return nullptr;
  const Tensor &x = THPVariable_Unpack(args[0]);
  return call([&] { return handle<AdaptiveSig, Name>().call(x, size); });
}

constexpr char kMaxPool2d[] = "poolgrad::max_pool2d_with_indices";
constexpr char kMaxPool3d[] = "poolgrad::max_pool3d_with_indices";
constexpr char kAdaptive2d[] = "poolgrad::adaptive_max_pool2d";
constexpr char kAdaptive3d[] = "poolgrad::adaptive_max_pool3d";

// A METH_FASTCALL function in the table's PyCFunction slot (CPython calls it by the flag). The cast
// goes through void (*)(): a direct one between the two signatures is what -Wcast-function-type
// warns of.
template <PyObject *(*F)(PyObject *, PyObject *const *, Py_ssize_t)>
PyCFunction fastcall() {
  return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(F));
}

PyMethodDef kMethods[] = {
    {"max_pool2d_with_indices", fastcall<&pool<kMaxPool2d>>(), METH_FASTCALL,
     "torch.ops.poolgrad.max_pool2d_with_indices(x, k, s, p, d, ceil); s None for the kernel"},
    {"max_pool3d_with_indices", fastcall<&pool<kMaxPool3d>>(), METH_FASTCALL,
     "torch.ops.poolgrad.max_pool3d_with_indices(x, k, s, p, d, ceil); s None for the kernel"},
    {"adaptive_max_pool2d", fastcall<&adaptive<kAdaptive2d>>(), METH_FASTCALL,
     "torch.ops.poolgrad.adaptive_max_pool2d(x, output_size)"},
    {"adaptive_max_pool3d", fastcall<&adaptive<kAdaptive3d>>(), METH_FASTCALL,
     "torch.ops.poolgrad.adaptive_max_pool3d(x, output_size)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT,
                       "_torch_ops",
                       "poolgrad's torch ops (registered on load) and their eager fast path",
                       -1,
                       kMethods,
                       nullptr,
                       nullptr,
                       nullptr,
                       nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__torch_ops() {
  return PyModule_Create(&kModule);
}
