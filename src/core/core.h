// SPDX-License-Identifier: Apache-2.0
// What an operator's API code (phase 1 and its plan) uses of the core: status and messages, dtypes,
// tensor handles and views, the shared checks, executors, threads and the workspace arena.
// Kernels include only view.h, dtype.h, threads.h, scratch.h and simd.h: they never see a handle.
#pragma once

#include "checks.h"
#include "dtype.h"
#include "executor.h"
#include "scratch.h"
#include "status.h"
#include "tensor.h"
#include "threads.h"
#include "view.h"
