// poolgrad core: errors, dtype helpers, tensor handles, executors, threads.
#include "core.h"


#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <unordered_set>

#include <unistd.h>

#include "poolgrad/poolgrad.h"

namespace poolgrad {

// ---- errors -----------------------------------------------------------------------------------
namespace {
thread_local std::string t_last_error;

std::string vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap2);
  va_end(ap2);
  if (n <= 0) return std::string();
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(&s[0], s.size(), fmt, ap);
  s.resize(static_cast<size_t>(n));
  return s;
}
}  // namespace

std::string take_error() {
  std::string s;
  s.swap(t_last_error);
  return s;
}

std::string format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

LogLevel log_level() {
  static const LogLevel level = [] {
    const char *v = std::getenv("POOLGRAD_LOG");
    if (v && (std::strcmp(v, "info") == 0 || std::strcmp(v, "INFO") == 0)) return LogLevel::kInfo;
    if (v && (std::strcmp(v, "error") == 0 || std::strcmp(v, "ERROR") == 0)) return LogLevel::kError;
    return LogLevel::kOff;
  }();
  return level;
}

static void log_error(aclnnStatus status) {
  if (log_level() != LogLevel::kOff)
    std::fprintf(stderr, "poolgrad: error %d: %s\n", static_cast<int>(status), t_last_error.c_str());
}

void set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(0);
}

aclnnStatus fail(aclnnStatus status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  t_last_error = vformat(fmt, ap);
  va_end(ap);
  log_error(status);
  return status;
}

// ---- dtypes -----------------------------------------------------------------------------------
static inline uint32_t f2u(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
static inline float u2f(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    if (mant == 0) return u2f(sign);
    float v = static_cast<float>(mant) * 5.9604644775390625e-8f;  // mant * 2^-24
    return u2f(sign | f2u(v));
  }
  if (exp == 31) return u2f(sign | 0x7f800000u | (mant << 13));
  return u2f(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t float_to_half(float f) {
  uint32_t x = f2u(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5f aligns the bits so that the low mantissa bits
    // are the correctly rounded (to nearest even) subnormal half.
    float a = u2f(x) + 0.5f;
    return static_cast<uint16_t>(sign | (f2u(a) - 0x3f000000u));
  }
  uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd;  // rebias the exponent (-112 << 23) and round to nearest even
  return static_cast<uint16_t>(sign | (x >> 13));
}

uint16_t float_to_bf16(float f) {
  uint32_t x = f2u(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

const char *dtype_name(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_INT8: return "INT8";
    case ACL_INT32: return "INT32";
    case ACL_UINT8: return "UINT8";
    case ACL_INT16: return "INT16";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT64: return "UINT64";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_BF16: return "BF16";
    case ACL_INT4: return "INT4";
    case ACL_UINT1: return "UINT1";
    case ACL_COMPLEX32: return "COMPLEX32";
    case ACL_DT_UNDEFINED: return "UNDEFINED";
  }
  return "UNKNOWN";
}

int64_t dtype_size(aclDataType t) {
  switch (t) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    case ACL_COMPLEX32: return 4;
    default: return 0;
  }
}

const char *format_name(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NC1HWC0_C04: return "NC1HWC0_C04";
    case ACL_FORMAT_HWCN: return "HWCN";
    case ACL_FORMAT_NDHWC: return "NDHWC";
    case ACL_FORMAT_FRACTAL_NZ: return "FRACTAL_NZ";
    case ACL_FORMAT_NCDHW: return "NCDHW";
    case ACL_FORMAT_NDC1HWC0: return "NDC1HWC0";
    case ACL_FRACTAL_Z_3D: return "FRACTAL_Z_3D";
    case ACL_FORMAT_NC: return "NC";
    case ACL_FORMAT_NCL: return "NCL";
  }
  return "UNKNOWN";
}

bool is_known_format(aclFormat f) { return std::strcmp(format_name(f), "UNKNOWN") != 0; }

bool is_private_format(aclFormat f) {
  switch (f) {
    case ACL_FORMAT_ND: case ACL_FORMAT_NCHW: case ACL_FORMAT_NHWC: case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC: case ACL_FORMAT_NCDHW: case ACL_FORMAT_NC: case ACL_FORMAT_NCL:
      return false;
    default: return true;
  }
}

// ---- tensors ----------------------------------------------------------------------------------
int64_t View::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;  // dims were checked at creation: the product fits int64
  return n;
}

Strided4 to_nchw(const View &v, bool nhwc) {
  Strided4 t;
  t.base = static_cast<char *>(v.data) + (v.data ? v.offset * dtype_size(v.dtype) : 0);
  const int r = v.rank();
  const int off = r == 4 ? 1 : 0;  // position of the first non-batch dim
  if (r == 4) {
    t.n = v.dims[0];
    t.sn = v.strides[0];
  }
  int ic = nhwc ? off + 2 : off, ih = nhwc ? off : off + 1, iw = nhwc ? off + 1 : off + 2;
  t.c = v.dims[ic];
  t.sc = v.strides[ic];
  t.h = v.dims[ih];
  t.sh = v.strides[ih];
  t.w = v.dims[iw];
  t.sw = v.strides[iw];
  return t;
}

std::string dims_str(const std::vector<int64_t> &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(d[i]);
  }
  return s + "]";
}

bool view_is_non_overlapping(const View &v) {
  std::vector<std::pair<int64_t, int64_t>> ds;  // (|stride|, size)
  for (size_t i = 0; i < v.dims.size(); ++i) {
    if (v.dims[i] == 0) return true;
    if (v.dims[i] > 1) ds.emplace_back(v.strides[i] < 0 ? -v.strides[i] : v.strides[i], v.dims[i]);
  }
  std::sort(ds.begin(), ds.end());
  int64_t extent = 0;  // max offset reachable by the dims seen so far
  for (auto &p : ds) {
    if (p.first <= extent) return false;
    extent += p.first * (p.second - 1);
  }
  return true;
}

aclnnStatus check_out_pointers(const char *api, const uint64_t *workspace_size, aclOpExecutor **executor) {
  if (!workspace_size) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: workspaceSize must not be null", api);
  if (!executor) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: executor must not be null", api);
  return ACLNN_SUCCESS;
}

aclnnStatus check_not_null(const char *api, std::initializer_list<NamedArg> args) {
  for (const NamedArg &x : args)
    if (!x.p) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s must not be null", api, x.name);
  return ACLNN_SUCCESS;
}

aclnnStatus check_data(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all)
    if (x.t->view.numel() > 0 && x.t->view.data == nullptr)
      return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: %s must have data (tensorData is null)", api,
                  x.name);
  return ACLNN_SUCCESS;
}

namespace {
// The bytes [lo, hi) a non-empty view with data can touch.
void byte_range(const View &v, uintptr_t *lo, uintptr_t *hi) {
  int64_t a = v.offset, b = v.offset;
  for (size_t i = 0; i < v.dims.size(); ++i) {
    const int64_t span = (v.dims[i] - 1) * v.strides[i];  // checked by aclCreateTensor
    (span < 0 ? a : b) += span;
  }
  const int64_t es = dtype_size(v.dtype) > 0 ? dtype_size(v.dtype) : 1;
  *lo = reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>(a * es);
  *hi = reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>((b + 1) * es);
}
}  // namespace

aclnnStatus check_element_bound(const char *api, std::initializer_list<Named> all) {
  for (const Named &x : all) {
    int64_t count = 1;
    for (int64_t d : x.t->view.dims)
      if (!checked_mul(count, d > 0 ? d : 1, &count) || count > kMaxElements)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: %s shape %s asks for more than 2^40 elements (zero dims counted as 1), "
                    "more than any call can need",
                    api, x.name, dims_str(x.t->view.dims).c_str());
  }
  return ACLNN_SUCCESS;
}

aclnnStatus check_storage(const char *api, std::initializer_list<Io> all) {
  for (const Io &x : all) {
    const View &v = x.t->view;
    const int64_t es = dtype_size(v.dtype);
    if (x.role != Role::kShape && v.data && v.numel() > 0 && es > 1 &&
        (reinterpret_cast<uintptr_t>(v.data) + static_cast<uintptr_t>(v.offset * es)) % es != 0)
      return fail(ACLNN_ERR_PARAM_INVALID,
                  "%s: %s data address %p (offset %" PRId64 ") is not aligned to its element size "
                  "%" PRId64,
                  api, x.name, v.data, v.offset, es);
  }
  for (const Io &out : all) {
    if (out.role != Role::kWrite || !out.t->view.data || out.t->view.numel() == 0) continue;
    uintptr_t lo, hi;
    byte_range(out.t->view, &lo, &hi);
    for (const Io &other : all) {
      if (&other == &out || other.role == Role::kShape || !other.t->view.data ||
          other.t->view.numel() == 0)
        continue;
      uintptr_t olo, ohi;
      byte_range(other.t->view, &olo, &ohi);
      if (lo < ohi && olo < hi)
        return fail(ACLNN_ERR_PARAM_INVALID,
                    "%s: %s and %s share storage (bytes [%p, %p) and [%p, %p)); an output must not "
                    "overlap another tensor of the call",
                    api, out.name, other.name, reinterpret_cast<void *>(lo),
                    reinterpret_cast<void *>(hi), reinterpret_cast<void *>(olo),
                    reinterpret_cast<void *>(ohi));
    }
  }
  return ACLNN_SUCCESS;
}

std::string describe(const char *name, const aclTensor *t) {
  return format("%s=%s%s/%s", name, dtype_name(t->view.dtype), dims_str(t->view.dims).c_str(),
                format_name(t->view.format));
}

}  // namespace poolgrad

using namespace poolgrad;

// ---- public C API: tensors --------------------------------------------------------------------
extern "C" {

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
  static const char *api = "aclCreateTensor";
  if (viewDimsNum > 0 && viewDims == nullptr) {
    set_error("%s: viewDims must not be null when viewDimsNum is %" PRIu64, api, viewDimsNum);
    return nullptr;
  }
  if (viewDimsNum > 0 && stride == nullptr) {
    set_error("%s: stride must not be null when viewDimsNum is %" PRIu64, api, viewDimsNum);
    return nullptr;
  }
  if (storageDimsNum > 0 && storageDims == nullptr) {
    set_error("%s: storageDims must not be null when storageDimsNum is %" PRIu64, api,
              storageDimsNum);
    return nullptr;
  }
  if (viewDimsNum > 64 || storageDimsNum > 64) {
    set_error("%s: at most 64 dims are supported, but got viewDimsNum=%" PRIu64
              " storageDimsNum=%" PRIu64, api, viewDimsNum, storageDimsNum);
    return nullptr;
  }
  if (dtype_size(dataType) == 0 && dataType != ACL_STRING) {
    // Unknown and sub-byte dtypes are kept (ops reject them with their own message) but must
    // still be a value of the enum.
    if (std::strcmp(dtype_name(dataType), "UNKNOWN") == 0) {
      set_error("%s: dataType %d is not an aclDataType", api, static_cast<int>(dataType));
      return nullptr;
    }
  }
  if (!is_known_format(format)) {
    set_error("%s: format %d is not an aclFormat", api, static_cast<int>(format));
    return nullptr;
  }
  if (offset < 0) {
    set_error("%s: offset must be >= 0, but got %" PRId64, api, offset);
    return nullptr;
  }
  {
    // The byte offset of the first element must fit int64 too, also for an empty view.
    int64_t es = dtype_size(dataType) > 0 ? dtype_size(dataType) : 1, bytes;
    if (__builtin_mul_overflow(offset, es, &bytes)) {
      set_error("%s: offset %" PRId64 " times the element size %" PRId64 " overflows int64", api,
                offset, es);
      return nullptr;
    }
  }
  // Storage element count, overflow-checked.
  int64_t storage = 1;
  for (uint64_t i = 0; i < storageDimsNum; ++i) {
    if (storageDims[i] < 0) {
      set_error("%s: storageDims[%" PRIu64 "] must be >= 0, but got %" PRId64, api, i,
                storageDims[i]);
      return nullptr;
    }
    if (__builtin_mul_overflow(storage, storageDims[i], &storage)) {
      set_error("%s: the storage element count %s overflows int64", api,
                dims_str(std::vector<int64_t>(storageDims, storageDims + storageDimsNum)).c_str());
      return nullptr;
    }
  }
  // View extent, overflow-checked: the lowest and highest element offsets.
  int64_t lo = offset, hi = offset, count = 1;
  bool empty = false;
  for (uint64_t i = 0; i < viewDimsNum; ++i) {
    if (viewDims[i] < 0) {
      set_error("%s: viewDims[%" PRIu64 "] must be >= 0, but got %" PRId64, api, i, viewDims[i]);
      return nullptr;
    }
    if (viewDims[i] == 0) empty = true;
    if (__builtin_mul_overflow(count, viewDims[i], &count)) {
      set_error("%s: the view element count of %s overflows int64", api,
                dims_str(std::vector<int64_t>(viewDims, viewDims + viewDimsNum)).c_str());
      return nullptr;
    }
  }
  if (!empty) {
    for (uint64_t i = 0; i < viewDimsNum; ++i) {
      int64_t span;
      if (__builtin_mul_overflow(viewDims[i] - 1, stride[i], &span)) {
        set_error("%s: the view extent overflows int64 (viewDims[%" PRIu64 "]=%" PRId64
                  ", stride[%" PRIu64 "]=%" PRId64 ")", api, i, viewDims[i], i, stride[i]);
        return nullptr;
      }
      if (__builtin_add_overflow(span > 0 ? hi : lo, span, span > 0 ? &hi : &lo)) {
        set_error("%s: offset %" PRId64 " plus the view extent overflows int64 (viewDims[%" PRIu64
                  "]=%" PRId64 ", stride[%" PRIu64 "]=%" PRId64 ")",
                  api, offset, i, viewDims[i], i, stride[i]);
        return nullptr;
      }
    }
    int64_t bytes;
    int64_t es = dtype_size(dataType) > 0 ? dtype_size(dataType) : 1;
    if (__builtin_mul_overflow(storage, es, &bytes)) {
      set_error("%s: the storage byte size overflows int64", api);
      return nullptr;
    }
    if (lo < 0 || hi >= storage) {
      set_error("%s: the view (dims %s, strides %s, offset %" PRId64
                ") reaches elements [%" PRId64 ", %" PRId64 "], outside the storage of %" PRId64
                " elements (storageDims %s)", api,
                dims_str(std::vector<int64_t>(viewDims, viewDims + viewDimsNum)).c_str(),
                dims_str(std::vector<int64_t>(stride, stride + viewDimsNum)).c_str(), offset, lo,
                hi, storage,
                dims_str(std::vector<int64_t>(storageDims, storageDims + storageDimsNum)).c_str());
      return nullptr;
    }
  }
  // A null tensorData is accepted (CANN allows description-only tensors); the operators refuse
  // it for a tensor whose data they read or write.
  auto *t = new (std::nothrow) aclTensor();
  if (!t) {
    set_error("%s: out of memory", api);
    return nullptr;
  }
  t->view.data = tensorData;
  t->view.dtype = dataType;
  t->view.format = format;
  t->view.offset = offset;
  t->view.dims.assign(viewDims, viewDims + viewDimsNum);
  t->view.strides.assign(stride, stride + viewDimsNum);
  t->storage_dims.assign(storageDims, storageDims + storageDimsNum);
  return t;
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

static aclnnStatus copy_out(const char *api, const std::vector<int64_t> &v, int64_t **out,
                            uint64_t *num) {
  if (!out || !num) return fail(ACLNN_ERR_PARAM_NULLPTR, "%s: output pointers must not be null", api);
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
  if (!t || !offset) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetViewOffset: arguments must not be null");
  *offset = t->view.offset;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFormat(const aclTensor *t, aclFormat *format) {
  if (!t || !format) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFormat: arguments must not be null");
  *format = t->view.format;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetDataType(const aclTensor *t, aclDataType *dataType) {
  if (!t || !dataType) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetDataType: arguments must not be null");
  *dataType = t->view.dtype;
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetIntArraySize(const aclIntArray *a, uint64_t *size) {
  if (!a || !size) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetIntArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetFloatArraySize(const aclFloatArray *a, uint64_t *size) {
  if (!a || !size) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetFloatArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}
aclnnStatus aclGetBoolArraySize(const aclBoolArray *a, uint64_t *size) {
  if (!a || !size) return fail(ACLNN_ERR_PARAM_NULLPTR, "aclGetBoolArraySize: arguments must not be null");
  *size = a->values.size();
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnInit(const char *) { return ACLNN_SUCCESS; }
aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }

// ---- poolgrad controls ------------------------------------------------------------------------
void poolgradSetNumThreads(int n) { set_num_threads(n); }
int poolgradGetNumThreads(void) { return num_threads(); }
const char *poolgradVersion(void) { return "0.1.0"; }

float aclFloat16ToFloat(aclFloat16 value) { return half_to_float(value); }
aclFloat16 aclFloatToFloat16(float value) { return float_to_half(value); }
size_t aclDataTypeSize(aclDataType dataType) { return static_cast<size_t>(dtype_size(dataType)); }

}  // extern "C"
