// LastDefined: the last value a walk over a graph's nodes defined, with the
// walk's record of it. A node reads its predecessor's output far more often
// than anything else (a chain of ops); a walk that keeps that one answer
// needs no table lookup then. The name is the model's own string: valid for
// one walk, never kept past it.
#pragma once

#include <string_view>

namespace remap {

template <typename Record>
class LastDefined {
 public:
  // The record of `value` when it is the last one defined, else null.
  Record* Get(std::string_view value) const { return record_ && value == name_ ? record_ : nullptr; }
  // `record` must stay put while the walk goes on.
  void Set(std::string_view value, Record* record) {
    name_ = value;
    record_ = record;
  }

 private:
  std::string_view name_;
  Record* record_ = nullptr;
};

}  // namespace remap
