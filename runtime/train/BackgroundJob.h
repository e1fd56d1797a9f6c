//===- BackgroundJob.h - One job at a time on a thread ----------*- C++ -*-===//
//
// The thread that writes asynchronous checkpoints: it runs one job at a
// time (the caller waits for the previous before it starts the next), and
// the caller polls it between training steps.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_BACKGROUNDJOB_H
#define LOOM_RUNTIME_TRAIN_BACKGROUNDJOB_H

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace loom::rt::train {

class BackgroundJob {
public:
  BackgroundJob() = default;
  BackgroundJob(const BackgroundJob &) = delete;
  BackgroundJob &operator=(const BackgroundJob &) = delete;
  /// Waits for the job in flight, whose outcome is then lost.
  ~BackgroundJob() { wait(); }

  /// Runs `job` (which returns an error, "" for success) on a new thread.
  /// No job may be in flight.
  void start(std::function<std::string()> job) {
    done.store(false, std::memory_order_relaxed);
    thread = std::thread([this, job = std::move(job)] {
      outcome = job();
      done.store(true, std::memory_order_release);
    });
  }
  /// Whether no job is in flight (never started, or finished).
  bool finished() const {
    return !thread.joinable() || done.load(std::memory_order_acquire);
  }
  /// Waits for the job in flight; returns its outcome ("" without one).
  std::string wait() {
    if (!thread.joinable())
      return "";
    thread.join();
    return std::move(outcome);
  }

private:
  std::thread thread;
  std::atomic<bool> done{true};
  std::string outcome;
};

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_BACKGROUNDJOB_H
