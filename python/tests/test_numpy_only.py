# SPDX-License-Identifier: Apache-2.0
"""The NumPy path works where torch cannot be imported."""
import subprocess
import sys
import textwrap


def test_numpy_path_without_torch():
    code = textwrap.dedent("""
        import sys
        sys.modules['torch'] = None  # any 'import torch' now fails
        import numpy as np
        import poolgrad
        x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
        out, idx = poolgrad.max_pool2d_with_indices(x, 2)
        assert out.tolist() == [[[[5, 7], [13, 15]], [[21, 23], [29, 31]]]], out
        gx = poolgrad.max_pool2d_with_indices_backward(np.ones_like(out), x, idx, 2)
        assert gx.sum() == 8
        y, am = poolgrad.roi_pool_with_argmax(x, np.array([[0, 0, 0, 3, 3]], np.float32), 2, 1.0)
        assert am[0, 0].tolist() == [[5, 7], [13, 15]]
        try:
            import poolgrad.torch
        except ImportError:
            pass
        else:
            raise AssertionError("poolgrad.torch imported without torch")
        print("numpy-only OK")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "numpy-only OK" in r.stdout
