// Status and Expected<T>: how the library reports failure. Nothing thrown
// inside the library crosses its API.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace remap {

enum class ErrorCode {
  kOk = 0,
  kInputNotFound,    // a model or rule path does not exist
  kInputUnreadable,  // exists but cannot be read
  kNotOnnx,          // bytes are not an ONNX ModelProto
  kInvalidModel,     // parses, but violates what we rely on
  kRuleSyntax,       // a rule file does not parse or is inconsistent
  kOpsetRefused,     // --opset cannot be honoured
  kOutputFailed,     // the output could not be written
  kValidationFailed, // the rewritten model fails ONNX checks
  kUsage,            // bad options given to the library
};

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

template <typename T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status error) : error_(std::move(error)) {}

  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status& status() const { return error_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status error_;
};

}  // namespace remap
