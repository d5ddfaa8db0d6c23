# C declarations of runtime/numpy_dispatch.py (Cython's augmenting .pxd, DESIGN 10): the
# Array's fields are read as C fields where the wrappers read an operand's host value.
cimport cython

# (the C type under another name: the .py imports the Python name ``Array``)
from minijax.runtime.array cimport (Array as ArrayCore, _holding, _link, _make,
                                    _view_root, _view_snapshot, canonical_dtype,
                                    canonical_scalar_type, given, ndarray_base,
                                    ndarray_dtype, ndarray_writeable,
                                    strong_host, ufunc_in_place,
                                    view_result)

# module globals the wrappers read on every call, as C variables (not dict lookups)
cdef object _ABSENT
cdef list numpy_flag
cdef type _ndarray
cdef frozenset _PLAIN, _KEYWORDS_TO_CONVERT
cdef dict _NUMERIC_DTYPES
cdef tuple _DTYPE_LIKE
cdef object _scalar_type_class, _float64, _float32, _float16
cdef type _float64_scalar, _float32_scalar, _float16_scalar

@cython.locals(arr=ArrayCore)
cpdef _host(a)
cpdef eager_host(self)
@cython.locals(out=ArrayCore)
cdef object _function_result(object r, object h, object x0, object x1, tuple rest)
cdef object _write_target(ArrayCore self)
@cython.locals(arr=ArrayCore, i=Py_ssize_t)
cdef bint _weak_operands(tuple args, Py_ssize_t start)
cdef object _plain_keywords(dict kwargs)
@cython.locals(d=object, t=type)
cdef bint _float_operand(object h)
@cython.locals(n=Py_ssize_t)
cdef object _keyword_call(object np_fn, object a, object b, object c, Py_ssize_t n,
                          dict kwargs)
