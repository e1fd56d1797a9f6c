//===- CheckpointFiles.h - The writing side's files -------------*- C++ -*-===//
//
// What `loomrun --train` does to a checkpoint directory besides writing
// tensors: the lock that keeps a second job out of it, temporary names
// no other job can collide with, a shard written atomically, and the
// removal of old checkpoints (--keep-last).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_RUNTIME_TRAIN_CHECKPOINTFILES_H
#define LOOM_RUNTIME_TRAIN_CHECKPOINTFILES_H

#include "loom/runtime/Safetensors.h"
#include <cstdint>
#include <string>
#include <vector>

namespace loom::rt::train {

/// An exclusive lock (flock) on DIR/.lock, held until destruction. The
/// file records the holder's pid and host for the message a second job
/// gets; the kernel drops the lock when the holder dies, so a lock file
/// left behind blocks nobody.
class DirectoryLock {
public:
  DirectoryLock() = default;
  DirectoryLock(const DirectoryLock &) = delete;
  DirectoryLock &operator=(const DirectoryLock &) = delete;
  ~DirectoryLock();

  /// Creates `dir` if missing and locks it. Fails when another process
  /// holds the lock (the message names it); a file system without flock
  /// leaves `warning` set and succeeds unlocked.
  bool acquire(const std::string &dir, std::string &error,
               std::string &warning);

private:
  int fd = -1;
};

/// The file rank `rank` writes its shard to: "rank-00003.safetensors".
std::string shardName(int rank);

/// ".NAME.<pid>-<random>.tmp" beside `path`: unique to this process, and
/// hidden from the names a checkpoint lists.
std::string temporaryPath(const std::string &path);

/// Writes `tensors` as the safetensors file `path` through a temporary
/// file, fsync and rename; returns its size and CRC-32. `kill` is the
/// fault hook (a write cut short).
std::string writeShard(const std::string &path,
                       const std::vector<safetensors::Tensor> &tensors,
                       const safetensors::Metadata &metadata, uint64_t &size,
                       uint32_t &crc, void (*kill)());

/// Removes the temporary files (".*.tmp") that a job which died left in
/// `dir`. Only for a directory this job holds the lock of.
void removeTemporaries(const std::string &dir);

/// With `step-<done>` just completed under `root`: keeps the `keep` newest
/// complete checkpoints up to it and removes the older ones, and any
/// incomplete step directory older than it. Newer directories are left
/// alone. A checkpoint loses its manifest first, so one cut short never
/// looks complete. Returns what could not be removed ("" when all was).
std::string pruneCheckpoints(const std::string &root, int64_t done,
                             int64_t keep);

} // namespace loom::rt::train

#endif // LOOM_RUNTIME_TRAIN_CHECKPOINTFILES_H
