// The check of a rewrite's added nodes (CheckAddedNodes), run on a thread of
// its own while the output is serialized and written: the file replaces
// nothing, and the model is not freed, before its verdict is in. On a
// million-node rewrite the check and the save each take a tenth of a second
// and more; run one after the other, the CPU waited through the save's sync.
#pragma once

#include <functional>
#include <system_error>
#include <thread>

#include "core/status.h"

namespace remap {

class PendingValidation {
 public:
  explicit PendingValidation(std::function<Status()> check) {
    try {
      thread_ = std::thread([this, check] { status_ = check(); });
    } catch (const std::system_error&) {
      status_ = check();  // no thread to spare: checked here, first
    }
  }
  PendingValidation(const PendingValidation&) = delete;
  PendingValidation& operator=(const PendingValidation&) = delete;
  ~PendingValidation() { Wait(); }

  // The verdict, once the check is done. Called from the thread that made it.
  const Status& Wait() {
    if (thread_.joinable()) thread_.join();
    return status_;
  }

 private:
  Status status_;
  std::thread thread_;
};

}  // namespace remap
