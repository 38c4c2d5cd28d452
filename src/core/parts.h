// SPDX-License-Identifier: Apache-2.0
// The one description of a call's workspace for kernels that split their items over parts: the
// parts' first-error slots, then one scratch slice per part (laid out by layout(Arena&)).
#pragma once

#include <new>

#include "scatter.h"
#include "scratch.h"
#include "threads.h"

namespace poolgrad {

// With a null workspace it only counts the bytes (phase 1); otherwise it runs
// body(begin, end, slice, error slot) over the parts of [0, items) on `threads` threads and writes
// the first error of all (in item order) to *first_bad when that is given. Returns the bytes.
template <class Layout, class Body>
inline int64_t run_parts(int threads, int64_t items, void *workspace, Layout layout, Body body,
                         FirstError *first_bad) {
  Arena count;
  count.take<FirstError>(threads);
  const int64_t per_part = layout_bytes(layout);
  count.take_slices(parts_for(items, threads), per_part);
  if (!workspace) return count.used();
  Arena ws(workspace, count.used());
  FirstError *const found = ws.take<FirstError>(threads);
  for (int t = 0; t < threads; ++t) new (&found[t]) FirstError();
  const Arena::Slices sl = ws.take_slices(parts_for(items, threads), per_part);
  auto run = [&](int part, int64_t b, int64_t e) { body(b, e, sl.slice(part), &found[part]); };
  parallel_for(items, run, threads);
  FirstError first;
  for (int t = 0; t < threads; ++t) first.merge(found[t]);
  if (first_bad) *first_bad = first;
  return count.used();
}

}  // namespace poolgrad
