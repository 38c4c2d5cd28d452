// SPDX-License-Identifier: Apache-2.0
// The public C API's other objects around an aclnn call: scalars, tensor lists and scalar lists
// (aclnn/acl_meta.h), tensor descriptions and data buffers (acl/acl_base.h). No poolgrad operator
// takes one yet; programs and test harnesses build them in shared set-up code, so they are full
// objects with CANN's accessors and status codes.
#include <cinttypes>
#include <cstring>
#include <new>

#include "acl/acl.h"
#include "dtype.h"
#include "status.h"
#include "tensor.h"

using namespace poolgrad;

namespace {

// Lists and arrays are capped like the int arrays (aclCreateIntArray).
constexpr uint64_t kMaxItems = uint64_t(1) << 20;

template <class List, class Item>
List *make_list(const char *api, const Item *const *value, uint64_t size) {
  if (size > 0 && value == nullptr) {
    set_error("%s: value must not be null when size is %" PRIu64, api, size);
    return nullptr;
  }
  if (size > kMaxItems) {
    set_error("%s: size %" PRIu64 " is too large (at most %" PRIu64 ")", api, size, kMaxItems);
    return nullptr;
  }
  auto *l = new (std::nothrow) List();
  if (!l) {
    set_error("%s: out of memory", api);
    return nullptr;
  }
  l->items.assign(value, value + size);
  return l;
}

// A list and the elements it owns.
template <class List>
aclnnStatus destroy_list(const List *list) {
  if (list)
    for (const auto *item : list->items) delete item;
  delete list;
  return ACLNN_SUCCESS;
}

template <class List>
aclnnStatus list_size(const char *api, const List *list, uint64_t *size) {
  if (!list || !size) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: arguments must not be null", api);
  *size = list->items.size();
  return ACLNN_SUCCESS;
}

int64_t element_count(const aclTensorDesc &d) {
  int64_t n = 1;
  for (int64_t v : d.dims)
    if (v < 0 || __builtin_mul_overflow(n, v, &n)) return 0;  // dynamic (-1, -2) or too large
  return n;
}

}  // namespace

extern "C" {

// ---- scalars and lists (aclnn/acl_meta.h) ------------------------------------------------------

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
  const int64_t size = dtype_size(dataType);
  if (value == nullptr) {
    set_error("aclCreateScalar: value must not be null");
    return nullptr;
  }
  if (size <= 0 || size > 16) {
    set_error("aclCreateScalar: dataType %s (%d) cannot hold a scalar", dtype_name(dataType),
              static_cast<int>(dataType));
    return nullptr;
  }
  auto *s = new (std::nothrow) aclScalar();
  if (!s) {
    set_error("aclCreateScalar: out of memory");
    return nullptr;
  }
  s->dtype = dataType;
  std::memcpy(s->bytes, value, static_cast<size_t>(size));
  return s;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
  delete scalar;
  return ACLNN_SUCCESS;
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
  return make_list<aclTensorList>("aclCreateTensorList", value, size);
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
  return destroy_list(array);
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
  return make_list<aclScalarList>("aclCreateScalarList", value, size);
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array) {
  return destroy_list(array);
}

aclnnStatus aclGetTensorListSize(const aclTensorList *tensorList, uint64_t *size) {
  return list_size("aclGetTensorListSize", tensorList, size);
}

aclnnStatus aclGetScalarListSize(const aclScalarList *scalarList, uint64_t *size) {
  return list_size("aclGetScalarListSize", scalarList, size);
}

// ---- tensor descriptions and data buffers (acl/acl_base.h) -------------------------------------

aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims,
                                   aclFormat format) {
  if (numDims < 0 || numDims > 64 || (numDims > 0 && dims == nullptr)) {
    set_error(
        "aclCreateTensorDesc: numDims must be 0..64 with dims not null, but got numDims=%d "
        "dims=%p",
        numDims, static_cast<const void *>(dims));
    return nullptr;
  }
  auto *d = new (std::nothrow) aclTensorDesc();
  if (!d) {
    set_error("aclCreateTensorDesc: out of memory");
    return nullptr;
  }
  d->dtype = dataType;
  d->format = format;
  d->dims.assign(dims, dims + numDims);
  return d;
}

void aclDestroyTensorDesc(const aclTensorDesc *desc) {
  delete desc;
}

aclDataType aclGetTensorDescType(const aclTensorDesc *desc) {
  return desc ? desc->dtype : ACL_DT_UNDEFINED;
}

aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc) {
  return desc ? desc->format : ACL_FORMAT_UNDEFINED;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc *desc) {
  return desc ? desc->dims.size() : 0;
}

aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize) {
  if (!desc || !dimSize)
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclGetTensorDescDimV2: desc and dimSize must not be null");
  if (index >= desc->dims.size())
    return fail(ACL_ERROR_INVALID_PARAM,
                "aclGetTensorDescDimV2: index %zu is out of range (the desc has %zu dims)", index,
                desc->dims.size());
  *dimSize = desc->dims[index];
  return ACL_SUCCESS;
}

size_t aclGetTensorDescElementCount(const aclTensorDesc *desc) {
  return desc ? static_cast<size_t>(element_count(*desc)) : 0;
}

size_t aclGetTensorDescSize(const aclTensorDesc *desc) {
  if (!desc) return 0;
  int64_t bytes;
  const int64_t es = dtype_size(desc->dtype) > 0 ? dtype_size(desc->dtype) : 0;
  return __builtin_mul_overflow(element_count(*desc), es, &bytes) ? 0 : static_cast<size_t>(bytes);
}

aclDataBuffer *aclCreateDataBuffer(void *data, size_t size) {
  auto *b = new (std::nothrow) aclDataBuffer{data, size};
  if (!b) set_error("aclCreateDataBuffer: out of memory");
  return b;
}

aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer) {
  if (!dataBuffer)
    return fail(ACL_ERROR_INVALID_PARAM, "aclDestroyDataBuffer: dataBuffer must not be null");
  delete dataBuffer;
  return ACL_SUCCESS;
}

void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer) {
  return dataBuffer ? dataBuffer->data : nullptr;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer) {
  return dataBuffer ? dataBuffer->size : 0;
}

}  // extern "C"
