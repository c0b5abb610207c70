// rocktile._launch: the device path's fast path for `kernel[grid](*args)`.
// `kernel[grid]` is a BoundLaunch made here; calling it launches.
//
// A launch through Python (rocktile.launcher) binds the arguments, derives
// the specialization, finds the compiled kernel and packs its kernarg bytes:
// tens of microseconds. After one such launch the Python side remembers the
// result here, under a key that holds exactly what the specialization
// depends on (each argument's kind, dtype, alignment, range and device, the
// constexpr values, num_warps/num_stages, and the launch state: ROCKTILE_*
// variables, set_target's generation, the current HIP device). The next
// launch with the same key is bound, packed and sent to
// hipModuleLaunchKernel here, in C++. Anything this file does not handle
// (host arrays that need copies, torch tensors, fp16 scalars, other launch
// options, streams) returns None, and Python takes the launch.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <vector>

namespace {

using LaunchKernelFn = int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               void *, void **, void **);
using GetDeviceFn = int (*)(int *);

// The HIP library in use (set by rocktile.runtime.Hip), and its error check.
LaunchKernelFn hipLaunch = nullptr;
GetDeviceFn hipGetDevice = nullptr;
PyObject *hipCheck = nullptr;
uint64_t generation = 0; // bumped by set_target
bool hasKfd = false;
PyObject *deviceBufferType = nullptr;
PyObject *bufferName = nullptr;

// How a runtime argument's value goes into the kernarg bytes.
enum Kind : char { Pointer = 'p', Int8 = '1', Int16 = '2', Int32 = '4', Int64 = '8', Float32 = 'f', Float64 = 'd' };
struct Slot {
  int param;
  Kind kind;
  uint32_t offset;
};

struct Entry {
  PyObject *kernel = nullptr; // what the launch returns
  std::vector<PyObject *> keep; // constexpr values keyed by identity
  void *function = nullptr;
  LaunchKernelFn launch = nullptr;
  unsigned threads = 0;
  uint32_t kernargBytes = 0;
  std::vector<Slot> slots;
};

constexpr size_t kMaxEntries = 256;

struct FastLauncher {
  PyObject_HEAD
  std::vector<PyObject *> *names; // interned parameter names
  std::vector<char> *isConstexpr, *noSpecialize;
  std::vector<PyObject *> *defaults; // nullptr: none
  std::unordered_map<std::string, Entry> *entries;
  PyObject *fallback; // fallback(grid, args, kwargs): the Python launch
};

/// `kernel[grid]` on the fast path: calling it launches.
struct BoundLaunch {
  PyObject_HEAD
  FastLauncher *launcher;
  PyObject *grid;
};

template <typename T> void append(std::string &key, T value) {
  key.append(reinterpret_cast<const char *>(&value), sizeof value);
}

/// The key of a constexpr value: exact for ints, floats (by bits), bools,
/// None and strings; the object's identity otherwise (`keep` holds it).
bool constexprKey(PyObject *v, std::string &key, std::vector<PyObject *> *keep) {
  if (v == Py_None) {
    key += 'N';
  } else if (PyBool_Check(v)) {
    key += v == Py_True ? 'T' : 'F';
  } else if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow)
      return false;
    key += 'i';
    append(key, x);
  } else if (PyFloat_CheckExact(v)) {
    key += 'x';
    append(key, PyFloat_AS_DOUBLE(v));
  } else if (PyUnicode_CheckExact(v)) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(v, &n);
    if (!s)
      return false;
    key += 's';
    append(key, n);
    key.append(s, n);
  } else {
    key += 'o';
    append(key, reinterpret_cast<uintptr_t>(v));
    if (keep)
      keep->push_back(v);
  }
  return true;
}

/// A DeviceBuffer's Buffer fields (address, elements, dtype, itemsize,
/// device), borrowed; nullptr if `v` is not a DeviceBuffer.
PyObject *bufferOf(PyObject *v) {
  if (Py_TYPE(v) != reinterpret_cast<PyTypeObject *>(deviceBufferType))
    return nullptr;
  PyObject *b = PyObject_GetAttr(v, bufferName);
  if (!b || !PyTuple_Check(b) || PyTuple_GET_SIZE(b) != 5) {
    Py_XDECREF(b);
    PyErr_Clear();
    return nullptr;
  }
  Py_DECREF(b); // the DeviceBuffer holds it
  return b;
}

/// A launch's arguments bound to the parameters (borrowed): each value, and
/// for a DeviceBuffer its Buffer fields (nullptr for other values).
struct Bound {
  std::vector<PyObject *> values, buffers;
};

/// Binds a launch's arguments to the parameters and builds its key; false
/// when this file does not handle the launch.
bool bind(FastLauncher *self, PyObject *args, PyObject *kwargs, Bound &bound, std::string &key,
          std::vector<PyObject *> *keep) {
  const char *device = std::getenv("ROCKTILE_DEVICE");
  if (device && *device ? std::strcmp(device, "hip") != 0 : !hasKfd)
    return false; // the emulator's launches
  if (!hipGetDevice)
    return false;
  int current = 0;
  if (hipGetDevice(&current) != 0)
    return false;
  for (const char *name : {"ROCKTILE_TARGET", "ROCKTILE_HIP_LIBRARY"}) {
    const char *v = std::getenv(name);
    key += v ? v : "";
    key += '\0';
  }
  append(key, generation);
  append(key, current);
  size_t n = self->names->size();
  Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  if (nargs > Py_ssize_t(n))
    return false;
  Py_ssize_t used = 0;
  std::vector<PyObject *> &values = bound.values;
  values.assign(n, nullptr);
  bound.buffers.assign(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    PyObject *v = Py_ssize_t(i) < nargs ? PyTuple_GET_ITEM(args, i) : nullptr;
    if (!v && kwargs && (v = PyDict_GetItemWithError(kwargs, (*self->names)[i])))
      ++used;
    if (!v)
      v = (*self->defaults)[i];
    if (!v)
      return false;
    values[i] = v;
    if ((*self->isConstexpr)[i]) {
      if (!constexprKey(v, key, keep))
        return false;
    } else if (v == Py_None) {
      key += 'N';
    } else if (PyBool_Check(v)) {
      key += 'b';
    } else if (PyLong_CheckExact(v)) {
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      if (overflow)
        return false;
      bool wide = x < INT32_MIN || x > INT32_MAX;
      key += (*self->noSpecialize)[i] ? (wide ? 'L' : 'I') : x == 1 ? 'U' : wide ? (x % 16 ? 'L' : 'M')
                                                                              : (x % 16 ? 'I' : 'J');
    } else if (PyFloat_CheckExact(v)) {
      key += 'f';
    } else if (PyObject *b = bound.buffers[i] = bufferOf(v)) {
      long long address = PyLong_AsLongLong(PyTuple_GET_ITEM(b, 0));
      long long elements = PyLong_AsLongLong(PyTuple_GET_ITEM(b, 1));
      long long itemsize = PyLong_AsLongLong(PyTuple_GET_ITEM(b, 3));
      PyObject *dev = PyTuple_GET_ITEM(b, 4);
      if (PyErr_Occurred() || dev == Py_None) {
        PyErr_Clear();
        return false;
      }
      key += 'P';
      if (!constexprKey(PyTuple_GET_ITEM(b, 2), key, nullptr))
        return false;
      bool noSpec = (*self->noSpecialize)[i];
      key += char(noSpec ? 0 : (address % 16 == 0) | (elements * itemsize < (1LL << 31)) << 1);
      append(key, PyLong_AsLong(dev));
    } else {
      return false;
    }
  }
  if (kwargs && PyDict_GET_SIZE(kwargs) != used) {
    // Beside parameters after the positional arguments, only num_warps and
    // num_stages (Python reports the others' errors).
    PyObject *name, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kwargs, &pos, &name, &value)) {
      bool option = PyUnicode_CompareWithASCIIString(name, "num_warps") == 0 ||
                    PyUnicode_CompareWithASCIIString(name, "num_stages") == 0;
      Py_ssize_t param = -1;
      for (size_t i = 0; i < n; ++i)
        if (PyUnicode_Compare(name, (*self->names)[i]) == 0)
          param = Py_ssize_t(i);
      if (param >= nargs)
        continue;
      if (!option || param >= 0)
        return false;
      key += PyUnicode_AsUTF8(name);
      if (!constexprKey(value, key, nullptr))
        return false;
    }
  }
  return true;
}

bool gridOf(FastLauncher *self, PyObject *grid, const std::vector<PyObject *> &values, unsigned out[3]) {
  PyObject *g = grid;
  Py_INCREF(g);
  if (PyCallable_Check(grid)) {
    PyObject *meta = PyDict_New();
    for (size_t i = 0; meta && i < values.size(); ++i)
      if (PyDict_SetItem(meta, (*self->names)[i], values[i]) < 0)
        Py_CLEAR(meta);
    Py_DECREF(g);
    g = meta ? PyObject_CallOneArg(grid, meta) : nullptr;
    Py_XDECREF(meta);
    if (!g)
      return false;
  }
  out[0] = out[1] = out[2] = 1;
  bool ok = true;
  if (PyLong_CheckExact(g)) {
    out[0] = unsigned(PyLong_AsUnsignedLong(g));
  } else if (PyTuple_Check(g) && PyTuple_GET_SIZE(g) >= 1 && PyTuple_GET_SIZE(g) <= 3) {
    for (Py_ssize_t d = 0; ok && d < PyTuple_GET_SIZE(g); ++d) {
      PyObject *x = PyTuple_GET_ITEM(g, d);
      ok = PyLong_CheckExact(x);
      if (ok)
        out[d] = unsigned(PyLong_AsUnsignedLong(x));
    }
  } else {
    ok = false;
  }
  Py_DECREF(g);
  if (PyErr_Occurred())
    PyErr_Clear(), ok = false;
  return ok;
}

/// The kernel launched, or None if Python must launch.
PyObject *launch(FastLauncher *self, PyObject *gridArg, PyObject *args, PyObject *kwargs) {
  Bound bound;
  std::string key;
  key.reserve(128);
  if (!bind(self, args, kwargs, bound, key, nullptr)) {
    if (PyErr_Occurred())
      return nullptr;
    Py_RETURN_NONE;
  }
  auto it = self->entries->find(key);
  if (it == self->entries->end())
    Py_RETURN_NONE;
  const Entry &e = it->second;
  unsigned grid[3];
  if (!gridOf(self, gridArg, bound.values, grid)) {
    if (PyErr_Occurred())
      return nullptr; // the grid function raised
    Py_RETURN_NONE;
  }
  alignas(16) uint8_t kernarg[1024];
  if (e.kernargBytes > sizeof kernarg)
    Py_RETURN_NONE;
  std::memset(kernarg, 0, e.kernargBytes);
  for (const Slot &s : e.slots) {
    PyObject *v = bound.values[s.param];
    uint8_t *at = kernarg + s.offset;
    if (s.kind == Pointer) {
      PyObject *b = bound.buffers[s.param];
      uint64_t descriptor[5] = {uint64_t(PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(b, 0))), 0, 0,
                                uint64_t(PyLong_AsLongLong(PyTuple_GET_ITEM(b, 1))), 1};
      descriptor[1] = descriptor[0];
      std::memcpy(at, descriptor, sizeof descriptor);
    } else if (s.kind == Float32 || s.kind == Float64) {
      double d = PyFloat_AsDouble(v);
      float f = float(d);
      s.kind == Float32 ? std::memcpy(at, &f, 4) : std::memcpy(at, &d, 8);
    } else {
      long long x = PyLong_AsLongLong(v);
      std::memcpy(at, &x, s.kind - '0'); // little-endian: the low bytes
    }
  }
  if (PyErr_Occurred())
    return nullptr;
  size_t size = e.kernargBytes;
  void *extra[] = {reinterpret_cast<void *>(1), kernarg, reinterpret_cast<void *>(2), &size,
                   reinterpret_cast<void *>(3)};
  int error = e.launch(e.function, grid[0], grid[1], grid[2], e.threads, 1, 1, 0, nullptr, nullptr, extra);
  if (error) {
    PyObject *r = PyObject_CallFunction(hipCheck, "is", error, "hipModuleLaunchKernel");
    Py_XDECREF(r);
    return nullptr;
  }
  Py_INCREF(e.kernel);
  return e.kernel;
}

PyObject *callBound(BoundLaunch *self, PyObject *args, PyObject *kwargs) {
  PyObject *kernel = launch(self->launcher, self->grid, args, kwargs);
  if (kernel != Py_None)
    return kernel;
  Py_DECREF(kernel);
  return PyObject_CallFunctionObjArgs(self->launcher->fallback, self->grid, args, kwargs ? kwargs : Py_None,
                                      nullptr);
}

void deallocBound(BoundLaunch *self) {
  Py_DECREF(reinterpret_cast<PyObject *>(self->launcher));
  Py_DECREF(self->grid);
  Py_TYPE(self)->tp_free(reinterpret_cast<PyObject *>(self));
}

/// A type of this module's objects, before PyType_Ready.
template <typename T> PyTypeObject typeOf(const char *name, const char *doc, void (*dealloc)(T *)) {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = name;
  t.tp_basicsize = sizeof(T);
  t.tp_flags = Py_TPFLAGS_DEFAULT;
  t.tp_doc = doc;
  t.tp_dealloc = reinterpret_cast<destructor>(dealloc);
  return t;
}

PyTypeObject boundType = [] {
  PyTypeObject t = typeOf("rocktile._launch.BoundLaunch", "kernel[grid]: call it with the kernel's arguments.",
                          deallocBound);
  t.tp_call = reinterpret_cast<ternaryfunc>(callBound);
  return t;
}();

/// launcher[grid]: a BoundLaunch.
PyObject *subscript(FastLauncher *self, PyObject *grid) {
  auto *bound = PyObject_New(BoundLaunch, &boundType);
  if (!bound)
    return nullptr;
  Py_INCREF(self);
  Py_INCREF(grid);
  bound->launcher = self, bound->grid = grid;
  return reinterpret_cast<PyObject *>(bound);
}

/// remember(args, kwargs, kernel, function, threads, kernarg_bytes, slots):
/// the next launch with these arguments' key launches `function` with
/// kernarg bytes packed by `slots`, a list of (parameter index, kind, offset).
PyObject *remember(FastLauncher *self, PyObject *const *argv, Py_ssize_t argc) {
  PyObject *args, *kwargs, *kernel, *slots;
  unsigned long long function;
  unsigned threads, bytes;
  if (argc != 7 || !PyTuple_Check(argv[0]) || !PyList_Check(argv[6])) {
    PyErr_SetString(PyExc_TypeError, "remember(args, kwargs, kernel, function, threads, kernarg_bytes, slots)");
    return nullptr;
  }
  args = argv[0], kwargs = argv[1] == Py_None ? nullptr : argv[1], kernel = argv[2], slots = argv[6];
  function = PyLong_AsUnsignedLongLong(argv[3]);
  threads = unsigned(PyLong_AsUnsignedLong(argv[4]));
  bytes = unsigned(PyLong_AsUnsignedLong(argv[5]));
  if (PyErr_Occurred())
    return nullptr;
  if (self->entries->size() >= kMaxEntries)
    Py_RETURN_NONE; // e.g. a fresh constexpr object per launch: Python launches the rest
  Entry e;
  Bound bound;
  std::string key;
  if (!bind(self, args, kwargs, bound, key, &e.keep) || !hipLaunch) {
    PyErr_Clear();
    Py_RETURN_NONE;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(slots); ++i) {
    int param, kind; // "C" stores an int
    unsigned offset;
    if (!PyArg_ParseTuple(PyList_GET_ITEM(slots, i), "iCI", &param, &kind, &offset))
      return nullptr;
    e.slots.push_back({param, Kind(kind), offset});
  }
  e.kernel = kernel;
  e.function = reinterpret_cast<void *>(uintptr_t(function));
  e.launch = hipLaunch;
  e.threads = threads;
  e.kernargBytes = bytes;
  Py_INCREF(kernel);
  for (PyObject *o : e.keep)
    Py_INCREF(o);
  auto [it, inserted] = self->entries->emplace(std::move(key), std::move(e));
  if (!inserted) { // a racing thread remembered it first
    Py_DECREF(kernel);
    for (PyObject *o : e.keep)
      Py_DECREF(o);
  }
  Py_RETURN_NONE;
}

void dealloc(FastLauncher *self) {
  for (auto &[key, e] : *self->entries) {
    Py_DECREF(e.kernel);
    for (PyObject *o : e.keep)
      Py_DECREF(o);
  }
  for (PyObject *o : *self->names)
    Py_DECREF(o);
  for (PyObject *o : *self->defaults)
    Py_XDECREF(o);
  delete self->entries;
  delete self->names;
  delete self->isConstexpr;
  delete self->noSpecialize;
  delete self->defaults;
  Py_XDECREF(self->fallback);
  Py_TYPE(self)->tp_free(reinterpret_cast<PyObject *>(self));
}

/// FastLauncher(names, is_constexpr, no_specialize, defaults, missing,
/// fallback): one kernel's parameters, in order (`defaults[i] is missing`
/// for a parameter without a default), and fallback(grid, args, kwargs),
/// the Python launch, for the launches this file does not take.
PyObject *create(PyTypeObject *type, PyObject *args, PyObject *) {
  PyObject *names, *constexprs, *noSpec, *defaults, *missing, *fallback;
  if (!PyArg_ParseTuple(args, "O!O!O!O!OO", &PyTuple_Type, &names, &PyTuple_Type, &constexprs, &PyTuple_Type,
                        &noSpec, &PyTuple_Type, &defaults, &missing, &fallback))
    return nullptr;
  auto *self = reinterpret_cast<FastLauncher *>(type->tp_alloc(type, 0));
  if (!self)
    return nullptr;
  self->names = new std::vector<PyObject *>;
  self->isConstexpr = new std::vector<char>;
  self->noSpecialize = new std::vector<char>;
  self->defaults = new std::vector<PyObject *>;
  self->entries = new std::unordered_map<std::string, Entry>;
  Py_INCREF(fallback);
  self->fallback = fallback;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); ++i) {
    PyObject *name = PyTuple_GET_ITEM(names, i);
    Py_INCREF(name);
    PyUnicode_InternInPlace(&name);
    self->names->push_back(name);
    self->isConstexpr->push_back(PyObject_IsTrue(PyTuple_GET_ITEM(constexprs, i)));
    self->noSpecialize->push_back(PyObject_IsTrue(PyTuple_GET_ITEM(noSpec, i)));
    PyObject *d = PyTuple_GET_ITEM(defaults, i);
    self->defaults->push_back(d == missing ? nullptr : (Py_INCREF(d), d));
  }
  return reinterpret_cast<PyObject *>(self);
}

PyMappingMethods launcherMapping = {nullptr, reinterpret_cast<binaryfunc>(subscript), nullptr};

PyMethodDef launcherMethods[] = {
    {"remember", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(remember)), METH_FASTCALL,
     "remember(args, kwargs, kernel, function, threads, kernarg_bytes, slots)"},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject launcherType = [] {
  PyTypeObject t = typeOf("rocktile._launch.FastLauncher",
                          "The launch fast path of one kernel's launches on the device path.", dealloc);
  t.tp_methods = launcherMethods;
  t.tp_as_mapping = &launcherMapping;
  t.tp_new = create;
  return t;
}();

/// set_hip(hipModuleLaunchKernel, hipGetDevice, check, DeviceBuffer)
PyObject *setHip(PyObject *, PyObject *args) {
  unsigned long long launchFn, getDeviceFn;
  PyObject *check, *bufferType;
  if (!PyArg_ParseTuple(args, "KKOO", &launchFn, &getDeviceFn, &check, &bufferType))
    return nullptr;
  hipLaunch = reinterpret_cast<LaunchKernelFn>(uintptr_t(launchFn));
  hipGetDevice = reinterpret_cast<GetDeviceFn>(uintptr_t(getDeviceFn));
  Py_INCREF(check);
  Py_XSETREF(hipCheck, check);
  Py_INCREF(bufferType);
  Py_XSETREF(deviceBufferType, bufferType);
  Py_RETURN_NONE;
}

PyObject *invalidate(PyObject *, PyObject *) {
  ++generation;
  Py_RETURN_NONE;
}

PyMethodDef moduleMethods[] = {
    {"set_hip", setHip, METH_VARARGS, "set_hip(launch_fn, get_device_fn, check, DeviceBuffer)"},
    {"invalidate", invalidate, METH_NOARGS, "forget every remembered launch (the target choice changed)"},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef moduleDef = {PyModuleDef_HEAD_INIT, "_launch", "The device path's launch fast path.", -1,
                         moduleMethods};

} // namespace

PyMODINIT_FUNC PyInit__launch() {
  if (PyType_Ready(&launcherType) < 0 || PyType_Ready(&boundType) < 0)
    return nullptr;
  PyObject *m = PyModule_Create(&moduleDef);
  if (!m)
    return nullptr;
  hasKfd = access("/dev/kfd", F_OK) == 0;
  bufferName = PyUnicode_InternFromString("buffer");
  Py_INCREF(&launcherType);
  PyModule_AddObject(m, "FastLauncher", reinterpret_cast<PyObject *>(&launcherType));
  return m;
}
