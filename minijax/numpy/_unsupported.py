"""NumPy names that ``minijax.numpy`` leaves out of scope: accessing one raises
``UnsupportedNumPyFeatureError`` (an ``AttributeError``) saying why and what to use.
Names NumPy 2 removed (``float_``, ``Inf``, ...) raise NumPy's ``AttributeError`` advice."""

from ..errors import UnsupportedNumPyFeatureError

try:   # NumPy's own advice for the names NumPy 2 removed (np.float_, np.Inf, ...)
    from numpy._expired_attrs_2_0 import __expired_attributes__ as _REMOVED_IN_NUMPY_2
except ImportError:   # a private module: without it those names get the plain message
    _REMOVED_IN_NUMPY_2 = {}

_DTYPES = ("minijax's numeric dtypes are bool, integer, floating (float16, bfloat16, "
           "float32, float64) and complex (complex64, complex128)")
_PRECISION = (f"extended precision is out of scope: {_DTYPES}; use float64/complex128")
_RECORD_CLASSES = ("minijax has one array class: the record classes are out of scope; "
                   "minijax.numpy.rec.array/fromarrays/fromrecords give Arrays of the "
                   "structured dtype, whose fields are read as a['name']")

OUT_OF_SCOPE = {
    **dict.fromkeys(["longdouble", "clongdouble", "float128", "complex256", "float96",
                     "complex192"], _PRECISION),
    **dict.fromkeys(["record", "recarray"], _RECORD_CLASSES),
    "ma": "masked arrays (numpy.ma) are out of scope; use a boolean mask with "
          "minijax.numpy.where, or the nan* reductions",
    **dict.fromkeys(["matrix", "asmatrix", "bmat"],
                    "the matrix class is out of scope (NumPy discourages it too); use 2-d "
                    "arrays and the @ operator"),
    "memmap": "memory-mapped arrays are out of scope: minijax arrays own their buffers; "
              "use numpy.memmap and minijax.numpy.asarray on the part you need",
    "ctypeslib": "numpy.ctypeslib is out of scope: minijax arrays own their buffers; "
                 "use numpy.ctypeslib on numpy.asarray(x)",
    "f2py": "numpy.f2py (building Fortran extensions) is out of scope; use numpy.f2py",
    "polynomial": "the numpy.polynomial package (Polynomial, Chebyshev, ... classes) is "
                  "out of scope; use numpy.polynomial on host data",
}


def unsupported(module_name, name):
    """The error for ``module_name.name``: out of scope with a reason, or unknown."""
    reason = OUT_OF_SCOPE.get(name)
    if reason is None:
        if name in _REMOVED_IN_NUMPY_2:
            return AttributeError(f"{module_name}.{name} was removed in NumPy 2.0 (minijax "
                                  f"follows NumPy 2): {_REMOVED_IN_NUMPY_2[name]}")
        return AttributeError(f"module {module_name!r} has no attribute {name!r}")
    return UnsupportedNumPyFeatureError(f"{module_name}.{name} is not provided: {reason}")
