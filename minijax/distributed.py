"""Many processes (``jax.distributed``'s names): ``initialize`` joins this process to a
run of ``num_processes`` processes, after which ``minijax.devices()`` lists every
process's devices (global ids) and a ``jit`` over a mesh of them runs in all processes,
with collectives between processes over gloo (TCP).

How processes meet. Process 0 starts a small coordinator process that hosts jaxlib's
coordination service; every process (0 included) connects jaxlib's distributed client
to it, and the CPU client is made with that client, the process's id and gloo
collectives. The service lives in its own process because a jaxlib client whose
service goes away aborts its process (SIGABRT) at its next heartbeat or error poll:
with the service apart, process 0 may die without taking the others with it.

How a lost peer is reported. jaxlib's own failure reports abort the process, so the
service is made "recoverable" (it reports nothing) and minijax watches the peers
itself: each process keeps a TCP link to the coordinator and pings it; the coordinator
tells the others when a link closes without a goodbye (the process died) or falls
silent for ``heartbeat_timeout_seconds``. The process's watchdog thread then raises
``DistributedError`` in the main thread; if the main thread is blocked in a
collective that can no longer finish, the watchdog prints the error to stderr and
ends the process with exit status 1 (never a hang or an abort). A peer that never
arrives makes ``initialize`` raise ``DistributedError`` after
``initialization_timeout`` seconds.
"""

import atexit
import ctypes
import math
import os
import select
import socket
import subprocess
import sys
import threading
import time

from . import backend
from .backend import _jaxlib, cpu as _cpu
from .errors import DistributedError

__all__ = ["initialize", "is_initialized", "shutdown"]

_state = None   # the _Run of this process while initialized
_lock = threading.Lock()
#: Seconds the main thread has to take a lost peer's DistributedError before the
#: watchdog ends the process itself (it is blocked in a collective that cannot finish).
DELIVERY_GRACE = 3.0
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Run:
    def __init__(self, process_id, num_processes, heartbeat):
        self.process_id = process_id
        self.num_processes = num_processes
        self.heartbeat = heartbeat
        self.client = None
        self.coordinator = None   # the coordinator's Popen (process 0 only)
        self.link = None          # the TCP link to the coordinator
        self.closing = False
        self.failed = None        # the message of a lost peer
        self.delivered = threading.Event()   # set once the main thread raised it


def is_initialized():
    """Whether ``initialize`` has joined this process to a multi-process run."""
    return _state is not None


def initialize(coordinator_address=None, num_processes=None, process_id=None,
               local_device_ids=None, cluster_detection_method=None,
               initialization_timeout=300, heartbeat_timeout_seconds=100,
               shutdown_timeout_seconds=300, coordinator_bind_address=None,
               slice_index=None, partition_index=None):
    """Join this process to a run of ``num_processes`` processes that meet at
    ``coordinator_address`` (``"host:port"``; process 0 serves it). Call it before
    anything that uses a device. Raises ``DistributedError`` if the others do not
    all arrive within ``initialization_timeout`` seconds."""
    global _state
    if backend.backends()["cpu"].client_made:
        raise RuntimeError("minijax.distributed.initialize() must be called before any "
                           "minijax calls that might initialise the XLA backend. This "
                           "includes any computation, but also calls to minijax.devices, "
                           "minijax.device_put, and others.")
    for name, value in (("local_device_ids", local_device_ids), ("slice_index", slice_index),
                        ("partition_index", partition_index)):
        if value is not None:
            raise NotImplementedError(f"minijax.distributed.initialize: {name} is not "
                                      f"supported (minijax's processes use all their CPU "
                                      f"devices, set by config 'cpu_device_count'); leave "
                                      f"it None")
    if cluster_detection_method not in (None, "deactivate"):
        raise NotImplementedError(f"minijax.distributed.initialize: cluster detection "
                                  f"({cluster_detection_method!r}) is not supported; pass "
                                  f"coordinator_address, num_processes and process_id")
    coordinator_address = coordinator_address or os.environ.get("JAX_COORDINATOR_ADDRESS")
    if coordinator_address is None:
        raise ValueError("coordinator_address should be defined.")
    if num_processes is None:
        raise ValueError("Number of processes must be defined.")
    if process_id is None:
        raise ValueError("The process id of the current process must be defined.")
    if not isinstance(process_id, int):
        raise TypeError(f"process_id must be a nonnegative int. Got process_id={process_id} "
                        f"of type {type(process_id)}.")
    if not isinstance(num_processes, int):
        raise TypeError(f"num_processes must be a positive int. Got num_processes="
                        f"{num_processes} of type {type(num_processes)}.")
    if not 0 <= process_id < num_processes:
        raise ValueError(f"process_id and num_processes must be nonnegative, with process_id "
                         f"< num_processes. Got process_id={process_id}, "
                         f"num_processes={num_processes}.")
    host, sep, port = coordinator_address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"minijax.distributed.initialize: coordinator_address must be "
                         f"'host:port', got {coordinator_address!r}")
    with _lock:
        if _state is not None:
            raise RuntimeError("distributed.initialize should only be called once.")
        run = _Run(process_id, num_processes, heartbeat_timeout_seconds)
        try:
            _meet(run, coordinator_address, host.strip("[]"),
                  coordinator_bind_address or coordinator_address, initialization_timeout,
                  heartbeat_timeout_seconds, shutdown_timeout_seconds)
        except BaseException:
            _abandon(run, stop_coordinator=True)
            raise
        _state = run
    atexit.register(_at_exit)


def _meet(run, address, host, bind_address, init_timeout, heartbeat, shutdown_timeout):
    pid, n = run.process_id, run.num_processes
    if pid == 0:
        link_address = _start_coordinator(run, bind_address, n, heartbeat, init_timeout,
                                          shutdown_timeout, host)
    run.client = _jaxlib.distributed_client(address, pid, init_timeout, heartbeat,
                                            shutdown_timeout, _on_runtime_error)
    try:
        run.client.connect()
    except Exception as e:
        # (jaxlib's text is "std::bad_cast" here: its handler could not pass the status)
        detail = "" if "bad_cast" in str(e) else f" ({e})"
        raise DistributedError(
            f"process {pid} of {n} could not meet the others at {address} within "
            f"initialization_timeout={init_timeout} s: a process did not start, or not "
            f"with the same coordinator_address and num_processes{detail}") from None
    key = "minijax/coordinator_link"
    if pid == 0:
        run.client.key_value_set(key, link_address)
    else:
        link_address = run.client.blocking_key_value_get(key, int(init_timeout * 1000))
    link_host, _, link_port = link_address.rpartition(":")
    run.link = socket.create_connection((link_host, int(link_port)), timeout=init_timeout)
    run.link.settimeout(None)
    run.link.sendall(f"hello {pid}\n".encode())
    threading.Thread(target=_watch, args=(run,), name="minijax-distributed-watchdog",
                     daemon=True).start()
    loopback = host in ("localhost", "127.0.0.1", "::1")
    _cpu.set_distributed({"client": run.client, "process_id": pid, "num_processes": n,
                          "host": "127.0.0.1" if loopback else None,
                          "timeout_minutes": max(1, math.ceil(init_timeout / 60))})
    try:
        backend.get_client("cpu")   # (every process's devices are exchanged here)
    except Exception as e:
        _cpu.set_distributed(None)
        if run.failed is not None:
            raise DistributedError(run.failed) from None
        raise DistributedError(f"process {pid}: making the CPU client of the {n} "
                               f"processes failed ({e})") from None


def _on_runtime_error(*args):
    # jaxlib calls this when its client fails (a connect that times out); having a
    # Python handler makes that failure an exception rather than an abort
    pass


def _start_coordinator(run, bind_address, n, heartbeat, init_timeout, shutdown_timeout,
                       host):
    args = [bind_address, str(n), str(heartbeat), str(init_timeout), str(shutdown_timeout),
            host]
    run.coordinator = subprocess.Popen(
        [sys.executable, "-c", "import sys; from minijax.distributed import _coordinate; "
                               "_coordinate(sys.argv[1:])", *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [_PACKAGE_PARENT] + os.environ.get("PYTHONPATH", "").split(os.pathsep))},
        start_new_session=True)   # (a Ctrl-C to the group stops the processes, not it)
    out = run.coordinator.stdout
    ready, _, _ = select.select([out], [], [], max(30.0, init_timeout))
    line = out.readline().decode().strip() if ready else ""
    if not line.startswith("link "):
        raise DistributedError(f"process 0: the coordinator for {bind_address} did not start"
                               f" ({line or 'no answer'}); is the port free?")
    return line[5:]


def _watch(run):
    """The watchdog thread: pings the coordinator and listens for lost peers."""
    link = run.link
    interval = max(0.05, min(1.0, run.heartbeat / 4))
    pending = b""
    next_ping = 0.0
    while not run.closing:
        now = time.monotonic()
        try:
            if now >= next_ping:
                link.sendall(b"ping\n")
                next_ping = now + interval
            ready, _, _ = select.select([link], [], [], interval)
            data = link.recv(4096) if ready else None
        except (OSError, ValueError):
            data = b""
        if run.closing:
            return
        if data == b"":
            _fail(run, "the coordinator (started by process 0) is gone: process 0 died or "
                       "was killed")
            return
        if data:
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.startswith(b"dead "):
                    _, peer, why = line.decode().split(" ", 2)
                    _fail(run, f"process {peer} {why}")
                    return


def _fail(run, why):
    message = (f"process {run.process_id} of {run.num_processes} lost a peer: {why}. The "
               f"run cannot continue; see that process's output")
    run.failed = message
    delivered = run.delivered
    DistributedError.pending = message
    DistributedError.delivered = delivered
    main = threading.main_thread().ident
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main),
                                               ctypes.py_object(DistributedError))
    if not delivered.wait(DELIVERY_GRACE):
        # the main thread is blocked in a collective that cannot finish
        _die(message)


def _die(message):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:   # (a closed stream must not stop the exit)
            pass
    if message is not None:
        os.write(2, f"minijax.errors.DistributedError: {message}\n".encode())
    os._exit(1)


def _at_exit():
    global _state
    run = _state
    if run is None:
        return
    if run.failed is not None:
        # jaxlib's client would wait for the lost peer at its shutdown barrier; the
        # error is printed already if the main thread raised it
        _die(None if run.delivered.is_set() else run.failed)
    if getattr(sys, "last_value", None) is not None:
        # ending on an uncaught exception: the others may be waiting for this process in
        # a collective and would never reach the shutdown barrier. Leave without a
        # goodbye, so that the coordinator tells them this process died.
        _state = None
        _abandon(run, goodbye=False)
        return
    shutdown()


def shutdown():
    """Leave the run: wait for the other processes at jaxlib's shutdown barrier, then
    disconnect. Nothing happens when ``initialize`` was not called."""
    global _state
    with _lock:
        run = _state
        if run is None:
            return
        _state = None
        error = None
        if run.failed is None:
            try:
                run.client.shutdown()
            except Exception as e:   # (a peer that is gone: reported below)
                error = e
        _abandon(run, goodbye=error is None)
    if run.failed is not None:
        raise DistributedError(run.failed)
    if error is not None:
        raise DistributedError(f"process {run.process_id}: the other processes did not all "
                               f"reach shutdown ({error})") from None


def _abandon(run, stop_coordinator=False, goodbye=True):
    run.closing = True
    if stop_coordinator and run.coordinator is not None:   # (the run never began)
        run.coordinator.kill()
    if run.link is not None:
        try:
            if goodbye:
                run.link.sendall(b"bye\n")
            run.link.close()
        except OSError:
            pass
    if run.coordinator is not None and run.failed is None and goodbye:
        try:   # (it ends once every process has left)
            run.coordinator.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


# ---------------------------------------------------------------- the coordinator process

def _coordinate(argv):
    """The coordinator process: jaxlib's coordination service, and the links through
    which processes say they are alive; tells the others when one is lost. Ends when
    every process has left (or none came)."""
    bind, n, heartbeat, init_timeout, shutdown_timeout, host = argv
    n, heartbeat, init_timeout = int(n), float(heartbeat), float(init_timeout)
    try:
        service = _jaxlib.distributed_service(bind, n, int(heartbeat), int(init_timeout),
                                              int(float(shutdown_timeout)))
        listener = socket.create_server((host, 0))
    except Exception as e:
        print(f"error {type(e).__name__}: {e}", flush=True)
        return
    print(f"link {host}:{listener.getsockname()[1]}", flush=True)
    links = {}   # socket -> [process id, time last heard, unread bytes]
    left = set()
    arrived = False
    give_up = time.monotonic() + init_timeout + 30

    def lost(pid, why):
        for sock, entry in list(links.items()):
            if entry[0] != pid:
                try:
                    sock.sendall(f"dead {pid} {why}\n".encode())
                except OSError:
                    pass

    while True:
        ready, _, _ = select.select([listener, *links], [], [], 0.2)
        now = time.monotonic()
        for sock in ready:
            if sock is listener:
                conn, _ = listener.accept()
                links[conn] = [None, now, b""]
                arrived = True
                continue
            entry = links[sock]
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                del links[sock]
                sock.close()
                if entry[0] is not None and entry[0] not in left:
                    lost(entry[0], "died (its process ended without minijax.distributed."
                                   "shutdown)")
                continue
            entry[1] = now
            entry[2] += data
            *lines, entry[2] = entry[2].split(b"\n")
            for line in lines:
                if line.startswith(b"hello "):
                    entry[0] = int(line[6:])
                elif line == b"bye":
                    left.add(entry[0])
        for sock, entry in list(links.items()):
            if entry[0] is not None and now - entry[1] > heartbeat and entry[0] not in left:
                del links[sock]
                sock.close()
                lost(entry[0], f"stopped answering (no heartbeat for {heartbeat:g} s)")
        if not links and (arrived or now > give_up):
            break
    service.shutdown()
