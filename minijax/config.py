"""Run-time configuration: ``minijax.config.update(name, value)``.

Options (environment variables give the start-up value; a variable whose value is not
of the expected form is ignored with a RuntimeWarning naming it, and the default used):

- ``enable_x64`` (``MINIJAX_ENABLE_X64``, default True): NumPy's 64-bit defaults.
  False gives JAX-like 32-bit defaults (float32/int32) and narrows 64-bit inputs.
- ``eager_backend`` (``MINIJAX_EAGER_BACKEND``, default ``"numpy"``): how primitives
  run outside ``jit`` on the CPU: ``"numpy"`` kernels or ``"xla"`` (op-by-op
  compiled executables, the path non-CPU devices always take).
- ``cpu_device_count`` (``MINIJAX_CPU_DEVICE_COUNT``, default 1): CPU devices the
  client exposes; read when the client is first created, and fixed from then on (a
  later change raises). JAX's spellings set it too: ``update("jax_num_cpu_devices",
  N)``, ``JAX_NUM_CPU_DEVICES`` and ``XLA_FLAGS=--xla_force_host_platform_device_count=N``
  (in that order of precedence after ``MINIJAX_CPU_DEVICE_COUNT``).
- ``platforms`` (``MINIJAX_PLATFORMS``, default None): JAX's ``jax_platforms``: a
  comma-separated list such as ``"cuda,cpu"``; every platform named must start (else
  ``PlatformUnavailableError`` says what to install) and the first is the default.
  None: the first of CUDA (when its plugin is installed and a GPU starts) and the CPU.
- ``gpu_memory_fraction`` (``MINIJAX_GPU_MEMORY_FRACTION``, default None: the plugin's
  0.75): the share of GPU memory the CUDA client's allocator may use; read when the
  client is made.
- ``gpu_preallocate`` (``MINIJAX_GPU_PREALLOCATE``, default None: the plugin's True):
  whether the CUDA client reserves that share at start; read when the client is made.
- ``compilation_cache`` (``MINIJAX_COMPILATION_CACHE``, default True): keep compiled
  XLA executables on disk and reuse them in later processes (backend/compile_cache.py).
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
- ``default_prng_impl`` (``MINIJAX_DEFAULT_PRNG_IMPL``, default ``"threefry2x32"``): the
  PRNG implementation of ``minijax.random.key``/``PRNGKey`` without ``impl=``, and of
  legacy raw keys: ``"threefry2x32"``, ``"rbg"`` or ``"unsafe_rbg"``. JAX's name
  ``jax_default_prng_impl`` is accepted by ``update``.
- ``traceback_filtering`` (``MINIJAX_TRACEBACK_FILTERING``, default ``"auto"``): errors
  leaving a transformation show only the user's frames; ``"off"`` shows minijax's too.
- ``debug_dispatch_paths`` (``MINIJAX_DEBUG_DISPATCH_PATHS``, default False): count the
  eager calls that miss the NumPy host path (DESIGN 3) and take the slower ``lax``
  path, by name, in ``minijax.runtime.numpy_dispatch.lax_definition_counts``.
"""

import contextlib
import os
import warnings

_CHOICES = {"eager_backend": ("numpy", "xla"), "traceback_filtering": ("auto", "off"),
            "default_prng_impl": ("threefry2x32", "rbg", "unsafe_rbg")}
# JAX's names for options minijax has under its own name.
_ALIASES = {"jax_default_prng_impl": "default_prng_impl", "jax_platforms": "platforms",
            "jax_num_cpu_devices": "cpu_device_count"}
_POSITIVE_INTS = ("jit_cache_size", "eager_cache_size", "cpu_device_count")
_NON_NEGATIVE_INTS = ("compilation_cache_max_bytes",)
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


def _env_invalid(name, value, expected, default):
    # An environment variable must not make ``import minijax`` fail: warn, naming the
    # variable and what it takes, and use the default.
    warnings.warn(f"ignoring the environment variable {name}={value!r}: it must be "
                  f"{expected}; using the default {default!r}", RuntimeWarning, stacklevel=3)
    return default


def _env_bool(name, default):
    value = os.environ.get(name)
    if value is None:
        return default
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    return _env_invalid(name, value, "one of 1/0, true/false, yes/no, on/off", default)


def _env_int(name, default, minimum):
    value = os.environ.get(name)
    if value is None:
        return default
    try:
        n = int(value.strip().replace("_", ""))
    except ValueError:
        n = None
    if n is None or n < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer (bytes)"
        return _env_invalid(name, value, kind, default)
    return n


def _xla_flags_devices():
    """The device count ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` asks
    for (JAX programs set it), else 1."""
    for flag in os.environ.get("XLA_FLAGS", "").split():
        key, _, value = flag.partition("=")
        if key == "--xla_force_host_platform_device_count":
            try:
                n = int(value)
            except ValueError:
                n = 0
            if n >= 1:
                return n
            return _env_invalid("XLA_FLAGS", flag, "a positive device count", 1)
    return 1


def _env_fraction(name):
    value = os.environ.get(name)
    if value is None or not value.strip():
        return None
    try:
        f = float(value)
    except ValueError:
        f = None
    if f is None or not 0.0 < f <= 1.0:
        return _env_invalid(name, value, "a number in (0, 1]", None)
    return f


def _env_choice(name, default, choices):
    value = os.environ.get(name)
    if value is None:
        return default
    if value.strip().lower() not in choices:
        return _env_invalid(name, value, f"one of {', '.join(choices)}", default)
    return value.strip().lower()


class Config:
    def __init__(self):
        self.enable_x64 = _env_bool("MINIJAX_ENABLE_X64", True)
        self.eager_backend = _env_choice("MINIJAX_EAGER_BACKEND", "numpy",
                                         _CHOICES["eager_backend"])
        self.cpu_device_count = _env_int(
            "MINIJAX_CPU_DEVICE_COUNT", _env_int("JAX_NUM_CPU_DEVICES", _xla_flags_devices(), 1),
            1)
        self.platforms = os.environ.get("MINIJAX_PLATFORMS") or None
        self.gpu_memory_fraction = _env_fraction("MINIJAX_GPU_MEMORY_FRACTION")
        self.gpu_preallocate = (None if not os.environ.get("MINIJAX_GPU_PREALLOCATE")
                                else _env_bool("MINIJAX_GPU_PREALLOCATE", None))
        self.compilation_cache = _env_bool("MINIJAX_COMPILATION_CACHE", True)
        self.compilation_cache_dir = None
        self.compilation_cache_max_bytes = _env_int("MINIJAX_COMPILATION_CACHE_MAX_BYTES",
                                                    1 << 30, 0)
        self.compilation_cache_min_compile_secs = 0.0
        self.jit_cache_size = _env_int("MINIJAX_JIT_CACHE_SIZE", 256, 1)
        self.eager_cache_size = _env_int("MINIJAX_EAGER_CACHE_SIZE", 4096, 1)
        self.traceback_filtering = _env_choice("MINIJAX_TRACEBACK_FILTERING", "auto",
                                               _CHOICES["traceback_filtering"])
        self.default_prng_impl = _env_choice("MINIJAX_DEFAULT_PRNG_IMPL", "threefry2x32",
                                             _CHOICES["default_prng_impl"])
        self.debug_dispatch_paths = _env_bool("MINIJAX_DEBUG_DISPATCH_PATHS", False)
        self._listeners = []
        self._fixed = {}   # option -> why it can no longer change (see ``fix``)

    def update(self, name, value):
        """Set option ``name``; raises ValueError for an unknown name or value."""
        name = _ALIASES.get(name, name)
        if name not in vars(self) or name.startswith("_"):
            raise ValueError(f"unknown minijax config option {name!r}; options are "
                             f"{sorted(k for k in vars(self) if not k.startswith('_'))}")
        is_int = isinstance(value, int) and not isinstance(value, bool)
        if name in _POSITIVE_INTS and not (is_int and value >= 1):
            raise ValueError(f"config option {name!r} must be a positive int, got {value!r}")
        if name in _NON_NEGATIVE_INTS and not (value is None or (is_int and value >= 0)):
            raise ValueError(f"config option {name!r} must be a non-negative int (bytes) "
                             f"or None, got {value!r}")
        if name in _CHOICES and value not in _CHOICES[name]:
            raise ValueError(f"config option {name!r} must be one of {_CHOICES[name]}, "
                             f"got {value!r}")
        if name == "platforms" and not (value is None or isinstance(value, str)):
            raise ValueError(f"config option 'platforms' must be a comma-separated string "
                             f"of platform names (such as 'cuda,cpu') or None, got {value!r}")
        if name == "gpu_memory_fraction" and not (
                value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)
                                  and 0 < value <= 1)):
            raise ValueError(f"config option 'gpu_memory_fraction' must be a number in "
                             f"(0, 1] or None, got {value!r}")
        if name == "gpu_preallocate" and value not in (None, True, False):
            raise ValueError(f"config option 'gpu_preallocate' must be True, False or None, "
                             f"got {value!r}")
        if name in self._fixed and value != getattr(self, name):
            raise RuntimeError(f"config option {name!r} cannot change any more: "
                               f"{self._fixed[name]}")
        setattr(self, name, value)

    def fix(self, name, why):
        """From now on ``update(name, ...)`` to another value raises, saying ``why`` (an
        option read once, such as the CPU device count when the client is made)."""
        self._fixed[name] = why

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        for listener in self.__dict__.get("_listeners", ()):
            listener(name)

    def on_update(self, listener):
        """Call ``listener(name)`` after each change of an option (flags derived from
        options are kept current this way, whether set by ``update`` or assigned)."""
        self._listeners.append(listener)

    def read(self, name):
        return getattr(self, _ALIASES.get(name, name))


config = Config()


@contextlib.contextmanager
def enable_x64(new_val=True):
    """Within the context, ``config.enable_x64`` is ``new_val``: 64-bit (NumPy's) or
    32-bit (JAX's) default dtypes (as ``jax.enable_x64``)."""
    if not isinstance(new_val, bool):
        raise TypeError(f"enable_x64: new_val must be a bool, got {new_val!r}")
    prev = config.enable_x64
    config.update("enable_x64", new_val)
    try:
        yield
    finally:
        config.update("enable_x64", prev)
