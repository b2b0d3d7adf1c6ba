#include "rules/field_positions.h"

namespace remap {

namespace {

namespace pb = google::protobuf;

// A message holds a few dozen fields at most: a scan beats any index.
const rulefile::FieldPosition* Find(const rulefile::FieldPositions* positions, int number, int index) {
  if (!positions) return nullptr;
  for (const rulefile::FieldPosition& p : positions->field())
    if (p.number() == number && p.index() == index) return &p;
  return nullptr;
}

void RecordField(const pb::Message& msg, const pb::FieldDescriptor* field, int index,
                 const pb::TextFormat::ParseInfoTree& tree, rulefile::FieldPositions* out) {
  const pb::TextFormat::ParseLocationRange place = tree.GetLocationRange(field, index);
  const pb::TextFormat::ParseInfoTree* nested =
      field->cpp_type() == pb::FieldDescriptor::CPPTYPE_MESSAGE ? tree.GetTreeForNested(field, index) : nullptr;
  if (place.start.line < 0 && !nested) return;
  rulefile::FieldPosition* p = out->add_field();
  p->set_number(field->number());
  p->set_index(index);
  p->set_line(place.start.line);
  p->set_column(place.start.column);
  if (!nested) return;
  const pb::Reflection* reflection = msg.GetReflection();
  const pb::Message& sub =
      index < 0 ? reflection->GetMessage(msg, field) : reflection->GetRepeatedMessage(msg, field, index);
  RecordPositions(sub, *nested, p->mutable_nested());
}

}  // namespace

FieldPlace PlaceOf(const rulefile::FieldPositions* positions, int number, int index) {
  const rulefile::FieldPosition* p = Find(positions, number, index);
  if (!p) return {};
  return {p->line(), p->column()};
}

SourceLocation LocationOf(const rulefile::FieldPositions* positions, int number, const SourceLocation& fallback,
                          int index) {
  const FieldPlace place = PlaceOf(positions, number, index);
  if (place.line < 0) return fallback;
  return SourceLocation{fallback.file, place.line + 1, place.column + 1};
}

const rulefile::FieldPositions* NestedPositions(const rulefile::FieldPositions* positions, int number, int index) {
  const rulefile::FieldPosition* p = Find(positions, number, index);
  return p && p->has_nested() ? &p->nested() : nullptr;
}

void RecordPositions(const pb::Message& msg, const pb::TextFormat::ParseInfoTree& tree,
                     rulefile::FieldPositions* out) {
  const pb::Descriptor* desc = msg.GetDescriptor();
  const pb::Reflection* reflection = msg.GetReflection();
  for (int f = 0; f < desc->field_count(); ++f) {
    const pb::FieldDescriptor* field = desc->field(f);
    if (field->is_repeated()) {
      const int n = reflection->FieldSize(msg, field);
      for (int k = 0; k < n; ++k) RecordField(msg, field, k, tree, out);
    } else {
      RecordField(msg, field, -1, tree, out);
    }
  }
}

}  // namespace remap
