// One piece of work run on a thread of its own while the caller goes on, and
// joined, at the latest, when the task goes. When the system has no thread to
// give (std::thread throws), nothing is lost: Run does the work at once on the
// caller's thread; TryRun says so and leaves the work to the caller.
#pragma once

#include <functional>
#include <system_error>
#include <thread>
#include <utility>

namespace remap {

class BackgroundTask {
 public:
  BackgroundTask() = default;
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;
  ~BackgroundTask() { Join(); }

  // Starts `work` on another thread, or does it here, now, if none is to be had.
  void Run(std::function<void()> work) {
    if (Start(std::move(work))) return;
    work_();
    work_ = nullptr;
  }

  // Starts `work` on another thread; false, with `work` not done (and
  // dropped), if none is to be had.
  bool TryRun(std::function<void()> work) {
    if (Start(std::move(work))) return true;
    work_ = nullptr;
    return false;
  }

  // Started on another thread and not yet joined.
  bool Running() const { return thread_.joinable(); }

  // Waits for the work; what it captured is released here.
  void Join() {
    if (!thread_.joinable()) return;
    thread_.join();
    work_ = nullptr;
  }

 private:
  // A task runs one piece of work at a time: an earlier one is joined first.
  // The work is held here, not handed to std::thread: a failed start would
  // destroy it, and what it captures, before Run could do it itself.
  bool Start(std::function<void()> work) {
    Join();
    work_ = std::move(work);
    try {
      thread_ = std::thread([this] { work_(); });
      return true;
    } catch (const std::system_error&) {
      return false;
    }
  }

  std::function<void()> work_;
  std::thread thread_;
};

}  // namespace remap
