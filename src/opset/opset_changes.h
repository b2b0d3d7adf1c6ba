// What each default-domain ("" / ai.onnx) operator version changed, opsets 1..24.
// Used before raising a model's default opset: a node whose operator has a
// kSemantic change in (old, new] may compute something else at the new opset.
#pragma once

#include <string>
#include <vector>

namespace remap {

enum class ChangeKind {
  kIntroduced,  // first version of the operator
  kTypesOnly,   // only adds types / relaxes limits / adds attrs whose defaults keep the old meaning
  kSemantic,    // attributes or inputs moved, defaults or behaviour changed, or not sure
};

struct OpsetChange {
  const char* op_type;  // "ReduceSum"
  int since_version;    // 18
  ChangeKind kind;      // kSemantic
  const char* note;     // "axes moved from attribute to optional input"
};

// Every change of op_type's default-domain definition with from < since_version <= to, oldest first.
std::vector<const OpsetChange*> ChangesBetween(const std::string& op_type, int from, int to);

// Newest default-domain opset the table describes (24).
int NewestTabledOpset();

// The whole table, grouped by opset (for listings and consistency checks).
const std::vector<OpsetChange>& AllOpsetChanges();

}  // namespace remap
