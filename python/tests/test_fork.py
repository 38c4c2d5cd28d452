# SPDX-License-Identifier: Apache-2.0
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


def test_fork_while_another_thread_calls():
    # A thread loops calls (phase 1 + 2 take the executor registry's lock) while the main thread
    # forks: os.fork 200 times, then a multiprocessing fork pool. Each child makes the same call
    # under alarm(5); a child stuck on a lock inherited from the calling thread dies of SIGALRM.
    # Before every process-wide lock was taken around fork (src/core/fork.cpp), 1 child in 400
    # hung.
    code = textwrap.dedent("""
        import multiprocessing as mp, os, signal, threading
        import numpy as np
        import poolgrad

        x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)

        def call(_=None):
            out, idx = poolgrad.max_pool2d_with_indices(x, 2)
            return float(out.sum())

        def child(_):
            signal.alarm(5)
            return call()

        if __name__ == "__main__":
            expected = call()
            stop = threading.Event()
            def loop():
                while not stop.is_set():
                    call()
            workers = [threading.Thread(target=loop) for _ in range(2)]
            for w in workers:
                w.start()
            hung = failed = 0
            for _ in range(200):
                pid = os.fork()
                if pid == 0:
                    signal.alarm(5)
                    os._exit(0 if call() == expected else 1)
                _, status = os.waitpid(pid, 0)
                if os.WIFSIGNALED(status):
                    hung += 1
                elif os.WEXITSTATUS(status) != 0:
                    failed += 1
            with mp.get_context("fork").Pool(2) as pool:
                results = pool.map(child, range(20))
            stop.set()
            for w in workers:
                w.join()
            assert hung == 0 and failed == 0, (hung, failed)
            assert results == [expected] * 20, results
            print("fork OK")
    """)
    r = subprocess.run([sys.executable, "-W", "ignore::DeprecationWarning", "-c", code],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "fork OK" in r.stdout
