// The lane tables the layouts and the emulator are checked against: the
// team's shared/isa tables (vendored in test/unit/isa/matrix_layouts.json)
// and rocktile's own for the instructions those lack
// (test/unit/isa/rocktile_matrix_layouts.json, inferences marked).
#ifndef ROCKTILE_TEST_UNIT_ISATABLES_H
#define ROCKTILE_TEST_UNIT_ISATABLES_H

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <gtest/gtest.h>

namespace rocktile::test {

inline llvm::json::Value parseJsonFile(const char *path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(bool(buffer)) << "cannot read " << path;
  if (!buffer)
    return llvm::json::Object();
  auto parsed = llvm::json::parse((*buffer)->getBuffer());
  EXPECT_TRUE(bool(parsed)) << path;
  return parsed ? std::move(*parsed) : llvm::json::Value(llvm::json::Object());
}

/// The entry of instruction `name` of `chip` in either table, or null.
class IsaTables {
public:
  IsaTables() : shared(parseJsonFile(ROCKTILE_ISA_JSON)), own(parseJsonFile(ROCKTILE_OWN_ISA_JSON)) {}
  const llvm::json::Object *entry(llvm::StringRef chip, llvm::StringRef name) const {
    for (const llvm::json::Value *tables : {&shared, &own})
      if (const llvm::json::Object *perChip = tables->getAsObject()->getObject(chip))
        if (const llvm::json::Object *e = perChip->getObject(name))
          return e;
    return nullptr;
  }

private:
  llvm::json::Value shared, own;
};

} // namespace rocktile::test

#endif
