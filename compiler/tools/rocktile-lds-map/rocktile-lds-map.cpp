// rocktile-lds-map: how a layout conversion goes through LDS. Prints the
// arrangement the compiler chooses (or the plain row-major one with
// --row-major), and for the first instruction of each side, which lane
// reads or writes which bank in each phase of the access (for transpose
// reads, at the address each lane supplies): a bank shown with two lanes is
// a conflict.
//
//   rocktile-lds-map --target=gfx950 --from='tensor<64x128xbf16, #tile.blocked<...>>'
//                    --to='tensor<64x128xbf16, #tile.linear<...>>'
#include "rocktile/Analysis/LdsLayout.h"
#include "rocktile/Analysis/LdsScratch.h"
#include "rocktile/Dialect/Tile/IR/Tile.h"
#include "rocktile/Target/Target.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace rocktile;

static llvm::cl::opt<std::string> chip("target", llvm::cl::desc("gfx950 or gfx1250"), llvm::cl::init("gfx950"));
static llvm::cl::opt<std::string> fromText("from", llvm::cl::desc("the written tensor type, with its layout"),
                                           llvm::cl::Required);
static llvm::cl::opt<std::string> toText("to", llvm::cl::desc("the read tensor type, with its layout"),
                                         llvm::cl::Required);
static llvm::cl::opt<bool> rowMajor("row-major", llvm::cl::desc("show the unswizzled row-major arrangement"));

static void printSide(const char *what, const LdsBankMap &map) {
  llvm::outs() << what << ": " << map.accessBytes << "-byte accesses, " << map.cost.instructions
               << " per workgroup, " << map.cost.conflictCycles << " conflict cycles\n";
  for (auto [phase, byBank] : llvm::enumerate(map.lanes)) {
    llvm::outs() << "  phase " << phase << " (lanes " << phase * map.lanesPerPhase << "-"
                 << (phase + 1) * map.lanesPerPhase - 1 << "), lane on each bank:\n";
    for (unsigned row = 0; row < byBank.size(); row += 16) {
      llvm::outs() << "    bank " << llvm::format_decimal(row, 2) << "-" << llvm::format_decimal(row + 15, 2) << ":";
      for (unsigned bank = row; bank < row + 16; ++bank) {
        const std::vector<int64_t> &lanes = byBank[bank];
        if (lanes.empty())
          llvm::outs() << "    .";
        else if (lanes.size() == 1)
          llvm::outs() << " " << llvm::format_decimal(lanes.front(), 4);
        else
          llvm::outs() << " " << llvm::format_decimal(lanes.size(), 3) << "x";
      }
      llvm::outs() << "\n";
    }
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "rocktile-lds-map: lanes and banks of an LDS exchange\n");
  const Target *target = lookupTarget(chip);
  if (!target) {
    llvm::errs() << "error: unknown target '" << chip << "'\n";
    return 1;
  }
  MLIRContext context;
  context.loadDialect<tile::TileDialect>();
  auto parse = [&](const std::string &text) -> std::optional<std::pair<RankedTensorType, LinearLayout>> {
    auto type = dyn_cast_or_null<RankedTensorType>(parseType(text, &context));
    std::optional<LinearLayout> layout = type ? tile::getLinearLayout(type) : std::nullopt;
    if (!layout) {
      llvm::errs() << "error: expected a tensor type with a #tile layout, got '" << text << "'\n";
      return std::nullopt;
    }
    return std::pair{type, *layout};
  };
  auto from = parse(fromText), to = parse(toText);
  if (!from || !to)
    return 1;
  if (from->first.getShape() != to->first.getShape() ||
      from->first.getElementType() != to->first.getElementType()) {
    llvm::errs() << "error: --from and --to must have one shape and element type\n";
    return 1;
  }
  LdsExchangeMap map = ldsExchangeMap(from->second, to->second, exchangeBytes(from->first), *target, rowMajor);
  llvm::outs() << "LDS on " << target->chip << " (" << target->ldsBanks << " banks of 4 bytes): " << map.lds.str()
               << "\n";
  printSide("write", map.write);
  printSide(map.lds.transposedRead ? "read (transpose reads)" : "read", map.read);
  return 0;
}
