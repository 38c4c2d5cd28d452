// SPDX-License-Identifier: Apache-2.0
// The public tensor C API: aclCreateTensor and the int / float / bool arrays, their getters.
#include <cinttypes>
#include <cstring>
#include <new>

#include "dtype.h"
#include "status.h"
#include "tensor.h"

using namespace poolgrad;

namespace {

// Checks a tensor's description and, when it is valid, writes it into *t; false (with a message)
// otherwise, leaving *t alone. aclCreateTensor and aclInitTensor share it.
bool describe(const char *api, aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum,
              aclDataType dataType, const int64_t *stride, int64_t offset, aclFormat format,
              const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  if (viewDimsNum > 0 && viewDims == nullptr) {
    set_error("%s: viewDims must not be null when viewDimsNum is %" PRIu64, api, viewDimsNum);
    return false;
  }
  if (viewDimsNum > 0 && stride == nullptr) {
    set_error("%s: stride must not be null when viewDimsNum is %" PRIu64, api, viewDimsNum);
    return false;
  }
  if (storageDimsNum > 0 && storageDims == nullptr) {
    set_error("%s: storageDims must not be null when storageDimsNum is %" PRIu64, api,
              storageDimsNum);
    return false;
  }
  if (viewDimsNum > 64 || storageDimsNum > 64) {
    set_error("%s: at most 64 dims are supported, but got viewDimsNum=%" PRIu64
              " storageDimsNum=%" PRIu64,
              api, viewDimsNum, storageDimsNum);
    return false;
  }
  if (dtype_size(dataType) == 0 && dataType != ACL_STRING) {
    // Unknown and sub-byte dtypes are kept (ops reject them with their own message) but must
    // still be a value of the enum.
    if (std::strcmp(dtype_name(dataType), "UNKNOWN") == 0) {
      set_error("%s: dataType %d is not an aclDataType", api, static_cast<int>(dataType));
      return false;
    }
  }
  if (!is_known_format(format)) {
    set_error("%s: format %d is not an aclFormat", api, static_cast<int>(format));
    return false;
  }
  if (offset < 0) {
    set_error("%s: offset must be >= 0, but got %" PRId64, api, offset);
    return false;
  }
  {
    // The byte offset of the first element must fit int64 too, also for an empty view.
    int64_t es = dtype_size(dataType) > 0 ? dtype_size(dataType) : 1, bytes;
    if (__builtin_mul_overflow(offset, es, &bytes)) {
      set_error("%s: offset %" PRId64 " times the element size %" PRId64 " overflows int64", api,
                offset, es);
      return false;
    }
  }
  // Storage element count, overflow-checked.
  int64_t storage = 1;
  for (uint64_t i = 0; i < storageDimsNum; ++i) {
    if (storageDims[i] < 0) {
      set_error("%s: storageDims[%" PRIu64 "] must be >= 0, but got %" PRId64, api, i,
                storageDims[i]);
      return false;
    }
    if (__builtin_mul_overflow(storage, storageDims[i], &storage)) {
      set_error("%s: the storage element count %s overflows int64", api,
                dims_str(SmallInts(storageDims, storageDimsNum)).c_str());
      return false;
    }
  }
  // View extent, overflow-checked: the lowest and highest element offsets.
  int64_t lo = offset, hi = offset, count = 1;
  bool empty = false;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    // A negative dim makes a tensor that describes no element, as CANN's aclCreateTensor does;
    // every operator refuses it with 161002 naming the parameter (check_element_bound).
    if (viewDims[i] <= 0) empty = true;
    if (__builtin_mul_overflow(count, viewDims[i], &count)) {
      set_error("%s: the view element count of %s overflows int64", api,
                dims_str(SmallInts(viewDims, viewDimsNum)).c_str());
      return false;
    }
  }
  if (!empty) {
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
      int64_t span;
      if (__builtin_mul_overflow(viewDims[i] - 1, stride[i], &span)) {
        set_error("%s: the view extent overflows int64 (viewDims[%" PRIu64 "]=%" PRId64
                  ", stride[%" PRIu64 "]=%" PRId64 ")",
                  api, i, viewDims[i], i, stride[i]);
        return false;
      }
      if (__builtin_add_overflow(span > 0 ? hi : lo, span, span > 0 ? &hi : &lo)) {
        set_error("%s: offset %" PRId64 " plus the view extent overflows int64 (viewDims[%" PRIu64
                  "]=%" PRId64 ", stride[%" PRIu64 "]=%" PRId64 ")",
                  api, offset, i, viewDims[i], i, stride[i]);
        return false;
      }
    }
    int64_t bytes;
    int64_t es = dtype_size(dataType) > 0 ? dtype_size(dataType) : 1;
    if (__builtin_mul_overflow(storage, es, &bytes)) {
      set_error("%s: the storage byte size overflows int64", api);
      return false;
    }
    if (lo < 0 || hi >= storage) {
      set_error("%s: the view (dims %s, strides %s, offset %" PRId64 ") reaches elements [%" PRId64
                ", %" PRId64 "], outside the storage of %" PRId64 " elements (storageDims %s)",
                api, dims_str(SmallInts(viewDims, viewDimsNum)).c_str(),
                dims_str(SmallInts(stride, viewDimsNum)).c_str(), offset, lo, hi, storage,
                dims_str(SmallInts(storageDims, storageDimsNum)).c_str());
      return false;
    }
  }
  // A null tensorData is accepted (CANN allows description-only tensors); the operators refuse
  // it for a tensor whose data they read or write.
  t->view.data = tensorData;
  t->view.dtype = dataType;
  t->view.format = format;
  t->view.offset = offset;
  t->view.dims.assign(viewDims, viewDims + viewDimsNum);
  t->view.strides.assign(stride, stride + viewDimsNum);
  t->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  return true;
}

}  // namespace

extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
  auto *t = new (std::nothrow) aclTensor();
  if (!t) {
    set_error("aclCreateTensor: out of memory");
    return nullptr;
  }
  if (describe("aclCreateTensor", t, viewDims, viewDimsNum, dataType, stride, offset, format,
               storageDims, storageDimsNum, tensorData))
    return t;
  delete t;
  return nullptr;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum,
                          aclDataType dataType, const int64_t *stride, int64_t offset,
                          aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                          void *tensorDataAddr) {
  if (!tensor) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclInitTensor: tensor must not be null");
  if (!describe("aclInitTensor", tensor, viewDims, viewDimsNum, dataType, stride, offset, format,
                storageDims, storageDimsNum, tensorDataAddr))
    return fail(ACLNN_ERR_PARAM_INVALID, "%s", take_error().c_str());
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
  delete tensor;
  return ACLNN_SUCCESS;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    set_error("aclCreateIntArray: value must not be null when size is %" PRIu64, size);
    return nullptr;
  }
  if (size > (1u << 20)) {
    set_error("aclCreateIntArray: size %" PRIu64 " is too large", size);
    return nullptr;
  }
  auto *a = new (std::nothrow) aclIntArray();
  if (a) a->values.assign(value, value + size);
  return a;
}
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
  if ((size > 0 && value == nullptr) || size > (1u << 20)) {
    set_error("aclCreateFloatArray: bad value/size (size %" PRIu64 ")", size);
    return nullptr;
  }
  auto *a = new (std::nothrow) aclFloatArray();
  if (a) a->values.assign(value, value + size);
  return a;
}
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
  if ((size > 0 && value == nullptr) || size > (1u << 20)) {
    set_error("aclCreateBoolArray: bad value/size (size %" PRIu64 ")", size);
    return nullptr;
  }
  auto *a = new (std::nothrow) aclBoolArray();
  if (a) a->values.assign(value, value + size);
  return a;
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}
aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
  delete array;
  return ACLNN_SUCCESS;
}

static aclnnStatus copy_out(const char *api, const SmallInts &v, int64_t **out, uint64_t *num) {
  if (!out || !num)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: output pointers must not be null", api);
  *out = new int64_t[v.empty() ? 1 : v.size()];
  std::copy(v.begin(), v.end(), *out);
  *num = v.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *t, int64_t **viewDims, uint64_t *viewDimsNum) {
  if (!t) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewShape: tensor must not be null");
  return copy_out("aclGetViewShape", t->view.dims, viewDims, viewDimsNum);
}
aclnnStatus aclGetStorageShape(const aclTensor *t, int64_t **dims, uint64_t *num) {
  if (!t) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetStorageShape: tensor must not be null");
  return copy_out("aclGetStorageShape", t->storage_dims, dims, num);
}
aclnnStatus aclGetViewStrides(const aclTensor *t, int64_t **strides, uint64_t *num) {
  if (!t) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewStrides: tensor must not be null");
  return copy_out("aclGetViewStrides", t->view.strides, strides, num);
}
aclnnStatus aclGetViewOffset(const aclTensor *t, int64_t *offset) {
  if (!t || !offset)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: arguments must not be null");
  *offset = t->view.offset;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFormat(const aclTensor *t, aclFormat *format) {
  if (!t || !format)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: arguments must not be null");
  *format = t->view.format;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor *t, aclDataType *dataType) {
  if (!t || !dataType)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: arguments must not be null");
  *dataType = t->view.dtype;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray *a, uint64_t *size) {
  if (!a || !size)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetIntArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray *a, uint64_t *size) {
  if (!a || !size)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFloatArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray *a, uint64_t *size) {
  if (!a || !size)
    return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetBoolArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}

}  // extern "C"
