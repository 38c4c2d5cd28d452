# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: a fixed seed and thread count per test."""
import pytest

import poolgrad


@pytest.fixture(autouse=True)
def _threads():
    poolgrad.set_num_threads(2)
    yield
    poolgrad.set_num_threads(0)
