// Compiles the `target { name doc domain op }` blocks of a rule file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "proto/precompiled_rules.pb.h"
#include "proto/rules.pb.h"
#include "rules/target.h"

namespace remap {

// `tree` holds the places of the block's fields (may be null); `where` is the
// block itself. Returns null after appending "file:line:col: error: ..." lines.
std::unique_ptr<Target> CompileTarget(const rulefile::Target& msg, const rulefile::FieldPositions* tree,
                                      const SourceLocation& where, std::vector<std::string>* errors);

}  // namespace remap
