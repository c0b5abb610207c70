// rocktile._C: a small generic IR builder for the Python front end, and the
// compiler entry point. Ops are created by name with parsed types and
// attributes, so the front end owns the language's semantics and this file
// stays independent of the op list.
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Emulator/Emulator.h"
#include "rocktile/Emulator/HostJit.h"
#include "rocktile/Pipeline/Pipeline.h"
#include "rocktile/Target/MatrixCore.h"
#include "rocktile/Target/Target.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;

namespace {

struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct EmulatorFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Collects diagnostics as "file:line:col: severity: message" lines.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) { record(d); }) {}
  std::string text() const { return lines; }

private:
  void record(Diagnostic &d) {
    add(d.getLocation(), d.getSeverity(), d.str());
    for (Diagnostic &note : d.getNotes())
      add(note.getLocation(), DiagnosticSeverity::Note, note.str());
  }
  void add(Location loc, DiagnosticSeverity severity, const std::string &msg) {
    llvm::raw_string_ostream os(lines);
    FileLineColLoc file;
    loc->walk([&](Location l) {
      if (auto f = dyn_cast<FileLineColLoc>(l)) {
        file = f;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (file)
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    else
      os << "<unknown>:0:0: ";
    const char *names[] = {"note", "warning", "error", "remark"};
    os << names[int(severity)] << ": " << msg << "\n";
  }
  std::string lines;
  ScopedDiagnosticHandler handler;
};

/// The target `chip` names; an unknown one is a ValueError.
const rocktile::Target &targetNamed(const std::string &chip) {
  const rocktile::Target *t = rocktile::lookupTarget(chip);
  if (!t)
    throw py::value_error("unknown target '" + chip + "'");
  return *t;
}

/// What compile() and emit_code_object() return to Python.
py::dict compileResultDict(const rocktile::CompileResult &result, const std::string &warnings) {
  py::dict md;
  for (const auto &[k, v] : result.metadata)
    md[py::str(k)] = v;
  md["name"] = result.kernelName;
  py::list kernargs;
  for (const rocktile::KernargSlot &slot : result.kernargs) {
    py::dict entry;
    entry["offset"] = slot.offset;
    entry["size"] = slot.size;
    entry["value_kind"] = slot.valueKind;
    kernargs.append(entry);
  }
  md["kernargs"] = kernargs;
  py::dict out;
  out["tile"] = result.tile;
  out["simt"] = result.simt;
  out["llir"] = result.llir;
  out["amdgcn"] = result.amdgcn;
  out["simt_with_locations"] = result.simtWithLocations;
  out["emulator_only"] = result.emulatorOnly;
  out["warnings"] = warnings;
  out["hsaco"] = py::bytes(result.hsaco);
  out["metadata"] = md;
  return out;
}

struct IRContext {
  IRContext() : ctx(std::make_shared<MLIRContext>()) {
    DialectRegistry registry;
    rocktile::registerDialects(registry);
    ctx->appendDialectRegistry(registry);
    ctx->loadAllAvailableDialects();
    ctx->disableMultithreading();
    // Diagnostics name the Python source line; the IR is never dumped.
    ctx->printOpOnDiagnostic(false);
    ctx->printStackTraceOnDiagnostic(false);
  }
  std::shared_ptr<MLIRContext> ctx;
};

/// Every handle keeps its context alive.
template <typename T> struct Handle {
  std::shared_ptr<MLIRContext> ctx;
  T value;
};
using PyType = Handle<Type>;
using PyAttr = Handle<Attribute>;
using PyLoc = Handle<Location>;
using PyValue = Handle<Value>;
using PyBlock = Handle<Block *>;

struct PyOperation {
  std::shared_ptr<MLIRContext> ctx;
  Operation *op;
  bool owned; // a top-level op (module) that no block owns
  PyOperation(std::shared_ptr<MLIRContext> c, Operation *o, bool owned)
      : ctx(std::move(c)), op(o), owned(owned) {}
  ~PyOperation() {
    if (owned)
      op->erase();
  }
};

template <typename T> std::string str(T v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  v.print(os);
  return s;
}

} // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "rocktile's C++ core: IR builder and compiler";
  py::register_exception<CompileError>(m, "CompileError");
  py::register_exception<EmulatorFault>(m, "EmulatorFault");

  py::class_<PyType>(m, "Type")
      .def("__str__", [](const PyType &t) { return str(t.value); })
      .def("__eq__", [](const PyType &a, const PyType &b) { return a.value == b.value; })
      .def("__hash__", [](const PyType &t) { return hash_value(t.value); });
  py::class_<PyAttr>(m, "Attribute")
      .def("__str__", [](const PyAttr &a) { return str(a.value); });
  py::class_<PyLoc>(m, "Location")
      .def("__str__", [](const PyLoc &l) { return str(Attribute(l.value)); });
  py::class_<PyValue>(m, "Value")
      .def_property_readonly("type", [](const PyValue &v) { return PyType{v.ctx, v.value.getType()}; })
      .def("__str__", [](const PyValue &v) { return str(v.value); });
  py::class_<PyBlock>(m, "Block")
      .def("arg", [](const PyBlock &b, unsigned i) {
        if (i >= b.value->getNumArguments())
          throw py::index_error("block argument index out of range");
        return PyValue{b.ctx, b.value->getArgument(i)};
      })
      .def_property_readonly("num_args", [](const PyBlock &b) { return b.value->getNumArguments(); });

  py::class_<PyOperation, std::shared_ptr<PyOperation>>(m, "Operation")
      .def_property_readonly("name", [](const PyOperation &o) { return o.op->getName().getStringRef().str(); })
      .def_property_readonly("num_results", [](const PyOperation &o) { return o.op->getNumResults(); })
      .def("result", [](const PyOperation &o, unsigned i) {
        if (i >= o.op->getNumResults())
          throw py::index_error("result index out of range");
        return PyValue{o.ctx, o.op->getResult(i)};
      })
      .def("body", [](const PyOperation &o) {
        if (o.op->getNumRegions() == 0 || o.op->getRegion(0).empty())
          throw py::value_error("operation has no body block");
        return PyBlock{o.ctx, &o.op->getRegion(0).front()};
      })
      .def("add_block", [](const PyOperation &o, unsigned region, const std::vector<PyType> &types,
                           const PyLoc &loc) {
        if (region >= o.op->getNumRegions())
          throw py::index_error("region index out of range");
        auto *block = new Block();
        o.op->getRegion(region).push_back(block);
        for (const PyType &t : types)
          block->addArgument(t.value, loc.value);
        return PyBlock{o.ctx, block};
      })
      .def("verify", [](const PyOperation &o) {
        DiagnosticCollector diags(o.ctx.get());
        if (failed(verify(o.op)))
          throw CompileError(diags.text());
      })
      .def("to_string", [](const PyOperation &o, bool debugInfo) { return rocktile::printIR(o.op, debugInfo); },
           py::arg("debug_info") = false)
      .def("__str__", [](const PyOperation &o) { return rocktile::printIR(o.op); });

  py::class_<IRContext>(m, "Context")
      .def(py::init<>())
      .def("parse_type", [](IRContext &c, const std::string &s) {
        DiagnosticCollector diags(c.ctx.get());
        Type t = parseType(s, c.ctx.get());
        if (!t)
          throw py::value_error("cannot parse type '" + s + "': " + diags.text());
        return PyType{c.ctx, t};
      })
      .def("parse_attr", [](IRContext &c, const std::string &s) {
        DiagnosticCollector diags(c.ctx.get());
        Attribute a = parseAttribute(s, c.ctx.get());
        if (!a)
          throw py::value_error("cannot parse attribute '" + s + "': " + diags.text());
        return PyAttr{c.ctx, a};
      })
      .def("loc", [](IRContext &c, const std::string &file, unsigned line, unsigned col) {
        return PyLoc{c.ctx, FileLineColLoc::get(c.ctx.get(), file, line, col)};
      })
      .def("unknown_loc", [](IRContext &c) { return PyLoc{c.ctx, UnknownLoc::get(c.ctx.get())}; })
      .def("parse_module", [](IRContext &c, const std::string &text) {
        DiagnosticCollector diags(c.ctx.get());
        OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, c.ctx.get());
        if (!module)
          throw CompileError(diags.text());
        return std::make_shared<PyOperation>(c.ctx, module.release().getOperation(), true);
      })
      .def("create_module", [](IRContext &c, const PyLoc &loc) {
        return std::make_shared<PyOperation>(c.ctx, ModuleOp::create(loc.value), true);
      });

  struct PyBuilder {
    std::shared_ptr<MLIRContext> ctx;
    OpBuilder builder;
  };
  py::class_<PyBuilder>(m, "Builder")
      .def(py::init([](IRContext &c) { return PyBuilder{c.ctx, OpBuilder(c.ctx.get())}; }))
      .def("set_insertion_point_to_end", [](PyBuilder &b, const PyBlock &block) {
        b.builder.setInsertionPointToEnd(block.value);
      })
      .def("insertion_block", [](PyBuilder &b) {
        if (!b.builder.getInsertionBlock())
          throw py::value_error("the builder has no insertion point");
        return PyBlock{b.ctx, b.builder.getInsertionBlock()};
      })
      .def("create", [](PyBuilder &b, const std::string &name, const std::vector<PyValue> &operands,
                        const std::vector<PyType> &resultTypes, const std::map<std::string, PyAttr> &attrs,
                        const PyLoc &loc, unsigned numRegions) {
        if (!b.builder.getInsertionBlock())
          throw py::value_error("the builder has no insertion point");
        OperationName opName(name, b.ctx.get());
        if (!opName.isRegistered())
          throw py::value_error("unknown operation '" + name + "'");
        OperationState state(loc.value, opName);
        for (const PyValue &v : operands)
          state.addOperands(v.value);
        for (const PyType &t : resultTypes)
          state.addTypes(t.value);
        for (const auto &[key, attr] : attrs)
          state.addAttribute(key, attr.value);
        for (unsigned i = 0; i < numRegions; ++i)
          state.addRegion();
        return std::make_shared<PyOperation>(b.ctx, b.builder.create(state), false);
      }, py::arg("name"), py::arg("operands"), py::arg("result_types"), py::arg("attributes"),
         py::arg("loc"), py::arg("num_regions") = 0);

  using rocktile::emulator::EmulatedKernel;
  using rocktile::emulator::KernelArg;
  py::class_<EmulatedKernel>(m, "Emulator")
      .def(py::init([](const std::string &simt, unsigned waveSize, unsigned ldsBanks,
                       const std::string &hostCpu) {
             IRContext c;
             DiagnosticCollector diags(c.ctx.get());
             OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(simt, c.ctx.get());
             FailureOr<std::unique_ptr<EmulatedKernel>> kernel = failure();
             if (module)
               kernel = EmulatedKernel::create(*module, waveSize, ldsBanks, hostCpu);
             if (failed(kernel))
               throw CompileError(diags.text());
             return std::move(*kernel);
           }),
           py::arg("simt"), py::arg("wave_size"), py::arg("lds_banks"), py::arg("host_cpu") = "")
      .def_property_readonly("name", &EmulatedKernel::getName)
      .def_property_readonly("host_imports", &EmulatedKernel::getHostImports)
      .def("global_traffic", [](const EmulatedKernel &k) {
        py::list out;
        for (const rocktile::emulator::GlobalTraffic &t : k.getGlobalTraffic())
          out.append(py::make_tuple(t.read, t.written, t.atomic));
        return out;
      })
      .def("bank_conflicts", [](const EmulatedKernel &k) {
        py::list out;
        for (const rocktile::emulator::BankConflicts &b : k.getBankConflicts())
          out.append(py::dict(py::arg("location") = b.location, py::arg("kind") = b.kind,
                              py::arg("executions") = b.use.executions,
                              py::arg("extra_cycles") = b.use.extraCycles));
        return out;
      })
      .def("launch", [](const EmulatedKernel &k, std::array<int64_t, 3> grid, const py::list &args,
                        unsigned workers, bool cooperative) {
        // args: ("buffer", name, address, elements[, initcheck flags' address]) | ("int", name, value) |
        // ("float", name, value)
        std::vector<KernelArg> converted;
        for (py::handle h : args) {
          auto t = h.cast<py::tuple>();
          auto kind = t[0].cast<std::string>();
          KernelArg a{KernelArg::Int, t[1].cast<std::string>()};
          if (kind == "buffer") {
            a.kind = KernelArg::Buffer;
            a.address = t[2].cast<uint64_t>();
            a.numElements = t[3].cast<int64_t>();
            if (t.size() > 4)
              a.initialized = reinterpret_cast<uint8_t *>(t[4].cast<uintptr_t>());
          } else if (kind == "float") {
            a.kind = KernelArg::Float;
            a.floatValue = t[2].cast<double>();
          } else {
            a.intValue = t[2].cast<int64_t>();
          }
          converted.push_back(a);
        }
        std::string fault;
        {
          py::gil_scoped_release release;
          fault = k.launch(grid, converted, workers, cooperative);
        }
        if (!fault.empty())
          throw EmulatorFault(fault);
      }, py::arg("grid"), py::arg("args"), py::arg("workers"), py::arg("cooperative") = false);

  m.def("emulator_host_symbols", [] {
    std::vector<std::string> names;
    for (const rocktile::emulator::HostSymbol &s : rocktile::emulator::hostSymbols())
      names.push_back(s.name);
    return names;
  });

  m.attr("llvm_version") = LLVM_VERSION_STRING;

  m.def("targets", [] {
    std::vector<std::string> names;
    for (const rocktile::Target *t : rocktile::allTargets())
      names.push_back(t->chip.str());
    return names;
  });

  m.def("wave_size", [](const std::string &chip) {
    const rocktile::Target *t = rocktile::lookupTarget(chip);
    return t ? t->waveSize : 0u;
  });

  // What rocktile.chips reports of a chip and its cooperative launches' limit.
  m.def("chip_facts", [](const std::string &chip) {
    const rocktile::Target &t = targetNamed(chip);
    py::dict d;
    d["lds_bytes"] = t.ldsBytes;
    d["compute_units"] = t.computeUnits;
    d["vgprs_per_simd"] = t.vgprsPerSimd;
    return d;
  });
  m.def("resident_workgroups", [](const std::string &chip, unsigned registers, int64_t ldsBytes,
                                  unsigned numWarps) {
    rocktile::Target::Residency r = targetNamed(chip).residentWorkgroups(registers, ldsBytes, numWarps);
    return py::make_tuple(r.onChip, r.reason);
  });

  // The chip's matrix instructions, for the explicit level to pick one by
  // its shape and element types and to check a dot operand's k_width.
  m.def("matrix_instrs", [](const std::string &chip) {
    static const char *elems[] = {"bf16", "f16", "fp8", "fp4", "i8", "f32", "i32"};
    py::list out;
    for (const rocktile::MatrixCoreInstr &i : targetNamed(chip).matrixInstrs) {
      py::dict d;
      d["name"] = i.name.str();
      d["op"] = i.op.str();
      d["m"] = i.m, d["n"] = i.n, d["k"] = i.k;
      d["ab"] = elems[unsigned(i.ab)], d["acc"] = elems[unsigned(i.acc)];
      d["k_width"] = rocktile::operandKWidth(i);
      d["scaled"] = i.scaled != nullptr; // has a block-scaled form (tl.dot_scaled, mfma_scaled)
      // Bytes of E2M1 pairs a lane holds consecutively along K in that form.
      d["k_width_e2m1"] = i.scaled ? rocktile::operandKWidth(i.withE2M1(true, true)) / 2 : 0;
      out.append(d);
    }
    return out;
  });
  // The layout of a dot operand (0: A, 1: B, 2: D) as the explicit level
  // names it (rocktile::explicitDotLayout): (register, lane, warp) bases.
  // (register, lane, warp) bases of a layout, or the reason there is none.
  auto basesOf = [](const std::optional<rocktile::LinearLayout> &l, const std::string &why) {
    if (!l)
      throw py::value_error(why);
    py::list bases;
    for (unsigned in = 0; in < 3; ++in) {
      py::list perIn;
      for (const rocktile::LinearLayout::Coord &c : l->getBases(rocktile::LinearLayout::InDim(in)))
        perIn.append(std::vector<int64_t>(c.begin(), c.end()));
      bases.append(perIn);
    }
    return bases;
  };
  auto instrNamed = [](const std::string &chip, const std::string &name) -> const rocktile::MatrixCoreInstr & {
    const rocktile::Target &t = targetNamed(chip);
    auto instr = llvm::find_if(t.matrixInstrs, [&](const auto &i) { return i.name == name; });
    if (instr == t.matrixInstrs.end())
      throw py::value_error("no such matrix instruction");
    return *instr;
  };
  m.def("explicit_dot_layout", [=](const std::string &chip, const std::string &instrName, unsigned operand,
                                   const std::vector<int64_t> &shape, unsigned numWarps,
                                   const std::vector<std::array<int64_t, 2>> &warpTiles, bool transposed) {
    if (operand > 2)
      throw py::value_error("no such operand");
    std::string why;
    return basesOf(rocktile::explicitDotLayout(instrNamed(chip, instrName), rocktile::MatrixOperand(operand),
                                               shape, numWarps, warpTiles, transposed, why),
                   why);
  });
  // The same for a block-scaled product (rocktile::explicitScaledDotLayout;
  // operand 3: A's scales, 4: B's).
  m.def("explicit_scaled_dot_layout", [=](const std::string &chip, const std::string &instrName, unsigned operand,
                                          const std::vector<int64_t> &shape, unsigned numWarps,
                                          const std::vector<std::array<int64_t, 2>> &warpTiles, bool transposed,
                                          bool packedA, bool packedB, int64_t block) {
    if (operand > 4)
      throw py::value_error("no such operand");
    std::string why;
    return basesOf(rocktile::explicitScaledDotLayout(instrNamed(chip, instrName), rocktile::ScaledOperand(operand),
                                                     shape, numWarps, warpTiles, transposed, packedA, packedB,
                                                     block, why),
                   why);
  });

  m.def("has_tensor_data_mover", [](const std::string &chip) {
    const rocktile::Target *t = rocktile::lookupTarget(chip);
    return t && t->hasTensorDataMover;
  });

  // The arrangement and banks of an exchange through LDS (rocktile-lds-map's
  // numbers), for pictures: {"lds": str, "write"/"read": {access_bytes,
  // conflict_cycles, lanes_per_phase, lanes: [phase][bank] -> [lane]}}.
  m.def("lds_exchange_map", [](const PyType &from, const PyType &to, const std::string &chip, bool rowMajor) {
    const rocktile::Target &target = targetNamed(chip);
    auto fromType = dyn_cast<RankedTensorType>(from.value), toType = dyn_cast<RankedTensorType>(to.value);
    std::optional<rocktile::LinearLayout> fromLayout, toLayout;
    if (fromType && toType) {
      fromLayout = rocktile::tile::getLinearLayout(fromType);
      toLayout = rocktile::tile::getLinearLayout(toType);
    }
    if (!fromLayout || !toLayout || fromType.getShape() != toType.getShape() ||
        fromType.getElementType() != toType.getElementType())
      throw py::value_error("expected two tensor types of one shape and element type, each with a #tile layout");
    rocktile::LdsExchangeMap map =
        rocktile::ldsExchangeMap(*fromLayout, *toLayout, rocktile::exchangeBytes(fromType), target, rowMajor);
    auto side = [](const rocktile::LdsBankMap &m) {
      py::dict d;
      d["access_bytes"] = m.accessBytes;
      d["conflict_cycles"] = m.cost.conflictCycles;
      d["lanes_per_phase"] = m.lanesPerPhase;
      d["lanes"] = m.lanes;
      return d;
    };
    py::dict d;
    d["lds"] = map.lds.str();
    d["transposed_read"] = map.lds.transposedRead;
    d["write"] = side(map.write);
    d["read"] = side(map.read);
    return d;
  }, py::arg("from_type"), py::arg("to_type"), py::arg("target"), py::arg("row_major") = false);

  m.def("compile", [](const PyOperation &module, const std::string &target, unsigned numWarps,
                      bool allowEmulatorOnly, bool stopAtSimt) {
    auto moduleOp = dyn_cast<ModuleOp>(module.op);
    if (!moduleOp)
      throw py::value_error("compile() takes a builtin.module");
    targetNamed(target);
    OwningOpRef<ModuleOp> copy(moduleOp.clone());
    DiagnosticCollector diags(module.ctx.get());
    FailureOr<rocktile::CompileResult> result;
    {
      py::gil_scoped_release release;
      if (succeeded(verify(*copy)))
        result = rocktile::compile(*copy, {target, numWarps, allowEmulatorOnly, stopAtSimt});
    }
    if (failed(result))
      throw CompileError(diags.text());
    return compileResultDict(*result, diags.text()); // a successful compile reports only warnings
  }, py::arg("module"), py::arg("target"), py::arg("num_warps"),
     py::arg("allow_emulator_only") = false, py::arg("stop_at_simt") = false);

  // The code object of a SIMT program that compile(stop_at_simt=True) made.
  m.def("emit_code_object", [](const std::string &simtWithLocations, const std::string &target, unsigned numWarps) {
    targetNamed(target);
    IRContext ir;
    DiagnosticCollector diags(ir.ctx.get());
    rocktile::CompileResult result;
    result.simtWithLocations = simtWithLocations;
    LogicalResult ok = failure();
    {
      py::gil_scoped_release release;
      OwningOpRef<ModuleOp> simt = parseSourceString<ModuleOp>(simtWithLocations, ir.ctx.get());
      if (simt)
        ok = rocktile::emitCodeObject(*simt, {target, numWarps}, result);
    }
    if (failed(ok))
      throw CompileError(diags.text());
    return compileResultDict(result, diags.text());
  }, py::arg("simt_with_locations"), py::arg("target"), py::arg("num_warps"));
}
