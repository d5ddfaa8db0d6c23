# The C declarations of runtime/array.py (Cython's augmenting .pxd, DESIGN 10): the Array
# core becomes a C type whose fields are C slots, and the operators' fast path C
# functions. The .py stays plain Python (and runs as it is with MINIJAX_UNCOMPILED=1).
cimport cython
cimport numpy

# An ndarray's fields, read from NumPy's array struct (its layout is part of NumPy's
# ABI); ``a`` must be an ndarray. The .py spells them as attribute reads for the
# uncompiled run.
cdef object _ABSENT

cdef extern from *:
    """
    #define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
    #include <numpy/ndarraytypes.h>
    static PyObject *minijax_ndarray_dtype(PyObject *a) {
        PyObject *d = (PyObject *)((PyArrayObject_fields *)a)->descr;
        Py_INCREF(d);
        return d;
    }
    static PyObject *minijax_ndarray_base(PyObject *a) {
        PyObject *b = ((PyArrayObject_fields *)a)->base;
        if (b == NULL) b = Py_None;
        Py_INCREF(b);
        return b;
    }
    static int minijax_ndarray_ndim(PyObject *a) {
        return ((PyArrayObject_fields *)a)->nd;
    }
    static Py_ssize_t minijax_ndarray_dim(PyObject *a, int i) {
        return ((PyArrayObject_fields *)a)->dimensions[i];
    }
    static int minijax_ndarray_writeable(PyObject *a) {
        return (((PyArrayObject_fields *)a)->flags & NPY_ARRAY_WRITEABLE) != 0;
    }
    static int minijax_ndarray_contiguous(PyObject *a) {
        return (((PyArrayObject_fields *)a)->flags
                & (NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS)) != 0;
    }
    static Py_ssize_t minijax_ndarray_size(PyObject *a) {
        PyArrayObject_fields *f = (PyArrayObject_fields *)a;
        Py_ssize_t n = 1;
        for (int i = 0; i < f->nd; i++) n *= f->dimensions[i];
        return n;
    }
    /* Whether the byte ranges of two ndarrays overlap, as np.may_share_memory(a, b)
       answers by default (an empty array overlaps nothing); without its release of the
       GIL, which costs more than the check */
    static void minijax_byte_range(PyArrayObject_fields *f, char **lo, char **hi) {
        char *start = f->data, *end = f->data + PyDataType_ELSIZE(f->descr);
        for (int i = 0; i < f->nd; i++) {
            npy_intp span = (f->dimensions[i] - 1) * f->strides[i];
            if (span < 0) start += span; else end += span;
        }
        *lo = start;
        *hi = end;
    }
    static int minijax_ndarray_bounds_overlap(PyObject *a, PyObject *b) {
        PyArrayObject_fields *fa = (PyArrayObject_fields *)a, *fb = (PyArrayObject_fields *)b;
        char *alo, *ahi, *blo, *bhi;
        for (int i = 0; i < fa->nd; i++) if (fa->dimensions[i] == 0) return 0;
        for (int i = 0; i < fb->nd; i++) if (fb->dimensions[i] == 0) return 0;
        minijax_byte_range(fa, &alo, &ahi);
        minijax_byte_range(fb, &blo, &bhi);
        return alo < bhi && blo < ahi;
    }
    static int minijax_ndarray_is_complex(PyObject *a) {
        return PyTypeNum_ISCOMPLEX(((PyArrayObject_fields *)a)->descr->type_num);
    }
    /* NumPy's view makers, as its methods call them without arguments (the API table
       is this module's own: import_numpy_c_api, called once at import, sets it up) */
    static int minijax_import_numpy_c_api(void) {
        return _import_array();
    }
    static PyObject *minijax_ndarray_transposed(PyObject *a) {
        return PyArray_Transpose((PyArrayObject *)a, NULL);
    }
    static PyObject *minijax_ndarray_raveled(PyObject *a) {
        return PyArray_Ravel((PyArrayObject *)a, NPY_CORDER);
    }
    static PyObject *minijax_ndarray_squeezed(PyObject *a) {
        return PyArray_Squeeze((PyArrayObject *)a);
    }
    static PyObject *minijax_ndarray_diagonal(PyObject *a) {
        return PyArray_Diagonal((PyArrayObject *)a, 0, 0, 1);
    }
    /* a writeable ndarray over a's memory (a's own writeable flag unchanged), for
       NumPy calls that only read but ask for writeability */
    static PyObject *minijax_ndarray_writeable_alias(PyObject *a) {
        PyArrayObject *arr = (PyArrayObject *)a;
        PyArray_Descr *descr = PyArray_DESCR(arr);
        Py_INCREF(descr);   /* (both references are stolen) */
        PyObject *alias = PyArray_NewFromDescr(
            &PyArray_Type, descr, PyArray_NDIM(arr), PyArray_DIMS(arr),
            PyArray_STRIDES(arr), PyArray_DATA(arr), NPY_ARRAY_WRITEABLE, NULL);
        if (alias == NULL) return NULL;
        Py_INCREF(a);
        if (PyArray_SetBaseObject((PyArrayObject *)alias, a) < 0) {
            Py_DECREF(alias);
            return NULL;
        }
        return alias;
    }
    /* a.item(): the element of a one-element ndarray as NumPy's method reads it (its
       dtype's getitem); any other size goes to the method, for NumPy's error */
    static PyObject *minijax_ndarray_item(PyObject *a) {
        PyArrayObject *arr = (PyArrayObject *)a;
        if (PyArray_SIZE(arr) != 1) return PyObject_CallMethod(a, "item", NULL);
        return PyArray_GETITEM(arr, PyArray_DATA(arr));
    }
    static PyObject *minijax_ndarray_reshaped(PyObject *a, PyObject *shape) {
        return PyArray_Reshape((PyArrayObject *)a, shape);
    }
    /* a[idx] when idx is a plain int (a in-range row or element) or a tuple of plain
       ints, one per dimension (an element): NumPy's own result, read as its item
       and subscript read it (the element is NumPy's scalar of a's dtype, sharing
       nothing); when idx is a basic index of slices (a slice, None, Ellipsis, or a
       tuple of them and plain ints), a's subscript's view, or its error; else
       NotImplemented */
    static int minijax_basic_index_element(PyObject *e) {
        return PyLong_CheckExact(e) || PySlice_Check(e) || e == Py_None || e == Py_Ellipsis;
    }
    static PyObject *minijax_ndarray_at(PyObject *a, PyObject *idx) {
        PyArrayObject_fields *f = (PyArrayObject_fields *)a;
        if (!PyArray_CheckExact(a) || PyDataType_REFCHK(f->descr)) goto other;
        if (PyLong_CheckExact(idx)) {
            if (f->nd == 0) goto other;
            Py_ssize_t k = PyLong_AsSsize_t(idx);
            if (k == -1 && PyErr_Occurred()) { PyErr_Clear(); goto other; }
            if (k < 0) k += f->dimensions[0];
            if (k < 0 || k >= f->dimensions[0]) goto other;
            if (f->nd > 1) return Py_TYPE(a)->tp_as_sequence->sq_item(a, k);
            return PyArray_Scalar(f->data + k * f->strides[0], f->descr, a);
        }
        if (PyTuple_CheckExact(idx) && PyTuple_GET_SIZE(idx) == f->nd && f->nd > 0) {
            char *p = f->data;
            for (int i = 0; i < f->nd; i++) {
                PyObject *e = PyTuple_GET_ITEM(idx, i);
                if (!PyLong_CheckExact(e)) goto basic;
                Py_ssize_t k = PyLong_AsSsize_t(e);
                if (k == -1 && PyErr_Occurred()) { PyErr_Clear(); goto other; }
                if (k < 0) k += f->dimensions[i];
                if (k < 0 || k >= f->dimensions[i]) goto other;
                p += k * f->strides[i];
            }
            return PyArray_Scalar(p, f->descr, a);
        }
      basic:
        if (PyTuple_CheckExact(idx)) {
            for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(idx); i++)
                if (!minijax_basic_index_element(PyTuple_GET_ITEM(idx, i))) goto other;
            return Py_TYPE(a)->tp_as_mapping->mp_subscript(a, idx);
        }
        if (PySlice_Check(idx) || idx == Py_None || idx == Py_Ellipsis)
            return Py_TYPE(a)->tp_as_mapping->mp_subscript(a, idx);
      other:
        Py_INCREF(Py_NotImplemented);
        return Py_NotImplemented;
    }
    static PyObject *minijax_call_with_keywords(PyObject *fn, PyObject *a, PyObject *b,
                                                PyObject *c, Py_ssize_t n,
                                                PyObject *kwargs) {
        PyObject *args[3] = {a, b, c};
        return PyObject_VectorcallDict(fn, args, n + 1, kwargs);
    }
    /* A C type's dict, read-only to Python code, written as Cython writes its class
       attributes (then the type's method cache is told) */
    static int minijax_set_class_attribute(PyObject *cls, PyObject *name,
                                           PyObject *value) {
        if (PyDict_SetItem(((PyTypeObject *)cls)->tp_dict, name, value) < 0) return -1;
        PyType_Modified((PyTypeObject *)cls);
        return 0;
    }
    """
    object ndarray_dtype "minijax_ndarray_dtype"(object a)
    object ndarray_base "minijax_ndarray_base"(object a)
    int ndarray_ndim "minijax_ndarray_ndim"(object a)
    Py_ssize_t ndarray_dim "minijax_ndarray_dim"(object a, int i)
    bint ndarray_writeable "minijax_ndarray_writeable"(object a)
    bint ndarray_contiguous "minijax_ndarray_contiguous"(object a)
    Py_ssize_t ndarray_size "minijax_ndarray_size"(object a)
    bint ndarray_is_complex "minijax_ndarray_is_complex"(object a)
    bint ndarray_bounds_overlap "minijax_ndarray_bounds_overlap"(object a, object b)
    int import_numpy_c_api "minijax_import_numpy_c_api"() except -1
    object ndarray_transposed "minijax_ndarray_transposed"(object a)
    object ndarray_raveled "minijax_ndarray_raveled"(object a)
    object ndarray_squeezed "minijax_ndarray_squeezed"(object a)
    object ndarray_diagonal "minijax_ndarray_diagonal"(object a)
    object ndarray_item "minijax_ndarray_item"(object a)
    object ndarray_reshaped "minijax_ndarray_reshaped"(object a, object shape)
    object ndarray_at "minijax_ndarray_at"(object a, object idx)
    object ndarray_row "PySequence_GetItem"(object a, Py_ssize_t i)
    object ndarray_writeable_alias "minijax_ndarray_writeable_alias"(object a)
    object call_with_keywords "minijax_call_with_keywords"(object fn, object a, object b,
                                                           object c, Py_ssize_t n,
                                                           dict kwargs)
    object bound_method "PyMethod_New"(object fn, object obj)
    int set_class_attribute "minijax_set_class_attribute"(object cls, object name,
                                                          object value) except -1

cdef int _ADD, _RADD, _SUB, _RSUB, _MUL, _RMUL, _TRUEDIV, _RTRUEDIV, _FLOORDIV
cdef int _RFLOORDIV, _MOD, _RMOD, _DIVMOD, _RDIVMOD, _MATMUL, _RMATMUL, _AND, _RAND
cdef int _OR, _ROR, _XOR, _RXOR, _LSHIFT, _RLSHIFT, _RSHIFT, _RRSHIFT, _LT, _LE, _GT
cdef int _GE, _EQ, _NE, _POW, _RPOW, _NEG, _POS, _ABS, _INVERT, _IADD, _ISUB, _IMUL
cdef int _ITRUEDIV, _IFLOORDIV, _IMOD, _IPOW, _IAND, _IOR, _IXOR, _ILSHIFT, _IRSHIFT
cdef int _IMATMUL, _GETITEM, _SETITEM, _TRANSPOSE, _REAL, _RESHAPE, _RAVEL, _SUM, _MEAN
cdef int _MAX, _MIN, _ALL, _ANY, _ASTYPE, _CONJ, _CONJUGATE, _CUMPROD, _CUMSUM, _FLATTEN
cdef int _PROD, _SQUEEZE, _STD, _SWAPAXES, _TRANSPOSE_METHOD, _VAR, _DIAGONAL, _ARGMAX
cdef int _ARGMIN
cdef Py_ssize_t _ANY_NUMBER
cdef type _array_type, _ndarray
cdef object _dtype_type, _numpy_integer
cdef type _int64
cdef tuple _NDARRAY_METHODS
cdef list _complete, numpy_flag
cdef set _canonical_dtypes, _canonical_scalars
cdef frozenset _INSTALLABLE
cdef object _NO_FAST_PATH
cdef object _last_dtype, _last_scalar_type, _other_dtype, _other_scalar_type


cdef class _InstalledMethod:
    cdef public object fn


# (its class directives are on the class in the .py: Cython reads them only there)
cdef class Array:
    cdef public object _aval, _host, _buffer, _placement, _view
    cdef object __weakref__


cdef class ViewLink:
    cdef readonly Array root
    cdef readonly object root_host
    cdef readonly bint read_only


cdef void *_last_link


cdef class _Rows:
    cdef Array array
    cdef Py_ssize_t index, length
    cdef object host, link, aval


@cython.locals(rows=_Rows)
cdef _Rows _rows(Array array, Py_ssize_t length)
@cython.locals(link=ViewLink, last=ViewLink)
cdef ViewLink view_link(Array root, object root_host, bint read_only)


cpdef bint canonical_dtype(object dtype)
cpdef bint canonical_scalar_type(object t)
@cython.locals(root=Array)
cdef object _current_host(Array self)
cdef object _link(object root, object root_host, object host)
cdef object _view_root(object view)
cdef object _view_snapshot(object view, object host)
cdef bint _read_only_link(object view)
cpdef strong_host(Array self)
cdef object _plain_operand(object other)
cdef object _plain_host(Array self)
@cython.locals(arr=Array)
cpdef Array _holding(object host)
@cython.locals(arr=Array)
cdef Array _view_holding(object host, object link)
cpdef bint overlapping_or_read_only(object host)
cpdef for_reading(object host)
@cython.locals(arr=Array)
cpdef bint wait_for_arrays(object seq, dict node_types) except -1
@cython.locals(root=Array)
cpdef view_result(Array self, object host, object r, object placement)
cdef object _result(Array self, object host, object r)
cdef bint _indexes_on_host(Array self) except -1
cdef bint host_indexing(Array self) except -1
cdef object _indexable_host(Array self)
cdef object _binary(Array self, object other, int code)
cdef object _apply(int code, object a, object b)
cdef object _unary(Array self, int code)
cdef object _apply_unary(int code, object a)
cdef object _inplace(Array self, object other, int code)
cdef int _binary_of_inplace(int code)
cdef bint _plain_args(tuple args)
cpdef tuple given(object x0, object x1, tuple rest)
cdef object _method(Array self, int code, object x0, object x1, tuple rest, dict kwargs,
                    Py_ssize_t most)
cdef object _view_method(Array self, int code)
cdef dict _NO_KWARGS, _KEEPDIMS
cdef object _reduction(Array self, int code, object axis, object dtype, object keepdims)
cdef object _method_result(Array self, int code, Py_ssize_t n, object x0, object x1,
                           tuple rest, dict kwargs)
cdef bint _plain_keywords(int code, dict kwargs)
cdef tuple _METHOD_KEYWORDS
cdef bint _plain_arg(object e)
@cython.locals(i=Py_ssize_t, out=list)
cdef object _host_index(object idx)
cdef object _integer_of(object e)
cdef bint _basic_index_element(object e)
@cython.locals(root=Array)
cpdef direct_write_target(Array self)
cpdef ufunc_in_place(Array self, object ufunc, object operand)
@cython.locals(arr=Array, root=Array)
cpdef as_view_of(Array out, object args)
@cython.locals(arrays=Py_ssize_t)
cpdef bint sole_source(object args)
@cython.locals(arr=Array)
cpdef _make(aval, host, buffer=*, placement=*, view=*)
