# SPDX-License-Identifier: Apache-2.0
"""Per-call overhead on a 1x1x4x4 max pool (issue 18's figure): poolgrad's layers against ATen's,
in alternating blocks in one process (this VM's speed drifts), best block per row, microseconds.

    .venv/bin/python bench/overhead.py [--markdown]

--markdown prints the report's "per_call" section (scripts/bench.sh appends it to
docs/performance.md).
"""
import sys
import timeit

import numpy as np
import torch

import poolgrad
import poolgrad.torch as pgt


def main(blocks=7, calls=2000):
    poolgrad.set_num_threads(1)
    torch.set_num_threads(1)
    x = np.random.rand(1, 1, 4, 4).astype(np.float32)
    xt = torch.from_numpy(x.copy())
    out, idx = np.empty((1, 1, 2, 2), np.float32), np.empty((1, 1, 2, 2), np.int64)
    layer, peer_layer = pgt.MaxPool2d(2), torch.nn.MaxPool2d(2)
    api = poolgrad._api("aclnnMaxPool2dWithIndices")  # the generic binding, as the package calls it
    args = dict(self=x, kernelSize=[2], stride=[], padding=[0], dilation=[1], ceilMode=False, out=out, indices=idx)
    rows = {
        "extension call (phase 1 + 2, outputs given)": lambda: api.call(args),
        "poolgrad.max_pool2d_with_indices, NumPy": lambda: poolgrad.max_pool2d_with_indices(x, 2),
        "poolgrad.max_pool2d_with_indices, torch": lambda: poolgrad.max_pool2d_with_indices(xt, 2),
        "torch.ops.poolgrad.max_pool2d_with_indices": lambda: torch.ops.poolgrad.max_pool2d_with_indices(xt, [2, 2]),
        "poolgrad.torch.max_pool2d (the fast path)": lambda: pgt.max_pool2d(xt, 2, return_indices=True),
        "poolgrad.torch.MaxPool2d module": lambda: layer(xt),
        "torch.ops.aten.max_pool2d_with_indices": lambda: torch.ops.aten.max_pool2d_with_indices(xt, [2, 2]),
        "torch.nn.functional.max_pool2d": lambda: torch.nn.functional.max_pool2d(xt, 2, return_indices=True),
        "torch.nn.MaxPool2d module": lambda: peer_layer(xt),
    }
    best = dict.fromkeys(rows, float("inf"))
    for _ in range(blocks):
        for name, f in rows.items():
            best[name] = min(best[name], timeit.timeit(f, number=calls) / calls * 1e6)
    # Issue 38's goal: poolgrad.torch at most 1.5x torch's per call, measured in this run.
    pairs = (("poolgrad.torch.max_pool2d (the fast path)", "torch.nn.functional.max_pool2d"),
             ("poolgrad.torch.MaxPool2d module", "torch.nn.MaxPool2d module"))
    if "--markdown" in sys.argv:
        print("## per_call\n\nPer-call time of a 1x1x4x4 max pool (one thread; the best of "
              f"{blocks} alternating blocks of {calls} calls; bench/overhead.py). Heap allocations of a C "
              "call: one per aclTensor and aclIntArray created (dims inline), at most 5 in phase 1 + 2 "
              "(ctest allocations_per_call).\n\n| call | us |\n|---|---|")
        for name, us in best.items():
            print(f"| {name} | {us:.2f} |")
        print("\n| poolgrad / torch | ratio |\n|---|---|")
        for mine, theirs in pairs:
            print(f"| {mine} / {theirs} | {best[mine] / best[theirs]:.2f} |")
        return
    for name, us in best.items():
        print(f"{us:7.2f} us  {name}")
    for mine, theirs in pairs:
        print(f"{best[mine] / best[theirs]:7.2f} x   {mine} / {theirs}")


if __name__ == "__main__":
    main()
