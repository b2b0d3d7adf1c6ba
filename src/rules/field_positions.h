// Where the fields of a parsed rule file were in its text: built from
// protobuf's TextFormat::ParseInfoTree when a text is parsed, or read back
// from a built-in file's precompiled form. The rule compiler asks for a
// field's place by number, so compiling needs no descriptors.
#pragma once

#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include "proto/precompiled_rules.pb.h"
#include "rules/source_map.h"

namespace remap {

// 0-based, as the parser counts; line -1 when the text did not have the field.
struct FieldPlace {
  int line = -1;
  int column = -1;
};

// `positions` may be null (nothing known). `index` is -1 for a singular field.
FieldPlace PlaceOf(const rulefile::FieldPositions* positions, int number, int index = -1);
// The field's place in `fallback`'s file, 1-based; `fallback` itself where
// the text did not have the field.
SourceLocation LocationOf(const rulefile::FieldPositions* positions, int number, const SourceLocation& fallback,
                          int index = -1);
const rulefile::FieldPositions* NestedPositions(const rulefile::FieldPositions* positions, int number, int index = -1);

// Every field `tree` has a place for, of `msg` and of the messages in it.
void RecordPositions(const google::protobuf::Message& msg, const google::protobuf::TextFormat::ParseInfoTree& tree,
                     rulefile::FieldPositions* out);

}  // namespace remap
