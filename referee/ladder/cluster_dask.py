"""Reaching Dask for ``--cluster``: the optional import, a client, a local cluster.

Dask is optional (``pip install -e '.[cluster]'``): it is imported only here, when
``--cluster`` is given (or on a worker, by the cluster's own modules), so a ladder without
``--cluster`` never needs it.
"""

from __future__ import annotations

import importlib
from typing import Any

from referee.errors import LadderError

LOCAL_PREFIX = "local:"


def dask_distributed() -> Any:
    """Dask's ``distributed`` (optional; untyped, hence ``Any``)."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise LadderError("--cluster needs Dask: pip install -e '.[cluster]'") from None


def local_cluster(workers: int, **options: Any) -> Any:
    """A Dask cluster of ``workers`` processes on this machine, one match at a time each, with
    no dashboard.

    Its scheduler serves a few HTTP routes (health, metrics) even without a dashboard, by
    default on port 8787: a second local ladder on the machine (or a test beside another) found
    it taken, warned and moved. Here they take a free port of the loopback, as the scheduler's
    own port does."""
    dask = dask_distributed()
    return dask.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
        silence_logs=50,
        **options,
    )


def cluster_client(address: str) -> tuple[Any, Any]:
    """A Dask client and the local cluster it started (``None`` for a running scheduler at
    ``tcp://host:8786``; ``local:N``: N worker processes, one match at a time each). Raises
    ``LadderError``."""
    dask = dask_distributed()
    if address.startswith(LOCAL_PREFIX):
        workers = int(address[len(LOCAL_PREFIX) :])
        cluster = local_cluster(workers)
        return dask.Client(cluster), cluster
    try:
        return dask.Client(address, timeout=10), None
    except OSError as err:
        raise LadderError(f"--cluster {address}: cannot reach the scheduler: {err}") from None


def worker_scratch() -> str | None:
    """The Dask worker's own local directory, which Dask purges once its worker is gone (a
    worker killed with SIGKILL runs no clean-up); ``None`` outside a worker."""
    try:
        return str(dask_distributed().get_worker().local_directory)
    except (ValueError, LadderError):  # not in a worker
        return None
