// rocktile-opt: mlir-opt with the tile dialect, rocktile's passes and
// pipelines, and the upstream dialects and passes they use.
#include "rocktile/Pipeline/Pipeline.h"
#include "rocktile/Emulator/Passes.h"
#include "rocktile/Transforms/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// On a forward reference `%x#N` the MLIR parser makes a placeholder for
/// every result up to N, so a huge N exhausts memory before any diagnostic.
/// No rocktile op has more than a few results: larger numbers are refused.
static LogicalResult checkResultNumbers(const llvm::MemoryBuffer &input) {
  constexpr uint64_t kMaxResultNumber = 65535;
  StringRef text = input.getBuffer();
  auto isNameChar = [](char c) { return llvm::isAlnum(c) || StringRef("_$.-").contains(c); };
  for (size_t at = text.find('%'); at != StringRef::npos; at = text.find('%', at + 1)) {
    size_t hash = at + 1;
    while (hash < text.size() && isNameChar(text[hash]))
      ++hash;
    if (hash == at + 1 || hash >= text.size() || text[hash] != '#')
      continue;
    StringRef digits = text.substr(hash + 1).take_while(llvm::isDigit);
    uint64_t number;
    if (digits.empty() || (!digits.getAsInteger(10, number) && number <= kMaxResultNumber))
      continue;
    llvm::SourceMgr sources;
    sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(input.getMemBufferRef(), false), {});
    sources.PrintMessage(llvm::SMLoc::getFromPointer(digits.data()), llvm::SourceMgr::DK_Error,
                         "result number " + digits + " is out of range (at most " +
                             Twine(kMaxResultNumber) + ")");
    return failure();
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  DialectRegistry registry;
  rocktile::registerDialects(registry);
  registerTransformsPasses();
  registerSCFToControlFlowPass();
  registerReconcileUnrealizedCastsPass();
  rocktile::registerRocktilePasses();
  rocktile::emulator::registerEmulatorPasses();
  rocktile::registerPipelines();

  auto [inputName, outputName] =
      registerAndParseCLIOptions(argc, argv, "rocktile optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(MlirOptMain(argc, argv, inputName, outputName, registry));
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputName, &error);
  if (!input) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(checkResultNumbers(*input)))
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(outputName, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(input), registry, config)))
    return 1;
  output->keep();
  return 0;
}
