// SPDX-License-Identifier: Apache-2.0
// A list of int64 values with room for eight in the object itself: a view's dims and strides and
// an int-array attribute, at most eight long in every call an operator serves, then cost no heap
// allocation (they were 16 of a small call's 19 allocations, a third of its time); a longer list
// moves to the heap. The interface is the part of std::vector the library uses.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace poolgrad {

class SmallInts {
 public:
  static constexpr size_t kInline = 8;

  SmallInts() = default;
  SmallInts(const int64_t *v, size_t n) { assign(v, v + n); }
  SmallInts(std::initializer_list<int64_t> v) { assign(v.begin(), v.end()); }
  SmallInts(const std::vector<int64_t> &v) { assign(v.data(), v.data() + v.size()); }  // NOLINT
  SmallInts(size_t n, int64_t value) { resize(n, value); }
  SmallInts(const SmallInts &o) { assign(o.begin(), o.end()); }
  SmallInts(SmallInts &&o) noexcept { take(o); }
  SmallInts &operator=(const SmallInts &o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallInts &operator=(SmallInts &&o) noexcept {
    if (this != &o) {
      delete[] heap_;
      heap_ = nullptr;
      take(o);
    }
    return *this;
  }
  ~SmallInts() { delete[] heap_; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t *data() { return heap_ ? heap_ : inline_; }
  const int64_t *data() const { return heap_ ? heap_ : inline_; }
  int64_t *begin() { return data(); }
  int64_t *end() { return data() + size_; }
  const int64_t *begin() const { return data(); }
  const int64_t *end() const { return data() + size_; }
  int64_t &operator[](size_t i) { return data()[i]; }
  int64_t operator[](size_t i) const { return data()[i]; }
  int64_t &front() { return data()[0]; }
  int64_t front() const { return data()[0]; }
  int64_t &back() { return data()[size_ - 1]; }
  int64_t back() const { return data()[size_ - 1]; }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }

  template <class It>
  void assign(It first, It last) {
    const size_t n = static_cast<size_t>(last - first);
    reserve(n);
    std::copy(first, last, data());
    size_ = n;
  }
  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    if (n > size_) std::fill(data() + size_, data() + n, value);
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == capacity_) reserve(2 * capacity_);
    data()[size_++] = v;
  }
  // Inserts v before position `at` (an iterator of this list).
  void insert(const int64_t *at, int64_t v) {
    const size_t i = static_cast<size_t>(at - data());
    push_back(v);
    std::rotate(data() + i, data() + size_ - 1, data() + size_);
  }
  void clear() { size_ = 0; }

  friend bool operator==(const SmallInts &a, const SmallInts &b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator!=(const SmallInts &a, const SmallInts &b) { return !(a == b); }

 private:
  void reserve(size_t n) {
    if (n <= capacity_) return;
    int64_t *grown = new int64_t[n];
    std::copy(begin(), end(), grown);
    delete[] heap_;
    heap_ = grown;
    capacity_ = n;
  }
  void take(SmallInts &o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (o.heap_) {
      heap_ = o.heap_;
      o.heap_ = nullptr;
      o.capacity_ = kInline;
    } else {
      std::copy(o.inline_, o.inline_ + o.size_, inline_);
    }
    o.size_ = 0;
  }

  int64_t inline_[kInline];
  int64_t *heap_ = nullptr;
  size_t size_ = 0, capacity_ = kInline;
};

}  // namespace poolgrad
