# C declarations of runtime/fast_functions.py (Cython's augmenting .pxd, DESIGN 10).
cimport cython
cimport numpy

from minijax.runtime.array cimport (Array as ArrayCore, _make, canonical_dtype,
                                    ndarray_dtype)

# NumPy's C API on an ndarray ``a`` (the .py spells them as method calls for the
# uncompiled run; import_numpy_c_api, called once at import, sets the API up).
# ndarray_known_finite: every element of ``a`` is known to be finite (an integer or bool
# dtype, or a native float32 or float64 array in C order whose values were checked).
cdef extern from *:
    """
    static int minijax_import_numpy_c_api(void) {
        return _import_array();
    }
    static PyObject *minijax_ndarray_view(PyObject *a) {
        return PyArray_View((PyArrayObject *)a, NULL, NULL);
    }
    static PyObject *minijax_ndarray_copy(PyObject *a) {
        return PyArray_NewCopy((PyArrayObject *)a, NPY_KEEPORDER);
    }
    static int minijax_ndarray_known_finite(PyObject *a) {
        PyArrayObject *arr = (PyArrayObject *)a;
        PyArray_Descr *descr = PyArray_DESCR(arr);
        int type_num = descr->type_num;
        npy_intp i, n = 1;
        if (PyTypeNum_ISINTEGER(type_num) || PyTypeNum_ISBOOL(type_num)) return 1;
        if ((type_num != NPY_DOUBLE && type_num != NPY_FLOAT) || !PyArray_IS_C_CONTIGUOUS(arr)
                || !PyArray_ISALIGNED(arr) || !PyArray_ISNBO(descr->byteorder)) {
            return 0;
        }
        for (i = 0; i < PyArray_NDIM(arr); i++) n *= PyArray_DIM(arr, i);
        if (type_num == NPY_DOUBLE) {
            const double *p = (const double *)PyArray_DATA(arr);
            for (i = 0; i < n; i++) {
                if (!isfinite(p[i])) return 0;
            }
        } else {
            const float *p = (const float *)PyArray_DATA(arr);
            for (i = 0; i < n; i++) {
                if (!isfinite(p[i])) return 0;
            }
        }
        return 1;
    }
    """
    int import_numpy_c_api "minijax_import_numpy_c_api"() except -1
    object ndarray_view "minijax_ndarray_view"(object a)
    object ndarray_copy "minijax_ndarray_copy"(object a)
    bint ndarray_known_finite "minijax_ndarray_known_finite"(object a)


@cython.locals(arr=ArrayCore)
cdef bint _is_itself(object a)
@cython.locals(arr=ArrayCore)
cdef object _strong_ndarray(object a)
cdef object _numbers_array(object seq)
@cython.locals(arr=ArrayCore)
cdef object _strong_dtype(object a, object scalar_type_class)
cdef object _known_dtype(object x, object scalar_type_class)
cdef object _python_scalar_type(object x)
cdef bint _finite(object x) except -1
