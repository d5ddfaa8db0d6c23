"""Persistent compilation cache: XLA executables kept on disk between processes.

A fresh XLA compile costs 100-300 ms even for one small op; restoring a serialised
executable costs a few ms. ``compile_cached`` looks an executable up by a key and
compiles (and stores) it only on a miss.

- Where: ``config.compilation_cache_dir``, else ``$MINIJAX_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/minijax``, else ``~/.cache/minijax``. The directory and any
  missing parents are created with mode 0o700 (whatever the umask); entries are
  written with mode 0o600. A directory owned by someone else or writable by group or
  others is refused with a warning (programs then compile uncached): whoever can write
  an entry can make this process run their code. Only regular files owned by the
  user are read as entries (opened without following symlinks and without blocking).
- On/off: ``config.compilation_cache`` (start-up value from
  ``MINIJAX_COMPILATION_CACHE``, default on).
- What: every compile is cached (``config.compilation_cache_min_compile_secs``,
  default 0, skips compiles faster than that): on this machine even a one-op
  program takes far longer to compile than to deserialise.
- Key: sha256 of the program text, the jaxlib version, the platform and its version,
  device kind, id and count, the serialised compile options, ``$XLA_FLAGS``, the
  host's CPU architecture and feature flags, and the minijax version.
- Entry format: a header (magic, payload length, sha256 of payload, key) then the
  payload. A truncated or corrupt entry, or one that fails to deserialise, is
  recompiled and replaced. Writes go to a temp file in the same directory, then
  ``os.replace``: readers see a whole entry or none, also with concurrent writers.
- Size: bounded by ``config.compilation_cache_max_bytes`` (default 1 GiB); a hit
  touches the entry's mtime, and when the total grows past the limit the entries
  with the oldest mtime are removed until it is under the limit.

Cache failures (unwritable directory, full disk, ...) never fail a compile: the
cache then does nothing. ``stats`` counts hits, misses, writes and corrupt entries
in this process.
"""

import hashlib
import os
import platform
import stat
import struct
import sys
import tempfile
import threading
import time
import warnings

from ..config import config

__all__ = ["compile_cached", "cache_dir", "make_key", "load", "store", "evict", "stats",
           "clear"]

MAGIC = b"MJXCACH1"
_HEADER = struct.Struct("<8sQ32s32s")      # magic, payload length, sha256(payload), key
_SUFFIX = ".mjxc"
_TMP_SUFFIX = ".tmp"
_STALE_TMP_SECS = 3600.0
_RESCAN_EVERY = 64                          # writes between two full size scans

stats = {"hits": 0, "misses": 0, "writes": 0, "corrupt": 0, "errors": 0, "evicted": 0}

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

_lock = threading.Lock()
_size_estimate = {}                         # directory -> (bytes, writes since scan)


def cache_dir():
    """The cache directory currently in effect (not created here)."""
    d = config.compilation_cache_dir or os.environ.get("MINIJAX_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                                 ".cache")
        d = os.path.join(base, "minijax")
    return os.path.abspath(os.path.expanduser(d))


def _ensure_dir(d):
    """Create ``d`` and its missing parents user-only (0o700), whatever the umask."""
    if os.path.isdir(d):
        return
    missing = []
    p = d
    while p and not os.path.isdir(p):
        missing.append(p)
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    for p in reversed(missing):
        try:
            os.mkdir(p, 0o700)
        except FileExistsError:
            continue
        os.chmod(p, 0o700)                  # mkdir's mode is masked by the umask


_refused = set()


def _trusted_dir(d):
    """Whether ``d`` may hold this user's executables: owned by the user and not
    writable by group or others (anyone who can write there can make this process run
    their code). Warns once per directory when it is refused."""
    try:
        st = os.stat(d)
    except OSError:
        return False
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid
    problem = None
    if st.st_uid != uid:
        problem = f"it is owned by uid {st.st_uid}, not by this user (uid {uid})"
    elif st.st_mode & 0o022:
        problem = f"it is writable by others (mode {stat.S_IMODE(st.st_mode):o})"
    if problem is None:
        return True
    if d not in _refused:
        _refused.add(d)
        warnings.warn(f"minijax: not using the compilation cache directory {d}: {problem}. "
                      f"Programs are compiled without the cache; set MINIJAX_CACHE_DIR "
                      f"(or config.compilation_cache_dir) to a directory only you can "
                      f"write, or make this one so (chmod 700).", RuntimeWarning,
                      stacklevel=2)
    return False


def _minijax_version():
    pkg = sys.modules.get("minijax")
    return str(getattr(pkg, "__version__", "?"))


_host = None


def _host_fingerprint():
    """The machine and its CPU feature flags: XLA's CPU code uses the host's features,
    so an entry written on another CPU (a shared home directory) must not be used."""
    global _host
    if _host is None:
        flags = ""
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith(("flags", "Features")):
                        flags = line.split(":", 1)[-1].strip()
                        break
        except OSError:
            pass
        _host = f"{platform.machine()}|{sys.platform}|{flags}"
    return _host


def make_key(module_text, client, device, options_bytes):
    """The hex sha256 naming the entry of ``module_text`` compiled for ``device``."""
    jaxlib = sys.modules.get("jaxlib")
    h = hashlib.sha256()
    for part in ("minijax-compile-cache-v1", _minijax_version(),
                 getattr(jaxlib, "__version__", "?"),
                 client.platform, getattr(client, "platform_version", "?"),
                 device.device_kind, device.id, client.device_count(),
                 os.environ.get("XLA_FLAGS", ""), _host_fingerprint()):
        h.update(str(part).encode())
        h.update(b"\0")
    h.update(hashlib.sha256(options_bytes).digest())
    h.update(hashlib.sha256(module_text.encode()).digest())
    return h.hexdigest()


def _path(d, key):
    return os.path.join(d, key + _SUFFIX)


def load(key, directory=None):
    """The payload stored under ``key``, or None if absent or damaged (counted)."""
    path = _path(directory or cache_dir(), key)
    # Only a regular file of this user's is read: not a symlink, and not a FIFO or
    # device put in place of an entry (opening or reading one would block forever).
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError:
        stats["errors"] += 1
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and
                                            st.st_uid != os.getuid()):
            stats["errors"] += 1
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
        payload = _check(data, key)
        if payload is None:
            stats["corrupt"] += 1
            return None
        try:
            os.utime(fd if os.utime in os.supports_fd else path)   # LRU: a hit is recent
        except OSError:
            pass
        return payload
    except OSError:
        stats["errors"] += 1
        return None
    finally:
        os.close(fd)


def _check(data, key):
    if len(data) < _HEADER.size:
        return None
    magic, length, digest, stored_key = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if (magic != MAGIC or length != len(payload) or stored_key != bytes.fromhex(key)
            or hashlib.sha256(payload).digest() != digest):
        return None
    return payload


def store(key, payload, directory=None):
    """Write ``payload`` under ``key`` atomically; then keep the size under the limit."""
    d = directory or cache_dir()
    _ensure_dir(d)
    header = _HEADER.pack(MAGIC, len(payload), hashlib.sha256(payload).digest(),
                          bytes.fromhex(key))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + key[:16] + ".", suffix=_TMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            f.write(payload)
        os.replace(tmp, _path(d, key))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    stats["writes"] += 1
    _account(d, len(header) + len(payload))


def _account(d, nbytes):
    limit = config.compilation_cache_max_bytes
    with _lock:
        total, writes = _size_estimate.get(d, (None, 0))
        if total is None or writes >= _RESCAN_EVERY:
            total, writes = _scan_size(d), 0   # other processes write here too
        else:
            total, writes = total + nbytes, writes + 1
        if limit is not None and total > limit:
            total, writes = evict(limit, d), 0
        _size_estimate[d] = (total, writes)


def _entries(d):
    """[(mtime, size, path)] of the entries in ``d``; removes stale temp files."""
    out = []
    now = time.time()
    try:
        it = os.scandir(d)
    except OSError:
        return out
    with it:
        for e in it:
            try:
                if e.name.endswith(_SUFFIX):
                    st = e.stat()
                    out.append((st.st_mtime, st.st_size, e.path))
                elif e.name.endswith(_TMP_SUFFIX) and e.name.startswith("."):
                    if now - e.stat().st_mtime > _STALE_TMP_SECS:
                        os.unlink(e.path)   # left by a killed writer
            except OSError:
                pass
    return out


def _scan_size(d):
    return sum(size for _, size, _ in _entries(d))


def evict(max_bytes, directory=None):
    """Remove least recently used entries until the total is <= ``max_bytes``."""
    entries = sorted(_entries(directory or cache_dir()))
    total = sum(size for _, size, _ in entries)
    for _, size, path in entries:
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
            stats["evicted"] += 1
        except FileNotFoundError:
            pass                            # another process evicted it
        except OSError:
            continue
        total -= size
    return total


def clear(directory=None):
    """Remove every entry of the cache directory."""
    for _, _, path in _entries(directory or cache_dir()):
        try:
            os.unlink(path)
        except OSError:
            pass
    _size_estimate.pop(directory or cache_dir(), None)


def compile_cached(module_text, client, device, options_bytes, compile, deserialize):
    """``compile()``'s executable for ``module_text``, through the on-disk cache.

    ``deserialize(bytes)`` restores an executable from ``client.serialize_executable``.
    """
    if not config.compilation_cache:
        return compile()
    try:
        d = cache_dir()
        _ensure_dir(d)
        if not _trusted_dir(d):
            return compile()
        key = make_key(module_text, client, device, options_bytes)
        payload = load(key, d)
    except Exception:
        stats["errors"] += 1
        return compile()
    if payload is not None:
        try:
            exe = deserialize(payload)
        except Exception:                   # e.g. written by an incompatible runtime
            stats["corrupt"] += 1
        else:
            stats["hits"] += 1
            return exe
    stats["misses"] += 1
    start = time.perf_counter()
    exe = compile()
    if time.perf_counter() - start >= config.compilation_cache_min_compile_secs:
        try:
            store(key, client.serialize_executable(exe), d)
        except Exception:
            stats["errors"] += 1
    return exe
