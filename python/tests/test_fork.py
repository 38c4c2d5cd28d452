"""A process that forks after a multi-threaded kernel (multiprocessing with the fork start method,
PyTorch's DataLoader workers) can still run poolgrad in the child: the child starts its own thread
pool instead of waiting on the parent's threads, which do not exist there."""
import subprocess
import sys
import textwrap


def test_fork_after_large_threaded_call():
    # In a subprocess, so that a hang is a timeout of that process, not of the test session.
    code = textwrap.dedent("""
        import multiprocessing as mp
        import numpy as np
        import poolgrad

        def work(_):
            x = np.random.default_rng(1).standard_normal((4, 32, 64, 64), dtype=np.float32)
            out, idx = poolgrad.max_pool2d_with_indices(x, 3, 2, 1)
            gx = poolgrad.max_pool2d_with_indices_backward(np.ones_like(out), x, idx, 3, 2, 1)
            return float(out.sum()), float(gx.sum())

        if __name__ == "__main__":
            poolgrad.set_num_threads(2)
            parent = work(0)  # the parent's pool is now running
            with mp.get_context("fork").Pool(2) as pool:
                results = pool.map(work, range(4))
            assert all(r == parent for r in results), (results, parent)
            print("fork OK")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "fork OK" in r.stdout
