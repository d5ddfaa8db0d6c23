"""Text and binary files: NumPy's readers and writers (``loadtxt``, ``genfromtxt``,
``savetxt``, ``save``, ``load``, ``savez``, ``savez_compressed``, ``fromfile``,
``fromregex``, ``fromstring``) and the ``tobytes``/``tofile`` methods.

Files are read and written by NumPy on the host: readers return minijax arrays (an
``.npz`` file gives a mapping of them), writers take minijax arrays. The formats are
NumPy's, so files pass between NumPy and minijax both ways. Results must have a dtype
minijax arrays hold: a structured, string or object result raises a ``TypeError``
naming the dtype.
"""

import os
import pickle
import re
from collections.abc import Mapping

import numpy as np

from .. import dtypes
from ..core import Tracer
from ..errors import FileArgumentError, TracerArrayConversionError
from ..runtime.array import Array, array_from_host, set_method
from ._core import non_numeric_array
from ._creation import check_like


def _host(x, name):
    """An Array's ndarray (not marked exported: NumPy only reads it), else ``x``."""
    if type(x) is Array:
        return x._value()
    if isinstance(x, Tracer):
        raise TracerArrayConversionError(
            f"{name}() of a traced value: under jit/grad/vmap there are no values to "
            f"write; write the function's results outside the transformation")
    if type(x) in (list, tuple):
        return type(x)(_host(e, name) for e in x)
    return x


def _to_minijax(result, name):
    """A NumPy reader's result as minijax arrays (lists and tuples of them mapped)."""
    if isinstance(result, (list, tuple)):
        return type(result)(_to_minijax(r, name) for r in result)
    if isinstance(result, np.ma.MaskedArray):
        raise TypeError(f"{name}() with usemask=True gives a masked array, and masked "
                        f"arrays (numpy.ma) are out of scope in minijax; fill the missing "
                        f"values instead (filling_values=)")
    result = np.asarray(result)
    if dtypes.is_non_numeric(result.dtype):   # strings, records, dates, objects: as NumPy's
        return non_numeric_array(result, name)
    target = dtypes.canonicalize(result.dtype)   # a TypeError for extended precision
    if target != result.dtype or not result.flags.writeable:
        result = result.astype(target)
    return array_from_host(result)


def _file(file, name, what="file"):
    """``file`` unless it is an array of numbers (minijax, traced or NumPy): a reader
    needs a path or an open file (``genfromtxt`` also takes lines of text), and NumPy's
    would fail on a file method of the array."""
    if isinstance(file, (Array, Tracer)) or (isinstance(file, np.ndarray)
                                             and file.dtype.kind not in "USO"):
        raise FileArgumentError(
            f"{name}(): {what} must be a path (str, bytes or os.PathLike) or an open file "
            f"object, got an array ({type(file).__name__}). To read numbers from memory use "
            f"minijax.numpy.asarray, frombuffer or fromstring; to read a file, pass its name")
    return file


def _like(kwargs, name):
    check_like(kwargs.pop("like", None), name)


def loadtxt(fname, *args, **kwargs):
    """An array read from a text file, as ``numpy.loadtxt`` reads it."""
    _like(kwargs, "loadtxt")
    return _to_minijax(np.loadtxt(fname, *args, **kwargs), "loadtxt")


def genfromtxt(fname, *args, **kwargs):
    """An array read from a text file with missing values filled, as
    ``numpy.genfromtxt`` reads it (``usemask=True`` and named fields are out of scope)."""
    _like(kwargs, "genfromtxt")
    _file(fname, "genfromtxt", "fname")
    return _to_minijax(np.genfromtxt(fname, *args, **kwargs), "genfromtxt")


def savetxt(fname, X, *args, **kwargs):
    """Write a 1-d or 2-d array to a text file, as ``numpy.savetxt``."""
    np.savetxt(fname, _host(X, "savetxt"), *args, **kwargs)


def save(file, arr, allow_pickle=True):
    """Write an array to a ``.npy`` file, as ``numpy.save``."""
    np.save(file, _host(arr, "save"), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Write arrays to an uncompressed ``.npz`` file (positional ones as ``arr_0``, ...)."""
    np.savez(file, *_host(args, "savez"), allow_pickle=allow_pickle,
             **{k: _host(v, "savez") for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Write arrays to a compressed ``.npz`` file (positional ones as ``arr_0``, ...)."""
    np.savez_compressed(file, *_host(args, "savez_compressed"), allow_pickle=allow_pickle,
                        **{k: _host(v, "savez_compressed") for k, v in kwds.items()})


class NpzFile(Mapping):
    """The arrays of an ``.npz`` file, read lazily as minijax arrays (``numpy.load``'s
    ``NpzFile`` with minijax values): index by name, iterate over names, close it or use
    it in a ``with`` block."""

    def __init__(self, numpy_npz):
        self._npz = numpy_npz

    @property
    def files(self):
        return self._npz.files

    def __getitem__(self, key):
        return _to_minijax(self._npz[key], "load")

    def __iter__(self):
        return iter(self._npz)

    def __len__(self):
        return len(self._npz)

    def __contains__(self, key):
        return key in self._npz

    def close(self):
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"minijax NpzFile with arrays {self._npz.files}"


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=10000):
    """An array from a ``.npy`` file, or a mapping of arrays (``NpzFile``) from an
    ``.npz`` file, as ``numpy.load`` reads them (pickles are refused by default)."""
    if mmap_mode is not None:
        raise ValueError("load(mmap_mode=...) is not supported: minijax arrays own their "
                         "buffers; use numpy.load with mmap_mode and minijax.numpy.asarray "
                         "on the part you need")
    out = np.load(file, allow_pickle=allow_pickle, fix_imports=fix_imports,
                  encoding=encoding, max_header_size=max_header_size)
    if isinstance(out, np.lib.npyio.NpzFile):
        return NpzFile(out)
    return _to_minijax(out, "load")


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """An array read from a binary (``sep=""``) or text file, as ``numpy.fromfile``."""
    _like({"like": like}, "fromfile")
    _file(file, "fromfile")
    return _to_minijax(np.fromfile(file, dtype, count, sep, offset), "fromfile")


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """A 1-d array of the numbers in the text ``string`` separated by ``sep``, as
    ``numpy.fromstring`` (NumPy's binary mode, ``sep=""``, is deprecated: use
    ``frombuffer``)."""
    _like({"like": like}, "fromstring")
    if sep == "":
        raise ValueError("fromstring(sep='') (binary mode) is deprecated in NumPy and not "
                         "provided: use minijax.numpy.frombuffer")
    return _to_minijax(np.fromstring(string, dtype, count, sep=sep), "fromstring")


def fromregex(file, regexp, dtype, encoding=None):
    """The numbers matched by the groups of ``regexp`` in a text file: a 1-d array for a
    pattern with at most one group, else one row per match and one column per group.
    ``dtype`` is one numeric dtype (NumPy's structured results are out of scope)."""
    _file(file, "fromregex")
    if not isinstance(regexp, (str, bytes)) and not hasattr(regexp, "match"):
        raise TypeError(f"fromregex(): regexp must be a str, bytes or a compiled regular "
                        f"expression (re.compile), got {type(regexp).__name__}")
    dtype = np.dtype(dtype)
    if dtype.names is not None:
        raise TypeError("fromregex() with a structured dtype: structured dtypes are out of "
                        "scope in minijax; give one numeric dtype (each group becomes a "
                        "column)")
    dtypes.canonicalize(dtype)
    if not hasattr(regexp, "match"):
        regexp = re.compile(regexp)
    ngroups = max(regexp.groups, 1)
    fields = np.dtype([(f"f{i}", dtype) for i in range(ngroups)])
    from numpy.lib import recfunctions   # (here: it imports numpy.ma, 5% of the import)
    out = recfunctions.structured_to_unstructured(np.fromregex(file, regexp, fields,
                                                               encoding))
    return _to_minijax(out[:, 0] if ngroups == 1 else out, "fromregex")


def _tobytes(self, order="C"):
    """The array's bytes in ``order`` (as ``numpy.ndarray.tobytes``)."""
    return self._value().tobytes(order)


def _tofile(self, fid, sep="", format="%s"):
    """Write the array's values to a file, binary or as text (``numpy.ndarray.tofile``)."""
    self._value().tofile(fid, sep, format)


def _dumps(self):
    """The array's pickle (as ``numpy.ndarray.dumps``; ``pickle.loads`` reads it back)."""
    return pickle.dumps(self, protocol=2)


def _dump(self, file):
    """Pickle the array into ``file``, a path or a file open for binary writing (as
    ``numpy.ndarray.dump``)."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "wb") as f:
            pickle.dump(self, f, protocol=2)
    else:
        pickle.dump(self, file, protocol=2)


def _traced_bytes(name):
    def method(self, *args, **kwargs):
        raise TracerArrayConversionError(
            f"{name}() of a traced value: under jit/grad/vmap its bytes are not known; "
            f"call it on the function's results outside the transformation")
    method.__name__ = name
    return method


def install(array_cls, tracer_cls):
    """Give ``Array`` the ``tobytes``/``tofile``/``dump``/``dumps`` methods (tracers: a
    named error)."""
    for name, method in (("tobytes", _tobytes), ("tofile", _tofile), ("dump", _dump),
                         ("dumps", _dumps)):
        set_method(array_cls, name, method)
        setattr(tracer_cls, name, _traced_bytes(name))
