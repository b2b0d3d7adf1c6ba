// The check of a rewrite's added nodes (CheckAddedNodes), run on a thread of
// its own while the output is serialized and written: the file replaces
// nothing, and the model is not freed, before its verdict is in. On a
// million-node rewrite the check and the save each take a tenth of a second
// and more; run one after the other, the CPU waited through the save's sync.
#pragma once

#include <functional>

#include "core/background_task.h"
#include "core/status.h"

namespace remap {

class PendingValidation {
 public:
  // With no thread to spare, the check runs here, first.
  explicit PendingValidation(std::function<Status()> check) {
    task_.Run([this, check = std::move(check)] { status_ = check(); });
  }

  // The verdict, once the check is done. Called from the thread that made it.
  const Status& Wait() {
    task_.Join();
    return status_;
  }

 private:
  Status status_;
  BackgroundTask task_;  // after status_: joined before status_ goes
};

}  // namespace remap
