"""Run-time configuration: ``minijax.config.update(name, value)``.

Options (environment variables give the start-up value):

- ``enable_x64`` (``MINIJAX_ENABLE_X64``, default True): NumPy's 64-bit defaults.
  False gives JAX-like 32-bit defaults (float32/int32) and narrows 64-bit inputs.
- ``eager_backend`` (``MINIJAX_EAGER_BACKEND``, default ``"numpy"``): how primitives
  run outside ``jit`` on the CPU: ``"numpy"`` kernels or ``"xla"`` (op-by-op
  compiled executables, the path non-CPU devices always take).
- ``cpu_device_count`` (``MINIJAX_CPU_DEVICE_COUNT``, default 1): CPU devices the
  client exposes; read when the client is first created.
- ``compilation_cache`` (``MINIJAX_COMPILATION_CACHE``, default True): keep compiled
  XLA executables on disk and reuse them in later processes (runtime/compile_cache.py).
- ``compilation_cache_dir`` (default None: ``$MINIJAX_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/minijax``, else ``~/.cache/minijax``, read at each compile).
- ``compilation_cache_max_bytes`` (``MINIJAX_COMPILATION_CACHE_MAX_BYTES``, default
  1 GiB): least recently used entries are evicted beyond this size.
- ``compilation_cache_min_compile_secs`` (default 0.0): compiles faster than this are
  not stored.
- ``jit_cache_size`` (``MINIJAX_JIT_CACHE_SIZE``, default 256): input signatures (shapes,
  dtypes, static arguments) whose traced and compiled program each jitted function
  keeps; beyond it the least recently used is dropped (and retraced if called again).
- ``eager_cache_size`` (``MINIJAX_EAGER_CACHE_SIZE``, default 4096): one-primitive XLA
  executables kept for eager evaluation on the XLA path (``eager_backend="xla"``,
  non-CPU devices), least recently used dropped first.
- ``traceback_filtering`` (``MINIJAX_TRACEBACK_FILTERING``, default ``"auto"``): errors
  leaving a transformation show only the user's frames; ``"off"`` shows minijax's too.
"""

import os

_CHOICES = {"eager_backend": ("numpy", "xla"), "traceback_filtering": ("auto", "off")}
_POSITIVE_INTS = ("jit_cache_size", "eager_cache_size")


def _env_bool(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() not in ("0", "false", "no", "off", "")


class Config:
    def __init__(self):
        self.enable_x64 = _env_bool("MINIJAX_ENABLE_X64", True)
        self.eager_backend = os.environ.get("MINIJAX_EAGER_BACKEND", "numpy")
        self.cpu_device_count = int(os.environ.get("MINIJAX_CPU_DEVICE_COUNT", "1"))
        self.compilation_cache = _env_bool("MINIJAX_COMPILATION_CACHE", True)
        self.compilation_cache_dir = None
        self.compilation_cache_max_bytes = int(
            os.environ.get("MINIJAX_COMPILATION_CACHE_MAX_BYTES", str(1 << 30)))
        self.compilation_cache_min_compile_secs = 0.0
        self.jit_cache_size = int(os.environ.get("MINIJAX_JIT_CACHE_SIZE", "256"))
        self.eager_cache_size = int(os.environ.get("MINIJAX_EAGER_CACHE_SIZE", "4096"))
        self.traceback_filtering = os.environ.get("MINIJAX_TRACEBACK_FILTERING", "auto")
        self._listeners = []

    def update(self, name, value):
        """Set option ``name``; raises ValueError for an unknown name or value."""
        if name not in vars(self) or name.startswith("_"):
            raise ValueError(f"unknown minijax config option {name!r}; options are "
                             f"{sorted(k for k in vars(self) if not k.startswith('_'))}")
        if name in _POSITIVE_INTS and not (isinstance(value, int) and value >= 1):
            raise ValueError(f"config option {name!r} must be a positive int, got {value!r}")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise ValueError(f"config option {name!r} must be one of {_CHOICES[name]}, "
                             f"got {value!r}")
        setattr(self, name, value)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        for listener in self.__dict__.get("_listeners", ()):
            listener(name)

    def on_update(self, listener):
        """Call ``listener(name)`` after each change of an option (flags derived from
        options are kept current this way, whether set by ``update`` or assigned)."""
        self._listeners.append(listener)

    def read(self, name):
        return getattr(self, name)


config = Config()
