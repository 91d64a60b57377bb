"""Numpy's BLAS runs on one thread once a process has searched.

OpenBLAS (the BLAS of numpy's wheels) spreads a large matrix product over every core,
then keeps its worker threads spinning for a while in case another product follows.
Those threads take the cores from the embedding model's own threads: on the sympy dev
index (67,000 chunks, two cores), a query window embedded right after a search took 24
ms instead of 14.5, and the search's products ran as fast on one thread as on two (they
are bound by memory, not arithmetic). See `benchmarks/issue_query_latency.py`.

The limit is process-wide and stays: OpenBLAS ignores a worker thread's setting once the
main thread has set a count of its own, so setting and restoring it around each search
would stop working after the first search made on the main thread. A program that
embeds Code Compass and wants its threads back after a search calls threadpoolctl's
`threadpool_limits(limits=os.cpu_count(), user_api="blas")` on its main thread.
"""

from __future__ import annotations

import threading

from threadpoolctl import ThreadpoolController

_lock = threading.Lock()
_done = False


def use_one_blas_thread() -> None:
    """Limit the BLAS libraries loaded in this process to one thread (once)."""
    global _done
    if _done:
        return
    with _lock:
        if not _done:
            ThreadpoolController().limit(limits=1, user_api="blas")
            _done = True
