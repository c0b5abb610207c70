#include "rocktile/Analysis/AxisInfo.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include <numeric>

using namespace mlir;
using namespace rocktile;
namespace tile = rocktile::tile;

// Large enough to stand for "a multiple of anything" (e.g. the value 0).
static constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

static int64_t highestPowerOf2Divisor(int64_t v) {
  if (v == 0)
    return kMaxDivisibility;
  return std::min<int64_t>(v & -v, kMaxDivisibility);
}

static ArrayRef<int64_t> shapeOf(Type t) {
  if (auto r = dyn_cast<RankedTensorType>(t))
    return r.getShape();
  return {};
}

static unsigned rankOf(Value v) {
  return std::max<size_t>(shapeOf(v.getType()).size(), 1);
}

std::optional<int64_t> rocktile::getConstantInt(Value v) {
  if (auto splat = v.getDefiningOp<tile::SplatOp>())
    v = splat.getSrc();
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

bool rocktile::isZeroBits(Value v) {
  if (auto splat = v.getDefiningOp<tile::SplatOp>())
    v = splat.getSrc();
  Attribute a;
  if (!matchPattern(v, m_Constant(&a)))
    return false;
  if (auto dense = dyn_cast<DenseElementsAttr>(a))
    a = dense.isSplat() ? dense.getSplatValue<Attribute>() : Attribute();
  if (auto i = dyn_cast_or_null<IntegerAttr>(a))
    return i.getValue().isZero();
  if (auto f = dyn_cast_or_null<FloatAttr>(a))
    return f.getValue().bitcastToAPInt().isZero();
  return false;
}

static bool isNonNegative(Value v, unsigned depth) {
  if (depth > 16)
    return false;
  if (std::optional<int64_t> c = getConstantInt(v))
    return *c >= 0;
  auto nonNegative = [&](Value x) { return isNonNegative(x, depth + 1); };
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
    std::optional<int64_t> step = loop ? getConstantInt(loop.getStep()) : std::nullopt;
    return loop && arg == loop.getInductionVar() && step && *step > 0 && nonNegative(loop.getLowerBound());
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tile::ProgramIdOp, tile::NumProgramsOp, arith::ExtUIOp>(def))
    return true;
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::MinSIOp>(def))
    return nonNegative(def->getOperand(0)) && nonNegative(def->getOperand(1));
  if (isa<arith::MaxSIOp, arith::AndIOp>(def))
    return nonNegative(def->getOperand(0)) || nonNegative(def->getOperand(1));
  // The sign of the first operand decides.
  if (isa<arith::RemSIOp, arith::ShRSIOp, arith::ShRUIOp, arith::ExtSIOp, arith::IndexCastOp, tile::AssumeOp>(def))
    return nonNegative(def->getOperand(0));
  return false;
}

bool rocktile::isNonNegative(Value v) { return ::isNonNegative(v, 0); }

AxisInfo AxisInfo::unknown(unsigned rank) {
  AxisInfo info;
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  return info;
}

/// A value with every element equal, known to be a multiple of `div`.
static AxisInfo uniform(Value v, int64_t div) {
  AxisInfo info = AxisInfo::unknown(rankOf(v));
  ArrayRef<int64_t> shape = shapeOf(v.getType());
  for (unsigned d = 0; d < info.getRank(); ++d) {
    info.divisibility[d] = div;
    info.constancy[d] = shape.empty() ? 1 : shape[d];
  }
  return info;
}

static int64_t elementBytes(Type t) {
  Type elt = tile::getElementTypeOrSelf(t);
  if (auto p = dyn_cast<tile::PointerType>(elt))
    elt = p.getPointeeType();
  return std::max<int64_t>(elt.getIntOrFloatBitWidth() / 8, 1);
}

/// a + b, where b's divisibility is scaled by `bScale` (bytes per element
/// when adding an offset to a pointer).
static AxisInfo add(const AxisInfo &a, const AxisInfo &b, int64_t bScale) {
  AxisInfo r = AxisInfo::unknown(a.getRank());
  for (unsigned d = 0; d < a.getRank(); ++d) {
    // A run of consecutive values plus a run of equal values stays
    // consecutive over both runs.
    r.contiguity[d] = std::max(std::gcd(a.contiguity[d], b.constancy[d]),
                               std::gcd(a.constancy[d], b.contiguity[d]));
    r.divisibility[d] = std::gcd(a.divisibility[d], b.divisibility[d] * bScale);
    r.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  return r;
}

/// What holds for both `a` and `b` (runs of both lengths: the shorter).
static AxisInfo meet(const AxisInfo &a, const AxisInfo &b) {
  AxisInfo r = a;
  for (unsigned d = 0; d < r.getRank(); ++d) {
    r.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    r.divisibility[d] = std::gcd(a.divisibility[d], b.divisibility[d]);
    r.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  return r;
}

static bool operator==(const AxisInfo &a, const AxisInfo &b) {
  return a.contiguity == b.contiguity && a.divisibility == b.divisibility &&
         a.constancy == b.constancy;
}

AxisInfoAnalysis::AxisInfoAnalysis(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](func::FuncOp func) {
    for (BlockArgument arg : func.getArguments()) {
      auto div = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(), "tile.divisibility");
      infos[arg] = uniform(arg, div ? div.getInt() : 1);
    }
    if (!func.isExternal())
      visitBlock(func.getBody().front());
    return WalkResult::skip();
  });
}

void AxisInfoAnalysis::visitBlock(Block &block) {
  for (Operation &op : block)
    visitOp(&op);
}

void AxisInfoAnalysis::setResults(Operation *op, ArrayRef<AxisInfo> results) {
  for (auto [r, info] : llvm::zip(op->getResults(), results))
    infos[r] = info.getRank() == rankOf(r) ? info : AxisInfo::unknown(rankOf(r));
}

void AxisInfoAnalysis::visitOp(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return visitFor(loop);
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    for (Region *r : {&branch.getThenRegion(), &branch.getElseRegion()})
      if (!r->empty())
        visitBlock(r->front());
    SmallVector<AxisInfo> results;
    for (auto [i, r] : llvm::enumerate(branch.getResults())) {
      AxisInfo info = get(branch.thenYield().getOperand(i));
      results.push_back(meet(info, get(branch.elseYield().getOperand(i))));
    }
    return setResults(op, results);
  }
  for (Region &region : op->getRegions())
    for (Block &block : region) {
      for (BlockArgument arg : block.getArguments())
        infos[arg] = AxisInfo::unknown(rankOf(arg));
      visitBlock(block);
    }
  if (op->getNumResults() == 1)
    return setResults(op, {visit(op)});
  for (Value r : op->getResults())
    infos[r] = AxisInfo::unknown(rankOf(r));
}

/// Loop-carried values: start from what holds on entry, weaken by what the
/// body yields until nothing changes.
void AxisInfoAnalysis::visitFor(scf::ForOp loop) {
  int64_t ivDiv = std::gcd(get(loop.getLowerBound()).divisibility[0],
                           get(loop.getStep()).divisibility[0]);
  infos[loop.getInductionVar()] = uniform(loop.getInductionVar(), ivDiv);
  SmallVector<AxisInfo> state;
  for (Value init : loop.getInitArgs())
    state.push_back(get(init));
  for (int round = 0;; ++round) {
    for (auto [arg, info] : llvm::zip(loop.getRegionIterArgs(), state))
      infos[arg] = info;
    visitBlock(*loop.getBody());
    bool changed = false;
    for (auto [i, yielded] : llvm::enumerate(loop.getYieldedValues())) {
      AxisInfo next = meet(state[i], get(yielded));
      changed |= !(next == state[i]);
      state[i] = next;
    }
    if (!changed)
      break;
    if (round == 3) { // no fixed point soon: assume nothing
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
        state[i] = AxisInfo::unknown(rankOf(arg));
      for (auto [arg, info] : llvm::zip(loop.getRegionIterArgs(), state))
        infos[arg] = info;
      visitBlock(*loop.getBody());
      break;
    }
  }
  setResults(loop, state);
}

const AxisInfo &AxisInfoAnalysis::get(Value v) const {
  auto it = infos.find(v);
  assert(it != infos.end() && "value not analysed");
  return it->second;
}

AxisInfo AxisInfoAnalysis::visit(Operation *op) {
  if (op->getNumResults() != 1)
    return AxisInfo::unknown(1);
  Value result = op->getResult(0);
  auto operand = [&](unsigned i) -> const AxisInfo & {
    return get(op->getOperand(i));
  };
  return llvm::TypeSwitch<Operation *, AxisInfo>(op)
      .Case([&](arith::ConstantOp c) {
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          return uniform(result, highestPowerOf2Divisor(i.getInt()));
        if (auto s = dyn_cast<SplatElementsAttr>(c.getValue());
            s && isa<IntegerType>(s.getElementType()))
          return uniform(result,
                         highestPowerOf2Divisor(s.getSplatValue<APInt>().getSExtValue()));
        return AxisInfo::unknown(rankOf(result));
      })
      .Case([&](tile::AssumeOp a) {
        // The kernel's word: take whatever is stronger.
        AxisInfo info = get(a.getSrc());
        auto raise = [](SmallVector<int64_t, 4> &field, std::optional<ArrayRef<int64_t>> claim) {
          if (claim)
            for (auto [f, c] : llvm::zip(field, *claim))
              f = std::max(f, c);
        };
        raise(info.divisibility, a.getDivisibility());
        raise(info.contiguity, a.getContiguity());
        raise(info.constancy, a.getConstancy());
        return info;
      })
      .Case([&](tile::MakeRangeOp r) {
        AxisInfo info = AxisInfo::unknown(1);
        info.contiguity[0] = r.getEnd() - r.getStart();
        info.divisibility[0] = highestPowerOf2Divisor(r.getStart());
        return info;
      })
      // Facts about elements, not about where they live.
      .Case([&](tile::ConvertLayoutOp c) { return get(c.getSrc()); })
      .Case([&](tile::SplatOp s) {
        return uniform(result, get(s.getSrc()).divisibility[0]);
      })
      .Case([&](tile::BroadcastOp b) {
        AxisInfo info = get(b.getSrc());
        auto src = b.getSrc().getType().getShape();
        auto dst = b.getType().getShape();
        for (unsigned d = 0; d < src.size(); ++d)
          if (src[d] == 1 && dst[d] != 1)
            info.constancy[d] = dst[d];
        return info;
      })
      .Case([&](tile::ExpandDimsOp e) {
        AxisInfo info = get(e.getSrc());
        unsigned axis = e.getAxis();
        if (e.getSrc().getType().getRank() == 0)
          return info;
        // Along the new axis every element starts a run, so what divides
        // them all: only run starts are multiples where runs are longer
        // than 1 (rm[:, None] * stride is not aligned because rm's first
        // element is).
        int64_t div = kMaxDivisibility;
        for (auto [c, d] : llvm::zip(info.contiguity, info.divisibility))
          div = std::min(div, c > 1 ? 1 : d);
        info.contiguity.insert(info.contiguity.begin() + axis, 1);
        info.divisibility.insert(info.divisibility.begin() + axis, div);
        info.constancy.insert(info.constancy.begin() + axis, 1);
        return info;
      })
      .Case<tile::IntToPtrOp, tile::PtrToIntOp>([&](Operation *) {
        // The same addresses in bytes; consecutive integers are not
        // consecutive elements (nor the reverse).
        AxisInfo info = operand(0);
        std::fill(info.contiguity.begin(), info.contiguity.end(), 1);
        return info;
      })
      .Case([&](tile::AddPtrOp a) {
        return add(operand(0), operand(1), elementBytes(a.getType()));
      })
      .Case([&](arith::AddIOp) { return add(operand(0), operand(1), 1); })
      .Case([&](arith::SubIOp) {
        // Subtracting runs of equal values keeps the runs of `a`; a
        // decreasing run is not contiguous.
        AxisInfo r = add(operand(0), operand(1), 1);
        for (unsigned d = 0; d < r.getRank(); ++d)
          r.contiguity[d] = std::gcd(operand(0).contiguity[d], operand(1).constancy[d]);
        return r;
      })
      .Case<arith::RemSIOp, arith::RemUIOp>([&](Operation *) {
        // x % y for a y uniform along d: a run of consecutive values that
        // starts at a multiple of c does not wrap when y is a multiple of c
        // (offsets `(pid * BLOCK + arange) % M` stay contiguous for M % 16 == 0).
        const AxisInfo &x = operand(0), &y = operand(1);
        AxisInfo r = AxisInfo::unknown(x.getRank());
        for (unsigned d = 0; d < r.getRank(); ++d) {
          int64_t ySize = std::max<int64_t>(shapeOf(op->getOperand(1).getType()).empty()
                                                ? 1
                                                : shapeOf(op->getOperand(1).getType())[d],
                                            1);
          bool yUniform = y.constancy[d] >= ySize;
          if (yUniform)
            r.contiguity[d] = std::gcd(x.contiguity[d], std::gcd(x.divisibility[d], y.divisibility[d]));
          r.divisibility[d] = std::gcd(x.divisibility[d], y.divisibility[d]);
          r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
        }
        return r;
      })
      .Case<arith::DivSIOp, arith::DivUIOp>([&](Operation *) {
        // Runs of equal values stay equal; so do runs of c consecutive
        // values, aligned to c, divided by a uniform multiple of c.
        const AxisInfo &x = operand(0), &y = operand(1);
        AxisInfo r = AxisInfo::unknown(x.getRank());
        // A multiple of D divided by a constant c dividing D (K // 2 of
        // a K divisible by 16) is an exact quotient, a multiple of D / c.
        std::optional<int64_t> c = getConstantInt(op->getOperand(1));
        for (unsigned d = 0; d < r.getRank(); ++d) {
          if (c && *c > 0 && x.divisibility[d] % *c == 0)
            r.divisibility[d] = x.divisibility[d] / *c;
          r.constancy[d] = std::gcd(x.constancy[d], y.constancy[d]);
          if (y.constancy[d] > 1 && x.contiguity[d] > 1)
            r.constancy[d] = std::max(r.constancy[d],
                                      std::gcd(std::gcd(x.contiguity[d], y.constancy[d]),
                                               std::gcd(x.divisibility[d], y.divisibility[d])));
        }
        return r;
      })
      .Case([&](arith::MulIOp) {
        // x * 1 (a constexpr stride of 1) is x.
        for (unsigned i : {0u, 1u})
          if (getConstantInt(op->getOperand(i)) == 1)
            return operand(1 - i);
        AxisInfo r = AxisInfo::unknown(operand(0).getRank());
        for (unsigned d = 0; d < r.getRank(); ++d) {
          r.divisibility[d] = std::min(
              operand(0).divisibility[d] * operand(1).divisibility[d],
              kMaxDivisibility);
          r.constancy[d] = std::gcd(operand(0).constancy[d], operand(1).constancy[d]);
        }
        return r;
      })
      .Case([&](arith::CmpIOp c) {
        AxisInfo r = AxisInfo::unknown(operand(0).getRank());
        const AxisInfo &a = operand(0), &b = operand(1);
        // x < B and x >= B change where x reaches B (so do B > x and B <= x);
        // x <= B and x > B where it reaches B + 1, which is no multiple of
        // anything.
        using P = arith::CmpIPredicate;
        P pred = c.getPredicate();
        bool boundRight = pred == P::slt || pred == P::sge || pred == P::ult || pred == P::uge;
        bool boundLeft = pred == P::sgt || pred == P::sle || pred == P::ugt || pred == P::ule;
        const AxisInfo &x = boundLeft ? b : a, &bound = boundLeft ? a : b;
        for (unsigned d = 0; d < r.getRank(); ++d) {
          r.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
          // A run of consecutive values starting at a multiple of D crosses
          // a uniform bound that is a multiple of D only between runs of D.
          if ((boundRight || boundLeft) && bound.constancy[d] > 1 && x.contiguity[d] > 1)
            r.constancy[d] = std::max(
                r.constancy[d],
                std::gcd(std::gcd(x.contiguity[d], bound.constancy[d]),
                         std::gcd(x.divisibility[d], bound.divisibility[d])));
        }
        return r;
      })
      .Case<arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>([&](Operation *) {
        // Either operand, so a multiple of what divides both (max(K, 0)
        // keeps K's divisibility); equal where both are.
        AxisInfo r = AxisInfo::unknown(operand(0).getRank());
        for (unsigned d = 0; d < r.getRank(); ++d) {
          r.divisibility[d] = std::gcd(operand(0).divisibility[d], operand(1).divisibility[d]);
          r.constancy[d] = std::gcd(operand(0).constancy[d], operand(1).constancy[d]);
        }
        return r;
      })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(
          [&](Operation *) { return operand(0); })
      .Case<arith::AndIOp, arith::OrIOp, arith::SelectOp>([&](Operation *) {
        // Runs of equal values survive where every operand has them.
        AxisInfo r = uniform(result, 1);
        for (Value v : op->getOperands())
          if (rankOf(v) == r.getRank())
            for (unsigned d = 0; d < r.getRank(); ++d)
              r.constancy[d] = std::gcd(r.constancy[d], get(v).constancy[d]);
        return r;
      })
      .Default([&](Operation *) { return AxisInfo::unknown(rankOf(result)); });
}

int64_t rocktile::getAccessVectorWidth(const AxisInfoAnalysis &axis, Value ptr,
                                       Value mask, unsigned dim,
                                       int64_t contiguousRegisters) {
  if (!isa<RankedTensorType>(ptr.getType()))
    return 1;
  const AxisInfo &p = axis.get(ptr);
  int64_t bytes = elementBytes(ptr.getType());
  int64_t alignedElements = std::max<int64_t>(p.divisibility[dim] / bytes, 1);
  int64_t width = std::min({contiguousRegisters, p.contiguity[dim],
                            alignedElements, 16 / bytes});
  if (mask)
    width = std::min(width, axis.get(mask).constancy[dim]);
  return std::max<int64_t>(width, 1);
}
