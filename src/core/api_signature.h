// SPDX-License-Identifier: Apache-2.0
// An aclnn API's phase 1 called on arguments made one per parameter from its signature: the
// generic callers outside the library (the Python binding's table of APIs, the signature fuzzer)
// write only how to make an argument of each C type, and the table of APIs is generated from the
// operator descriptors (aclnn_apis.inc), so a new operator needs no code in either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <utility>

#include "aclnn/aclnn_base.h"

namespace poolgrad::api {

// Phase 1's parameter count without its last two (the workspace-size and executor pointers).
template <class... P>
constexpr std::size_t param_count(aclnnStatus (*)(P...)) {
  return sizeof...(P) - 2;
}

template <template <class> class Holder, class... P, class Make, class Body, std::size_t... I>
auto with_params(aclnnStatus (*f)(P...), Make &&make, Body &&body, std::index_sequence<I...>) {
  using Types = std::tuple<P...>;
  // Braces: make(0), make(1), ... run in the header's order (a fuzzer's decoding depends on it).
  std::tuple<Holder<std::tuple_element_t<I, Types>>...> held{make(I)...};
  auto phase1 = [&](uint64_t *ws, aclOpExecutor **ex) {
    return f(std::get<I>(held).get()..., ws, ex);
  };
  return body(held, phase1);
}

// Makes one Holder<T> per parameter type T of f's phase 1, the i-th from make(i), in place; then
// returns body(held, phase1), where phase1(ws, ex) calls f on the holders' get() values.
template <template <class> class Holder, class... P, class Make, class Body>
auto with_params(aclnnStatus (*f)(P...), Make &&make, Body &&body) {
  return with_params<Holder>(f, std::forward<Make>(make), std::forward<Body>(body),
                             std::make_index_sequence<sizeof...(P) - 2>());
}

}  // namespace poolgrad::api
