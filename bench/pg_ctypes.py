"""Minimal ctypes access to libpoolgrad's C API for the benchmark (phase 1 and phase 2 separately)."""
import ctypes
import os

ACL_FLOAT, ACL_FLOAT16, ACL_INT32, ACL_INT64, ACL_BF16 = 0, 1, 3, 9, 27
FMT_NCHW, FMT_ND = 0, 2
DTYPES = {"float32": ACL_FLOAT, "float16": ACL_FLOAT16, "bfloat16": ACL_BF16,
          "int32": ACL_INT32, "int64": ACL_INT64}


class Lib:
    def __init__(self, build_dir):
        self.lib = ctypes.CDLL(os.path.join(build_dir, "libpoolgrad.so"))
        L = self.lib
        P, I64, U64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_uint64
        L.aclCreateTensor.restype = P
        L.aclCreateTensor.argtypes = [P, U64, ctypes.c_int, P, I64, ctypes.c_int, P, U64, P]
        L.aclDestroyTensor.argtypes = [P]
        L.aclCreateIntArray.restype = P
        L.aclCreateIntArray.argtypes = [P, U64]
        L.aclDestroyIntArray.argtypes = [P]
        L.aclSetAclOpExecutorRepeatable.argtypes = [P]
        L.aclDestroyAclOpExecutor.argtypes = [P]
        L.aclGetRecentErrMsg.restype = ctypes.c_char_p
        L.poolgradSetNumThreads.argtypes = [ctypes.c_int]
        L.aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize.argtypes = [P] * 7 + [ctypes.c_bool, P, P, P]
        L.aclnnMaxPool2dWithIndicesGetWorkspaceSize.argtypes = [P] * 5 + [ctypes.c_bool, P, P, P, P]
        L.aclnnRoiPoolingWithArgMaxGetWorkspaceSize.argtypes = [P, P, I64, I64, ctypes.c_float,
                                                                ctypes.c_float, P, P, P, P]
        L.aclnnRoiPoolingGradWithArgMaxGetWorkspaceSize.argtypes = [P, P, P, P, I64, I64,
                                                                    ctypes.c_double, P, P]
        for name in ("aclnnMaxPool2dWithIndicesBackward", "aclnnMaxPool2dWithIndices",
                     "aclnnRoiPoolingWithArgMax", "aclnnRoiPoolingGradWithArgMax"):
            getattr(L, name).argtypes = [P, U64, P, P]
        self.keep = []

    def tensor(self, t, fmt=FMT_NCHW, dtype_name=None):
        """An aclTensor over a torch tensor's storage (view dims, element strides, offset)."""
        dims = (ctypes.c_int64 * t.dim())(*t.shape)
        strides = (ctypes.c_int64 * t.dim())(*t.stride())
        storage_elems = t.untyped_storage().nbytes() // t.element_size()
        sd = (ctypes.c_int64 * 1)(storage_elems)
        base = t.untyped_storage().data_ptr()
        dt = DTYPES[dtype_name or str(t.dtype).replace("torch.", "")]
        h = self.lib.aclCreateTensor(dims, t.dim(), dt, strides, t.storage_offset(), fmt, sd, 1,
                                     ctypes.c_void_p(base))
        if not h:
            raise RuntimeError(self.lib.aclGetRecentErrMsg())
        return h

    def intarray(self, vals):
        arr = (ctypes.c_int64 * len(vals))(*vals)
        return self.lib.aclCreateIntArray(arr, len(vals))

    def check(self, st):
        if st != 0:
            raise RuntimeError(f"status {st}: {self.lib.aclGetRecentErrMsg()}")

    def executor(self, getws, *args):
        """Runs phase 1 and returns a repeatable executor."""
        ws = ctypes.c_uint64(0)
        ex = ctypes.c_void_p()
        self.check(getws(*args, ctypes.byref(ws), ctypes.byref(ex)))
        self.check(self.lib.aclSetAclOpExecutorRepeatable(ex))
        return ex
